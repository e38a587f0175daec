"""`python -m fastrain_lib <command>`: the course's commands where `make` is missing (Windows lab PCs).

The Makefile calls the same code (`make lab` runs `python -m fastrain_lib lab`), so the two can never
disagree. commands.py builds each command line; run.py creates the venv, installs and starts them.
"""
