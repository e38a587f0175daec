"""`python -m fastrain_lib <command>` (issue 41): the README's commands where there is no make.

What a student without make would get wrong: a server started before the install finished, a reinstall on
every start (minutes, on a lab PC), no reinstall after pyproject.toml changed, a Linux path on Windows, a
failed install that still starts the server or leaves a stamp saying it worked. The first-paint browser test
(tests/browser/test_first_paint.py) starts `python -m fastrain_lib lab` itself; tests/test_webfont.py
checks that make's targets call these commands.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fastrain_lib.cli import commands, main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")


def _course(tmp: Path, pyproject_age_s: float = 100.0) -> Path:
    """A course folder with its pyproject.toml written `pyproject_age_s` seconds ago."""
    (tmp / "pyproject.toml").write_text("[project]\nname='x'\n")
    (tmp / "scripts").mkdir()
    (tmp / "scripts" / "course_jupyter.py").write_text("")
    then = time.time() - pyproject_age_s
    os.utime(tmp / "pyproject.toml", (then, then))
    return tmp


def _steps(tmp: Path, *argv: str) -> list[list[str]]:
    opts = main.parser().parse_args(list(argv))
    return [step.argv for step in main.steps(opts, tmp)]


def _venv(tmp: Path, stamp_age_s: float | None) -> Path:
    venv = tmp / ".venv"
    python = Path(commands.venv_python(venv))
    python.parent.mkdir(parents=True)
    python.write_text("")
    if stamp_age_s is not None:
        then = time.time() - stamp_age_s
        (venv / commands.STAMP).touch()
        os.utime(venv / commands.STAMP, (then, then))
    return venv


def test_a_fresh_folder_creates_the_venv_installs_then_starts(tmp_path):
    steps = _steps(_course(tmp_path), "lab")
    assert steps[0] == [sys.executable, "-m", "venv", ".venv"]
    assert steps[1][1:4] == ["-m", "pip", "install"] and steps[1][-1] == ".[lab,dev]"
    assert steps[2][1:] == ["-m", "fastrain_lib.ui.fontcheck"]
    assert steps[3][1:5] == ["scripts/course_jupyter.py", "--dir", str(Path(".venv") / "fastrain-jupyter"), "lab"]
    assert len(steps) == 4


def test_an_installed_venv_is_not_installed_again_and_a_changed_pyproject_is(tmp_path):
    course = _course(tmp_path, pyproject_age_s=100)
    _venv(course, stamp_age_s=10)  # installed after the last change
    assert [s[1] for s in _steps(course, "lab")] == ["scripts/course_jupyter.py"]
    _venv_stamp = course / ".venv" / commands.STAMP
    os.utime(_venv_stamp, (time.time() - 200, time.time() - 200))  # pyproject.toml changed since
    steps = _steps(course, "test")
    assert [s[1:3] for s in steps] == [["-m", "pip"], ["-m", "fastrain_lib.ui.fontcheck"], ["-m", "pytest"]]
    assert steps[0][0] == steps[-1][0] == commands.venv_python(course / ".venv")  # the venv exists: not made again
    assert [s[1] for s in _steps(course, "lab", "--no-install")] == ["scripts/course_jupyter.py"]


def test_a_conda_environment_runs_on_its_own_python_and_installs_nothing(tmp_path):
    steps = _steps(_course(tmp_path), "lab", "--no-venv")
    assert len(steps) == 1 and steps[0][:2] == [sys.executable, "scripts/course_jupyter.py"]


def test_gpu_check_never_installs_and_runs_where_it_can(tmp_path):
    course = _course(tmp_path)
    steps = _steps(course, "gpu-check", "--", "--dry-run")
    assert steps == [[sys.executable, "scripts/gpu_check.py", "--dry-run"]]  # no venv: the Python that runs this
    _venv(course, stamp_age_s=None)
    assert _steps(course, "gpu-check")[0][0] == commands.venv_python(course / ".venv")


def test_the_test_command_is_the_readmes():
    step = commands.test("py", workers=3, extra=["-k", "x"])
    assert step.env == {"FASTRAIN_MODE": "ci"}
    assert step.argv[1:] == ["-m", "pytest", "-n", "3", "--dist", "loadfile", "--nbval-lax", "--nbval-current-env",
                             "--nbval-cell-timeout=600", "tests", "exercises", "-k", "x"]
    assert commands.jobs(2) == 3 and commands.jobs(16) == 17


def test_windows_paths_and_no_root_flag():
    assert commands.venv_python(".venv", windows=True) == r".venv\Scripts\python.exe"
    assert commands.venv_python(".venv", windows=False) == ".venv/bin/python"
    assert "--allow-root" not in commands.lab("py", port=1, jupyter_dir="j", is_root=False).argv
    assert "--allow-root" in commands.lab("py", port=1, jupyter_dir="j", is_root=True).argv


def test_demo_passes_its_token_and_address():
    step = commands.demo("py", port=9, jupyter_dir="j", demo_ip="10.0.0.5", demo_token="s3cret")
    assert "--Voila.ip=10.0.0.5" in step.argv and "--token=s3cret" in step.argv and step.env == {"FASTRAIN_MODE": "lab"}
    assert not any(a.startswith("--token") for a in commands.demo("py", port=9, jupyter_dir="j", demo_ip="0.0.0.0",
                                                                    demo_token=None).argv)


def test_outside_the_course_folder_it_says_what_is_missing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(main, "course_root", lambda: tmp_path)  # a pip-installed package (Colab): no scripts/
    assert main.main(["lab"]) == 2
    assert "scripts/course_jupyter.py was not found" in capsys.readouterr().out


@pytest.mark.slow
def test_a_failed_install_shows_its_log_and_starts_nothing(tmp_path):
    """Really run on a real venv (made here without pip, to keep the test short: the creating step is
    checked above): the install fails; the command says so with the log's tail and where the log is,
    exits 1, leaves no stamp and never reaches the server."""
    course = tmp_path / "course"
    course.mkdir()
    (course / "fastrain_lib").symlink_to(ROOT / "fastrain_lib")
    (course / "scripts").mkdir()
    (course / "scripts" / "course_jupyter.py").write_text("raise SystemExit('the server must not start')")
    (course / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(course / "v")], check=True, timeout=120)
    env = {**os.environ, "FASTRAIN_LANG": "en", "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    out = subprocess.run([sys.executable, "-m", "fastrain_lib", "lab", "--venv", "v"], cwd=course, env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "→ creating v" not in text and "✗ Install failed: pip install -e .[lab,dev]" in text, text
    assert "No module named pip" in text  # the log's tail, shown
    assert str(course / "v" / commands.INSTALL_LOG) in text and (course / "v" / commands.INSTALL_LOG).exists()
    assert not (course / "v" / commands.STAMP).exists() and "must not start" not in text
