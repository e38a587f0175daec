"""What machine are we on, and what should the course do on it? The one place for both.

Three files, arrows only downward:
- probe.py: detection, the only code that asks torch.cuda / torch.backends.mps (a test keeps
  it that way). It builds a `Facts` (device type, the driver's name, compute capability, GPU
  count, memory, CPU flags) and refuses a GPU the installed torch was not built for.
- peaks.py: the peak every MFU divides by, and the MFU arithmetic.
- here: decisions, pure functions of plain Facts. Tests feed them real device descriptions (a
  Colab T4, an A100 SXM, an H100 PCIe, a GTX 1650, a Mac, CPUs with and without bf16) and check
  each choice: precision_for, fast_formats, fp16_tensor_cores, amp_format, backend_for,
  gpu_per_process, device_for_rank, threads_for, fits, peak. Everything in probe.py and
  peaks.py is re-exported, so callers keep writing `hardware.facts(...)`.

Datasheet numbers (datasheet.py, re-exported here) are vendors' published peaks, never
measurements; everything that shows one labels it "datasheet" with its source.
"""

from __future__ import annotations

import os
import platform
import re

import torch

from fastrain_lib.core import config
from fastrain_lib.core.dtypes import AUTOCAST_DTYPES
from fastrain_lib.core.i18n import t
from fastrain_lib.measure.datasheet import DATASHEET, ROWS, Sheet, datasheet_for, normalize  # noqa: F401 - re-exported
from fastrain_lib.measure.peaks import (  # noqa: F401 - re-exported
    Peak, datasheet_peak, measured_peak, mfu, mfu_ok, mfu_text, sheet_tflops,
)
from fastrain_lib.measure.probe import (  # noqa: F401 - re-exported
    Facts, UnsupportedGPUWarning, arch_runs, available_devices, best_device, check_device, compiler_problem, cpu_name,
    cuda_available, cuda_problem, facts, gpu_count, is_colab, mps_available, peak_memory, probe_amp,
    reset_peak_memory, rpc_problem, synchronize, triton_problem, usable_cores, use_gpu, _cpu_flags, _facts_cached, _nvidia_driver,
    _physical_cores, _ram_bytes,
)
from fastrain_lib.ui.tables import html_table

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
FORCE_T4_ENV = "FASTRAIN_FORCE_T4_POLICY"  # =1: any GPU follows the T4 policy (fp16 + GradScaler)
# Turing chips without tensor cores (TU116, TU117): GTX 1630/1650/1660 in every variant, MX450/MX550
# and the small Quadro/T-series cards. Their capability is 7.5, like a T4's, so the capability alone
# would promise fp16 tensor cores they do not have (NVIDIA Turing TU116/TU117 product pages).
NO_TENSOR_CORES = re.compile(r"\bGTX 16\d\d\b|\bMX ?[45][05]0\b|\bT(?:400|500|550|600|1000|1200|2000)\b", re.I)


# Optional cells that ci mode leaves off as well, each with the tests that cover what it runs: a cold Inductor
# compile of lesson 04's training step took 18 s of its 55 s (2026-12-07), and make test has 10 minutes.
CI_COVERED_ELSEWHERE = {
    "ablation-compile": "tests/test_benchmarks.py compiles the same tiny GPT's training step with Inductor; "
                        "tests/test_fused.py runs the ablation's compile stage",
}


def run_optional(name: str) -> bool:
    """Whether an expensive optional cell (a compile row, the long profiler) runs by default.

    On a CPU lab PC the lesson's core route must fit a 2-3 hour session, so such cells are off
    unless asked for; on a GPU they are cheap, and in `ci`/`full` mode they run so that the tests
    and demos cover them (ci: all but CI_COVERED_ELSEWHERE). FASTRAIN_OPTIONAL=all (or a comma list of
    names, or none) overrides; a name's last part asks for it too ("compile" turns on "ablation-compile").
    A cell reads it once at its top: `RUN_COMPILE = hardware.run_optional("compile")`, and the
    student may set the variable to True by hand. A compile cell is off, with the reason printed, where
    torch.compile cannot run at all (no C++ compiler: probe.compiler_problem)."""
    name = name.lower()
    family = name.rsplit("-", 1)[-1]
    if family == "compile" and compiler_problem():
        print("⚠️ " + compiler_problem())
        return False
    asked = {s.strip().lower() for s in os.environ.get("FASTRAIN_OPTIONAL", "").split(",") if s.strip()}
    if "none" in asked:
        return False
    if asked & {"all", name, family}:
        return True
    if config.mode() == "ci":
        return name not in CI_COVERED_ELSEWHERE
    if config.mode() == "full":
        return True
    return cuda_available()


