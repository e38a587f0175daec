"""The hardware module decides from plain facts; these tests feed it real device descriptions.

Names are exactly what torch.cuda.get_device_name() returns (the driver's product name, as
`nvidia-smi -L` prints it); capabilities from NVIDIA's CUDA GPU list
(https://developer.nvidia.com/cuda-gpus); peaks from the datasheet each row names.
"""

import re
import sys
import types
from pathlib import Path

import pytest
import torch

from fastrain_lib.measure import hardware
from fastrain_lib.measure.hardware import Facts

GB = 1024**3
EPYC_FLAGS = frozenset({"avx2", "fma", "sse4_2"})  # AMD EPYC 7B13 (Zen 3): no avx512_bf16
SPR_FLAGS = frozenset({"avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile", "amx_int8"})  # Xeon 8480+
ZEN4_FLAGS = frozenset({"avx2", "avx512f", "avx512_bf16"})  # EPYC 9654 (Zen 4)


def gpu(name, cc, mem_gb, count=1):
    return Facts("cuda", name, cc, count, int(mem_gb * GB), nccl=True)


# (facts, precision a lesson picks, AMP format, datasheet key or None, fp16 TFLOP/s, fp32 TFLOP/s, GB/s, source)
DEVICES = [
    (gpu("Tesla T4", (7, 5), 15.8), "fp16", "fp16", "T4", 65, 8.1, 320,
     "Colab free GPU; NVIDIA T4 datasheet (65 fp16 TC, 8.1 fp32, 320 GB/s); sm_75 has no bf16 tensor cores"),
    (gpu("Tesla V100-SXM2-16GB", (7, 0), 16), "fp16", "fp16", "V100 SXM2", 125, 15.7, 900,
     "NVIDIA V100 datasheet: SXM2 125 TC / 15.7 fp32 / 900 GB/s"),
    (gpu("Tesla V100-PCIE-32GB", (7, 0), 32), "fp16", "fp16", "V100 PCIe", 112, 14, 900,
     "NVIDIA V100 datasheet: PCIe 112 TC / 14 fp32"),
    (gpu("Tesla P100-PCIE-16GB", (6, 0), 16), "fp32", "fp16", "P100 PCIe 16GB", 18.7, 9.3, 732,
     "Kaggle's P100; NVIDIA Tesla P100 datasheet; sm_60 has no tensor cores"),
    (gpu("NVIDIA A100-SXM4-80GB", (8, 0), 80), "bf16", "bf16", "A100 SXM 80GB", 312, 19.5, 2039,
     "NVIDIA A100 datasheet: 312 bf16 dense, 19.5 fp32, 2039 GB/s (80GB SXM)"),
    (gpu("NVIDIA A100-SXM4-40GB", (8, 0), 40), "bf16", "bf16", "A100 SXM 40GB", 312, 19.5, 1555,
     "NVIDIA A100 datasheet: 1555 GB/s (40GB)"),
    (gpu("NVIDIA A100-PCIE-40GB", (8, 0), 40), "bf16", "bf16", "A100 PCIe 40GB", 312, 19.5, 1555,
     "NVIDIA A100 datasheet: PCIe 40GB 1555 GB/s"),
    (gpu("NVIDIA A100 80GB PCIe", (8, 0), 80), "bf16", "bf16", "A100 PCIe 80GB", 312, 19.5, 1935,
     "NVIDIA A100 datasheet: PCIe 80GB 1935 GB/s"),
    (gpu("NVIDIA A10", (8, 6), 24), "bf16", "bf16", "A10", 125, 31.2, 600, "NVIDIA A10 datasheet: 125 bf16 dense"),
    (gpu("NVIDIA L4", (8, 9), 24), "bf16", "bf16", "L4", 121, 30.3, 300, "NVIDIA L4 datasheet: 242 sparse = 121 dense"),
    (gpu("NVIDIA L40", (8, 9), 48), "bf16", "bf16", "L40", 181.05, 90.5, 864, "NVIDIA L40 datasheet: 181.05 fp16 dense"),
    (gpu("NVIDIA L40S", (8, 9), 48), "bf16", "bf16", "L40S", 362.05, 91.6, 864,
     "NVIDIA L40S datasheet: 362.05 bf16 dense (the old substring lookup gave the L4's 121)"),
    (gpu("NVIDIA H100 80GB HBM3", (9, 0), 80), "bf16", "bf16", "H100 SXM", 989.5, 67, 3350,
     "NVIDIA H100 datasheet: SXM 1979 sparse = 989.5 dense, 3.35 TB/s"),
    (gpu("NVIDIA H100 PCIe", (9, 0), 80), "bf16", "bf16", "H100 PCIe", 756.5, 51, 2000,
     "NVIDIA H100 datasheet: PCIe 1513 sparse = 756.5 dense, 2 TB/s (the old lookup gave SXM's 989)"),
    (gpu("NVIDIA H100 NVL", (9, 0), 94), "bf16", "bf16", "H100 NVL", 835.5, 60, 3900,
     "NVIDIA H100 datasheet: NVL 1671 sparse = 835.5 dense, 3.9 TB/s"),
    (gpu("NVIDIA H200", (9, 0), 141), "bf16", "bf16", "H200 SXM", 989.5, 67, 4800,
     "NVIDIA H200 datasheet: same compute as H100 SXM, 4.8 TB/s"),
    (gpu("NVIDIA GeForce RTX 4090", (8, 9), 24), "bf16", "bf16", "RTX 4090", 165.2, 82.6, 1008,
     "NVIDIA Ada whitepaper: 165.2 fp16 TC with fp32 accumulate"),
    (gpu("NVIDIA GeForce RTX 3090", (8, 6), 24), "bf16", "bf16", "RTX 3090", 71, 35.6, 936,
     "NVIDIA GA102 whitepaper: 71 fp16 TC with fp32 accumulate"),
    (gpu("NVIDIA GeForce RTX 3060", (8, 6), 12), "bf16", "bf16", None, None, None, None,
     "not in our table: no datasheet peak, MFU unknown"),
    (gpu("NVIDIA A10G", (8, 6), 24), "bf16", "bf16", None, None, None, None,
     "AWS g5's A10G: NVIDIA publishes no datasheet, so no peak (not the A10's)"),
    (Facts("cpu", "AMD EPYC 7B13", cpu_flags=EPYC_FLAGS, physical_cores=2), "fp32", "bf16", None, None, None, None,
     "this course's CI VM: no avx512_bf16, bf16 is emulated"),
    (Facts("cpu", "Intel(R) Xeon(R) Platinum 8480+", cpu_flags=SPR_FLAGS, physical_cores=56), "bf16", "bf16",
     None, None, None, None, "Sapphire Rapids: AMX and avx512_bf16"),
    (Facts("cpu", "AMD EPYC 9654 96-Core Processor", cpu_flags=ZEN4_FLAGS), "bf16", "bf16", None, None, None, None,
     "Zen 4: avx512_bf16"),
    (Facts("mps", "Apple MPS", count=1, probed_formats=("fp16",)), "fp16", "fp16", None, None, None, None,
     "a Mac whose probe proved fp16 only"),
    (Facts("mps", "Apple MPS", count=1, probed_formats=("fp16", "bf16")), "bf16", "bf16", None, None, None, None,
     "a Mac (macOS 14+) whose probe proved bf16 too"),
    (Facts("mps", "Apple MPS", count=1, probed_formats=()), "fp32", "fp32", None, None, None, None,
     "a Mac where no AMP step worked: no AMP"),
]


