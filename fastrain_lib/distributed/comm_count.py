"""Counting what a training step sends and keeps: every collective that passes PyTorch's
dispatcher (CommCounter), and the bytes of distinct storages (storage_bytes). Used by the ZeRO
and tensor-parallel workers to measure, never to train."""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# ---------------------------------------------------------------------------------------
# Counting collectives: every c10d / functional collective that passes the dispatcher
# ---------------------------------------------------------------------------------------
def _tensors(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _nbytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


# op name -> (kind, which argument holds the FULL tensor, payload multiplier)
_OPS = {
    "c10d::allreduce_": ("all_reduce", 0, 2),
    "c10d::allreduce_coalesced_": ("all_reduce", 0, 2),
    "c10d::_allgather_base_": ("all_gather", 0, 1),
    "c10d::allgather_": ("all_gather", 0, 1),
    "c10d::allgather_into_tensor_coalesced_": ("all_gather", 0, 1),
    "c10d::_reduce_scatter_base_": ("reduce_scatter", 1, 1),
    "c10d::reduce_scatter_": ("reduce_scatter", 1, 1),
    "c10d::reduce_scatter_tensor_coalesced_": ("reduce_scatter", 1, 1),
    "c10d::broadcast_": ("broadcast", 0, 1),
    "c10d::send": ("send", 0, 1),
    "c10d::recv_": ("recv", 0, 1),
    "_c10d_functional::all_reduce": ("all_reduce", 0, 2),
    "_c10d_functional::all_reduce_": ("all_reduce", 0, 2),
    "_c10d_functional::all_gather_into_tensor": ("all_gather", 0, 1),  # input × group size, below
    "_c10d_functional::reduce_scatter_tensor": ("reduce_scatter", 0, 1),
    "_c10d_functional::broadcast": ("broadcast", 0, 1),
}


class CommCounter(TorchDispatchMode):
    """Inside `with CommCounter() as c:` every collective is recorded: c.events is a list of
    {kind, bytes (the full tensor), payload}; c.summary() sums them per kind.

    It sees what passes PyTorch's dispatcher: torch.distributed calls (FSDP2, ZeroRedundancy-
    Optimizer, our own code) and DTensor's functional collectives. DDP's C++ reducer is counted
    by its communication hook instead (see _ddp_model)."""

    def __init__(self):
        super().__init__()
        self.events: list[dict] = []

    def record(self, kind: str, nbytes: int, multiplier: int = 1) -> None:
        self.events.append({"kind": kind, "bytes": nbytes, "payload": nbytes * multiplier})

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func._schema.name if hasattr(func, "_schema") else str(func)
        if name in _OPS:
            kind, index, multiplier = _OPS[name]
            nbytes = _nbytes(_tensors(args[index]) if index < len(args) else [])
            if name == "_c10d_functional::all_gather_into_tensor":
                nbytes *= int(args[1])  # group size: the gathered tensor is N shards
            if name.startswith("_c10d_functional::reduce_scatter"):
                pass  # the input is the full tensor already
            self.record(kind, nbytes, multiplier)
        return func(*args, **kwargs)

    def summary(self) -> dict:
        """{kind: {"count", "bytes", "payload"}} plus "total_payload"."""
        out: dict = {}
        for e in self.events:
            row = out.setdefault(e["kind"], {"count": 0, "bytes": 0, "payload": 0})
            row["count"] += 1
            row["bytes"] += e["bytes"]
            row["payload"] += e["payload"]
        out["total_payload"] = sum(e["payload"] for e in self.events)
        return out


# ---------------------------------------------------------------------------------------
# Measuring memory: distinct storages, so a view is not counted twice
# ---------------------------------------------------------------------------------------
def _local(t: torch.Tensor) -> torch.Tensor:
    """A DTensor's local shard (FSDP2 keeps parameters, gradients and Adam state as DTensors)."""
    return t.to_local() if hasattr(t, "to_local") else t


def storage_bytes(tensors) -> int:
    """Bytes of the distinct storages behind `tensors` (views of one buffer count once)."""
    seen, total = set(), 0
    for t in tensors:
        if t is None:
            continue
        t = _local(t)
        s = t.untyped_storage()
        if s.data_ptr() in seen or s.nbytes() == 0:
            continue
        seen.add(s.data_ptr())
        total += s.nbytes()
    return total


def optimizer_state_tensors(optimizer) -> list[torch.Tensor]:
    """Adam's exp_avg and exp_avg_sq (the per-parameter step counters are 0-d: left out)."""
    return [v for state in optimizer.state.values() for k, v in state.items()
            if isinstance(v, torch.Tensor) and k != "step"]
