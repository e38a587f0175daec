"""Lesson 06 sync vs async SGD: its panel, verdict rules, exercise checks and messages
(notebooks/06_sync_vs_async_sgd*.ipynb). docs/architecture.md says what goes where."""