@pytest.mark.parametrize("f,precision,amp,key,fp16,fp32,gbs,source", DEVICES,
                         ids=[f"{d[0].device_type}:{d[0].name}:{d[0].probed_formats}" for d in DEVICES])
def test_device_table(f, precision, amp, key, fp16, fp32, gbs, source, monkeypatch):
    monkeypatch.delenv(hardware.FORCE_T4_ENV, raising=False)
    assert source  # every row says where its facts come from
    assert hardware.precision_for(f) == precision
    assert hardware.amp_format(f) == amp
    assert hardware.needs_scaler(precision) == (precision == "fp16")
    if f.device_type != "cuda":
        return
    sheet = hardware.datasheet_for(f.name)
    assert (sheet.key if sheet else None) == key
    pk16, pk32 = hardware.datasheet_peak(f, "fp16"), hardware.datasheet_peak(f, "fp32")
    if key is None:  # unknown GPU: no peak, no MFU — never a neighbour's numbers
        assert pk16.kind == "unknown" and pk16.flops is None
        assert hardware.mfu(1e12, pk16) is None
        assert hardware.mfu_text(hardware.mfu(1e12, pk16)) == hardware.t("hardware.mfu_unknown")
        return
    assert pk16.kind == "datasheet" and sheet.source in pk16.label
    assert pk16.flops == pytest.approx(fp16 * 1e12)
    assert pk32.flops == pytest.approx(fp32 * 1e12)
    assert pk16.bandwidth == pytest.approx(gbs * 1e9)
    # bf16's peak is the tensor-core rate only where bf16 tensor cores exist.
    bf16 = hardware.datasheet_peak(f, "bf16").flops
    assert bf16 == pytest.approx((fp16 if f.capability >= (8, 0) else fp32) * 1e12)


