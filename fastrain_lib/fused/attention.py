"""Attention two ways (lesson 04): written out by hand, and PyTorch's fused
F.scaled_dot_product_attention (SDPA), with the memory each one keeps for the backward pass.

    from fastrain_lib.fused import attention as A
    q, k, v = A.qkv(batch=2, heads=4, seq=256, head_dim=32)
    y = A.naive_attention(q, k, v)                 # softmax(q kᵀ / √d) v, every step a tensor
    y = A.sdpa(q, k, v)                            # one fused call; PyTorch picks the kernel
    y = A.sdpa(q, k, v, backend="math")            # force one backend (torch.nn.attention.sdpa_kernel)
    A.available_backends("cpu")                    # which backends run here, tried for real
    A.saved_bytes(A.naive_attention, q, k, v)      # bytes autograd keeps for backward, beyond q, k, v

The hand-written version stores the whole T×T matrix of attention weights for the backward pass
(its memory grows with the square of the sequence length T). The fused flash / memory-efficient
kernels never write that matrix out: they work on blocks, keep one number per row (the
softmax's log-sum-exp) and recompute the blocks in the backward pass, so what they keep grows
only with T. The "math" backend is PyTorch's own composite of ordinary operators — the
hand-written version under one name.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from fastrain_lib.fused.naive_attention import naive_attention  # lesson 04 writes it in its own cell
from fastrain_lib.measure import bench, hardware, noise

# The backends torch.nn.attention.sdpa_kernel can force, by the names the lesson uses.
BACKENDS = {
    "math": SDPBackend.MATH,
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
}
# What each backend's operator is called in a profile (to tell which one SDPA chose by itself).
OP_NAMES = {
    "flash": ("_scaled_dot_product_flash_attention", "_flash_attention_forward"),
    "efficient": ("_scaled_dot_product_efficient_attention", "_efficient_attention_forward"),
    "cudnn": ("_scaled_dot_product_cudnn_attention", "_cudnn_attention_forward"),
    "math": ("_scaled_dot_product_attention_math",),
}


def sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = True,
         backend: str | None = None) -> torch.Tensor:
    """F.scaled_dot_product_attention; `backend` (a name in BACKENDS) forces one kernel."""
    if backend is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    with sdpa_kernel(BACKENDS[backend]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def qkv(batch: int = 2, heads: int = 4, seq: int = 128, head_dim: int = 32, device="cpu",
        dtype: torch.dtype = torch.float32, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Fresh random q, k, v of shape [batch, heads, seq, head_dim] that need gradients."""
    shape = (batch, heads, seq, head_dim)
    return tuple(bench.fresh_random(*shape, device=device, dtype=dtype, seed=seed + i).requires_grad_()
                 for i in range(3))


def backend_available(name: str, device="cpu", dtype: torch.dtype = torch.float32, head_dim: int = 32) -> bool:
    """True when backend `name` really runs forward and backward here, on this dtype: tried on tiny
    inputs (each backend has its own rules: GPU generation, dtype, head size, build options)."""
    q, k, v = qkv(1, 2, 16, head_dim, device=device, dtype=dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Flash attention kernel not used because ...": the answer is False
            out = sdpa(q, k, v, backend=name)
            torch.autograd.grad(out.float().sum(), (q, k, v))
        return True
    except RuntimeError:
        return False


def available_backends(device="cpu", dtype: torch.dtype = torch.float32, head_dim: int = 32) -> dict[str, bool]:
    """{backend name: runs here} for every backend in BACKENDS."""
    return {name: backend_available(name, device, dtype, head_dim) for name in BACKENDS}


def chosen_backend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = True) -> str:
    """Which backend F.scaled_dot_product_attention picked by itself for these inputs, read from a
    profile of one call (the name of the operator it ran); 'unknown' if none matched."""
    from torch.profiler import ProfilerActivity, profile

    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # Kineto prints start/stop lines otherwise
    with profile(activities=[ProfilerActivity.CPU]) as prof:  # with gradients on, as in training
        sdpa(q, k, v, causal)
    names = [event.name for event in prof.events()]
    for backend, markers in OP_NAMES.items():
        if any(marker in name for name in names for marker in markers):
            return backend
    return "unknown"


@dataclass(frozen=True)
class Saved:
    """What autograd kept for the backward pass of one forward call."""

    bytes: int  # beyond the inputs themselves (those the caller holds anyway)
    tensors: int  # how many saved tensors that is
    shapes: tuple  # their shapes, largest first


def saved_bytes(fn, *inputs) -> Saved:
    """Run fn(*inputs) once and add up the memory of every tensor autograd saves for backward
    (torch.autograd.graph.saved_tensors_hooks), each storage counted once, the inputs' own left out."""
    own = {x.untyped_storage().data_ptr() for x in inputs if isinstance(x, torch.Tensor)}
    kept: dict[int, tuple[int, tuple]] = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in own:
            kept[storage.data_ptr()] = (storage.nbytes(), tuple(tensor.shape))
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    ordered = sorted(kept.values(), key=lambda item: -item[0])
    return Saved(bytes=sum(b for b, _ in ordered), tensors=len(ordered), shapes=tuple(s for _, s in ordered))


