"""Run mode, language and paths.

FASTRAIN_MODE picks workload sizes only (the same cells run in every mode):
  ci   - tiny sizes, so the test suite executes every notebook on a 2-core CPU
  lab  - the default: a lesson finishes in minutes on a laptop CPU
  full - sizes that fill a real GPU (benchmarks, instructor demos)
FASTRAIN_LANG picks the language of every message, label and plot: bn (default) or en.
"""

from __future__ import annotations

import os
from pathlib import Path

MODES = ("ci", "lab", "full")

# Where the course lives: the Colab badges and the Colab setup cell are generated from this
# one place (python -m fastrain_lib.authoring sync).
REPO_SLUG = "fastrain-bn/fastrain"
REPO_URL = f"https://github.com/{REPO_SLUG}"
BRANCH = "main"
LANGS = ("bn", "en")

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# The repository root when running from a checkout; None when installed elsewhere.
REPO_DIR = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / "pyproject.toml").exists() else None


class ConfigError(ValueError):
    """A setting has a value we do not know; the message names the allowed ones."""


def _read(var: str, allowed: tuple[str, ...], default: str) -> str:
    value = os.environ.get(var, default).strip().lower() or default
    if value not in allowed:
        # Both languages: the language setting itself may be the broken one.
        raise ConfigError(
            f"{var}={value!r} চেনা মান নয়; এগুলোর একটি দাও: {', '.join(allowed)}. "
            f"/ {var}={value!r} is not a known value; use one of: {', '.join(allowed)}."
        )
    return value


def mode() -> str:
    """The run mode: 'ci', 'lab' (default) or 'full'."""
    return _read("FASTRAIN_MODE", MODES, "lab")


def lang() -> str:
    """The language: 'bn' (default) or 'en'."""
    return _read("FASTRAIN_LANG", LANGS, "bn")


def is_ci() -> bool:
    return mode() == "ci"


def by_mode(ci, lab, full=None):
    """Pick a workload size for the current mode: by_mode(ci=64, lab=1024, full=8192)."""
    return {"ci": ci, "lab": lab, "full": lab if full is None else full}[mode()]


def data_dir() -> Path:
    """Where datasets are cached (FASTRAIN_DATA overrides)."""
    default = (REPO_DIR / ".data") if REPO_DIR else Path.home() / ".cache" / "fastrain"
    path = Path(os.environ.get("FASTRAIN_DATA", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_dir() -> Path:
    """Where experiment panels save result records (FASTRAIN_RESULTS overrides)."""
    default = (REPO_DIR / "results") if REPO_DIR else Path.cwd() / "fastrain_results"
    path = Path(os.environ.get("FASTRAIN_RESULTS", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def reference_dir() -> Path | None:
    """The reference/ results: the repository's folder in a checkout; in an installed course (Colab)
    the copy that the wheel carries (setup.py puts it at fastrain_lib/reference_runs); else None."""
    if REPO_DIR and (REPO_DIR / "reference").is_dir():
        return REPO_DIR / "reference"
    if (PACKAGE_DIR / "reference_runs").is_dir():
        return PACKAGE_DIR / "reference_runs"
    return None
