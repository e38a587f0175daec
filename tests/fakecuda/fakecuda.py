"""A fake of torch's CUDA *detection* only (issue 26): the GPU's name, capability, count, memory, the arch
list of the installed torch and is_bf16_supported. Everything that would do real CUDA work (initialising the
driver, a tensor on "cuda", a stream, an event, pinned memory, set_device, synchronize, peak-memory stats)
raises FakeCudaReached instead, so a test runs a GPU branch up to its first real CUDA call and can tell
"reached CUDA" (success) from any error before it.

Used two ways:
- in a test process: `with fakecuda.faked("A100x2"): ...` (patches torch.cuda, restores it after);
- in every process a command starts: put this folder on PYTHONPATH with FAKECUDA=<spec>; its
  sitecustomize.py installs the fake as soon as torch is imported (kernels, benchmarks,
  torch.distributed.run workers all see the same fake).

Specs: "T4", "A100", "H200", "L4", "V100", "GTX1650", optionally "x<count>" ("A100x2").
Only torch is imported here (nothing of the course), so it can sit on any Python's path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from dataclasses import dataclass

# torch 2.14.1+cu130's wheel (torch.cuda.get_arch_list() on a real GPU): machine code for sm_75 and newer
ARCH_LIST = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")


@dataclass(frozen=True)
class GPU:
    name: str  # as torch.cuda.get_device_name reports it
    capability: tuple[int, int]
    memory: int  # total_memory in bytes, as get_device_properties reports it
    sms: int


GPUS = {
    "T4": GPU("Tesla T4", (7, 5), 15_828_320_256, 40),  # Colab's
    "A100": GPU("NVIDIA A100-SXM4-80GB", (8, 0), 85_097_971_712, 108),
    "H200": GPU("NVIDIA H200", (9, 0), 150_109_192_192, 132),
    "L4": GPU("NVIDIA L4", (8, 9), 23_580_639_232, 58),
    "V100": GPU("Tesla V100-SXM2-16GB", (7, 0), 16_935_419_904, 80),  # torch 2.14 has no code for it
    "GTX1650": GPU("NVIDIA GeForce GTX 1650", (7, 5), 4_100_456_448, 14),  # TU117: no tensor cores
    "P100": GPU("Tesla P100-PCIE-16GB", (6, 0), 17_071_734_784, 56),  # Kaggle's; sm_60, no code in torch 2.14
}


class FakeCudaReached(RuntimeError):
    """Raised where a real CUDA call would happen on the faked GPU: the code got that far without error."""


def parse(spec: str) -> tuple[GPU, int]:
    found = re.fullmatch(r"([A-Za-z0-9]+?)(?:x(\d+))?", spec.strip())
    if not found or found.group(1) not in GPUS:
        raise ValueError(f"unknown fake GPU {spec!r}; known: {', '.join(GPUS)} (optionally xN)")
    return GPUS[found.group(1)], int(found.group(2) or 1)


def reached(exc: BaseException | None) -> bool:
    """True when `exc` (or anything in its cause/context chain, or its text: a worker's traceback shown
    in the parent) is the fake's signal that real CUDA work was asked for."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, FakeCudaReached) or "FakeCudaReached" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@dataclass(frozen=True)
class _Props:
    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    is_integrated: int = 0
    is_multi_gpu_board: int = 0
    L2_cache_size: int = 40 * 2**20
    warp_size: int = 32
    gcnArchName: str = "NVIDIA CUDA"
    uuid: str = "00000000-0000-0000-0000-000000000000"


def _reached(what: str) -> FakeCudaReached:
    """The signal, logged first (FAKECUDA_LOG) so that a reach a notebook catches and hides is still seen."""
    log = os.environ.get("FAKECUDA_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": "reached", "what": what, "pid": os.getpid(), "executable": sys.executable}) + "\n")
    return FakeCudaReached(f"real CUDA work reached on a faked GPU: {what}")


