"""Lesson 01 GPU vs CPU: its panel, verdict rules, exercise checks and messages
(notebooks/01_gpu_vs_cpu*.ipynb). docs/architecture.md says what goes where."""
