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
    assert "-m gpu" in " ".join(steps["pytest_gpu"]["command"])
    assert "--mode gpu" in " ".join(steps["benchmarks"]["command"])  # full mode cannot fit (issue 26)
    assert "--time-budget" in steps["benchmarks"]["command"]
    assert "--build-apex" in steps["apex"]["command"] and "/opt/apex" in steps["apex"]["command"]
    assert "--run-notebook" in steps["notebooks"]["command"]
    assert set(summary["plans"]) == {"T4", "L4", "A100", "H200"}
    text = (out / "summary.txt").read_text(encoding="utf-8")
    assert "pytest_gpu" in text and "$ " in text and "A100" in text


@pytest.mark.parametrize("apex", [None, "/opt/apex"])
def test_every_planned_step_fits_8_minutes_on_each_gpu(tmp_path, apex):
    """The plan for a T4, L4, A100 and H200 (datasheet rows): every step that is planned has a slot of
    at least its estimate, and the slots add up to at most 480 s; a step that does not fit is skipped."""
    args = gc.argparse.Namespace(budget=480.0, apex=apex, jobs=6, cell_timeout=300, notebooks=None)
    for key, dev in gc.planned_devices():
        plan = gc.plan_for(dev, args, tmp_path, cores=16)
        est = gc.estimates(dev, apex_files=16 if apex else 0, jobs=6, cores=16)
        assert sum(r.budget_s for r in plan) <= 480 + 1, key
        for r in plan:
            if r.status == "planned" and r.name != "notebooks":
                assert r.budget_s >= est[r.name], (key, r)
        planned = {r.name for r in plan if r.status == "planned"}
        assert {"preflight", "pytest_gpu", "benchmarks"} <= planned, key
        assert gc.slots(est, 480)["notebooks"][0] >= gc.NOTEBOOK_S, key  # at least one notebook round


def test_a_step_that_cannot_fit_is_skipped_with_its_reason(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    est = {"preflight": 15, "pytest_gpu": 90, "apex": 200, "benchmarks": 400, "notebooks": 225}
    plan = gc.slots(est, 480)
    assert plan["apex"] == (200 * gc.MARGIN, "")  # asked for: reserved first
    assert plan["benchmarks"][0] == 0 and "not run" in plan["benchmarks"][1]
    assert plan["pytest_gpu"][0] == 90 * gc.MARGIN


def test_children_see_the_checkout_on_pythonpath(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    env = gc.child_env({"X": "1"})
    assert env["PYTHONPATH"].split(os.pathsep) == [str(ROOT), "/elsewhere"] and env["X"] == "1"


def test_apex_preflight_names_each_failed_check(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    (tmp_path / "setup.py").write_text("")
    inc = tmp_path / "include"
    inc.mkdir()
    for h in gc.APEX_HEADERS:
        (inc / h).write_text("")
    sources = {"amp_C": ["csrc/amp_C_frontend.cpp", "csrc/multi_tensor_adam.cu"],
               "fused_layer_norm_cuda": ["csrc/layer_norm_cuda.cpp", "csrc/layer_norm_cuda_kernel.cu"]}
    good = dict(apex_path=tmp_path, nvcc_version="13.0", torch_cuda="13.0", include_dirs=[inc], ninja=True,
                capability=(9, 0), torch_arch_list=["sm_75", "sm_80", "sm_90"], sources=sources)
    assert gc.apex_problems(**good) == []
    assert "13.0" in gc.apex_problems(**{**good, "nvcc_version": "12.8"})[0]
    (inc / "cusparse.h").unlink()
    assert any("cusparse.h" in p for p in gc.apex_problems(**good))
    assert any("ninja" in p for p in gc.apex_problems(**{**good, "ninja": False}))
    assert any("7.0" in p for p in gc.apex_problems(**{**good, "capability": (7, 0)}))
    assert gc.cuda_version_of("Cuda compilation tools, release 13.0, V13.0.48") == "13.0"


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
    assert env["TORCH_CUDA_ARCH_LIST"] == arch and env["MAX_JOBS"] == "16" and "--threads 4" in env["NVCC_APPEND_FLAGS"]
    assert set(gc.APEX_EXTENSIONS) == {"amp_C", "fused_layer_norm_cuda"}  # only what lesson 04 uses


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
    monkeypatch.setattr(gc, "notebook_paths", lambda root=None, pattern=None: sorted(folder.glob("*.ipynb")))
    args = gc.argparse.Namespace(jobs=2, cell_timeout=60, notebooks=None)
    result = gc.step_notebooks(args, 200, tmp_path / "out")
    assert result.status == "failed"
    assert "1 of 2 notebooks ran cleanly" in result.detail
    assert "notebooks/b.ipynb" in result.detail and "RuntimeError" in result.detail
    assert (tmp_path / "out" / "notebooks" / "notebooks__a.ipynb").exists()
    # no time left: nothing starts, and it says so
    late = gc.step_notebooks(args, 5, tmp_path / "late")
    assert late.status == "not_run" and "a.ipynb" in late.detail