def test_near_miss_names_do_not_borrow_a_neighbours_peak():
    # The old substring lookup: "NVIDIA L40S" → L4 row, "NVIDIA H100 PCIe" → SXM row.
    assert hardware.datasheet_for("NVIDIA L40S").tflops_fp16 > 2.9 * hardware.datasheet_for("NVIDIA L4").tflops_fp16
    assert hardware.datasheet_for("NVIDIA H100 PCIe").key == "H100 PCIe"
    for name in ("NVIDIA L4X", "L4", "NVIDIA A100", "GeForce GTX 1050", "NVIDIA H100", ""):
        assert hardware.datasheet_for(name) is None, name
    # Case and spacing differences between tools are not different GPUs.
    assert hardware.datasheet_for("nvidia  h100 80gb hbm3").key == "H100 SXM"


def test_datasheet_rows_are_sourced_and_consistent():
    names = [n for row in hardware.ROWS for n in row.names]
    assert len(names) == len(set(names))  # one row per driver name
    for row in hardware.ROWS:
        assert "NVIDIA" in row.source and ("datasheet" in row.source or "whitepaper" in row.source)
        assert row.tflops_fp16 > row.tflops_fp32 > 0 and row.bandwidth_gbs > 0
        assert row.fast_bf16 == (row.tflops_tf32 is not None)  # both arrived with Ampere
    assert hardware.DATASHEET["T4"].fast_bf16 is False  # FACTS.md: no fast bf16 on a T4
    for row in hardware.datasheet_rows():
        assert "NVIDIA" in row[-1]


def test_mfu_over_100_percent_is_flagged_not_shown():
    t4 = hardware.datasheet_peak(gpu("Tesla T4", (7, 5), 16), "fp16")
    assert hardware.mfu(32.5e12, t4) == pytest.approx(0.5)
    assert hardware.mfu_text(0.5) == "50.0%"
    assert hardware.mfu_ok(0.5) and not hardware.mfu_ok(1.2) and not hardware.mfu_ok(None)
    text = hardware.mfu_text(hardware.mfu(130e12, t4))  # 200%: a wrong peak or FLOP count
    assert "%" in text and "200" not in text and text == hardware.t("hardware.mfu_impossible")


def test_force_t4_policy_makes_any_gpu_take_fp16(monkeypatch):
    h100 = gpu("NVIDIA H100 80GB HBM3", (9, 0), 80)
    monkeypatch.setenv(hardware.FORCE_T4_ENV, "1")
    assert hardware.precision_for(h100) == "fp16" and "bf16" not in hardware.fast_formats(h100)
    assert hardware.needs_scaler(hardware.precision_for(h100))
    monkeypatch.setenv(hardware.FORCE_T4_ENV, "0")
    assert hardware.precision_for(h100) == "bf16"


# --- distributed backend: 0/1/2/8 GPUs × 1/2/4 processes × CPU/CUDA tensors ------------------------
NCCL_CASES = {(1, 1), (2, 1), (2, 2), (8, 1), (8, 2), (8, 4)}  # (GPUs, processes): one GPU each


@pytest.mark.parametrize("gpus", [0, 1, 2, 8])
@pytest.mark.parametrize("procs", [1, 2, 4])
@pytest.mark.parametrize("on_cuda", [False, True])
def test_backend_table(gpus, procs, on_cuda):
    f = gpu("NVIDIA A100-SXM4-80GB", (8, 0), 80, count=gpus) if gpus else Facts("cpu", "x")
    expected = "nccl" if on_cuda and (gpus, procs) in NCCL_CASES else "gloo"
    assert hardware.backend_for(procs, on_cuda, f) == expected
    # Each rank's tensors: its own GPU with NCCL; a shared GPU with gloo; the CPU for CPU workers.
    devices = [hardware.device_for_rank(r, on_cuda, f) for r in range(procs)]
    if not on_cuda or gpus == 0:
        assert devices == ["cpu"] * procs
    else:
        assert all(d.startswith("cuda:") and int(d[5:]) < gpus for d in devices)
        if expected == "nccl":
            assert len(set(devices)) == procs  # NCCL: one GPU per process