def triton_ready() -> bool:
    """Whether a cell may launch a Triton kernel here: False, with the reason printed (probe.triton_problem),
    where triton is not installed; the cell then shows the kernel's code and launches nothing."""
    problem = triton_problem()
    if problem:
        print("⚠️ " + problem)
    return problem is None


def force_t4_policy() -> bool:
    """FASTRAIN_FORCE_T4_POLICY=1: behave as on a T4 (fp16 + GradScaler) on any GPU, to test that path."""
    return os.environ.get(FORCE_T4_ENV, "").strip().lower() in ("1", "true", "yes")


def cpu_has_native_bf16(flags) -> bool:
    """bf16 arithmetic in hardware: AVX-512 BF16 (Cooper Lake, Zen 4) or AMX (Sapphire Rapids+)."""
    return bool({"avx512_bf16", "amx_bf16"} & set(flags))


def fp16_tensor_cores(f: Facts) -> bool:
    """fp16 tensor cores: Volta (7.0) and newer, except the Turing chips built without them
    (TU116/TU117: GTX 16xx, MX450, T1000, ...), which are recognised by their name."""
    if f.device_type != "cuda" or (f.capability or (0, 0)) < (7, 0):
        return False
    return not NO_TENSOR_CORES.search(f.name or "")


def fast_formats(f: Facts) -> tuple[str, ...]:
    """The number formats this device runs in hardware, fastest usually last.

    CUDA: fp16 tensor cores from Volta (7.0) except TU116/TU117 (fp16_tensor_cores); bf16 and TF32
    tensor cores from Ampere (8.0). `torch.cuda.is_bf16_supported()` says True on a T4 because bf16
    is *emulated* there, so we decide from the capability instead. CPU: bf16 only with
    avx512_bf16/AMX; fp16 with AMX-FP16. MPS: only what the probe proved."""
    if f.device_type == "cuda":
        major = (f.capability or (0, 0))[0]
        formats = ["fp32"]
        if major >= 8 and not force_t4_policy():
            formats += ["tf32", "bf16"]
        if fp16_tensor_cores(f) or force_t4_policy():
            formats.append("fp16")
        return tuple(formats)
    if f.device_type == "mps":
        return ("fp32",) + tuple(m for m in ("fp16", "bf16") if m in f.probed_formats)
    formats = ["fp32"]
    if cpu_has_native_bf16(f.cpu_flags):
        formats.append("bf16")
    if "amx_fp16" in f.cpu_flags:
        formats.append("fp16")
    return tuple(formats)


def has_tf32(f: Facts) -> bool:
    """TF32 tensor cores (Ampere, 8.0+). Elsewhere allow_tf32 changes nothing: a "tf32" run is fp32 again."""
    return "tf32" in fast_formats(f)


def precision_for(f: Facts) -> str:
    """The precision a lesson should pick here: bf16 where it is fast (no loss scaling needed),
    else fp16 + GradScaler where fp16 is fast (T4, V100), else fp32."""
    formats = fast_formats(f)
    for mode in ("bf16", "fp16"):
        if mode in formats:
            return mode
    return "fp32"


def amp_format(f: Facts) -> str:
    """The format an AMP *experiment* uses (lesson 04's ablation): the fast one where there is one.

    A CPU without native bf16 still runs bf16 autocast (emulated): the lesson measures that it
    does not help there rather than hide the stage. MPS without a proven format: fp32 (no AMP)."""
    chosen = precision_for(f)
    if chosen == "fp32" and f.device_type == "cpu":
        return "bf16"
    if chosen == "fp32" and f.device_type == "cuda":
        return "fp16"  # pre-Volta GPUs run fp16 autocast, without tensor cores
    return chosen


def needs_scaler(precision: str) -> bool:
    """Only fp16 needs loss scaling: bf16 has float32's exponent range (nanoGPT does the same)."""
    return precision == "fp16"


def backend_for(local_processes: int, tensors_on_cuda: bool, f: Facts) -> str:
    """torch.distributed backend for `local_processes` workers on one node.

    NCCL only when every local process gets a GPU of its own *and* the worker's tensors live on
    CUDA: NCCL cannot reduce CPU tensors, and two processes on one GPU fail in NCCL. Gloo
    otherwise (gloo also reduces CUDA tensors, more slowly)."""
    own_gpu = f.device_type == "cuda" and f.count >= max(1, local_processes)
    return "nccl" if (tensors_on_cuda and own_gpu and f.nccl) else "gloo"


