"""Lesson 05b DDP in depth: its panel, verdict rules, exercise checks and messages
(notebooks/05b_ddp_in_depth*.ipynb). docs/architecture.md says what goes where."""