# Lesson 05c's workers (ZeRO/FSDP, tensor parallel, pipeline schedules): (machine, processes) ->
# tensors on GPUs? Only with a GPU per process and NCCL; otherwise the CPU with gloo.
GPU_PER_PROCESS = [
    (gpu("Tesla T4", (7, 5), 15.8), 1, True),   # Colab: one process on its one GPU (NCCL, world of 1)
    (gpu("Tesla T4", (7, 5), 15.8), 2, False),  # Colab, 2 processes: NCCL cannot share one GPU
    (gpu("NVIDIA H200", (9, 0), 141), 2, False),
    (gpu("NVIDIA A100-SXM4-80GB", (8, 0), 80, count=2), 2, True),
    (gpu("NVIDIA A100-SXM4-80GB", (8, 0), 80, count=2), 3, False),
    (gpu("NVIDIA H100 80GB HBM3", (9, 0), 80, count=8), 4, True),
    (gpu("NVIDIA H100 80GB HBM3", (9, 0), 80, count=8), 8, True),
    (gpu("NVIDIA H100 80GB HBM3", (9, 0), 80, count=8), 16, False),
    (Facts("cuda", "NVIDIA GeForce RTX 4090", (8, 9), 2, 24 * GB, nccl=False), 2, False),  # Windows: no NCCL
    (Facts("mps", "Apple MPS", count=1), 1, False),  # torch.distributed has no MPS backend
    (Facts("cpu", "AMD EPYC 7B13", cpu_flags=EPYC_FLAGS, physical_cores=2), 2, False),
]


@pytest.mark.parametrize("f,procs,expected", GPU_PER_PROCESS, ids=lambda v: getattr(v, "name", str(v)))
def test_gpu_per_process_table(f, procs, expected):
    assert hardware.gpu_per_process(procs, f) is expected
    # what the workers then get from launch: NCCL with one GPU each, or gloo on the CPU
    assert hardware.backend_for(procs, expected, f) == ("nccl" if expected else "gloo")
    devices = {hardware.device_for_rank(r, expected, f) for r in range(procs)}
    assert devices == ({f"cuda:{r}" for r in range(procs)} if expected else {"cpu"})


def test_no_nccl_build_means_gloo():
    f = Facts("cuda", "NVIDIA L4", (8, 9), 4, 24 * GB, nccl=False)  # e.g. Windows
    assert hardware.backend_for(2, True, f) == "gloo"


@pytest.mark.parametrize("procs,cores,expected", [(1, 8, 8), (2, 8, 4), (3, 8, 2), (4, 2, 1), (8, 2, 1), (1, 1, 1)])
def test_threads_for(procs, cores, expected):
    assert hardware.threads_for(procs, cores) == expected


def test_threads_for_counts_physical_cores(monkeypatch):
    import psutil

    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: 16 if logical else 8)
    assert hardware.threads_for(2) == 4  # hyperthreads do not count
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: None)
    monkeypatch.setattr(hardware.os, "cpu_count", lambda: 6)
    assert hardware.threads_for(1) == 6


def test_fits_device_memory():
    t4 = gpu("Tesla T4", (7, 5), 15)
    gpt2_fp32_batch = 14 * GB  # GPT-2 small, fp32, 16×1024 tokens: about a full T4
    assert not hardware.fits(gpt2_fp32_batch, t4)
    assert hardware.fits(gpt2_fp32_batch, gpu("NVIDIA H200", (9, 0), 141))
    assert hardware.fits(10**15, Facts("cpu", "x"))  # unknown memory: do not refuse
    assert hardware.largest_fitting([4, 16, 64], lambda b: b * GB, t4) == 4
    assert hardware.largest_fitting([4, 16, 64], lambda b: b * GB, gpu("NVIDIA H200", (9, 0), 141)) == 64
    assert hardware.largest_fitting([32, 64], lambda b: b * GB, t4) == 32  # nothing fits: the smallest


