"""Lesson 02 .to(device) and the training loop: its panel, verdict rules, exercise checks and messages
(notebooks/02_to_device*.ipynb). docs/architecture.md says what goes where."""
