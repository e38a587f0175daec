"""GPU branches run on a CPU up to their first real CUDA call (issue 26), with torch's CUDA *detection* faked
(tests/fakecuda: name, capability, count, memory, arch list, is_bf16_supported) as a T4, an A100, 2×A100 and
an H200 (and a V100 / GTX 1650 for the arch check and the tensor-core rule). Real CUDA work raises
FakeCudaReached, which counts as success; any error before it fails.

- every decision: hardware.* (devices, facts, precision, TF32, bf16, tensor cores, report, peaks), the
  precision checks, the ablation's stages, backend / gpu_per_process / device_for_rank / launcher,
  gpu-check's preflight and plan — each asserted for the device, not only "did not raise";
- every lesson's panel: make(), device controls on the GPU, one run as in ci mode (the multi-process
  lessons' ranks are spawned Pythons that load the same fake through PYTHONPATH's sitecustomize);
- lesson 04's exercise timing cell, which timed the student's stub Triton softmax (returning None)."""

import functools
import json
import os
import sys
import types
import warnings
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def _timing_cell(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = ["".join(c["source"]) for c in nb["cells"]
             if c["cell_type"] == "code" and "on_gpu = hardware.cuda_available()" in "".join(c["source"])
             and "softmax(x_big)" in "".join(c["source"])]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("folder", ["exercises", "solutions"])
def test_a_stub_triton_softmax_is_not_timed_on_a_gpu(folder, monkeypatch):
    """Old cell: on a GPU it called bench.measure(softmax(x_big)) with the stub and printed µs and GB/s."""
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    from fastrain_lib.core.i18n import pick, t
    from fastrain_lib.lessons.l04_fused_kernels import checks as lesson04

    measured, printed = [], []
    fake_torch = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: True),  # "a GPU"
                                       softmax=torch.softmax)
    fake_bench = types.SimpleNamespace(measure=lambda fn, name: measured.append(name),
                                       fresh_random=lambda *a, **k: measured.append("cuda tensor"))
    fake_hardware = types.SimpleNamespace(cuda_available=lambda: True)  # a GPU the installed torch can run
    scope = {"bench": fake_bench, "lesson04": lesson04, "t": t, "pick": pick, "hardware": fake_hardware,
             "torch": fake_torch, "softmax": lambda x: None, "print": lambda *a: printed.append(" ".join(map(str, a)))}
    exec(_timing_cell(ROOT / folder / "04_fused_kernels.ipynb"), scope)
    assert measured == [], "a stub returning None was timed"
    assert len(printed) == 1 and printed[0].startswith("Not timed"), printed


# ---------------------------------------------------------------------------------------------------------
# CUDA detection faked (tests/fakecuda): every decision, then every lesson's GPU branch up to real CUDA work
# ---------------------------------------------------------------------------------------------------------

FAKE_DIR = ROOT / "tests" / "fakecuda"
sys.path.insert(0, str(FAKE_DIR))
import fakecuda

from fastrain_lib.measure import hardware, probe
from fastrain_lib.precision import amp as precision

DEVICES = ("T4", "A100", "A100x2", "H200")


def _clear_caches():
    probe._facts_cached.cache_clear()
    probe.cuda_problem.cache_clear()
    precision._autocast_works.cache_clear()
    precision._scaler_works.cache_clear()
    # lesson 05b caches its runs per setting (the panel and the cells share one): a run made on one faked
    # GPU must not answer for the next one (the T4's CPU threads were returned on the 2×A100)
    from fastrain_lib.lessons.l05b_ddp_in_depth import runs as runs05b
    runs05b._CACHE.clear()


