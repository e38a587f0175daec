# fastrain — two commands for everyone:
#   make lab    set up .venv (once) and open the course in JupyterLab
#   make test   set up .venv (once) and run the whole test suite (what CI runs)
# Other targets: make demo (instructor dashboard), make bench (benchmarks), make sync (authoring).

PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.fastrain-installed
LOG     = $(VENV)/install.log
# JupyterLab refuses to run as root without --allow-root; add it only then.
ROOT_FLAG = $(if $(filter 0,$(shell id -u)),--allow-root,)
PORT   ?= 8888
# Test workers: one more than the cores. The suite's workers often wait (on a notebook's kernel, a
# browser, real processes, a timeout), so a third worker on 2 cores kept them busy: make test took
# 547 s with 3 workers and 647 s with 2 (CPU used: 81% vs 75%; issue 29, docs/test-durations.md).
JOBS   ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) + 1 )))
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
$(STAMP): pyproject.toml setup.py
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || { \
	  echo "✗ .venv তৈরি করা যায়নি। Python 3.10+ ও venv আছে কিনা দেখো (Debian/Ubuntu: sudo apt install python3-venv)।"; \
	  echo "✗ Could not create .venv. Check Python 3.10+ with venv (Debian/Ubuntu: sudo apt install python3-venv)."; exit 1; }
	@echo "→ প্যাকেজ ইনস্টল হচ্ছে (প্রথমবার কয়েক মিনিট লাগে) / installing packages (a few minutes the first time)…"
	@$(PY) -m pip install -q -e ".[$(EXTRAS)]" > $(LOG) 2>&1 || { tail -n 20 $(LOG); \
	  echo "✗ ইনস্টল ব্যর্থ: pip install -e .[$(EXTRAS)]। ইন্টারনেট ও ডিস্কের জায়গা দেখো, তারপর আবার make চালাও। পুরো লগ: $(LOG)"; \
	  echo "✗ Install failed: pip install -e .[$(EXTRAS)]. Check the internet connection and disk space, then run make again. Full log: $(LOG)"; exit 1; }
	@$(PY) -m fastrain_lib.ui.fontcheck || { \
	  echo "✗ বাংলা ফন্ট matplotlib-এ নিবন্ধন করা যায়নি / the Bengali font could not be registered with matplotlib"; exit 1; }
	@touch $(STAMP)
	@echo "✓ প্রস্তুত / ready"

# make lab and make demo start through scripts/course_jupyter.py: it gives the page the course's
# Bengali font before any cell runs (JupyterLab's custom CSS, a Voilà template), from a course-local
# Jupyter folder; your own ~/.jupyter is read as usual and never written to.
COURSE_JUPYTER ?= $(VENV)/fastrain-jupyter

lab: $(STAMP)
	@echo "→ JupyterLab চালু হচ্ছে: নিচের টোকেনসহ URL ব্রাউজারে খোলো / starting JupyterLab: open the URL with its token below"
	$(PY) scripts/course_jupyter.py --dir $(COURSE_JUPYTER) lab --ip=127.0.0.1 --port=$(PORT) --no-browser $(ROOT_FLAG) \
	  --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_setup.ipynb

# Lessons (notebooks/) are executed once in Bengali, beside a background load, and checked for errors,
# noisy verdicts, raw values and English: 00-07 by Run All in a real browser (tests/browser/test_lessons.py),
# 98 and 99 by tests/test_lessons_loaded.py; once in English (tests/test_english_mode.py). Each exercise and
# solution pair runs once per language: nbval runs the exercises in Bengali (what a student opens),
# tests/test_english_mode_exercises.py the solutions in English; docs/test-properties.md says why.
test: $(STAMP)
	FASTRAIN_MODE=ci $(PY) -m pytest -n $(JOBS) --dist loadfile --nbval-lax --nbval-current-env \
	  --nbval-cell-timeout=600 tests exercises

demo: $(STAMP)
	FASTRAIN_MODE=lab $(PY) scripts/course_jupyter.py --dir $(COURSE_JUPYTER) voila --no-browser --Voila.ip=$(DEMO_IP) --port=$(PORT) \
	  $(if $(DEMO_TOKEN),--token=$(DEMO_TOKEN),) --VoilaExecutor.timeout=600 \
	  notebooks/99_instructor_dashboard.ipynb

# The Colab-like environment that tests/test_colab.py runs the lessons in (Colab's pinned versions,
# scripts/colab-pins.txt), cached under ~/.cache/fastrain; `make test` builds it when missing too.
colab-env: $(STAMP)
	$(PY) scripts/colab_env.py build

bench: $(STAMP)
	$(PY) -m benchmarks

sync: $(STAMP)
	$(PY) -m fastrain_lib.authoring sync

# make gpu-check: on a machine with an NVIDIA GPU, proves the GPU side of the course in at most
# 8 minutes, offline (README.bn.md explains). No install step: a GPU server brings its own torch.
#   DRY_RUN=1 lists the steps   WHEELS=dir installs missing tools from carried wheels
#   APEX=path builds NVIDIA Apex for this GPU   BUDGET=seconds (default 480)
GPU_PY = $(if $(wildcard $(PY)),$(PY),$(PYTHON))
gpu-check:
	$(GPU_PY) scripts/gpu_check.py $(if $(DRY_RUN),--dry-run,) $(if $(WHEELS),--wheels $(WHEELS),) \
	  $(if $(APEX),--apex $(APEX),) $(if $(BUDGET),--budget $(BUDGET),)
