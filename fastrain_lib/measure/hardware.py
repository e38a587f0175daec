"""What machine are we on, and what should the course do on it? The one place for both.

Two halves, kept apart on purpose:
- Decisions are pure functions of plain facts (a `Facts`: device type, the driver's name,
  compute capability, GPU count, memory, CPU flags). Tests feed them real device
  descriptions (a Colab T4, an A100 SXM, an H100 PCIe, a Mac, CPUs with and without bf16)
  and check each choice: precision_for, fast_formats, amp_format, backend_for,
  gpu_per_process, device_for_rank, threads_for, fits, peak.
- Detection (`facts(device)`) is the only code that asks torch.cuda / torch.backends.mps.
  Every other module asks this one; a test keeps it that way.

Datasheet numbers (datasheet.py, re-exported here) are vendors' published peaks, never
measurements; everything that shows one labels it "datasheet" with its source.
"""

from __future__ import annotations

import functools
import html
import math
import os
import platform
import sys
import warnings
from dataclasses import dataclass

import torch

from fastrain_lib.core import config
from fastrain_lib.measure.datasheet import DATASHEET, ROWS, Sheet, datasheet_for, normalize  # noqa: F401 - re-exported
from fastrain_lib.core.i18n import t

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
FORCE_T4_ENV = "FASTRAIN_FORCE_T4_POLICY"  # =1: any GPU follows the T4 policy (fp16 + GradScaler)


# ---------------------------------------------------------------------------------------
# Facts: plain data about one device
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Facts:
    """What we know about one device. Build one by hand in tests; `facts(device)` detects it."""

    device_type: str  # "cuda", "mps" or "cpu"
    name: str = ""  # the GPU as torch.cuda.get_device_name reports it; the CPU model for "cpu"
    capability: tuple[int, int] | None = None  # CUDA compute capability, e.g. (8, 0)
    count: int = 0  # GPUs of this type on the machine (local, this node)
    memory_bytes: int | None = None  # device memory (RAM for a CPU)
    cpu_flags: frozenset = frozenset()  # /proc/cpuinfo flags (avx512_bf16, amx_bf16, ...)
    physical_cores: int | None = None
    probed_formats: tuple[str, ...] = ()  # MPS: formats a real scale → step → update probe proved
    nccl: bool = False  # torch.distributed has NCCL (a CUDA build on Linux)


# ---------------------------------------------------------------------------------------
# Decisions (pure functions of Facts)
# ---------------------------------------------------------------------------------------
def force_t4_policy() -> bool:
    """FASTRAIN_FORCE_T4_POLICY=1: behave as on a T4 (fp16 + GradScaler) on any GPU, to test that path."""
    return os.environ.get(FORCE_T4_ENV, "").strip().lower() in ("1", "true", "yes")


def cpu_has_native_bf16(flags) -> bool:
    """bf16 arithmetic in hardware: AVX-512 BF16 (Cooper Lake, Zen 4) or AMX (Sapphire Rapids+)."""
    return bool({"avx512_bf16", "amx_bf16"} & set(flags))


def fast_formats(f: Facts) -> tuple[str, ...]:
    """The number formats this device runs in hardware, fastest usually last.

    CUDA: fp16 tensor cores from Volta (7.0); bf16 and TF32 tensor cores from Ampere (8.0).
    `torch.cuda.is_bf16_supported()` says True on a T4 because bf16 is *emulated* there, so we
    decide from the capability instead. CPU: bf16 only with avx512_bf16/AMX; fp16 with AMX-FP16.
    MPS: only what the probe proved."""
    if f.device_type == "cuda":
        major = (f.capability or (0, 0))[0]
        formats = ["fp32"]
        if major >= 8 and not force_t4_policy():
            formats += ["tf32", "bf16"]
        if major >= 7 or force_t4_policy():
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
@dataclass(frozen=True)
class Peak:
    """The FLOP/s an MFU divides by, and where it comes from."""

    flops: float | None  # FLOP/s; None when unknown (a GPU missing from the datasheet table)
    bandwidth: float | None  # bytes/s where known
    kind: str  # "datasheet", "measured" or "unknown"
    label: str  # what to print beside the number (catalog text)
    source: str  # the datasheet's name, or what was measured

    @property
    def tflops(self) -> float | None:
        return None if self.flops is None else self.flops / 1e12