@pytest.fixture
def gpu(request, monkeypatch):
    """CUDA detection faked as request.param in this process and in every process it starts (spawned
    ranks load tests/fakecuda/sitecustomize.py from PYTHONPATH)."""
    spec = request.param
    monkeypatch.setenv("FAKECUDA", spec)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FAKE_DIR), str(ROOT)] +
                                                     [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv(hardware.FORCE_T4_ENV, raising=False)
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    _clear_caches()
    with fakecuda.faked(spec):
        yield spec
    _clear_caches()


def test_the_fake_fakes_detection_only():
    with fakecuda.faked("A100x2"):
        assert torch.cuda.is_available() and torch.cuda.device_count() == 2
        assert torch.cuda.get_device_properties(1).total_memory > 80e9
        for work in (lambda: torch.ones(1, device="cuda"), lambda: torch.zeros(2).cuda(), torch.cuda.synchronize,
                     lambda: torch.cuda.set_device(0), torch.cuda.Stream, lambda: torch.zeros(2).pin_memory()):
            with pytest.raises(fakecuda.FakeCudaReached):
                work()
    assert torch.cuda.is_available() is False or torch.cuda.device_count() >= 1  # restored (a real GPU may be here)
    assert fakecuda.reached(RuntimeError("rank 1 failed:\nFakeCudaReached: ..."))
    assert not fakecuda.reached(RuntimeError("Found no NVIDIA driver"))


EXPECTED = {  # (precision, GradScaler, TF32, fast bf16, fp16 tensor cores, datasheet row)
    "T4": ("fp16", True, False, False, True, "T4"),
    "A100": ("bf16", False, True, True, True, "A100 SXM 80GB"),
    "A100x2": ("bf16", False, True, True, True, "A100 SXM 80GB"),
    "H200": ("bf16", False, True, True, True, "H200 SXM"),
}


@pytest.mark.parametrize("gpu", DEVICES, indirect=True)
def test_every_decision_on_each_gpu(gpu):
    mode, scaler, tf32, bf16, tc, row = EXPECTED[gpu]
    gpu_spec, count = fakecuda.parse(gpu)
    with warnings.catch_warnings():
        warnings.simplefilter("error", hardware.UnsupportedGPUWarning)
        assert hardware.cuda_available() and hardware.cuda_problem() is None
    assert hardware.available_devices() == ["cuda", "cpu"] and hardware.best_device().type == "cuda"
    assert hardware.check_device("cuda").type == "cuda" and hardware.gpu_count() == count
    f = hardware.facts()
    assert (f.device_type, f.name, f.capability, f.count) == ("cuda", gpu_spec.name, gpu_spec.capability, count)
    assert f.memory_bytes == gpu_spec.memory and f.nccl
    # precision
    assert hardware.precision_for(f) == hardware.precision_here("cuda") == hardware.amp_format(f) == mode
    assert hardware.needs_scaler(mode) is scaler
    assert hardware.amp_dtype_for("cuda") == {"fp16": torch.float16, "bf16": torch.bfloat16}[mode]
    assert hardware.has_tf32(f) is tf32 and hardware.bf16_fast("cuda") is bf16
    assert hardware.fp16_tensor_cores(f) is tc
    assert precision.make_scaler("cuda", mode).is_enabled() is scaler
    fields = hardware.gpu_info()
    assert fields["gpu_name"] == gpu_spec.name and fields["precision"] == mode and fields["bf16_fast"] is bf16
    assert fields["compute_capability"] == "{}.{}".format(*gpu_spec.capability) and fields["gpu_count"] == count
    report = hardware.report()  # the record every result carries
    assert report["devices"] == ["cuda", "cpu"] and report["gpu_name"] == gpu_spec.name
    rows = dict(hardware.report_table(report))
    assert rows[hardware.t("hardware.gpu")] == f"{gpu_spec.name} × {count}"
    # bf16: refused on a T4 from its capability, before any probe; elsewhere it gets as far as the probe
    probed = []
    original = precision._autocast_works.__wrapped__
    try:
        precision._autocast_works = lambda device_type, dtype: probed.append((device_type, dtype)) or True
        if bf16:
            assert precision.check_precision("cuda", "bf16") == "bf16" and probed == [("cuda", torch.bfloat16)]
        else:
            with pytest.raises(ValueError, match="7.5"):
                precision.check_precision("cuda", "bf16")
            assert probed == []
        assert precision.check_precision("cuda", "fp16") == "fp16"
        assert precision.supported("cuda") == ["fp32", "tf32", "fp16", "bf16"][: 4 if bf16 else 3]
    finally:
        precision._autocast_works = functools.cache(original)
    with pytest.raises(fakecuda.FakeCudaReached):  # the probe itself is real CUDA work
        torch.ones(4, 4, device="cuda")
    # peaks: the datasheet row of this exact GPU
    pk = hardware.peak("cuda", mode)
    assert pk.kind == "datasheet" and hardware.datasheet_for(f.name).key == row
    assert pk.tflops == pytest.approx(hardware.datasheet_for(f.name).tflops_fp16)
    # the ablation's stages: tf32 only with TF32 tensor cores, and a sentence where it is left out
    from fastrain_lib.lessons.l04_fused_kernels import ablation

    stages = [s["stage"] for s in ablation.ablation_stages("cuda", include_compile=False)]
    assert stages == (["fp32", "tf32"] if tf32 else ["fp32"]) + ["amp", "fused_adamw"]
    assert next(s for s in ablation.ablation_stages("cuda") if s["stage"] == "amp")["precision"] == mode
    left_out = ablation.left_out_stages("cuda")
    assert (left_out == []) is tf32 and (tf32 or "TF32" in left_out[0])
    # processes: NCCL with one process per GPU, gloo when two share one
    from fastrain_lib.distributed import launcher
    from fastrain_lib.lessons.l05c_sharding_and_pipelines import panel as l05c

    node = hardware.node_facts()
    for processes in (1, 2, 4):
        own = processes <= count
        assert launcher.default_backend(processes, tensors_on_cuda=True) == ("nccl" if own else "gloo")
        assert launcher.default_backend(processes) == "gloo"  # CPU tensors: never NCCL
        assert hardware.gpu_per_process(processes, node) is own and l05c.on_gpus(processes) is own
        assert [hardware.device_for_rank(r, True, node) for r in range(processes)] == \
            [f"cuda:{r % count}" for r in range(processes)]
        assert hardware.devices_used(processes, node) == min(processes, count)
    # make gpu-check's plan for this GPU: every planned step fits 8 minutes
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_check_fake", ROOT / "scripts" / "gpu_check.py")
    gc = importlib.util.module_from_spec(spec)
    sys.modules["gpu_check_fake"] = gc
    spec.loader.exec_module(gc)
    args = gc.argparse.Namespace(budget=480.0, apex=None, jobs=6, cell_timeout=300, notebooks=None, steps=None)
    pre, info = gc.preflight(args, ROOT / "gpu-check" / "never-written")
    assert pre.status == "passed" and info["gpu"] == gpu_spec.name and info["datasheet"] == row
    plan = gc.plan_for(gc.this_device(info), args, ROOT / "gpu-check" / "never-written", cores=16)
    assert sum(r.budget_s for r in plan) <= 481
    assert {r.name for r in plan if r.status == "planned"} >= {"preflight", "pytest_gpu", "benchmarks", "notebooks"}


@pytest.mark.parametrize("gpu", ["V100"], indirect=True)
def test_a_gpu_this_torch_cannot_run_falls_back_to_the_cpu(gpu):
    with pytest.warns(hardware.UnsupportedGPUWarning):
        assert not hardware.cuda_available()
    assert "7.0" in hardware.cuda_problem() and hardware.best_device().type == "cpu"
    assert hardware.available_devices() == ["cpu"] and hardware.facts().device_type == "cpu"


@pytest.mark.parametrize("gpu", ["GTX1650"], indirect=True)
def test_a_turing_card_without_tensor_cores(gpu):
    f = hardware.facts("cuda")
    assert not hardware.fp16_tensor_cores(f) and hardware.precision_for(f) == "fp32"
    assert hardware.amp_format(f) == "fp16" and dict(hardware.report_table())[hardware.t("hardware.fp16_tc")] == \
        hardware.t("core.no")


LESSONS = ("l00_setup", "l01_gpu_vs_cpu", "l02_to_device", "l03_mixed_precision", "l04_fused_kernels", "l07_capstone")
MULTI_PROCESS = ("l05_data_vs_model_parallel", "l05b_ddp_in_depth", "l05c_sharding_and_pipelines")


def _run_panel_on_the_gpu(lesson: str, must_reach: bool = True, **settings):
    """make() the lesson's panel, point every device control at the GPU, run it once as ci mode's show()
    does; the run must end at real CUDA work (FakeCudaReached, here or in a rank), never earlier."""
    import importlib

    import ipywidgets as widgets

    module = importlib.import_module(f"fastrain_lib.lessons.{lesson}.panel")
    panel = module.make()
    for control in panel.controls.values():
        options = [o[1] if isinstance(o, tuple) else o for o in getattr(control, "options", ())]
        for wanted in ("cuda", "nccl"):
            if wanted in options:
                control.value = (wanted,) if isinstance(control, widgets.SelectMultiple) else wanted
    panel.run(**settings)
    error = panel.last_error
    assert (error is None and not must_reach) or fakecuda.reached(error), \
        f"{lesson}: " + ("never reached CUDA on a GPU" if error is None else
                         "".join(__import__("traceback").format_exception(error))[-3000:])
    return panel


@pytest.mark.parametrize("lesson", LESSONS)
@pytest.mark.parametrize("gpu", DEVICES, indirect=True)
def test_each_lesson_panel_runs_its_gpu_branch(gpu, lesson):
    _run_panel_on_the_gpu(lesson)


@pytest.mark.slow
@pytest.mark.parametrize("lesson", MULTI_PROCESS)
@pytest.mark.parametrize("gpu", ["T4", "A100x2"], indirect=True)
def test_each_multi_process_panel_runs_its_gpu_branch(gpu, lesson):
    """2×A100: one process per GPU over NCCL; the ranks are spawned Pythons that fake the same GPU
    (sitecustomize on PYTHONPATH) and stop at their first CUDA call. One T4 cannot give two processes a
    GPU each: a panel may run them on the CPU instead (no error either way)."""
    _run_panel_on_the_gpu(lesson, must_reach=(gpu == "A100x2"))
