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
        assert {"preflight", "pytest_gpu", "benchmarks", "notebooks"} <= planned, key
        notebooks = next(r for r in plan if r.name == "notebooks").notebooks
        # every notebook is either planned or left out with a reason that names it
        assert sorted(notebooks["run"] + list(notebooks["left_out"])) == sorted(notebooks["estimate_s"]), key
        assert all(name in why for name, why in notebooks["left_out"].items()), key


# The GPUs the dry run plans for, as the datasheet table describes them (key, compute capability):
# Colab's T4, an L4, an A100 and an H200, the smallest to the largest our users have.
GPUS = [("T4", (7, 5)), ("L4", (8, 9)), ("A100", (8, 0)), ("H200", (9, 0))]


@pytest.mark.parametrize("key,cc", GPUS, ids=[key for key, _ in GPUS])
def test_the_plan_runs_all_30_notebooks_with_a_20_percent_margin_on_each_gpu(tmp_path, monkeypatch, key, cc):
    """Issue 40: the default 8-minute run on a 16-core GPU server plans every notebook, exercise and solution
    (before: 24 of 30 on an L4, A100 and H200, whose larger benchmark slot the notebooks paid for), and every
    planned slot is at least 20% above its estimate (before: the notebooks' 225 s slot on a T4 for a 225 s
    estimate of 45 s per notebook, never measured)."""
    from benchmarks import budget

    from fastrain_lib.measure.datasheet import DATASHEET

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    dev = budget.from_sheet(DATASHEET[key], cc)
    args = gc.argparse.Namespace(budget=480.0, apex=None, jobs=6, cell_timeout=300, notebooks=None)
    plan = {r.name: r for r in gc.plan_for(dev, args, tmp_path, cores=16)}
    est = gc.estimates(dev, jobs=6, cores=16)
    assert len(gc.notebook_paths()) == 30
    notebooks = plan["notebooks"].notebooks
    assert plan["notebooks"].status == "planned" and notebooks["left_out"] == {}
    assert len(notebooks["run"]) == 30 and "30 of 30" in plan["notebooks"].detail
    assert notebooks["planned_s"] == est["notebooks"] > 0
    for name in ("preflight", "pytest_gpu", "benchmarks", "notebooks"):
        assert plan[name].status == "planned", (key, name)
        assert plan[name].budget_s >= 1.2 * est[name], (key, name, plan[name].budget_s, est[name])
    assert sum(r.budget_s for r in plan.values()) <= 480 + 1


def test_each_notebooks_estimate_is_its_measured_time_scaled_by_the_cores_it_gets():
    """Every notebook gpu-check runs has a measured row (scripts/gpu_check_notebooks.json names the run that
    measured each number); with fewer cores per notebook than the measuring machine had, it takes longer."""
    rows = json.loads(gc.NOTEBOOK_TABLE.read_text(encoding="utf-8"))["notebooks"]
    names = [gc.notebook_name(p) for p in gc.notebook_paths()]
    assert sorted(rows) == sorted(names)
    assert all(row["ci_s"] > 0 and row["ci_from"] for row in rows.values())
    table = gc.notebook_table()
    assert table["notebooks/07_capstone_bengali_gpt.ipynb"] == pytest.approx(99.4 + 26.9)  # lab core route + ci run
    assert table["exercises/02_to_device.ipynb"] == 19.0
    roomy = gc.notebook_estimates(names, jobs=6, cores=16)  # 2.7 cores each: as measured (2), not faster
    assert roomy == table
    crowded = gc.notebook_estimates(names, jobs=4, cores=4)  # 1 core each: twice the 2-core time
    assert crowded["notebooks/00_setup.ipynb"] == pytest.approx(2 * table["notebooks/00_setup.ipynb"])
    assert gc.notebook_estimates(["elsewhere/new.ipynb"], jobs=1, table={"a": 3.0, "b": 7.0}) == \
        {"elsewhere/new.ipynb": 7.0}  # not measured yet: as long as the slowest measured one