def sheet_tflops(sheet: Sheet, precision: str) -> float:
    """A datasheet row's TFLOP/s for a precision (bf16 without bf16 tensor cores: the fp32 rate)."""
    if precision == "fp16" or (precision == "bf16" and sheet.fast_bf16):
        return sheet.tflops_fp16
    if precision == "tf32":
        return sheet.tflops_tf32 or sheet.tflops_fp32
    return sheet.tflops_fp32


def datasheet_peak(f: Facts, precision: str = "fp32") -> Peak:
    """The datasheet peak for a GPU described by `f`; kind "unknown" for a GPU not in the table."""
    sheet = datasheet_for(f.name)
    if sheet is None:
        return Peak(None, None, "unknown", t("hw.peak_unknown", name=f.name or "?"), "")
    return Peak(sheet_tflops(sheet, precision) * 1e12, sheet.bandwidth_gbs * 1e9, "datasheet",
                t("hw.peak_datasheet", name=sheet.key, source=sheet.source), sheet.source)


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


@functools.lru_cache(maxsize=16)
def measured_peak(device_type: str, precision: str = "fp32") -> Peak:
    """The best matmul FLOP/s measured here now (fp32, and `precision`'s format if fp16/bf16), with
    all the threads torch uses now (the threads a training step of this process gets)."""
    import logging

    # torch.utils.benchmark imports cpp_extension, which logs a CUDA_HOME warning on CPU-only machines.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    import torch.utils.benchmark as tbench  # heavy import, only needed here

    dtypes = [torch.float32] + [d for m, d in (("bf16", torch.bfloat16), ("fp16", torch.float16)) if m == precision]
    best, best_dtype = 0.0, torch.float32
    for dtype in dtypes:
        for n in config.by_mode(ci=(256, 512), lab=(256, 512, 1024), full=(1024, 2048, 4096)):
            a = torch.randn(n, n, device=device_type).to(dtype)  # random: never time all-zero tensors
            # Timer runs on ONE thread unless told: the peak is what all of torch's threads reach
            timer = tbench.Timer("a @ a", globals={"a": a}, num_threads=torch.get_num_threads())
            timer.timeit(1)  # warm up
            seconds = timer.blocked_autorange(min_run_time=0.2).median
            synchronize(device_type)
            flops = 2 * n**3 / seconds
            if flops > best:
                best, best_dtype = flops, dtype
    name = str(best_dtype).replace("torch.", "")
    return Peak(best, None, "measured", t("hw.peak_measured", dtype=name), f"matmul {name} ({device_type})")


def mfu(achieved_flops_per_s: float, pk: Peak | float | None) -> float | None:
    """Model FLOPs utilisation = achieved FLOP/s ÷ peak FLOP/s (PaLM, appendix B).

    None when the peak is unknown. A value above 1 means the peak or the FLOP count is wrong:
    it is returned as is, and `mfu_text` flags it instead of showing it."""
    flops = pk.flops if isinstance(pk, Peak) else pk
    if not flops or flops <= 0 or achieved_flops_per_s is None or math.isnan(achieved_flops_per_s):
        return None
    return achieved_flops_per_s / flops


def mfu_ok(value: float | None) -> bool:
    """An MFU that can be shown: known and at most 100%."""
    return value is not None and not math.isnan(value) and 0 <= value <= 1.0


def mfu_text(value: float | None) -> str:
    """'43.1%', or a clear 'unknown' / 'above 100% — a bug, not shown'."""
    if value is None or math.isnan(value):
        return t("hw.mfu_unknown")
    if value > 1.0:
        return t("hw.mfu_impossible")
    return f"{value * 100:.1f}%"


