"""What a lesson's setup cell does after fastrain_lib is importable.

Everywhere: give the page the course's Bengali font (webfont.inject: without a Bengali system
font the browser draws empty boxes). On Colab: make sure matplotlib >= 3.11 (Bengali shaping) and
never let a lesson run on a half-upgraded one (below), and tell which precision suits the GPU
(T4: fp16 + GradScaler). Elsewhere: only report what is here. `dry_run=True` returns the commands
without running them, so tests can simulate Colab (tests/test_setup_env.py, tests/test_colab.py).

A half-upgraded matplotlib: the kernel imported matplotlib 3.10 (Colab's, or a student's
`import matplotlib.pyplot` before the setup cell) and pip then put 3.11 on disk. The modules already
in memory are 3.10, every module imported later is 3.11, and the first plot fails with
`ImportError: cannot import name 'CharacterCodeType' from 'matplotlib.ft2font'`. So this module
imports nothing of matplotlib before it has checked (sys.modules), and in that state it says so in
Bengali and restarts the runtime the way Colab notebooks do (the process ends; Colab starts a fresh
one), or, where it cannot restart, stops the run with RestartRequired.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata

from fastrain_lib import __version__
from fastrain_lib.core import config
from fastrain_lib.core.i18n import t

# Nothing here may import matplotlib before prepare() has checked sys.modules: the library modules
# are imported inside prepare(), and tests/test_setup_env.py checks that importing this module and
# running the check load no matplotlib.
MATPLOTLIB_SPEC = "matplotlib>=3.11"
MIN_MATPLOTLIB = (3, 11)  # the same as plots.MIN_SHAPING_VERSION (tests/test_setup_env.py keeps them equal)
RESTART_GRACE_S = 1.5  # time for the kernel to send the message to the page before the process ends


class RestartRequired(RuntimeError):
    """A half-upgraded matplotlib where the runtime cannot be restarted from code: stops the run.

    IPython shows only the message (no traceback): the student needs the instruction, not the stack."""

    def _render_traceback_(self):
        return [str(self)]


@dataclass
class SetupReport:
    commands: list[list[str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    restart_needed: bool = False
    precision: str = "fp32"  # suggested mixed-precision dtype for later lessons


def _installed_version(package: str) -> str | None:
    import importlib

    importlib.invalidate_caches()  # pip may have just replaced it in this same process's lifetime
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _version_tuple(version: str | None) -> tuple[int, ...]:
    parts = []
    for piece in (version or "0").split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def shapes_bengali(version: str | None) -> bool:
    """matplotlib `version` shapes Bengali (>= 3.11); no import of matplotlib (see the module doc)."""
    return version is not None and _version_tuple(version) >= MIN_MATPLOTLIB


def matplotlib_in_memory() -> str | None:
    """The version of the matplotlib this process has already imported, or None."""
    module = sys.modules.get("matplotlib")
    return getattr(module, "__version__", None) if module is not None else None


def restart_runtime(colab: bool) -> None:
    """End this kernel so that a fresh one starts (Colab restarts a runtime whose process died: the
    `os.kill(os.getpid(), 9)` that Colab notebooks use). Outside Colab, or outside a kernel, a
    restart from code is not possible: raise RestartRequired with the Bengali instruction."""
    in_kernel = "ipykernel" in sys.modules and getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)() is not None
    if colab and in_kernel:
        sys.stdout.flush()
        sys.stderr.flush()
        time.sleep(RESTART_GRACE_S)
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(60)  # not reached: the process is gone
    raise RestartRequired(t("setup_env.restart_stop", old=matplotlib_in_memory() or "?",
                            new=_installed_version("matplotlib") or "?"))


def suggested_precision(gpu_name: str | None, bf16_fast: bool) -> str:
    """bf16 where the GPU runs it fast (Ampere+), fp16 + GradScaler on older tensor-core GPUs
    such as Colab's T4, bf16 autocast on a CPU (it runs everywhere, speed varies)."""
    if gpu_name is None:
        return "bf16"
    return "bf16" if bf16_fast else "fp16"


def _install(command: list[str], what: str, report: "SetupReport") -> bool:
    """Run a pip command; on failure (no internet, full disk) say so in Bengali with the log's path
    and go on: the lesson still runs, its plots fall back to English labels (plots.shaping_ok)."""
    import tempfile

    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 0:
        return True
    with tempfile.NamedTemporaryFile("w", suffix=".log", prefix="fastrain-install-", delete=False,
                                     encoding="utf-8") as log:
        log.write(" ".join(command) + "\n\n" + done.stdout + "\n" + done.stderr)
    report.messages.append(t("setup_env.install_failed", what=what, log=log.name))
    return False


def prepare(*, dry_run: bool = False, colab: bool | None = None, loaded_matplotlib: str | None = None,
            installed_matplotlib: str | None = None, gpu: dict | None = None, quiet: bool = False) -> SetupReport:
    """Check and fix the environment of a lesson. Every argument but dry_run/quiet is for tests.

    With dry_run a needed restart is only reported (restart_needed, its message), never done."""
    from fastrain_lib.measure import hardware  # torch, no matplotlib

    report = SetupReport()
    colab = hardware.is_colab() if colab is None else colab
    loaded = loaded_matplotlib or matplotlib_in_memory()  # None: not imported yet
    installed = installed_matplotlib or _installed_version("matplotlib")
    if colab and not shapes_bengali(installed):
        command = [sys.executable, "-m", "pip", "install", "-q", "-U", MATPLOTLIB_SPEC]
        report.commands.append(command)
        report.messages.append(t("setup_env.installing", what=MATPLOTLIB_SPEC))
        if dry_run:
            installed = "3.11"
        elif _install(command, MATPLOTLIB_SPEC, report):
            installed = _installed_version("matplotlib") or installed
    if loaded is not None and not shapes_bengali(loaded) and shapes_bengali(installed):
        # The new matplotlib is on disk, but the kernel still runs the old one it imported: every
        # later plot would fail. Never go on from here.
        report.restart_needed = True
        report.messages.append(t("setup_env.restart" if colab else "setup_env.restart_stop", old=loaded, new=installed))
        if not quiet:
            print("\n".join(report.messages))
        if not dry_run:
            if colab:
                restart_runtime(colab)  # does not return
            raise RestartRequired(report.messages[-1])
        return report

    from fastrain_lib.measure import reference
    from fastrain_lib.ui import webfont

    webfont.inject()  # before the messages are shown: they are Bengali too
    if colab and shapes_bengali(installed):
        # True by construction: the package's dependencies are ones Colab already meets except
        # matplotlib (pyproject.toml); tests/test_colab.py installs it into Colab's pins and checks.
        report.messages.append(t("setup_env.colab_installs", matplotlib=installed))
    gpu = hardware.gpu_info() if gpu is None else gpu
    if gpu:
        report.precision = suggested_precision(gpu["gpu_name"], gpu["bf16_fast"])
        report.messages.append(t("setup_env.bf16" if gpu["bf16_fast"] else "setup_env.t4", gpu=gpu["gpu_name"]))
    else:
        report.precision = suggested_precision(None, False)
        # Say whether reference/ really holds GPU results rather than promise them (issue 19).
        gpus = sorted({run.hardware for run in reference.runs() if run.on_gpu})
        report.messages.append(t("lesson00.gpu_results", gpus=", ".join(gpus)) if gpus else t("lesson00.no_gpu_results"))
    report.messages.append(t("setup_env.ready", version=__version__, torch=_installed_version("torch") or "?",
                             devices=", ".join(hardware.available_devices()), mode=config.mode()))
    if not quiet:
        print("\n".join(report.messages))
    return report