# --- synchronisation ---------------------------------------------------------------------------------
def test_synchronize_waits_for_the_right_device(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: calls.append(("cuda", str(device))))
    monkeypatch.setattr(torch.mps, "synchronize", lambda: calls.append(("mps", None)))
    hardware.synchronize("cpu")
    assert calls == []
    hardware.synchronize("cuda:1")
    hardware.synchronize(torch.device("mps"))
    assert calls == [("cuda", "cuda:1"), ("mps", None)]


# --- detection with simulated CUDA / MPS ---------------------------------------------------------------
def test_device_choice_follows_what_is_available(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert hardware.available_devices() == ["cuda", "mps", "cpu"]
    assert hardware.best_device().type == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert hardware.available_devices() == ["mps", "cpu"]
    assert hardware.best_device().type == "mps"
    assert hardware.check_device("mps").type == "mps"
    with pytest.raises(RuntimeError, match="mps, cpu"):
        hardware.check_device("cuda")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert hardware.available_devices() == ["cpu"] and hardware.best_device().type == "cpu"


def test_devices_here_end_with_cpu():
    devices = hardware.available_devices()
    assert devices[-1] == "cpu"
    assert ("cuda" in devices) == torch.cuda.is_available()


def test_facts_of_this_cpu():
    f = hardware.facts("cpu")
    assert f.device_type == "cpu" and f.name == hardware.cpu_name()
    assert f.physical_cores >= 1 and f.memory_bytes > 0
    assert hardware.device_name("cpu") == f.name


def test_amp_probe_runs_a_real_step():
    # The probe MPS gets, run here on a CPU: torch 2.14 runs both formats on a CPU (FACTS.md).
    assert hardware.probe_amp("cpu", "bf16") is True
    assert hardware.probe_amp("cpu", "fp16") is True
    assert hardware.probe_amp("nosuchdevice", "fp16") is False


# --- report ------------------------------------------------------------------------------------------------
def test_report_has_provenance_fields():
    info = hardware.report()
    for key in ("torch", "cpu_name", "cpu_cores", "devices", "python", "colab", "physical_cores"):
        assert key in info
    assert info["torch"] == torch.__version__
    rows = hardware.report_table(info)
    assert any("PyTorch" in label for label, _ in rows)


@pytest.mark.parametrize("cc,bf16", [((7, 5), False), ((8, 0), True), ((7, 0), False), ((9, 0), True)])
def test_gpu_fields_say_what_is_fast(cc, bf16, monkeypatch):
    monkeypatch.delenv(hardware.FORCE_T4_ENV, raising=False)
    fields = hardware.gpu_fields(gpu("Tesla T4" if cc == (7, 5) else "NVIDIA A100-SXM4-80GB", cc, 15.8))
    assert fields["bf16_fast"] is bf16 and fields["fp16_tensor_cores"] is True
    assert fields["precision"] == ("bf16" if bf16 else "fp16")


def test_report_table_for_a_t4(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    info = hardware.report() | hardware.gpu_fields(gpu("Tesla T4", (7, 5), 15.8))
    values = dict(hardware.report_table(info))
    assert values["GPU"] == "Tesla T4 × 1"
    assert values["fp16 tensor cores?"] == "yes"
    assert values["fast bf16?"] == "no"
    assert values["compute capability"] == "7.5"


def test_show_report_renders_escaped_html(monkeypatch):
    shown = []
    import IPython.display

    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj.data))
    hardware.show_report(hardware.report() | {"cpu_name": "<b>x</b>"})
    assert "&lt;b&gt;x&lt;/b&gt;" in shown[0] and "<table" in shown[0]


def test_colab_detection(monkeypatch):
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert hardware.is_colab() is False
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert hardware.is_colab() is True


