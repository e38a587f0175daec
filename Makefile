# fastrain — two commands for everyone:
#   make lab    set up .venv (once) and open the course in JupyterLab
#   make test   set up .venv (once) and run the whole test suite (what CI runs)
# Other targets: make demo (instructor dashboard), make bench (benchmarks), make sync (authoring).
# Every target calls `python -m fastrain_lib <target>` (fastrain_lib/cli/commands.py has the command
# lines): where there is no make (Windows), `python -m fastrain_lib lab` does the same, install included.

PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.fastrain-installed
LOG     = $(VENV)/install.log
PORT   ?= 8888
# Test workers: one more than the cores (fastrain_lib/cli/commands.py says why), unless JOBS is given.
JOBS   ?=
# The dashboard listens on this machine only unless told otherwise (README.bn.md explains how
# to share it safely on a lab network): make demo DEMO_IP=<lab LAN address> DEMO_TOKEN=<long random token>
# On any address but loopback, scripts/course_jupyter.py generates a token when DEMO_TOKEN is empty and prints the URL.
DEMO_IP    ?= 127.0.0.1
DEMO_TOKEN ?=

.PHONY: lab test demo bench sync install gpu-check colab-env

install: $(STAMP)

# Re-runs only when pyproject.toml changes: running `make lab` twice does not reinstall.
# Extras: lab = JupyterLab + Voila (make lab, make demo), dev = the test tools. The package alone
# (what Colab installs) needs neither.
EXTRAS ?= lab,dev
# The venv is created with $(PYTHON); the install log is $(LOG).
$(STAMP): pyproject.toml setup.py
	@$(PYTHON) -m fastrain_lib install --venv $(VENV) --extras $(EXTRAS)

# make lab and make demo start through scripts/course_jupyter.py: it gives the page the course's
# Bengali font before any cell runs (JupyterLab's custom CSS, a Voilà template), from a course-local
# Jupyter folder; your own ~/.jupyter is read as usual and never written to.
COURSE_JUPYTER ?= $(VENV)/fastrain-jupyter

RUN = $(PY) -m fastrain_lib
lab: $(STAMP)
	$(RUN) lab --no-install --venv $(VENV) --port $(PORT) --jupyter-dir $(COURSE_JUPYTER)

# Lessons (notebooks/) are executed once in Bengali, beside a background load, and checked for errors,
# noisy verdicts, raw values and English: 00-07 by Run All in a real browser (tests/browser/test_lessons.py),
# 98 and 99 by tests/test_lessons_loaded.py; once in English (tests/test_english_mode.py). Each exercise and
# solution pair runs once per language: nbval runs the exercises in Bengali (what a student opens),
# tests/test_english_mode_exercises.py the solutions in English; docs/test-properties.md says why.
test: $(STAMP)
	$(RUN) test --no-install --venv $(VENV) $(if $(JOBS),--jobs $(JOBS),)

demo: $(STAMP)
	$(RUN) demo --no-install --venv $(VENV) --port $(PORT) --jupyter-dir $(COURSE_JUPYTER) --demo-ip $(DEMO_IP) \
	  $(if $(DEMO_TOKEN),--demo-token $(DEMO_TOKEN),)

# The Colab-like environment that tests/test_colab.py runs the lessons in (Colab's pinned versions,
# scripts/colab-pins.txt), cached under ~/.cache/fastrain; `make test` builds it when missing too.
colab-env: $(STAMP)
	$(RUN) colab-env --no-install --venv $(VENV)

bench: $(STAMP)
	$(RUN) bench --no-install --venv $(VENV)

sync: $(STAMP)
	$(RUN) sync --no-install --venv $(VENV)

# make gpu-check: on a machine with an NVIDIA GPU, proves the GPU side of the course in at most
# 8 minutes, offline (README.bn.md explains). No install step: a GPU server brings its own torch.
#   DRY_RUN=1 lists the steps   WHEELS=dir installs missing tools from carried wheels
#   APEX=path builds NVIDIA Apex for this GPU   BUDGET=seconds (default 480)
# It runs on the venv's Python when there is one, else on $(PYTHON) (fastrain_lib/cli/main.py).
gpu-check:
	$(PYTHON) -m fastrain_lib gpu-check --venv $(VENV) -- $(if $(DRY_RUN),--dry-run,) $(if $(WHEELS),--wheels $(WHEELS),) \
	  $(if $(APEX),--apex $(APEX),) $(if $(BUDGET),--budget $(BUDGET),)
