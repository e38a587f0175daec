"""The Colab setup, simulated: a fake google.colab module, an old matplotlib, a T4.

Nothing is installed: prepare(dry_run=True) returns the commands it would run, and the
setup cell itself runs with subprocess.run replaced by a recorder."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path

import pytest

from fastrain_lib import authoring
from fastrain_lib.core import config, setup_env
from fastrain_lib.measure import hardware
from fastrain_lib.core.i18n import t

T4 = {  # what hardware.gpu_info() reports on Colab's free GPU
    "gpu_name": "Tesla T4",
    "gpu_memory_gb": 15.8,
    "compute_capability": "7.5",
    "gpu_count": 1,
    "fp16_tensor_cores": True,
    "bf16_fast": False,
}
A100 = dict(T4, gpu_name="NVIDIA A100-SXM4-40GB", compute_capability="8.0", bf16_fast=True)


@pytest.fixture
def colab(monkeypatch):
    """A simulated Colab runtime: the google.colab package is importable, Bengali messages."""
    google = types.ModuleType("google")
    colab_module = types.ModuleType("google.colab")
    google.colab = colab_module
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", colab_module)
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    return colab_module


@pytest.fixture
def not_colab(monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.setenv("FASTRAIN_LANG", "bn")


def test_fake_colab_is_detected(colab):
    assert hardware.is_colab()


def test_plain_machine_is_not_colab(not_colab):
    assert not hardware.is_colab()


def test_colab_with_old_matplotlib_and_t4(colab):
    report = setup_env.prepare(dry_run=True, loaded_matplotlib="3.8.0", installed_matplotlib="3.8.0",
                               gpu=T4, quiet=True)  # colab=None: detected from the fake module
    assert report.commands == [[sys.executable, "-m", "pip", "install", "-q", "-U", "matplotlib>=3.11"]]
    assert report.restart_needed
    assert report.precision == "fp16"
    assert report.messages[:3] == [
        t("setup.installing", what="matplotlib>=3.11"),
        t("setup.restart"),
        t("setup.t4", gpu="Tesla T4"),
    ]
    # The Bengali the student reads: which menu to use, and which precision to pick.
    assert "Runtime → Restart session" in report.messages[1]
    assert "আবার চালাও" in report.messages[1]
    assert "fp16 + GradScaler" in report.messages[2] and "bf16" in report.messages[2]
    assert report.messages[3].startswith("প্রস্তুত: fastrain_lib")


def test_explicit_colab_flag_gives_the_same_commands(not_colab):
    report = setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.8.0",
                               installed_matplotlib="3.8.0", gpu=T4, quiet=True)
    assert report.commands == [[sys.executable, "-m", "pip", "install", "-q", "-U", "matplotlib>=3.11"]]
    assert report.restart_needed and report.precision == "fp16"


def test_colab_with_new_matplotlib_needs_nothing(colab):
    report = setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.11.0",
                               installed_matplotlib="3.11.0", gpu=A100, quiet=True)
    assert report.commands == []
    assert not report.restart_needed
    assert report.precision == "bf16"
    assert report.messages[0] == t("setup.bf16", gpu=A100["gpu_name"])


def test_upgraded_but_not_restarted_asks_for_a_restart(colab):
    report = setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.8.0",
                               installed_matplotlib="3.11.0", gpu=T4, quiet=True)
    assert report.commands == []  # already on disk: nothing to install
    assert report.restart_needed and report.messages[0] == t("setup.restart")


def test_not_colab_runs_no_commands(not_colab):
    report = setup_env.prepare(dry_run=True, colab=False, loaded_matplotlib="3.8.0",
                               installed_matplotlib="3.8.0", gpu={}, quiet=True)
    assert report.commands == []  # outside Colab we never pip install into someone's environment
    # no GPU here: the note says whether reference/ has GPU results (tests/test_lesson01_reference.py)
    assert report.messages[0].startswith(t("lesson00.no_gpu_results").split("—")[0])


def test_messages_are_printed_unless_quiet(colab, capsys):
    setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.8.0", installed_matplotlib="3.8.0",
                      gpu=T4, quiet=False)
    printed = capsys.readouterr().out
    assert t("setup.restart") in printed and t("setup.t4", gpu="Tesla T4") in printed


def test_the_setup_cell_installs_fastrain_lib_on_colab(colab, monkeypatch):
    """Run the notebooks' real setup cell, with fastrain_lib pretended missing and pip recorded."""
    calls = []

    def fake_run(command, *args, **kwargs):
        calls.append(list(command))
        return subprocess.CompletedProcess(command, 0)

    real_find_spec = importlib.util.find_spec

    def fake_find_spec(name, *args, **kwargs):
        return None if name == "fastrain_lib" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)
    namespace = {}
    exec(compile(authoring.setup_cell_source(), "<setup cell>", "exec"), namespace)  # noqa: S102
    pip_spec = f"fastrain_lib @ git+{config.REPO_URL}@main"
    assert calls[0] == [sys.executable, "-m", "pip", "install", "-q", pip_spec]
    # The rest are the matplotlib upgrade at most (this venv already has a new one: none).
    assert all("matplotlib>=3.11" in call for call in calls[1:])
    assert isinstance(namespace["setup"], setup_env.SetupReport)


def test_the_setup_cell_does_not_install_outside_colab(not_colab, monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda command, *a, **k: calls.append(command))
    namespace = {}
    exec(compile(authoring.setup_cell_source(), "<setup cell>", "exec"), namespace)  # noqa: S102
    assert calls == []
    assert namespace["setup"].commands == []


def test_a_failed_install_is_said_in_bengali_and_the_lesson_goes_on(colab, monkeypatch):
    """A real pip run that fails (a package that does not exist, as when Colab has no internet):
    no traceback, no restart asked for, the Bengali message names what failed and a log holding
    pip's own error; the setup still finishes with its 'ready' line."""
    missing = "fastrain-no-such-package-for-tests==0.0.1"
    monkeypatch.setattr(setup_env, "MATPLOTLIB_SPEC", missing)
    report = setup_env.prepare(colab=True, loaded_matplotlib="3.8.0", installed_matplotlib="3.8.0", gpu=T4,
                               quiet=True)
    failed = [m for m in report.messages if m.startswith("ইনস্টল ব্যর্থ হয়েছে")]
    assert len(failed) == 1 and missing in failed[0]
    log = Path(failed[0].rsplit(" ", 1)[-1])
    assert log.is_file() and missing in log.read_text(encoding="utf-8")
    assert "ERROR" in log.read_text(encoding="utf-8")  # pip's own reason is kept for the student
    assert not report.restart_needed  # nothing new on disk: a restart would not help
    assert report.messages[-1].startswith("প্রস্তুত: fastrain_lib")
    log.unlink()