# ---------------------------------------------------------------------------------------
# Waiting for the device before reading a clock
# ---------------------------------------------------------------------------------------
def synchronize(device="cpu") -> None:
    """Wait until the device has finished queued work: CUDA and MPS run asynchronously, so a
    clock read without this measures only how fast work was queued. Nothing to do on a CPU."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def reset_peak_memory(device) -> None:
    """Start counting the device's peak memory afresh (CUDA only; a no-op elsewhere)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory(device) -> int | None:
    """Most bytes the CUDA allocator held since reset_peak_memory; None where not counted."""
    device = torch.device(device)
    return torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None


def use_gpu(index: int) -> torch.device:
    """Make CUDA GPU `index` this process's current device (before NCCL or any CUDA work)."""
    torch.cuda.set_device(index)
    return torch.device("cuda", index)


# ---------------------------------------------------------------------------------------
# Detection: the only place that asks torch.cuda / torch.backends.mps
# ---------------------------------------------------------------------------------------
def cuda_available() -> bool:
    return torch.cuda.is_available()


def mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return mps is not None and mps.is_available()


def gpu_count() -> int:
    """CUDA GPUs visible to this process (0 without CUDA)."""
    return torch.cuda.device_count() if cuda_available() else 0


def available_devices() -> list[str]:
    """Device types that work here, fastest first, always ending with 'cpu'."""
    devices = []
    if cuda_available():
        devices.append("cuda")
    if mps_available():
        devices.append("mps")
    return devices + ["cpu"]


def best_device() -> torch.device:
    """The seeds' choice, generalised: cuda if present, else mps, else cpu."""
    return torch.device(available_devices()[0])


def check_device(device: str | torch.device) -> torch.device:
    """A device that really exists here, or a clear message saying what to pick instead."""
    device = torch.device(device)
    if device.type not in available_devices():
        raise RuntimeError(t("hw.device_missing", device=device.type, available=", ".join(available_devices())))
    return device