def gpu_per_process(local_processes: int, f: Facts) -> bool:
    """Should workers that run on either device (lesson 05c: ZeRO/FSDP, tensor parallel,
    pipeline schedules) put their tensors on GPUs? Only when every local process has a GPU of
    its own and NCCL is there — then they use NCCL. NCCL cannot run two processes on one GPU, so
    with fewer GPUs than processes (one Colab T4, 2 processes) they stay on the CPU with gloo,
    where every collective they use runs (checked in the tests)."""
    return backend_for(local_processes, True, f) == "nccl"


def device_for_rank(local_rank: int, tensors_on_cuda: bool, f: Facts) -> str:
    """Where local rank `local_rank`'s tensors live: its own GPU, a shared one, or the CPU."""
    if tensors_on_cuda and f.device_type == "cuda" and f.count > 0:
        return f"cuda:{local_rank % f.count}"
    return "cpu"


def threads_for(local_processes: int = 1, physical_cores: int | None = None) -> int:
    """torch threads for each of `local_processes` processes: the physical cores shared out, ≥ 1.

    More OpenMP threads than cores makes a thread team wait for a descheduled member (FACTS.md:
    75× slower on a busy 2-core machine); hyperthreads do not add matmul units."""
    cores = physical_cores or _physical_cores()
    return max(1, cores // max(1, local_processes))


def fits(bytes_needed: int, f: Facts, share: float = 0.8) -> bool:
    """True when `bytes_needed` fits in `share` of the device's memory (unknown memory: True)."""
    return f.memory_bytes is None or bytes_needed <= share * f.memory_bytes


def largest_fitting(sizes, bytes_for, f: Facts, share: float = 0.8):
    """The largest of `sizes` whose bytes_for(size) fits the device; the smallest when none does."""
    ordered = sorted(sizes)
    fitting = [s for s in ordered if fits(bytes_for(s), f, share)]
    return fitting[-1] if fitting else ordered[0]

# ---------------------------------------------------------------------------------------
# Peaks and MFU: one peak for every MFU in the course
# ---------------------------------------------------------------------------------------


def peak(device="cpu", precision: str = "fp32") -> Peak:
    """The peak every MFU in the course divides by.

    CUDA: the datasheet figure of this exact GPU model (unknown model: kind "unknown", no MFU).
    CPU and MPS: no honest datasheet figure for PyTorch, so the best matmul measured here, in
    fp32 and in the run's format — the better of the two, because a format without hardware
    support (fp16 on most CPUs) runs far slower than fp32 and would give an MFU above 100%."""
    device = torch.device(device)
    if device.type == "cuda":
        return datasheet_peak(facts(device), precision)
    return measured_peak(device.type, precision)


def devices_used(processes: int, f: Facts, tensors_on_cuda: bool = True) -> int:
    """How many devices `processes` local processes really compute on: the number of one-device
    peaks that add up to the peak their combined MFU divides by.

    - CUDA (tensors on the GPU): each rank takes GPU `rank % count` (device_for_rank), so the
      processes use min(processes, GPUs) distinct GPUs. Two processes on one GPU share its
      tensor cores: they add no peak (1 GPU × 2 processes → 1; 2 × 2 → 2; 8 GPUs × 4 → 4).
    - CPU: 1, whatever the number of processes. The CPU peak (measured_peak) is a matmul that
      already used the machine's cores (torch's threads, one per physical core), and the
      processes share those same cores (threads_for gives each cores // processes threads): a
      second process brings no new arithmetic units, only a share of the old ones.
    - MPS: 1 (one Apple GPU). CUDA with CPU-resident tensors counts as the CPU."""
    n = max(1, int(processes))
    return len({device_for_rank(rank, tensors_on_cuda, f) for rank in range(min(n, max(f.count, 1)))})


def peak_for_processes(pk: Peak, processes: int, f: Facts, tensors_on_cuda: bool = True) -> Peak:
    """`pk` (one device's peak) for a run in `processes` local processes: × devices_used.

    The label says "× N" where more than one device counts, so the number shown and the
    denominator of the MFU agree. An unknown peak stays unknown."""
    n = devices_used(processes, f, tensors_on_cuda)
    if n == 1 or pk.flops is None:
        return pk
    return Peak(pk.flops * n, None if pk.bandwidth is None else pk.bandwidth * n, pk.kind, f"{pk.label} × {n}",
                pk.source)

# ---------------------------------------------------------------------------------------
# Decisions on the detected device (monkeypatching hardware.facts reaches these)
# ---------------------------------------------------------------------------------------


def node_facts() -> Facts:
    """The facts a process launcher decides from: this node's CUDA GPUs when there are any (NCCL
    is possible only then), else its CPU. An MPS Mac counts as its CPU here: MPS has no backend
    for torch.distributed."""
    return facts("cuda") if cuda_available() else facts("cpu")


def device_name(device=None) -> str:
    """A readable name for the device: the GPU's driver name, 'Apple MPS', or the CPU model.
    (torch.cuda.get_device_name crashes for an MPS device; this does not.)"""
    return facts(device).name


def precision_here(device=None) -> str:
    """precision_for(facts(device)): the precision a lesson should use on this device."""
    return precision_for(facts(device))


def amp_dtype_for(device) -> torch.dtype:
    """The autocast dtype of an AMP experiment on `device` (float32 where none is proven)."""
    return AUTOCAST_DTYPES.get(amp_format(facts(device)), torch.float32)


def bf16_fast(device=None) -> bool:
    return "bf16" in fast_formats(facts(device))


def gpu_fields(f: Facts) -> dict:
    """The report's GPU fields for a CUDA device described by `f` (pure: tested on a T4's facts)."""
    formats = fast_formats(f)
    major, minor = f.capability or (0, 0)
    return {
        "gpu_name": f.name,
        "gpu_memory_gb": round((f.memory_bytes or 0) / 1e9, 1),
        "compute_capability": f"{major}.{minor}",
        "gpu_count": f.count,
        "fp16_tensor_cores": fp16_tensor_cores(f),
        "bf16_fast": "bf16" in formats,
        "precision": precision_for(f),
    }


def gpu_info(index: int = 0) -> dict:
    """Name, memory and tensor-core abilities of CUDA GPU `index` ({} without CUDA)."""
    if not cuda_available():
        return {}
    return gpu_fields(facts(torch.device("cuda", index)))


def report() -> dict:
    """The facts about this machine that explain its timings (used in every result record)."""
    info = {
        "os": platform.platform(terse=True),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_version": torch.version.cuda,
        "cpu_name": cpu_name(),
        "cpu_cores": os.cpu_count(),
        "physical_cores": _physical_cores(),
        "cpu_bf16": cpu_has_native_bf16(_cpu_flags()),
        "torch_threads": torch.get_num_threads(),
        "devices": available_devices(),
        "colab": is_colab(),
    }
    info.update(gpu_info())
    if cuda_available():
        info["driver"] = _nvidia_driver()
    return info


def report_table(info: dict | None = None) -> list[tuple[str, str]]:
    """The report as (Bengali/English label, value) rows."""
    info = info or report()
    yes, no = t("core.yes"), t("core.no")
    rows = [
        (t("hardware.cpu"), f"{info['cpu_name']} — {info['cpu_cores']} {t('hardware.cores')}"),
        (t("hardware.torch"), info["torch"]),
        (t("hardware.cuda"), info["cuda_version"] or t("hardware.none")),
        (t("hardware.devices"), ", ".join(info["devices"])),
        (t("hardware.colab"), yes if info["colab"] else no),
    ]
    if "gpu_name" in info:
        rows += [
            (t("hardware.gpu"), f"{info['gpu_name']} × {info['gpu_count']}"),
            (t("hardware.gpu_memory"), f"{info['gpu_memory_gb']} GB"),
            (t("hardware.cc"), info["compute_capability"]),
            (t("hardware.fp16_tc"), yes if info["fp16_tensor_cores"] else no),
            (t("hardware.bf16_fast"), yes if info["bf16_fast"] else no),
        ]
    else:
        rows.append((t("hardware.gpu"), t("hardware.no_gpu")))
    return rows


def show_report(info: dict | None = None):
    """Display the hardware report as an HTML table in a notebook (text elsewhere)."""
    rows = report_table(info)
    try:
        from IPython.display import HTML, display

        display(HTML(html_table([t("hardware.item"), t("hardware.value")], rows)))
    except ImportError:  # plain Python: print instead
        for label, value in rows:
            print(f"{label}: {value}")


def datasheet_rows() -> list[tuple]:
    """Datasheet peaks as table rows, each labelled with its source."""
    return [
        (p.name, p.tflops_fp16, p.tflops_fp32, p.bandwidth_gbs, t("core.yes") if p.fast_bf16 else t("core.no"),
         f"{t('hardware.datasheet')}: {p.source}")
        for p in ROWS
    ]