def variants(device="cpu", dtype: torch.dtype = torch.float32, chosen: str | None = None) -> dict:
    """{label: attention function} to compare here: the hand-written one, SDPA as PyTorch picks,
    and SDPA forced to each other backend that runs on this device and dtype. The backend SDPA
    picks by itself (`chosen`) is the "sdpa" row only: the same kernel is never kept as two rows."""
    out = {"naive": naive_attention, "sdpa": sdpa}
    for name, ok in available_backends(device, dtype).items():
        if ok and name != chosen:
            out[f"sdpa:{name}"] = lambda q, k, v, causal=True, name=name: sdpa(q, k, v, causal, backend=name)
    return out


def _second_round(first: bench.Record, step) -> bench.Record:
    """Measure `step` once more (a second round): the later of the two is kept, and when the two
    medians differ by more than noise.SPREAD_LIMIT the record is marked noisy ("rounds")."""
    again = bench.measure(step, first.name, params=first.params)
    again.metrics.update(first.metrics)
    low, high = sorted((first.median_s, again.median_s))
    spread = (high - low) / low if low > 0 else 0.0
    if spread > noise.SPREAD_LIMIT:
        again.noise.update(rounds=2, round_spread=round(spread, 4))
        again.noise["reasons"] = sorted(set(again.noise.get("reasons", [])) | {"rounds"})
        again.noise["verdict"] = noise.NOISY
    return again


def inconsistent(records: list[bench.Record], factor: float = 2.0) -> list[int]:
    """Indices of records that took more than `factor` times longer than the same variant at the
    next longer T: more work, less time — a measurement that contradicts itself."""
    found = []
    for variant in dict.fromkeys(r.params["variant"] for r in records):
        mine = sorted((i for i, r in enumerate(records) if r.params["variant"] == variant),
                      key=lambda i: records[i].params["seq"])
        found += [a for a, b in itertools.pairwise(mine) if records[a].median_s > factor * records[b].median_s]
    return found


def compare(seq_lens, *, batch: int = 2, heads: int = 4, head_dim: int = 32, device="cpu",
            dtype: torch.dtype = torch.float32, only: tuple | None = None) -> list[bench.Record]:
    """Time forward + backward of every variant at each sequence length, with the bytes saved for
    backward (every device) and the allocator's peak (CUDA only; None elsewhere).

    Each Record: name "attention:<variant>", params variant/seq/batch/heads/head_dim/dtype/device
    (and backend: the kernel SDPA chose by itself, for the "sdpa" row), metrics saved_bytes,
    saved_tensors, peak_bytes, max_diff (against the hand-written output), and its noise verdict.
    A time that falls while T grows is measured again (a second round); two rounds that disagree
    mark the record noisy."""
    device = hardware.check_device(device)
    chosen = chosen_backend(*qkv(batch, heads, min(seq_lens), head_dim, device=device, dtype=dtype))
    funcs = variants(device, dtype, chosen)
    if only is not None:
        funcs = {k: f for k, f in funcs.items() if k in only}
    records, steps = [], []
    for seq in seq_lens:
        q, k, v = qkv(batch, heads, seq, head_dim, device=device, dtype=dtype, seed=seq)
        with torch.no_grad():
            expected = naive_attention(q, k, v).float()
        for label, fn in funcs.items():
            def step(fn=fn, q=q, k=k, v=v):
                out = fn(q, k, v)
                torch.autograd.grad(out.float().sum(), (q, k, v))
            with torch.no_grad():
                diff = float((fn(q, k, v).float() - expected).abs().max())
            saved = saved_bytes(fn, q, k, v)
            hardware.synchronize(device)
            hardware.reset_peak_memory(device)
            step()
            hardware.synchronize(device)
            peak = hardware.peak_memory(device)
            params = {"variant": label, "seq": seq, "batch": batch, "heads": heads, "head_dim": head_dim,
                      "dtype": str(dtype).replace("torch.", ""), "device": str(device)}
            if label == "sdpa":
                params["backend"] = chosen
            record = bench.measure(step, f"attention:{label}", params=params)
            record.metrics.update(saved_bytes=saved.bytes, saved_tensors=saved.tensors, peak_bytes=peak,
                                  max_diff=diff)
            records.append(record)
            steps.append(step)
    for i in inconsistent(records):
        records[i] = _second_round(records[i], steps[i])
    return records


def growth(records: list[bench.Record], variant: str, metric: str = "saved_bytes") -> float | None:
    """How many times `metric` grew per doubling of the sequence length for `variant` (from its
    two longest runs): about 4 for memory that grows as T², about 2 for memory that grows as T."""
    mine = sorted((r for r in records if r.params.get("variant") == variant), key=lambda r: r.params["seq"])
    if len(mine) < 2 or not mine[-2].metrics.get(metric):
        return None
    (a, b) = mine[-2], mine[-1]
    ratio = b.metrics[metric] / a.metrics[metric]
    return ratio ** (1.0 / math.log2(b.params["seq"] / a.params["seq"]))