# --- the measured peak -----------------------------------------------------------------------------------
def test_measured_peak_takes_the_better_format(monkeypatch):
    """fp16 on a CPU without fp16 hardware is slow: dividing by its rate gave MFU > 100%.
    A fake clock makes fp32 4× faster than fp16: the peak must be the fp32 one."""
    import torch.utils.benchmark as tbench

    class FakeTimer:
        def __init__(self, stmt, globals, num_threads=1):  # torch's Timer: ONE thread unless told
            self.a, self.threads = globals["a"], num_threads

        def timeit(self, number):
            return None

        def blocked_autorange(self, min_run_time):
            n = self.a.shape[0]
            rate = 1e11 if self.a.dtype == torch.float32 else 2.5e10
            return types.SimpleNamespace(median=2 * n**3 / (rate * self.threads / torch.get_num_threads()))

    monkeypatch.setattr(tbench, "Timer", FakeTimer)
    hardware.measured_peak.cache_clear()
    threads = torch.get_num_threads()
    torch.set_num_threads(2)  # the fake matmul reaches its rate only with all of torch's threads
    try:
        pk = hardware.peak("cpu", "fp16")
        assert pk.kind == "measured" and pk.flops == pytest.approx(1e11)
        assert "float32" in pk.label and "float32" in pk.source
        assert hardware.mfu(5e10, pk) == pytest.approx(0.5)
    finally:
        torch.set_num_threads(threads)
        hardware.measured_peak.cache_clear()


def test_a_simulated_mac_gets_its_name_and_only_the_proved_format(monkeypatch):
    """torch.cuda.get_device_name() crashed lesson 03 on a Mac, and amp_dtype_for said bf16 for MPS."""
    from fastrain_lib.measure import probe

    monkeypatch.setattr(probe, "mps_available", lambda: True)  # detection lives in probe.py
    monkeypatch.setattr(probe, "probe_amp", lambda device_type, mode: mode == "fp16")
    hardware._facts_cached.cache_clear()
    try:
        f = hardware.facts("mps")
        assert f.device_type == "mps" and f.probed_formats == ("fp16",)
        assert hardware.device_name("mps") == "Apple MPS"
        assert hardware.amp_dtype_for("mps") == torch.float16
        assert hardware.precision_here("mps") == "fp16"
    finally:
        hardware._facts_cached.cache_clear()


# --- the peak of a multi-process run: devices really used, not processes --------------------------------
H100 = "NVIDIA H100 80GB HBM3"
PEAK_TABLE = [
    # (what the machine has, processes, devices whose peaks add up)
    ("1 GPU", gpu(H100, (9, 0), 80, count=1), 2, 1),  # two processes share one GPU's tensor cores
    ("2 GPUs", gpu(H100, (9, 0), 80, count=2), 2, 2),
    ("8 GPUs", gpu(H100, (9, 0), 80, count=8), 4, 4),  # four processes use four of the eight
    ("2 GPUs, 3 procs", gpu(H100, (9, 0), 80, count=2), 3, 2),
    ("8 GPUs, 1 proc", gpu(H100, (9, 0), 80, count=8), 1, 1),
    ("CPU", Facts("cpu", "AMD EPYC 7B13", physical_cores=2), 2, 1),  # the processes share the measured cores
    ("CPU, 4 procs on 2 cores", Facts("cpu", "AMD EPYC 7B13", physical_cores=2), 4, 1),
    ("CPU, 64 cores", Facts("cpu", "AMD EPYC 9654", physical_cores=64), 8, 1),
    ("Mac", Facts("mps", "Apple MPS", count=1), 2, 1),
]


@pytest.mark.parametrize("case,f,procs,devices", PEAK_TABLE, ids=[row[0] for row in PEAK_TABLE])
def test_a_multi_process_peak_counts_devices_used_not_processes(case, f, procs, devices):
    assert hardware.devices_used(procs, f) == devices
    # the same GPUs that device_for_rank hands out: the peak can never count a GPU no rank uses
    assert devices == len({hardware.device_for_rank(r, True, f) for r in range(procs)})
    one = hardware.Peak(989e12 if f.device_type == "cuda" else 3e11, 3.35e12, "datasheet", "one", "src")
    pk = hardware.peak_for_processes(one, procs, f)
    assert pk.flops == pytest.approx(one.flops * devices) and pk.bandwidth == pytest.approx(one.bandwidth * devices)
    assert (pk.label == "one") == (devices == 1) and (f"× {devices}" in pk.label) == (devices > 1)
    # an MFU from this peak: 2 processes on 1 GPU at 40% of that GPU stay 40%, not 20%
    achieved = 0.4 * one.flops * devices
    assert hardware.mfu(achieved, pk) == pytest.approx(0.4)


