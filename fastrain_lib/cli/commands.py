"""What each course command runs: pure functions of the options and the platform (tested for Windows here).

One Step is one command line with the environment variables it adds. The Makefile's targets call
`python -m fastrain_lib <command> --no-install` after their own install rule, so the command lines
below are the only ones.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath

# What `make lab`, `make test` and the rest have always done; the Makefile's variables have the same names.
DEFAULTS = {"venv": ".venv", "port": 8888, "extras": "lab,dev", "demo_ip": "127.0.0.1"}
FIRST_LESSON = "notebooks/00_setup.ipynb"
# The venv's own files: the stamp says the install of this pyproject.toml finished (make's target too).
STAMP = ".fastrain-installed"
INSTALL_LOG = "install.log"
JUPYTER_DIR = "fastrain-jupyter"  # the course-local Jupyter folder (scripts/course_jupyter.py --dir)


@dataclass
class Step:
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)

    def shown(self) -> str:
        """The step as a shell line (what --print-only prints)."""
        import shlex

        return " ".join([*(f"{k}={v}" for k, v in self.env.items()), *(shlex.quote(a) for a in self.argv)])


def venv_python(venv: str | PurePath, windows: bool | None = None) -> str:
    """The venv's interpreter: bin/python, or Scripts\\python.exe on Windows."""
    windows = os.name == "nt" if windows is None else windows
    if windows:
        return str(PureWindowsPath(venv) / "Scripts" / "python.exe")
    return str(PurePosixPath(venv) / "bin" / "python")


def jobs(cores: int | None = None) -> int:
    """Test workers: one more than the cores (the workers often wait on kernels, browsers, processes;
    547 s with 3 workers against 647 s with 2 on 2 cores, docs/test-durations.md)."""
    return (cores or os.cpu_count() or 2) + 1


def root_flag(is_root: bool) -> list[str]:
    """JupyterLab refuses to run as root without --allow-root; add it only then."""
    return ["--allow-root"] if is_root else []


def lab(py: str, *, port: int, jupyter_dir: str, is_root: bool) -> Step:
    return Step([py, "scripts/course_jupyter.py", "--dir", jupyter_dir, "lab", "--ip=127.0.0.1", f"--port={port}",
                 "--no-browser", *root_flag(is_root), "--ServerApp.root_dir=.",
                 f"--LabApp.default_url=/lab/tree/{FIRST_LESSON}"])


def demo(py: str, *, port: int, jupyter_dir: str, demo_ip: str, demo_token: str | None) -> Step:
    """Voilà on the dashboard; on any address but loopback course_jupyter.py makes a token when none is given."""
    token = [f"--token={demo_token}"] if demo_token else []
    return Step([py, "scripts/course_jupyter.py", "--dir", jupyter_dir, "voila", "--no-browser",
                 f"--Voila.ip={demo_ip}", f"--port={port}", *token, "--VoilaExecutor.timeout=600",
                 "notebooks/99_instructor_dashboard.ipynb"], {"FASTRAIN_MODE": "lab"})


def test(py: str, *, workers: int, extra: list[str]) -> Step:
    """The README's test command: every test and every exercise notebook (nbval), in ci mode."""
    return Step([py, "-m", "pytest", "-n", str(workers), "--dist", "loadfile", "--nbval-lax", "--nbval-current-env",
                 "--nbval-cell-timeout=600", "tests", "exercises", *extra], {"FASTRAIN_MODE": "ci"})


def gpu_check(py: str, *, extra: list[str]) -> Step:
    """No install step: a GPU server brings its own torch (scripts/gpu_check.py's options pass through)."""
    return Step([py, "scripts/gpu_check.py", *extra])


def simple(py: str, command: str, extra: list[str]) -> Step:
    argv = {"bench": ["-m", "benchmarks"], "sync": ["-m", "fastrain_lib.authoring", "sync"],
            "colab-env": ["scripts/colab_env.py", "build"]}[command]
    return Step([py, *argv, *extra])


def create_venv(python: str, venv: str) -> Step:
    return Step([python, "-m", "venv", venv])


def install(py: str, extras: str) -> list[Step]:
    """The editable install with its extras (lab = JupyterLab + Voilà, dev = the test tools), then the font check."""
    return [Step([py, "-m", "pip", "install", "-q", "-e", f".[{extras}]"]), Step([py, "-m", "fastrain_lib.ui.fontcheck"])]


def needs_install(venv: Path, root: Path) -> bool:
    """The stamp is missing or older than the files that say what to install (make's rule, the same test)."""
    stamp = venv / STAMP
    if not stamp.exists():
        return True
    built = stamp.stat().st_mtime
    return any((root / name).exists() and (root / name).stat().st_mtime > built for name in ("pyproject.toml", "setup.py"))
