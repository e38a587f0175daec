"""Lesson 05c sharding and pipelines: its panel, verdict rules, exercise checks and messages
(notebooks/05c_sharding_and_pipelines*.ipynb). docs/architecture.md says what goes where."""