def test_notebooks_that_do_not_fit_are_left_out_with_the_reason_lessons_first(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    est = {"notebooks/big.ipynb": 100.0, "notebooks/small.ipynb": 10.0, "solutions/s.ipynb": 30.0,
           "exercises/e.ipynb": 20.0}
    run, planned, left = gc.notebook_plan(est, jobs=2, slot_s=None)
    assert run == ["notebooks/big.ipynb", "solutions/s.ipynb", "exercises/e.ipynb", "notebooks/small.ipynb"]
    assert planned == 100.0 and left == {}  # longest first on two lanes: 100 | 30 + 20 + 10
    assert gc.lanes_time([100, 30, 20, 10], 2) == 100.0 and gc.lanes_time([5, 5, 5], 1) == 15.0
    run, planned, left = gc.notebook_plan(est, jobs=2, slot_s=70)  # 70 s: the big lesson cannot fit
    assert set(left) == {"notebooks/big.ipynb"} and planned == 30.0 and planned * gc.NOTEBOOK_MARGIN <= 70
    assert "notebooks/big.ipynb (100 s)" in left["notebooks/big.ipynb"] and "70 s slot" in left["notebooks/big.ipynb"]
    run, planned, left = gc.notebook_plan(est, jobs=1, slot_s=20)  # one lane: the lesson before the others
    assert run == ["notebooks/small.ipynb"] and set(left) == {"notebooks/big.ipynb", "solutions/s.ipynb",
                                                            "exercises/e.ipynb"}
    assert planned * 1.2 <= 20


def test_a_step_that_cannot_fit_is_skipped_with_its_reason(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    est = {"preflight": 15, "pytest_gpu": 90, "apex": 200, "benchmarks": 400, "notebooks": 225}
    plan = gc.slots(est, 480)
    assert plan["apex"] == (200 * gc.MARGIN, "")  # asked for: reserved first
    assert plan["benchmarks"][0] == 0 and "not run" in plan["benchmarks"][1]
    assert plan["pytest_gpu"][0] == 90 * gc.MARGIN


def test_an_apex_build_that_would_crowd_out_the_gpu_tests_is_not_started(monkeypatch):
    """Checked against the budget before anything starts: on a 2-core server Apex's 16 files take most of
    the 8 minutes, and the preflight and GPU tests must still get their slots."""
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    est = {"preflight": 15, "pytest_gpu": 90, "apex": gc.apex_estimate(16, 2), "benchmarks": 100, "notebooks": 60}
    plan = gc.slots(est, 480)
    assert plan["apex"][0] == 0 and "not run" in plan["apex"][1]
    assert plan["pytest_gpu"] == (90 * gc.MARGIN, "") and plan["preflight"] == (15 * gc.MARGIN, "")
    roomy = gc.slots({**est, "apex": gc.apex_estimate(16, 16)}, 480)
    assert roomy["apex"] == (gc.apex_estimate(16, 16) * gc.MARGIN, "")
    assert sum(slot for slot, _ in roomy.values()) <= 480 + 1e-9


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
    (tmp_path / "csrc").mkdir()
    sources = {name: [str(tmp_path / f) for f in files] for name, files in sources.items()}
    for f in sum(sources.values(), []):
        Path(f).write_text("")
    good = dict(apex_path=tmp_path, nvcc_version="13.0", torch_cuda="13.0", include_dirs=[inc], ninja=True,
                capability=(9, 0), torch_arch_list=["sm_75", "sm_80", "sm_90"], sources=sources)
    assert gc.apex_problems(**good) == []
    assert "13.0" in gc.apex_problems(**{**good, "nvcc_version": "12.8"})[0]
    (inc / "cusparse.h").unlink()
    assert any("cusparse.h" in p for p in gc.apex_problems(**good))
    assert any("ninja" in p for p in gc.apex_problems(**{**good, "ninja": False}))
    assert any("7.0" in p for p in gc.apex_problems(**{**good, "capability": (7, 0)}))
    Path(sources["amp_C"][1]).unlink()  # a file setup.py lists but the checkout lacks
    assert any("amp_C" in p for p in gc.apex_problems(**good))
    assert any("fused_layer_norm_cuda" in p for p in gc.apex_problems(**{**good, "sources": {"amp_C": sources["amp_C"]}}))
    assert gc.cuda_version_of("Cuda compilation tools, release 13.0, V13.0.48") == "13.0"


# Shaped like NVIDIA Apex's setup.py (its CUDAExtension calls; file names and flags as Apex lists them):
# amp_C binds update_scale_hysteresis.cu, which the old multi_tensor_*.cu pattern missed.
APEX_SETUP = """
from torch.utils.cpp_extension import CUDAExtension
ext_modules = []
if has_flag("--cuda_ext", "APEX_CUDA_EXT"):
    ext_modules.append(
        CUDAExtension(
            name="amp_C",
            sources=[
                "csrc/amp_C_frontend.cpp",
                "csrc/multi_tensor_scale_kernel.cu",
                "csrc/multi_tensor_adam.cu",  # FusedAdam
                "csrc/update_scale_hysteresis.cu",
            ],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-lineinfo", "-O3", "--use_fast_math"]},
        )
    )
    ext_modules.append(CUDAExtension(name="syncbn", sources=["csrc/syncbn.cpp", "csrc/welford.cu"]))
    ext_modules.append(
        CUDAExtension(
            name="fused_layer_norm_cuda",
            sources=["csrc/layer_norm_cuda.cpp", "csrc/layer_norm_cuda_kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-maxrregcount=50", "-O3", "--use_fast_math"]},
        )
    )
    ext_modules.append(CUDAExtension(name=computed_name(), sources=glob.glob("csrc/x*.cu")))
"""


def test_apex_sources_and_flags_come_from_apexs_own_setup_py(tmp_path):
    found = gc.apex_extensions(APEX_SETUP)
    assert set(found) == {"amp_C", "fused_layer_norm_cuda"}  # syncbn and the computed one are not ours
    assert found["amp_C"]["sources"][-1] == "csrc/update_scale_hysteresis.cu"
    assert found["fused_layer_norm_cuda"]["nvcc"] == ["-maxrregcount=50", "-O3", "--use_fast_math"]
    (tmp_path / "setup.py").write_text(APEX_SETUP)
    assert gc.apex_sources(tmp_path)["amp_C"][0] == str(tmp_path / "csrc/amp_C_frontend.cpp")
    assert gc.apex_sources(tmp_path / "nowhere") == {}
    code = gc.apex_load_code("fused_layer_norm_cuda", found["fused_layer_norm_cuda"], tmp_path, tmp_path / "out",
                             [Path("/wheels/nvidia/cu13/include")])
    assert f"extra_include_paths={[str(tmp_path / 'csrc'), '/wheels/nvidia/cu13/include']!r}" in code
    assert "extra_cuda_cflags=['-maxrregcount=50', '-O3', '--use_fast_math']" in code
    compile(code, "child", "exec")  # the child's code is valid Python


def test_each_files_compile_time_is_read_from_ninjas_log(tmp_path):
    (tmp_path / ".ninja_log").write_text("# ninja log v6\n100\t45100\t0\ta.cuda.o\tff\n200\t61700\t0\tb.o\tee\n")
    assert gc.ninja_seconds(tmp_path) == {"a.cuda.o": 45.0, "b.o": 61.5}
    assert gc.ninja_seconds(tmp_path / "none") == {}


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


def _output(cell, output_type: str, name: str | None = None) -> dict:
    """The cell's first output of this type (and stream name): the kernel may add its own stderr log line
    before it (ipykernel 7.4 once logged 'DELIM not in msg_list' from its shell-channel thread, stop 35's CI)."""
    found = [o for o in cell.outputs if o["output_type"] == output_type and name in (None, o.get("name"))]
    assert found, f"no {output_type} {name or ''} output among {cell.outputs}"
    return found[0]


def test_notebook_runner_really_executes(tmp_path):
    good = tmp_path / "good.ipynb"
    _notebook(good, "x = 2", "# NBVAL_RAISES_EXCEPTION\nraise ValueError('allowed')", "# NBVAL_SKIP\nraise SystemExit",
              "assert x == 2")
    assert gc.run_notebook(good, tmp_path / "out" / "good.ipynb", 60) == 0
    executed = nbformat.read(tmp_path / "out" / "good.ipynb", as_version=4)
    assert _output(executed.cells[1], "error")["ename"] == "ValueError"
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
    est = {"notebooks/a.ipynb": 10.0, "notebooks/b.ipynb": 10.0}
    result = gc.step_notebooks(args, 200, tmp_path / "out", estimates=est)
    assert result.status == "failed"
    assert "1 of 2 notebooks ran cleanly" in result.detail
    assert "notebooks/b.ipynb" in result.detail and "RuntimeError" in result.detail
    assert (tmp_path / "out" / "notebooks" / "notebooks__a.ipynb").exists()
    assert set(result.notebooks["seconds"]) == set(est)  # each one's measured time, for a GPU's own table
    # too little time for either: nothing starts, and it says why
    late = gc.step_notebooks(args, 5, tmp_path / "late", estimates=est)
    assert late.status == "not_run" and "a.ipynb (10 s)" in late.detail and "5 s slot" in late.detail
    assert not (tmp_path / "late" / "notebooks").exists()


def test_a_notebook_stopped_by_the_deadline_is_unfinished_at_its_cell_not_failed(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    _notebook(folder / "a.ipynb", "print(1)")
    _notebook(folder / "slow.ipynb", "x = 1", "print(x)", "import time\ntime.sleep(600)", "print('never')")
    monkeypatch.setattr(gc, "notebook_paths", lambda root=None, pattern=None: sorted(folder.glob("*.ipynb")))
    args = gc.argparse.Namespace(jobs=2, cell_timeout=600, notebooks=None)
    # the slow one's estimate fits the slot (a wrong estimate, as a real run may meet): it starts, and is stopped
    # (40 s: time for a kernel to start and print on a loaded 2-core machine)
    result = gc.step_notebooks(args, 40, tmp_path / "out", estimates={"notebooks/a.ipynb": 1, "notebooks/slow.ipynb": 1})
    assert result.status == "not_run" and gc.exit_code([result]) == 0, result.detail
    assert "1 of 2 notebooks ran cleanly" in result.detail
    assert "not finished in time" in result.detail and "notebooks/slow.ipynb (cell 2)" in result.detail
    assert "✗" not in result.detail


def test_the_last_cell_started_is_read_from_the_runners_log(tmp_path):
    log = tmp_path / "x.log"
    log.write_text(f"{gc.CELL_MARK}0\nsome output\n{gc.CELL_MARK}1\n{gc.CELL_MARK}12\nmore\n")
    assert gc.last_cell(log) == 12
    log.write_text("kernel starting\n")
    assert gc.last_cell(log) is None and gc.last_cell(tmp_path / "none.log") is None


def test_steps_left_out_reserve_no_time(tmp_path):
    """`--steps benchmarks --budget 200` on an H200: the benchmarks get the time pytest would have had in a
    whole run (before: pytest's 114 s stayed reserved and the benchmarks were skipped for lack of time)."""
    dev = next(d for key, d in gc.planned_devices() if key == "H200")
    args = gc.argparse.Namespace(budget=200.0, apex=None, jobs=6, cell_timeout=300, notebooks=None,
                                 steps="benchmarks")
    plan = {r.name: r for r in gc.plan_for(dev, args, tmp_path, cores=16)}
    assert plan["benchmarks"].status == "planned" and plan["benchmarks"].budget_s >= gc.estimates(dev)["benchmarks"]
    assert plan["pytest_gpu"].status == "skipped" and plan["pytest_gpu"].budget_s == 0
    assert plan["preflight"].status == "planned"  # always runs
    with pytest.raises(SystemExit):
        gc.main(["--dry-run", "--steps", "benchmark", "--out", str(tmp_path / "typo")])  # a typo runs nothing


# ------------------------------------------------------------------ end to end, CUDA detection faked

FAKECUDA = ROOT / "tests" / "fakecuda"  # sitecustomize.py + fakecuda.py: nothing of the course


def _base_python() -> Path | None:
    """The Python this venv was made from: it has no fastrain_lib and no torch of its own."""
    if sys.prefix == sys.base_prefix:
        return None
    found = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return found if found.exists() else None


def _checkout_copy(dest: Path) -> Path:
    """What gpu-check needs of a checkout, copied elsewhere: the editable install points at the real one,
    so a module found in the copy can only have been found through gpu-check's PYTHONPATH."""
    import shutil

    for folder in ("fastrain_lib", "benchmarks", "scripts", "reference"):
        shutil.copytree(ROOT / folder, dest / folder)  # with __pycache__ (same mtimes): no recompiling
    (dest / "tests").mkdir()
    for name in ("pyproject.toml", "tests/conftest.py", "tests/test_gpu.py"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


def _clean_env(tmp_path: Path, spec: str, log: Path) -> dict:
    import site

    venv_bin = str(Path(sys.prefix) / "bin")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin)
    env = {"PATH": path, "HOME": os.environ.get("HOME", str(tmp_path)), "LANG": "C.UTF-8", "TMPDIR": str(tmp_path),
           "FASTRAIN_LANG": "en", "MPLBACKEND": "Agg", "FAKECUDA": spec, "FAKECUDA_LOG": str(log),
           # the venv's packages (torch, pytest, nbclient) as a plain folder: its .pth files, the editable
           # install's among them, are not read from PYTHONPATH
           "PYTHONPATH": os.pathsep.join([str(FAKECUDA)] + site.getsitepackages())}
    return env


@pytest.mark.slow
def test_gpu_check_end_to_end_with_a_faked_h200_from_a_bare_python(tmp_path):
    """make gpu-check as a fresh GPU box runs it: a Python that has torch & co. but not fastrain_lib, the
    checkout seen only through gpu-check, CUDA detection faked as an H200 in every process (sitecustomize).
    Each step's child starts, finds the checkout, sees the fake and runs up to its first real CUDA call;
    the slots are the plan's, the summary names each outcome, and a step that cannot fit is skipped."""
    python = _base_python()
    if python is None:
        pytest.skip("needs a venv made from a base Python (the base has no fastrain_lib)")
    probe = subprocess.run([str(python), "-c", "import fastrain_lib"], check=False, cwd=tmp_path, capture_output=True, timeout=60,
                           env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/root")})
    if probe.returncode == 0:
        pytest.skip(f"{python} has fastrain_lib installed: it would not prove the paths")
    checkout = _checkout_copy(tmp_path / "checkout")
    log = tmp_path / "imports.jsonl"
    env = _clean_env(tmp_path, "H200", log)
    nb = tmp_path / "elsewhere" / "tiny.ipynb"
    nb.parent.mkdir()
    _notebook(nb,
              "import json, os, sys, torch, fastrain_lib\nfrom fastrain_lib.measure import hardware\n"
              "f = hardware.facts('cuda')\n"
              "print(json.dumps({'file': fastrain_lib.__file__, 'mode': os.environ.get('FASTRAIN_MODE'), "
              "'device': str(hardware.best_device()), 'gpu': f.name, 'precision': hardware.precision_for(f), "
              "'python': sys.executable}))",
              "# NBVAL_RAISES_EXCEPTION\ntorch.ones(1, device='cuda')  # the first real CUDA call")
    out = tmp_path / "run"
    script = checkout / "scripts" / "gpu_check.py"
    cmd = [str(python), str(script), "--out", str(out), "--steps", "pytest_gpu,benchmarks,notebooks",
           "--pytest-k", "facts_match or torchrun", "--bench-only", "matmul", "--notebooks", str(nb),
           "--jobs", "1", "--cell-timeout", "240"]
    proc = subprocess.run(cmd, check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert (out / "summary.json").exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    steps = {s["name"]: s for s in summary["steps"]}
    logs = {name: (out / name).read_text(encoding="utf-8", errors="replace") if (out / name).exists() else ""
            for name in ("pytest-gpu.log", "benchmarks.log")}
    context = proc.stdout[-3000:] + proc.stderr[-3000:] + "\n".join(v[-3000:] for v in logs.values())

    # preflight found the faked H200 through the base Python
    machine = summary["machine"]
    assert steps["preflight"]["status"] == "passed", context
    assert machine["gpu"] == "NVIDIA H200" and machine["capability"] == [9, 0] and machine["precision"] == "bf16"
    assert machine["datasheet"] == "H200 SXM" and machine["missing_tools"] == []

    # the slots are the plan's for this GPU, and the summary prints them
    args = gc.argparse.Namespace(budget=480.0, apex=None, jobs=1, cell_timeout=240, notebooks=str(nb),
                                 steps="pytest_gpu,benchmarks,notebooks")
    plan = {r.name: r for r in gc.plan_for(gc.this_device(machine), args, out, cores=machine["cores"])}
    assert machine["plan"] == {name: r.budget_s for name, r in plan.items()}
    for name in ("preflight", "pytest_gpu", "benchmarks"):
        assert steps[name]["budget_s"] == plan[name].budget_s > 0, name
    assert 0 < steps["notebooks"]["budget_s"] <= 480
    assert steps["benchmarks"]["command"][-4:] == ["--time-budget", str(round(plan["benchmarks"].budget_s / gc.MARGIN)),
                                                    "--only", "matmul"]
    text = (out / "summary.txt").read_text(encoding="utf-8")
    for name in ("preflight", "pytest_gpu", "apex", "benchmarks", "notebooks"):
        line = next(line for line in text.splitlines() if line.split()[1:2] == [name])
        assert line.split()[0] == steps[name]["status"], line
        assert f"/ {steps[name]['budget_s']:4.0f} s" in line, line

    # each step's outcome: the GPU's first real CUDA call ends the faked run (FakeCudaReached), nothing before
    assert steps["apex"]["status"] == "skipped" and "not asked" in steps["apex"]["detail"]
    assert steps["pytest_gpu"]["status"] == "failed", context
    assert "1 failed, 1 passed" in logs["pytest-gpu.log"], context  # facts passed; torchrun's ranks reached CUDA
    assert "test_facts_match_what_torch_reports PASSED" in logs["pytest-gpu.log"] or \
        "FAILED tests/test_gpu.py::test_torchrun_two_processes_on_one_gpu_fall_back_to_gloo" in logs["pytest-gpu.log"]
    assert "FakeCudaReached" in logs["pytest-gpu.log"], context
    assert steps["benchmarks"]["status"] == "failed", context
    assert "FAILED: FakeCudaReached" in logs["benchmarks.log"] and "gpu mode: sizes" in logs["benchmarks.log"], context
    assert steps["notebooks"]["status"] == "passed", steps["notebooks"]["detail"]
    assert "1 of 1 notebooks ran cleanly" in steps["notebooks"]["detail"]
    assert summary["exit_code"] == proc.returncode == 1  # failed: only where real CUDA was asked for

    executed = nbformat.read(out / "notebooks" / "elsewhere__tiny.ipynb", as_version=4)
    seen = json.loads(_output(executed.cells[0], "stream", "stdout")["text"])
    assert seen == {"file": str(checkout / "fastrain_lib" / "__init__.py"), "mode": "lab", "device": "cuda",
                    "gpu": "NVIDIA H200", "precision": "bf16", "python": str(python)}
    assert _output(executed.cells[1], "error")["ename"] == "FakeCudaReached"

    # every process that imported fastrain_lib found it in the copy, with the base Python
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    imports = [e for e in events if e["event"] == "fastrain_lib"]
    assert imports and {e["origin"] for e in imports} == {str(checkout / "fastrain_lib" / "__init__.py")}
    assert {e["executable"] for e in events} == {str(python)}

    def kinds(found):
        names = set()
        for e in found:
            first, args = (e["argv"] or [""])[0], " ".join(e["argv"][1:])
            if e["rank"] is not None:
                names.add(f"rank{e['rank']}")  # a torch.distributed.run worker
            elif first.endswith("gpu_check.py"):
                names.add("notebook runner" if "--run-notebook" in args else "gpu_check")
            elif "ipykernel_launcher" in first:
                names.add("kernel")
            elif "--mode gpu" in args:
                names.add("benchmarks")
            elif "tests/test_gpu.py" in args:
                names.add("pytest")
        return names

    assert kinds(imports) >= {"gpu_check", "pytest", "rank0", "rank1", "benchmarks", "notebook runner", "kernel"}, \
        [" ".join(e["argv"])[:120] for e in imports]
    assert kinds(e for e in events if e["event"] == "fake_installed") >= \
        {"gpu_check", "pytest", "rank0", "rank1", "benchmarks", "kernel"}

    # a step that cannot fit its slot is skipped with its reason, not failed: 100 s leave 81 s after the
    # preflight, the benchmarks need 156 s on an H200
    short = tmp_path / "short"
    proc = subprocess.run([str(python), str(script), "--out", str(short), "--steps", "benchmarks", "--budget", "100"],
                          check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    summary = json.loads((short / "summary.json").read_text(encoding="utf-8"))
    steps = {s["name"]: s for s in summary["steps"]}
    assert proc.returncode == summary["exit_code"] == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert steps["benchmarks"]["status"] == "skipped", steps["benchmarks"]
    assert "this step needs at least" in steps["benchmarks"]["detail"] and "not run" in steps["benchmarks"]["detail"]
    assert not (short / "benchmarks.log").exists()  # never started
    assert [steps[n]["status"] for n in ("preflight", "pytest_gpu", "apex", "notebooks")] == \
        ["passed", "skipped", "skipped", "skipped"]
