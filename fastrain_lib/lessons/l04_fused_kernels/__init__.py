"""Lesson 04 fused kernels: its panel, verdict rules, exercise checks and messages
(notebooks/04_fused_kernels*.ipynb). docs/architecture.md says what goes where."""
