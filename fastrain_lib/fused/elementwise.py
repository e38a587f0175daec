"""An elementwise chain (bias + GELU) and the memory traffic it causes unfused (lesson 04).

Eager PyTorch runs each elementwise operator as its own kernel, reading and writing the whole
tensor each time; a fused kernel (torch.compile, Triton) reads once and writes once.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

GELU_C = math.sqrt(2.0 / math.pi)  # 0.7978845608...


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """bias add + GELU (tanh form), written as the separate elementwise operators it is made of.

    Eager PyTorch runs each line as its own kernel: every one reads its inputs from
    memory and writes a full-size result back. Same maths as F.gelu(x + bias, approximate="tanh")."""
    z = x + bias
    cube = z * z * z
    inner = (z + 0.044715 * cube) * GELU_C
    return 0.5 * z * (1.0 + torch.tanh(inner))


def bias_gelu_reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The same function through PyTorch's own GELU kernel (two operators: add, gelu)."""
    return F.gelu(x + bias, approximate="tanh")


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
