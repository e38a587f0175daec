"""Lesson 07 capstone: a Bengali char-GPT: its panel, verdict rules, exercise checks and messages
(notebooks/07_capstone*.ipynb). docs/architecture.md says what goes where."""