def usable_cores() -> int:
    """The cores this process may use (a container or taskset may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _physical_cores() -> int:
    try:
        import psutil

        return psutil.cpu_count(logical=False) or os.cpu_count() or 1
    except ImportError:
        return os.cpu_count() or 1


def _cpu_flags() -> frozenset:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def _ram_bytes() -> int | None:
    try:
        import psutil

        return psutil.virtual_memory().total
    except ImportError:
        return None


def probe_amp(device_type: str, mode: str) -> bool:
    """Does a real one-parameter training step work in `mode` here? autocast → loss → scale →
    backward → step → update, and the parameter must move and stay finite. Used for MPS, where
    support varies by macOS and PyTorch version; runs on any device type."""
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[mode]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w = torch.nn.Parameter(torch.ones(4, 4, device=device_type))
            opt = torch.optim.SGD([w], lr=0.1)
            # A small scale: the default 65536 overflows fp16 in this tiny graph and skips the step.
            scaler = torch.amp.GradScaler(device_type, init_scale=256.0, enabled=(mode == "fp16"))
            with torch.amp.autocast(device_type, dtype=dtype):
                out = w @ torch.ones(4, 4, device=device_type)
            if out.dtype != dtype:
                return False
            scaler.scale(out.float().sum()).backward()
            scaler.step(opt)
            scaler.update()
            synchronize(device_type)
            return bool(torch.isfinite(w).all()) and not torch.equal(w.detach().cpu(), torch.ones(4, 4))
    except Exception:  # noqa: BLE001 - any failure means "not here"
        return False


@functools.lru_cache(maxsize=8)
def _facts_cached(device_type: str, index: int) -> Facts:
    common = {"physical_cores": _physical_cores(), "cpu_flags": _cpu_flags()}
    if device_type == "cuda" and cuda_available():
        props = torch.cuda.get_device_properties(index)
        import torch.distributed as dist

        return Facts("cuda", props.name, (props.major, props.minor), torch.cuda.device_count(), props.total_memory,
                     nccl=dist.is_available() and dist.is_nccl_available(), **common)
    if device_type == "mps" and mps_available():
        proved = tuple(m for m in ("fp16", "bf16") if probe_amp("mps", m))
        return Facts("mps", "Apple MPS", count=1, memory_bytes=_ram_bytes(), probed_formats=proved, **common)
    return Facts("cpu", cpu_name(), memory_bytes=_ram_bytes(), **common)


def facts(device=None) -> Facts:
    """The facts about `device` (default: the best device here), detected once and cached."""
    device = torch.device(device) if device is not None else best_device()
    index = device.index if device.index is not None else 0
    return _facts_cached(device.type, index)


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
    return {"bf16": torch.bfloat16, "fp16": torch.float16}.get(amp_format(facts(device)), torch.float32)


def bf16_fast(device=None) -> bool:
    return "bf16" in fast_formats(facts(device))


def is_colab() -> bool:
    """True inside Google Colab (its runtime ships the google.colab package)."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def cpu_name() -> str:
    """The CPU model as the OS reports it (falls back to platform.processor())."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_fields(f: Facts) -> dict:
    """The report's GPU fields for a CUDA device described by `f` (pure: tested on a T4's facts)."""
    formats = fast_formats(f)
    major, minor = f.capability or (0, 0)
    return {
        "gpu_name": f.name,
        "gpu_memory_gb": round((f.memory_bytes or 0) / 1e9, 1),
        "compute_capability": f"{major}.{minor}",
        "gpu_count": f.count,
        "fp16_tensor_cores": major >= 7,
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


def _nvidia_driver() -> str | None:
    import subprocess

    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False,
        )
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def report_table(info: dict | None = None) -> list[tuple[str, str]]:
    """The report as (Bengali/English label, value) rows."""
    info = info or report()
    yes, no = t("common.yes"), t("common.no")
    rows = [
        (t("hw.cpu"), f"{info['cpu_name']} — {info['cpu_cores']} {t('hw.cores')}"),
        (t("hw.torch"), info["torch"]),
        (t("hw.cuda"), info["cuda_version"] or t("hw.none")),
        (t("hw.devices"), ", ".join(info["devices"])),
        (t("hw.colab"), yes if info["colab"] else no),
    ]
    if "gpu_name" in info:
        rows += [
            (t("hw.gpu"), f"{info['gpu_name']} × {info['gpu_count']}"),
            (t("hw.gpu_memory"), f"{info['gpu_memory_gb']} GB"),
            (t("hw.cc"), info["compute_capability"]),
            (t("hw.fp16_tc"), yes if info["fp16_tensor_cores"] else no),
            (t("hw.bf16_fast"), yes if info["bf16_fast"] else no),
        ]
    else:
        rows.append((t("hw.gpu"), t("hw.no_gpu")))
    return rows


def _html_table(headers, rows) -> str:
    # A plain table built here (not widgets.html_table) so hardware imports nothing that imports it back.
    esc = lambda v: html.escape(str(v))
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def show_report(info: dict | None = None):
    """Display the hardware report as an HTML table in a notebook (text elsewhere)."""
    rows = report_table(info)
    try:
        from IPython.display import HTML, display

        display(HTML(_html_table([t("hw.item"), t("hw.value")], rows)))
    except ImportError:  # plain Python: print instead
        for label, value in rows:
            print(f"{label}: {value}")


def datasheet_rows() -> list[tuple]:
    """Datasheet peaks as table rows, each labelled with its source."""
    return [
        (p.name, p.tflops_fp16, p.tflops_fp32, p.bandwidth_gbs, t("common.yes") if p.fast_bf16 else t("common.no"),
         f"{t('hw.datasheet')}: {p.source}")
        for p in ROWS
    ]
