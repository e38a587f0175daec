"""The Colab setup, simulated: a fake google.colab module, an old matplotlib, a T4.

Nothing is installed: prepare(dry_run=True) returns the commands it would run, and the
setup cell itself runs with subprocess.run replaced by a recorder. The restart path ends a real
kernel here; tests/test_colab.py runs the real install in an environment with Colab's versions."""

from __future__ import annotations

import importlib.util
import os
import queue
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from fastrain_lib import authoring
from fastrain_lib import setup_env
from fastrain_lib.core import config
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


def test_colab_with_old_matplotlib_loaded_restarts_before_anything_else(colab):
    report = setup_env.prepare(dry_run=True, loaded_matplotlib="3.8.0", installed_matplotlib="3.8.0",
                               gpu=T4, quiet=True)  # colab=None: detected from the fake module
    assert report.commands == [[sys.executable, "-m", "pip", "install", "-q", "-U", "matplotlib>=3.11"]]
    assert report.restart_needed
    # Nothing after the restart message: the real run ends the process there (tests/test_colab.py).
    assert report.messages == [
        t("setup_env.installing", what="matplotlib>=3.11"),
        t("setup_env.restart", old="3.8.0", new="3.11"),
    ]
    # The Bengali the student reads: what happened, that the runtime restarts itself, what to do next.
    assert "3.8.0 → 3.11" in report.messages[1] and "রিস্টার্ট হচ্ছে" in report.messages[1]
    assert "Runtime → Run all" in report.messages[1] and "আবার চালাও" in report.messages[1]


def test_colab_with_old_matplotlib_not_yet_loaded_upgrades_and_goes_on(colab, monkeypatch):
    """The setup cell ran before anything imported matplotlib: upgrade, no restart, the lesson goes on."""
    monkeypatch.delitem(sys.modules, "matplotlib", raising=False)
    report = setup_env.prepare(dry_run=True, installed_matplotlib="3.10.0", gpu=T4, quiet=True)
    assert report.commands == [[sys.executable, "-m", "pip", "install", "-q", "-U", "matplotlib>=3.11"]]
    assert not report.restart_needed
    assert report.precision == "fp16"
    assert report.messages[0] == t("setup_env.installing", what="matplotlib>=3.11")
    assert report.messages[1] == t("setup_env.colab_installs", matplotlib="3.11")
    assert "fastrain_lib" in report.messages[1] and "যেমন ছিল তেমনই থাকে" in report.messages[1]
    assert report.messages[2] == t("setup_env.t4", gpu="Tesla T4")
    assert "fp16 + GradScaler" in report.messages[2] and "bf16" in report.messages[2]
    assert report.messages[3].startswith("প্রস্তুত: fastrain_lib")


def test_the_check_comes_before_any_matplotlib_import():
    """Importing the setup module (the setup cell's import) must not load matplotlib: loading it
    there would itself be the half-upgraded state the check guards against."""
    code = ("import sys\nfrom fastrain_lib import setup_env\n"
            "print('matplotlib' in sys.modules, setup_env.matplotlib_in_memory())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.split() == ["False", "None"], done.stderr


def test_same_version_floor_as_the_plots():
    from fastrain_lib.ui import plots

    assert setup_env.MIN_MATPLOTLIB == plots.MIN_SHAPING_VERSION
    assert [setup_env.shapes_bengali(v) for v in ("3.10.0", "3.11.0rc1", "3.11.2", "4.0", None)] == \
        [False, True, True, True, False]


def test_half_upgraded_outside_colab_stops_with_a_bengali_message(not_colab):
    with pytest.raises(setup_env.RestartRequired) as stopped:
        setup_env.prepare(colab=False, loaded_matplotlib="3.10.0", installed_matplotlib="3.11.2", gpu={}, quiet=True)
    message = str(stopped.value)
    assert message == t("setup_env.restart_stop", old="3.10.0", new="3.11.2")
    assert "Kernel → Restart Kernel" in message and "থামানো হলো" in message
    assert stopped.value._render_traceback_() == [message]  # IPython shows the message, no stack


def test_half_upgraded_on_colab_ends_the_kernel_after_saying_so(tmp_path):
    """A real kernel (this environment's), told it is on Colab with matplotlib 3.10 in memory and
    3.11 on disk: it prints the Bengali message, and its process ends (Colab then starts a fresh one)."""
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", env={**os.environ, "FASTRAIN_LANG": "bn"}, cwd=str(tmp_path))
    try:
        code = ("import sys, types\nsys.modules['google.colab'] = types.ModuleType('google.colab')\n"
                "from fastrain_lib import setup_env\n"
                "setup_env.prepare(loaded_matplotlib='3.10.0', installed_matplotlib='3.11.2', gpu={})\n"
                "print('went on')")
        msg_id = kc.execute(code)
        printed = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and km.is_alive():
            try:
                msg = kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                printed.append(msg["content"]["text"])
        # drain what arrived just before the end
        while True:
            try:
                msg = kc.get_iopub_msg(timeout=0.5)
            except queue.Empty:
                break
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                printed.append(msg["content"]["text"])
        assert not km.is_alive(), "the kernel went on with a half-upgraded matplotlib"
        text = "".join(printed)
        assert t("setup_env.restart", old="3.10.0", new="3.11.2") in text
        assert "went on" not in text
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)
        km.cleanup_resources()


def test_explicit_colab_flag_gives_the_same_commands(not_colab):
    report = setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.8.0",
                               installed_matplotlib="3.8.0", gpu=T4, quiet=True)
    assert report.commands == [[sys.executable, "-m", "pip", "install", "-q", "-U", "matplotlib>=3.11"]]
    assert report.restart_needed


def test_colab_with_new_matplotlib_needs_nothing(colab):
    report = setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.11.0",
                               installed_matplotlib="3.11.0", gpu=A100, quiet=True)
    assert report.commands == []
    assert not report.restart_needed
    assert report.precision == "bf16"
    assert report.messages[:2] == [t("setup_env.colab_installs", matplotlib="3.11.0"), t("setup_env.bf16", gpu=A100["gpu_name"])]


def test_upgraded_but_not_restarted_asks_for_a_restart(colab):
    report = setup_env.prepare(dry_run=True, colab=True, loaded_matplotlib="3.8.0",
                               installed_matplotlib="3.11.0", gpu=T4, quiet=True)
    assert report.commands == []  # already on disk (the course's own install upgraded it): nothing to install
    assert report.restart_needed and report.messages == [t("setup_env.restart", old="3.8.0", new="3.11.0")]


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
    assert t("setup_env.restart", old="3.8.0", new="3.11") in printed


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
