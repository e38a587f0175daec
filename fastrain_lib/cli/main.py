"""`python -m fastrain_lib lab|test|demo|bench|gpu-check|install|colab-env|sync`: parse, install when needed, run.

Runs on the Python that starts it (a lab PC's python.org Python, conda's, the venv's): it needs nothing but
the standard library and the message catalog until the venv exists.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from fastrain_lib.cli import commands
from fastrain_lib.core.i18n import both, t

HELP = {"lab": "cli.help_lab", "test": "cli.help_test", "demo": "cli.help_demo", "bench": "cli.help_bench",
        "gpu-check": "cli.help_gpu_check", "install": "cli.help_install", "colab-env": "cli.help_colab_env",
        "sync": "cli.help_sync"}
NO_INSTALL = {"gpu-check"}  # a GPU server brings its own torch


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m fastrain_lib", description=t("cli.description"))
    sub = p.add_subparsers(dest="command", required=True)
    for name, key in HELP.items():
        s = sub.add_parser(name, help=t(key), description=t(key))
        s.add_argument("--venv", default=commands.DEFAULTS["venv"])
        s.add_argument("--extras", default=commands.DEFAULTS["extras"])
        s.add_argument("--no-install", action="store_true", help=t("cli.help_no_install"))
        s.add_argument("--no-venv", action="store_true", help=t("cli.help_no_venv"))
        s.add_argument("--print-only", action="store_true", help=t("cli.help_print_only"))
        if name in ("lab", "demo"):
            s.add_argument("--port", type=int, default=commands.DEFAULTS["port"])
            s.add_argument("--jupyter-dir", default=None)
        if name == "demo":
            s.add_argument("--demo-ip", default=commands.DEFAULTS["demo_ip"])
            s.add_argument("--demo-token", default=os.environ.get("DEMO_TOKEN") or None)
        if name == "test":
            s.add_argument("--jobs", type=int, default=None)
        s.add_argument("extra", nargs=argparse.REMAINDER, help="-- then arguments passed on (pytest's, gpu_check's)")
    return p


def steps(opts, root: Path) -> list[commands.Step]:
    """Every command line this invocation runs, in order (install first when needed)."""
    venv_abs = _venv(opts, root)
    py = sys.executable if opts.no_venv else commands.venv_python(venv_abs)
    extra = [a for a in opts.extra if a != "--"]
    found = []
    installs = opts.command not in NO_INSTALL and not opts.no_install and not opts.no_venv
    if installs and commands.needs_install(venv_abs, root):
        if not Path(commands.venv_python(venv_abs)).exists():
            found.append(commands.create_venv(sys.executable, opts.venv))
        found += commands.install(py, opts.extras)
    jupyter_dir = getattr(opts, "jupyter_dir", None) or str(Path(opts.venv) / commands.JUPYTER_DIR)
    if opts.command == "lab":
        found.append(commands.lab(py, port=opts.port, jupyter_dir=jupyter_dir, is_root=_is_root()))
    elif opts.command == "demo":
        found.append(commands.demo(py, port=opts.port, jupyter_dir=jupyter_dir, demo_ip=opts.demo_ip,
                                   demo_token=opts.demo_token))
    elif opts.command == "test":
        found.append(commands.test(py, workers=opts.jobs or commands.jobs(), extra=extra))
    elif opts.command == "gpu-check":  # the venv's Python when there is one, else the one running this
        gpu_py = py if Path(py).exists() else sys.executable
        found.append(commands.gpu_check(gpu_py, extra=extra))
    elif opts.command != "install":
        found.append(commands.simple(py, opts.command, extra))
    return found


def _venv(opts, root: Path) -> Path:
    venv = Path(opts.venv)
    return venv if venv.is_absolute() else root / venv


def course_root() -> Path:
    """The course folder this package sits in (not resolved: a linked copy of the course stays itself),
    else the current folder."""
    here = Path(__file__).absolute().parents[2]
    return here if (here / "pyproject.toml").exists() else Path.cwd()


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _missing(root: Path, command: str) -> str | None:
    """What a command needs from the course's folder that a pip-installed package (Colab) does not have."""
    needed = {"lab": "scripts/course_jupyter.py", "demo": "scripts/course_jupyter.py", "test": "tests",
              "gpu-check": "scripts/gpu_check.py", "colab-env": "scripts/colab_env.py", "bench": "benchmarks",
              "install": "pyproject.toml", "sync": "notebooks"}[command]
    return None if (root / needed).exists() else needed


def run(step: commands.Step, root: Path, log: Path | None = None) -> int:
    env = {**os.environ, **step.env}
    if log is not None:  # pip's output goes to the log; its tail is shown only when it fails
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w", encoding="utf-8") as out:
            return subprocess.call(step.argv, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    return subprocess.call(step.argv, cwd=root, env=env)


def become(step: commands.Step, root: Path) -> int:
    """The last step (the server, the tests): on POSIX this process becomes it, so Ctrl+C and a stop signal
    reach it as before; Windows has no real exec, so it runs as a child and its exit code is returned."""
    sys.stdout.flush()
    if os.name == "posix":
        os.chdir(root)
        os.execve(step.argv[0], step.argv, {**os.environ, **step.env})
    try:
        return run(step, root)
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    if sys.version_info < (3, 10):
        print(both("cli.old_python", version=sys.version.split()[0]))
        return 1
    opts = parser().parse_args(argv)
    root = course_root()
    missing = _missing(root, opts.command)
    if missing:
        print(t("cli.not_a_checkout", command=opts.command, missing=missing))
        return 2
    todo = steps(opts, root)
    if opts.print_only:
        print("\n".join(step.shown() for step in todo))
        return 0
    venv = _venv(opts, root)
    installing = [s for s in todo if s.argv[1:3] in (["-m", "venv"], ["-m", "pip"])]
    for step in todo[:-1] if opts.command != "install" else todo:
        if step.argv[1:3] == ["-m", "venv"]:
            print(t("cli.creating_venv", venv=opts.venv), flush=True)
            if run(step, root):
                print(both("cli.venv_failed", venv=opts.venv))
                return 1
        elif step.argv[1:3] == ["-m", "pip"]:
            print(t("cli.installing"), flush=True)
            log = venv / commands.INSTALL_LOG
            if run(step, root, log):
                print("\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:]))
                print(both("cli.install_failed", extras=opts.extras, log=log))
                return 1
        elif run(step, root):  # the font check
            print(both("cli.font_failed"))
            return 1
    if installing:
        (venv / commands.STAMP).touch()
        print(t("cli.ready"), flush=True)
    if opts.command == "install":
        return 0
    if opts.command == "lab":
        print(t("cli.starting_lab"), flush=True)
    return become(todo[-1], root)
