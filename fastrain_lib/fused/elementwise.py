"""The memory traffic of an elementwise chain (lesson 04's bias + GELU, fused/bias_gelu.py).

Eager PyTorch runs each elementwise operator as its own kernel, reading and writing the whole
tensor each time; a fused kernel (torch.compile, Triton) reads once and writes once.
"""

from __future__ import annotations

import torch


def fused_bytes(x: torch.Tensor, bias: torch.Tensor) -> int:
    """Bytes a perfectly fused bias+GELU must move: read x and bias once, write y once."""
    return 2 * x.numel() * x.element_size() + bias.numel() * bias.element_size()


def memory_traffic(fn, *args) -> tuple[int, int]:
    """Run fn(*args) and return (operator calls, bytes read + written by those operators).

    Counts every aten operator's tensor inputs and outputs once, as if nothing stayed in
    a cache: an upper bound on what an unfused chain moves, and exact for elementwise ops."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    totals = {"calls": 0, "bytes": 0}

    def nbytes(values) -> int:
        return sum(v.numel() * v.element_size() for v in tree_leaves(values) if isinstance(v, torch.Tensor))

    class Tally(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            totals["calls"] += 1
            totals["bytes"] += nbytes((args, kwargs)) + nbytes(out)
            return out

    with Tally():
        fn(*args)
    return totals["calls"], totals["bytes"]
