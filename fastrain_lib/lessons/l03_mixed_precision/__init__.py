"""Lesson 03 mixed precision (AMP): its panel, verdict rules, exercise checks and messages
(notebooks/03_mixed_precision*.ipynb). docs/architecture.md says what goes where."""