def _raiser(what: str):
    def call(*args, **kwargs):
        raise _reached(what)

    call.__name__ = what.replace(".", "_")
    return call


class _RaisingClass:
    what = "a CUDA object"

    def __new__(cls, *args, **kwargs):
        raise _reached(cls.what)


class _Stream(_RaisingClass):
    what = "torch.cuda.Stream()"


class _Event(_RaisingClass):
    what = "torch.cuda.Event()"


def _count(n: int) -> int:
    """The GPUs this process sees: CUDA_VISIBLE_DEVICES narrows them, as with a real driver."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return n
    return min(n, len([d for d in visible.split(",") if d.strip() and not d.strip().startswith("-")]))


def _index(device, n: int) -> int:
    import torch

    if device is None:
        index = 0
    elif isinstance(device, int):
        index = device
    else:
        device = torch.device(device)
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        index = device.index or 0
    if not 0 <= index < max(1, _count(n)):
        raise AssertionError(f"Invalid device id {index} (a fake with {_count(n)} GPUs)")
    return index


def patches(spec: str) -> dict:
    """{(owner, attribute): fake} for the spec: what install() sets."""
    import torch

    gpu, n = parse(spec)
    props = _Props(gpu.name, gpu.capability[0], gpu.capability[1], gpu.memory, gpu.sms)

    def is_bf16_supported(including_emulation: bool = True) -> bool:
        return gpu.capability >= (8, 0) or bool(including_emulation)  # emulated bf16 on sm75 (torch says True)

    cuda = torch.cuda
    found = {
        (cuda, "is_available"): lambda: _count(n) > 0,
        (cuda, "device_count"): lambda: _count(n),
        (cuda, "get_device_name"): lambda device=None: (_index(device, n), gpu.name)[1],
        (cuda, "get_device_capability"): lambda device=None: (_index(device, n), gpu.capability)[1],
        (cuda, "get_device_properties"): lambda device=None: (_index(device, n), props)[1],
        (cuda, "get_arch_list"): lambda: list(ARCH_LIST),
        (cuda, "is_bf16_supported"): is_bf16_supported,
        (cuda, "current_device"): lambda: 0,
        (cuda, "is_initialized"): lambda: False,
        # real work: the driver, a context, streams, events, device memory
        (cuda, "_lazy_init"): _raiser("torch.cuda._lazy_init (CUDA context)"),
        (cuda, "init"): _raiser("torch.cuda.init"),
        (cuda, "set_device"): _raiser("torch.cuda.set_device"),
        (cuda, "synchronize"): _raiser("torch.cuda.synchronize"),
        (cuda, "Stream"): _Stream,
        (cuda, "Event"): _Event,
        (cuda, "reset_peak_memory_stats"): _raiser("torch.cuda.reset_peak_memory_stats"),
        (cuda, "reset_max_memory_allocated"): _raiser("torch.cuda.reset_max_memory_allocated"),
        (cuda, "mem_get_info"): _raiser("torch.cuda.mem_get_info"),
        (torch.Tensor, "pin_memory"): _raiser("Tensor.pin_memory (page-locked host memory)"),
    }
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None:
        for name in ("current_stream", "synchronize", "set_device_index", "set_device_idx"):
            if hasattr(accelerator, name):
                found[(accelerator, name)] = _raiser(f"torch.accelerator.{name}")
    return found


def install(spec: str):
    """Patch torch.cuda for `spec`; returns a function that undoes it."""
    saved = []
    for (owner, name), fake in patches(spec).items():
        saved.append((owner, name, owner.__dict__.get(name, _MISSING) if isinstance(owner, type)
                      else getattr(owner, name, _MISSING)))
        setattr(owner, name, fake)

    def undo():
        for owner, name, value in reversed(saved):
            if value is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, value)

    return undo


_MISSING = object()


@contextlib.contextmanager
def faked(spec: str):
    undo = install(spec)
    try:
        yield parse(spec)
    finally:
        undo()
