"""Lesson 05 data vs model parallelism: its panel, verdict rules, exercise checks and messages
(notebooks/05_data_vs_model_parallel*.ipynb). docs/architecture.md says what goes where."""
