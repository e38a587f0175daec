"""What a lesson's setup cell does after fastrain_lib is importable.

Everywhere: give the page the course's Bengali font (webfont.inject: without a Bengali system
font the browser draws empty boxes). On Colab: make sure matplotlib >= 3.11 (Bengali shaping),
say in Bengali when the runtime must be restarted, and tell which precision suits the GPU
(T4: fp16 + GradScaler). Elsewhere: only report what is here. `dry_run=True` returns the commands without running
them, so tests can simulate Colab (tests/test_setup_env.py).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata

from fastrain_lib import __version__
from fastrain_lib.core import config
from fastrain_lib.measure import hardware, reference
from fastrain_lib.ui import plots, webfont
from fastrain_lib.core.i18n import t

MATPLOTLIB_SPEC = "matplotlib>=3.11"


@dataclass
class SetupReport:
    commands: list[list[str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    restart_needed: bool = False
    precision: str = "fp32"  # suggested mixed-precision dtype for later lessons


def _installed_version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


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
    report.messages.append(t("install.failed", what=what, log=log.name))
    return False


def prepare(*, dry_run: bool = False, colab: bool | None = None, loaded_matplotlib: str | None = None,
            installed_matplotlib: str | None = None, gpu: dict | None = None, quiet: bool = False) -> SetupReport:
    """Check and fix the environment of a lesson. Every argument but dry_run/quiet is for tests."""
    import matplotlib

    webfont.inject()  # first: the messages below are Bengali too

    report = SetupReport()
    colab = hardware.is_colab() if colab is None else colab
    loaded = loaded_matplotlib or matplotlib.__version__
    installed = installed_matplotlib or _installed_version("matplotlib") or loaded
    if colab and not plots.shaping_ok(installed):
        command = [sys.executable, "-m", "pip", "install", "-q", "-U", MATPLOTLIB_SPEC]
        report.commands.append(command)
        report.messages.append(t("setup.installing", what=MATPLOTLIB_SPEC))
        if dry_run or _install(command, MATPLOTLIB_SPEC, report):
            installed = "3.11"
    if not plots.shaping_ok(loaded) and plots.shaping_ok(installed):
        # The new matplotlib is on disk, but the kernel still runs the old one it imported.
        report.restart_needed = True
        report.messages.append(t("setup.restart"))

    gpu = hardware.gpu_info() if gpu is None else gpu
    if gpu:
        report.precision = suggested_precision(gpu["gpu_name"], gpu["bf16_fast"])
        report.messages.append(t("setup.bf16" if gpu["bf16_fast"] else "setup.t4", gpu=gpu["gpu_name"]))
    else:
        report.precision = suggested_precision(None, False)
        # Say whether reference/ really holds GPU results rather than promise them (issue 19).
        gpus = sorted({run.hardware for run in reference.runs() if run.on_gpu})
        report.messages.append(t("lesson00.gpu_results", gpus=", ".join(gpus)) if gpus else t("lesson00.no_gpu_results"))
    report.messages.append(t("setup.ready", version=__version__, torch=_installed_version("torch") or "?",
                             devices=", ".join(hardware.available_devices()), mode=config.mode()))
    if not quiet:
        print("\n".join(report.messages))
    return report
