"""Lesson 00 setup: what this machine is: its panel, verdict rules, exercise checks and messages
(notebooks/00_setup*.ipynb). docs/architecture.md says what goes where."""
