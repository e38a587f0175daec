"""The CPU side of `make gpu-check`: the dry run, the time budget, missing-tool messages, the
offline install, the Apex build settings, and the notebook runner (run for real on a CPU)."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
gc = importlib.util.module_from_spec(spec)
sys.modules["gpu_check"] = gc  # dataclasses look their module up while the script loads
spec.loader.exec_module(gc)


def test_dry_run_lists_every_step_and_passes_here(tmp_path):
    out = tmp_path / "dry"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu_check.py"), "--dry-run", "--out", str(out),
                           "--apex", "/opt/apex"], check=False, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    steps = {s["name"]: s for s in summary["steps"]}
    assert list(steps) == ["preflight", "pytest_gpu", "apex", "benchmarks", "notebooks"]
    assert {s["status"] for s in steps.values()} == {"planned"}
    assert "-m gpu" in " ".join(steps["pytest_gpu"]["command"])
    assert "--mode full" in " ".join(steps["benchmarks"]["command"])
    assert "--no-build-isolation" in steps["apex"]["command"] and "/opt/apex" in steps["apex"]["command"]
    assert "--run-notebook" in steps["notebooks"]["command"]
    assert sum(s["budget_s"] for s in steps.values()) <= 480  # the whole run fits 8 minutes
    text = (out / "summary.txt").read_text(encoding="utf-8")
    assert "pytest_gpu" in text and "$ " in text


def test_without_a_gpu_it_says_so_and_runs_nothing(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    out = tmp_path / "real"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu_check.py"), "--out", str(out)],
                          check=False, capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "FASTRAIN_LANG": "en"})
    assert proc.returncode == 2
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["steps"][0]["status"] == "failed" and "No CUDA GPU" in summary["steps"][0]["detail"]
    assert [s["status"] for s in summary["steps"][1:]] == ["not_run"] * 4


def test_budget_leaves_later_steps_their_minimum():
    steps = list(gc.STEPS)
    later = steps[2:]
    # plenty of time: the step's default
    assert gc.budget_for(steps[1], 10_000, later) == steps[1].default_s
    # little time: what is left after the later steps' minimums
    assert gc.budget_for(steps[1], 300, later) == 300 - sum(s.minimum_s for s in later)
    # none left
    assert gc.budget_for(steps[1], 100, later) == 0.0


def test_missing_tools_are_named_with_the_way_to_carry_them(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    missing = gc.missing_tools(["pytest", "nbclient", "jupyter_client"], importable=lambda name: name == "pytest")
    assert missing == ["nbclient", "jupyter_client"]
    message = gc.missing_message(missing)
    assert "nbclient" in message and "pip download nbclient jupyter-client -d wheels/" in message
    assert "WHEELS=wheels/" in message
    cmd = gc.wheels_command(missing, "/carried/wheels")
    assert cmd[1:6] == ["-m", "pip", "install", "--no-index", "--find-links"]
    assert cmd[6:] == ["/carried/wheels", "nbclient", "jupyter-client"]


@pytest.mark.parametrize("cc,arch", [((9, 0), "9.0"), ((8, 0), "8.0"), ((7, 5), "7.5"), ((8, 9), "8.9")])
def test_apex_builds_for_this_gpu_only(cc, arch):
    env = gc.apex_env(cc, 16)
    assert env["TORCH_CUDA_ARCH_LIST"] == arch and env["MAX_JOBS"] == "16"
    assert env["APEX_CPP_EXT"] == env["APEX_CUDA_EXT"] == "1"


def test_exit_code_fails_only_on_failures():
    R = gc.Result
    assert gc.exit_code([R("a", "passed"), R("b", "not_run"), R("c", "skipped")]) == 0
    assert gc.exit_code([R("a", "passed"), R("b", "failed")]) == 1


def _notebook(path: Path, *sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_notebook_runner_really_executes(tmp_path):
    good = tmp_path / "good.ipynb"
    _notebook(good, "x = 2", "# NBVAL_RAISES_EXCEPTION\nraise ValueError('allowed')", "# NBVAL_SKIP\nraise SystemExit",
              "assert x == 2")
    assert gc.run_notebook(good, tmp_path / "out" / "good.ipynb", 60) == 0
    executed = nbformat.read(tmp_path / "out" / "good.ipynb", as_version=4)
    assert executed.cells[1].outputs[0]["ename"] == "ValueError"
    bad = tmp_path / "bad.ipynb"
    _notebook(bad, "x = 1", "assert x == 2, 'wrong'")
    assert gc.run_notebook(bad, None, 60) == 1


def test_notebook_step_runs_in_parallel_and_reports_each(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    _notebook(folder / "a.ipynb", "print(1)")
    _notebook(folder / "b.ipynb", "raise RuntimeError('broken lesson')")
    monkeypatch.setattr(gc, "notebook_paths", lambda root=None: sorted(folder.glob("*.ipynb")))
    args = gc.argparse.Namespace(jobs=2, cell_timeout=60)
    result = gc.step_notebooks(args, 120, tmp_path / "out")
    assert result.status == "failed"
    assert "1 of 2 notebooks ran cleanly" in result.detail
    assert "notebooks/b.ipynb" in result.detail and "RuntimeError" in result.detail
    assert (tmp_path / "out" / "notebooks" / "notebooks__a.ipynb").exists()
    # no time left: nothing starts, and it says so
    late = gc.step_notebooks(args, 5, tmp_path / "late")
    assert late.status == "not_run" and "a.ipynb" in late.detail
