"""Detection: the only code that asks torch.cuda / torch.backends.mps what this machine has.

`facts(device)` turns the answers into a plain `Facts`; every decision about them is a pure
function in hardware.py (which re-exports everything here, so callers keep `hardware.facts`).

A GPU the installed torch was not built for is not offered as a device: torch 2.14's CUDA wheels
carry code for sm_75 and newer, and on a V100 (sm_70), P100 or GTX 10xx `torch.cuda.is_available()`
is still True (torch only warns) while the first kernel fails. `cuda_available()` compares the
GPU's capability with `torch.cuda.get_arch_list()` (arch_runs) and, where the build cannot run it,
says so in Bengali with what to do, and the course runs on the CPU.

Such a GPU is refused here, never hidden from torch (CUDA_VISIBLE_DEVICES, a patched is_available()): lesson
02's device-choice cell shows the seed's `torch.device("cuda" if torch.cuda.is_available() else "cpu")` still picking
it, beside the arch check that refuses it (tests/test_lesson02_arch.py runs the lesson on a faked V100/P100).
"""

from __future__ import annotations

import functools
import os
import platform
import re
import sys
import warnings
from dataclasses import dataclass

import torch

from fastrain_lib.core.dtypes import AUTOCAST_DTYPES
from fastrain_lib.core.i18n import t


class UnsupportedGPUWarning(UserWarning):
    """A CUDA GPU is present, but the installed torch has no code for it: the course uses the CPU."""


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


def arch_runs(capability: tuple[int, int], arch_list) -> bool:
    """Can a torch built for `arch_list` (torch.cuda.get_arch_list(): 'sm_75', 'compute_90', ...) run
    kernels on a GPU of `capability`? Yes when it carries machine code (sm_XY) of the same major
    version and a minor no newer than the GPU's (binary compatibility within a major version), or
    PTX (compute_XY) no newer than the GPU, which the driver compiles on first use. An empty list
    (a build that does not say) is given the benefit of the doubt."""
    arch_list = list(arch_list or ())
    if not arch_list:
        return True
    major, minor = capability
    for arch in arch_list:
        found = re.fullmatch(r"(sm|compute)_(\d+)(\d)[a-z]?", arch)
        if not found:
            continue
        kind, a_major, a_minor = found.group(1), int(found.group(2)), int(found.group(3))
        if kind == "sm" and a_major == major and a_minor <= minor:
            return True
        if kind == "compute" and (a_major, a_minor) <= (major, minor):
            return True
    return False


def unsupported_message(name: str, capability: tuple[int, int], arch_list) -> str:
    """What a student reads when this torch cannot run their GPU (pure: tested for a V100)."""
    built = ", ".join(a for a in arch_list if a.startswith("sm_")) or "?"
    return t("hardware.gpu_unsupported", gpu=name, cc=f"{capability[0]}.{capability[1]}", built=built,
             torch=torch.__version__)


@functools.lru_cache(maxsize=1)
def cuda_problem() -> str | None:
    """Why the CUDA GPU here cannot be used (a message), or None when it can or there is none.

    Asked once per process: torch.cuda.is_available() is True on a V100 with a torch built for
    sm_75+, and the first kernel would fail; then every device choice in the course goes to the CPU."""
    if not torch.cuda.is_available():
        return None
    arch_list = torch.cuda.get_arch_list()
    for index in range(torch.cuda.device_count()):
        capability = tuple(torch.cuda.get_device_capability(index))
        if not arch_runs(capability, arch_list):
            message = unsupported_message(torch.cuda.get_device_name(index), capability, arch_list)
            warnings.warn(message, UnsupportedGPUWarning, stacklevel=2)
            return message
    return None


@functools.lru_cache(maxsize=1)
def compiler_problem() -> str | None:
    """Why torch.compile cannot run here (a message), or None. Inductor compiles C++ (on a CPU, and for
    Triton's launcher on a GPU) with the compiler it finds itself: asked the way it asks, once, before
    the first compile, so a lab PC without one (Windows without MSVC, Linux without g++) gets this
    sentence instead of a CppCompileError traceback (issue 41). CXX names another compiler, as for Inductor."""
    try:
        from torch._inductor import cpp_builder

        cpp_builder.get_cpp_compiler()
        return None
    except Exception:  # noqa: BLE001 - InvalidCxxCompiler, or an Inductor that cannot load at all
        return no_compiler_message(sys.platform, os.environ.get("CXX"))


def triton_problem() -> str | None:
    """Why Triton kernels cannot run here (a message), or None: the `triton` package is not installed
    (PyPI's torch on Windows and macOS brings none). Found as an import would find it."""
    import importlib.util

    try:
        found = importlib.util.find_spec("triton") is not None
    except (ImportError, ValueError):  # sys.modules["triton"] is None, or a broken install
        found = False
    where = t("hardware.triton_where_windows") if sys.platform == "win32" else ""
    return None if found else t("hardware.no_triton", where=where)


def rpc_problem() -> str | None:
    """Why torch.distributed.rpc cannot run here (a message), or None. PyTorch's RPC exists only where
    torch was built with it (not on Windows): `rpc.is_available()` says so, and the API is missing there."""
    try:
        import torch.distributed.rpc as rpc

        available = rpc.is_available()
    except Exception:  # noqa: BLE001 - a torch built without distributed at all
        available = False
    return None if available else t("hardware.no_rpc")


def no_compiler_message(platform_name: str, cxx: str | None = None) -> str:
    """The sentence for a machine without the C++ compiler Inductor wants, with what to install there."""
    windows, mac = platform_name == "win32", platform_name == "darwin"
    compiler = cxx or ("cl" if windows else "clang++" if mac else "g++")
    install = t("hardware.install_msvc" if windows else "hardware.install_xcode" if mac else "hardware.install_gxx")
    return t("hardware.no_compiler", compiler=compiler, install=install)


def cuda_available() -> bool:
    """A CUDA GPU that this torch can run kernels on (not merely one the driver sees)."""
    return torch.cuda.is_available() and cuda_problem() is None


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
        raise RuntimeError(t("hardware.device_missing", device=device.type, available=", ".join(available_devices())))
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
    """Does `mode` work here for training? autocast's forward gives that dtype, the backward through
    it runs, and a plain optimizer step moves the parameter and keeps it finite. Used for MPS, where
    support varies by macOS and PyTorch version; runs on any device type. A capability probe, not a
    training step: the course's one AMP step (with its GradScaler) is precision/step.py, lesson 03's cell."""
    dtype = AUTOCAST_DTYPES[mode]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w = torch.nn.Parameter(torch.ones(4, 4, device=device_type))
            with torch.amp.autocast(device_type, dtype=dtype):
                out = w @ torch.ones(4, 4, device=device_type)
            if out.dtype != dtype:
                return False
            out.float().sum().backward()   # small values: no loss scaling needed to keep the gradient
            torch.optim.SGD([w], lr=0.1).step()
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