def test_cuda_workers_with_cpu_tensors_and_unknown_peaks():
    eight = gpu(H100, (9, 0), 80, count=8)
    assert hardware.devices_used(4, eight, tensors_on_cuda=False) == 1  # gloo workers on the CPU
    assert hardware.devices_used(0, eight) == 1  # nonsense counts as one process
    unknown = hardware.Peak(None, None, "unknown", "?", "")
    assert hardware.peak_for_processes(unknown, 4, eight) is unknown


# ---------------------------------------------------------------------------------------------
# A GPU the installed torch was not built for (issue 26): torch 2.14's wheels carry sm_75 and newer
# ---------------------------------------------------------------------------------------------
def _fake_gpu(monkeypatch, name, capability, arch_list=("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")):
    import torch

    from fastrain_lib.measure import probe

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_arch_list", lambda: list(arch_list))
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index=0: capability)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: name)
    probe.cuda_problem.cache_clear()
    hardware._facts_cached.cache_clear()
    return probe


@pytest.fixture
def clean_detection():
    from fastrain_lib.measure import probe

    yield
    probe.cuda_problem.cache_clear()
    hardware._facts_cached.cache_clear()


@pytest.mark.parametrize("cc,runs", [((7, 0), False), ((6, 0), False), ((6, 1), False), ((7, 5), True), ((8, 0), True),
                                     ((8, 6), True), ((8, 9), True), ((9, 0), True), ((12, 0), True)])
def test_arch_runs_follows_the_build(cc, runs):
    built = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]  # torch 2.14.1+cu130 here
    assert hardware.arch_runs(cc, built) is runs
    # PTX of an older architecture is compiled by the driver: a build with compute_70 runs a V100
    assert hardware.arch_runs((7, 0), ["sm_80", "compute_70"]) and not hardware.arch_runs((7, 0), ["compute_75"])
    assert hardware.arch_runs((7, 0), [])  # a build that does not say: not refused


def test_a_v100_under_a_torch_built_for_sm75_falls_back_to_the_cpu_and_says_why(monkeypatch, clean_detection):
    """Old code: torch.cuda.is_available() was enough, the course picked cuda, the first kernel failed."""
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    _fake_gpu(monkeypatch, "Tesla V100-SXM2-16GB", (7, 0))
    with pytest.warns(hardware.UnsupportedGPUWarning) as caught:
        assert hardware.cuda_available() is False
    text = str(caught[0].message)
    assert "Tesla V100-SXM2-16GB" in text and "7.0" in text and "sm_75" in text
    assert "CPU" in text and "Colab" in text and "পুরোনো torch" in text  # the three ways out, in Bengali
    assert hardware.best_device().type == "cpu" and hardware.available_devices() == ["cpu"]
    assert hardware.gpu_count() == 0 and hardware.facts().device_type == "cpu"
    assert "cuda" not in str(hardware.check_device("cpu"))
    with pytest.raises(RuntimeError):
        hardware.check_device("cuda")
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    from fastrain_lib.measure import probe

    assert "older torch" in probe.unsupported_message("Tesla V100-SXM2-16GB", (7, 0), ["sm_75"])


def test_a_t4_under_the_same_torch_is_used(monkeypatch, clean_detection):
    _fake_gpu(monkeypatch, "Tesla T4", (7, 5))
    assert hardware.cuda_available() is True and hardware.cuda_problem() is None


# ---------------------------------------------------------------------------------------------
# fp16 tensor cores from the chip, not the capability alone (issue 26): TU116/TU117 have none
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,cc,tensor_cores", [
    ("Tesla T4", (7, 5), True), ("NVIDIA GeForce RTX 2060", (7, 5), True), ("Tesla V100-SXM2-16GB", (7, 0), True),
    ("NVIDIA A100-SXM4-80GB", (8, 0), True), ("NVIDIA H200", (9, 0), True),
    ("NVIDIA GeForce GTX 1650", (7, 5), False), ("NVIDIA GeForce GTX 1650 Ti", (7, 5), False),
    ("NVIDIA GeForce GTX 1660 SUPER", (7, 5), False), ("NVIDIA GeForce GTX 1660 Ti", (7, 5), False),
    ("NVIDIA GeForce GTX 1630", (7, 5), False), ("NVIDIA GeForce MX450", (7, 5), False),
    ("NVIDIA T1000 8GB", (7, 5), False), ("Quadro T2000", (7, 5), False), ("NVIDIA T400 4GB", (7, 5), False),
    ("NVIDIA GeForce GTX 1080 Ti", (6, 1), False),
])
def test_fp16_tensor_cores_come_from_the_chip(name, cc, tensor_cores):
    f = hardware.Facts("cuda", name, cc, 1, 4 * 2**30)
    assert hardware.fp16_tensor_cores(f) is tensor_cores
    assert hardware.gpu_fields(f)["fp16_tensor_cores"] is tensor_cores  # what the report says
    assert ("fp16" in hardware.fast_formats(f)) is tensor_cores
    if not tensor_cores and cc >= (7, 0):  # a GTX 1650 is told fp32, not "fp16 + GradScaler"
        assert hardware.precision_for(f) == "fp32"


def test_the_report_says_no_tensor_cores_for_a_gtx_1650(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    info = hardware.report() | hardware.gpu_fields(hardware.Facts("cuda", "NVIDIA GeForce GTX 1650", (7, 5), 1, 4 * 2**30))
    assert dict(hardware.report_table(info))["fp16 tensor cores?"] == "no"


@pytest.mark.parametrize("name,cc,tf32", [("Tesla T4", (7, 5), False), ("Tesla V100-SXM2-16GB", (7, 0), False),
                                          ("NVIDIA A100-SXM4-80GB", (8, 0), True), ("NVIDIA L4", (8, 9), True)])
def test_has_tf32_only_from_ampere(name, cc, tf32):
    assert hardware.has_tf32(hardware.Facts("cuda", name, cc, 1)) is tf32
    assert not hardware.has_tf32(hardware.Facts("cpu", "x"))


@pytest.mark.parametrize("mode, gpu, asked, runs", [
    ("lab", False, "", False),            # a CPU lab PC: the core route must fit the session
    ("lab", True, "", True),              # a GPU makes the optional cell cheap
    ("ci", False, "", True), ("full", False, "", True),  # tests and demos cover every cell
    ("lab", False, "all", True), ("lab", False, "compile", True), ("lab", False, "profiler, Compile", True),
    ("lab", False, "profiler", False),    # another cell was asked for, not this one
    ("ci", True, "none", False), ("lab", True, "NONE,compile", False),
])
def test_run_optional_decides_from_the_mode_the_gpu_and_the_request(mode, gpu, asked, runs, monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", mode)
    monkeypatch.setenv("FASTRAIN_OPTIONAL", asked)
    monkeypatch.setattr(hardware, "cuda_available", lambda: gpu)
    assert hardware.run_optional("compile") is runs


@pytest.mark.parametrize("mode, gpu, asked, runs", [
    ("ci", False, "", False),             # make test covers it elsewhere (CI_COVERED_ELSEWHERE)
    ("full", False, "", True), ("lab", True, "", True), ("lab", False, "", False),  # as any optional cell
    ("ci", False, "compile", True), ("ci", False, "ablation-compile", True), ("lab", False, "all", True),
    ("ci", False, "profiler", False), ("full", True, "none", False),
])
def test_an_optional_cell_covered_elsewhere_is_off_in_ci_mode_only(mode, gpu, asked, runs, monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", mode)
    monkeypatch.setenv("FASTRAIN_OPTIONAL", asked)
    monkeypatch.setattr(hardware, "cuda_available", lambda: gpu)
    monkeypatch.setattr(hardware, "compiler_problem", lambda: None)
    assert hardware.run_optional("ablation-compile") is runs


def test_what_ci_mode_leaves_off_is_read_by_a_lesson_and_covered_by_the_tests_it_names():
    """Each CI_COVERED_ELSEWHERE name is what some lesson cell asks for, and each test file it names exists and
    runs that code: the Inductor compile of the tiny GPT's step (benchmarks' compile family) and the ablation's
    compile stage (test_fused)."""
    from fastrain_lib import authoring

    tests = Path(__file__).parent
    cells = "\n".join(p.read_text(encoding="utf-8") for p in authoring.all_notebooks(tests.parent))
    for name, covered_by in hardware.CI_COVERED_ELSEWHERE.items():
        assert f'run_optional(\\"{name}\\")' in cells, name
        for path in re.findall(r"tests/\w+\.py", covered_by):
            assert (tests.parent / path).exists(), path
    assert 'run_family("compile"' in (tests / "test_benchmarks.py").read_text(encoding="utf-8")
    assert 'include_compile=True, stages=["compile"]' in (tests / "test_fused.py").read_text(encoding="utf-8")
