"""Tensor parallelism (Megatron-LM style): one layer's matrices cut between processes.

The MLP y = down(gelu(up(x))) cut as Megatron-LM does (Shoeybi et al. 2019, arXiv:1909.08053;
lesson 05c explains it): up column-parallel, down row-parallel, one all-reduce in forward
(the partial sums of y) and one in backward (the partial gradients of x).

Two ways here, both on real processes:
- lesson 05c's cell tp_plan.tp_mlp: parallelize_module with ColwiseParallel / RowwiseParallel
  (DTensor, PyTorch's API), whose collectives torch's CommDebugMode counts;
- `manual_forward`: a variant the lesson names, the cut written out with one dist.all_reduce
  (what DTensor does out of sight; the exercise asks the student to write it).

The tensors live where launcher.group_device() puts them: the CPU under gloo, each rank's own
GPU under NCCL (the panel asks for GPUs when hardware.gpu_per_process says so).
"""

from __future__ import annotations

import copy
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from fastrain_lib.measure import hardware, noise
from fastrain_lib.distributed.launcher import group_device
from fastrain_lib.distributed.comm_count import CommCounter
from fastrain_lib.distributed.tp_plan import tp_mlp

DEFAULTS = {"width": 256, "batch": 32, "seed": 0, "widths": (64, 256, 1024), "repeats": 5}


class MLP(nn.Module):
    """A transformer's MLP block: up (d → 4d), GELU, down (4d → d)."""

    def __init__(self, width: int):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


def make_mlp(width: int, seed: int = 0) -> MLP:
    torch.manual_seed(seed)
    return MLP(width)


def shard_rows(n: int, rank: int, world_size: int) -> slice:
    """Rank r's slice of n rows (torch.chunk's split: the first pieces are the larger ones)."""
    size = -(-n // world_size)
    return slice(min(rank * size, n), min((rank + 1) * size, n))


def tp_width(width: int, world_size: int) -> int:
    """The width actually used: a multiple of world_size, so each rank gets an equal slice
    (DTensor also shards unevenly, but on gloo/CPU torch 2.14 an uneven RowwiseParallel fails)."""
    return max(world_size, width - width % world_size)


def manual_forward(x: torch.Tensor, w1, b1, w2, b2, rank: int, world_size: int) -> torch.Tensor:
    """The Megatron cut written out: column slice of up, row slice of down, one all-reduce.
    Takes the FULL weights (as every rank built them from one seed) and uses only its slice."""
    cut = shard_rows(w1.shape[0], rank, world_size)
    h = F.gelu(x @ w1[cut].T + b1[cut])       # my slice of the 4d hidden units
    y = h @ w2[:, cut].T                      # my partial sum of y
    dist.all_reduce(y)                        # the ONE all-reduce: Σ over ranks
    return y + b2                             # the bias once, after the sum


def _counts(mode) -> dict:
    return {str(k).split(".")[-1]: v for k, v in mode.get_comm_counts().items()}


def _times(fn, repeats: int, device=None) -> list[float]:
    """Each of `repeats` calls timed alone, after one warm-up call that is left out."""
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        hardware.synchronize(device)
        dist.barrier()
        start = time.perf_counter()
        fn()
        hardware.synchronize(device)  # GPU work is only queued until here
        times.append(time.perf_counter() - start)
    return times


def tp_worker(rank: int, world_size: int, cfg: dict | None = None) -> dict:
    """On every rank: the DTensor MLP and the hand-written one against the single-process model,
    the collectives of one forward and one backward, and a width sweep (compute vs all-reduce)."""
    from torch.distributed.tensor.debug import CommDebugMode

    cfg = {**DEFAULTS, **(cfg or {})}
    device = group_device()
    width, batch = tp_width(cfg["width"], world_size), cfg["batch"]
    full = make_mlp(width, cfg["seed"]).to(device)
    x = torch.randn(batch, width, generator=torch.Generator().manual_seed(cfg["seed"] + 1)).to(device)
    want = full(x).detach()

    tp = tp_mlp(copy.deepcopy(full), world_size, device.type)  # the lesson's cell, on a copy: `full` stays whole
    xg = x.clone().requires_grad_(True)  # in a real network x comes from the layer before
    with CommDebugMode() as forward_mode:
        y = tp(xg)
    with CommDebugMode() as backward_mode:
        y.sum().backward()
    x_ref = x.clone().requires_grad_(True)
    full(x_ref).sum().backward()
    with CommCounter() as counter:
        y_manual = manual_forward(x, full.up.weight.detach(), full.up.bias.detach(), full.down.weight.detach(),
                                  full.down.bias.detach(), rank, world_size)
    local_up = tp.up.weight.to_local().shape
    result = {
        "rank": rank, "world_size": world_size, "width": width, "device": str(device), "backend": dist.get_backend(),
        "forward_comms": _counts(forward_mode), "backward_comms": _counts(backward_mode),
        "error": (y.detach() - want).abs().max().item(),
        "grad_x_error": (xg.grad - x_ref.grad).abs().max().item(),
        "manual_error": (y_manual - want).abs().max().item(),
        "manual_comms": counter.summary(),
        "up_local_shape": tuple(local_up), "down_local_shape": tuple(tp.down.weight.to_local().shape),
        "sweep": [],
    }
    for w in cfg["widths"]:
        result["sweep"].append(_sweep_point(tp_width(w, world_size), batch, rank, world_size, cfg, device))
    return result


def _sweep_point(width: int, batch: int, rank: int, world_size: int, cfg: dict, device=None) -> dict:
    """At one width: the TP forward, its compute alone (my slices, no communication), the
    all-reduce alone (batch × width numbers), and the single-process forward."""
    device = device or torch.device("cpu")
    model = make_mlp(width, cfg["seed"]).to(device)
    x = torch.randn(batch, width, device=device)
    tp = tp_mlp(copy.deepcopy(model), world_size, device.type)
    cut = shard_rows(4 * width, rank, world_size)
    w1, b1 = model.up.weight.detach()[cut].clone(), model.up.bias.detach()[cut].clone()
    w2 = model.down.weight.detach()[:, cut].clone()
    buffer = torch.randn(batch, width, device=device)
    with torch.no_grad():
        times = {"tp_s": _times(lambda: tp(x), cfg["repeats"], device),
                 "compute_s": _times(lambda: F.gelu(x @ w1.T + b1) @ w2.T, cfg["repeats"], device),
                 "allreduce_s": _times(lambda: dist.all_reduce(buffer), cfg["repeats"], device),
                 "single_s": _times(lambda: model(x), cfg["repeats"], device)}
    flops = 2 * batch * width * 4 * width * 2 / world_size  # two matmuls, my share
    point = {k: statistics.median(v) for k, v in times.items()}
    # the repeats' spread (IQR / median, in blocks of consecutive repeats: noise.from_steps) of the four
    # timings: the worst one judges the row's noise
    judged = [noise.from_steps(v) for v in times.values()]
    point.update(width=width, flops_per_rank=flops, allreduce_bytes=batch * width * 4,
                 comm_share=point["allreduce_s"] / (point["compute_s"] + point["allreduce_s"]),
                 spread=max((j[0] for j in judged if j[0] is not None), default=None), repeats=judged[0][1],
                 block_steps=judged[0][2])
    return point


def sweep_rows(results: list[dict]) -> list[dict]:
    """The width sweep, the slowest rank per width (everyone waits in the all-reduce)."""
    rows = []
    for i, point in enumerate(results[0]["sweep"]):
        ranks = [r["sweep"][i] for r in results]
        row = {k: max(p[k] for p in ranks) for k in ("tp_s", "compute_s", "allreduce_s", "single_s")}
        row.update(width=point["width"], flops_per_rank=point["flops_per_rank"],
                   allreduce_bytes=point["allreduce_bytes"],
                   spread=max((p["spread"] for p in ranks if p.get("spread") is not None), default=None),
                   repeats=min(p.get("repeats", 0) for p in ranks), block_steps=ranks[0].get("block_steps", 1))
        row["comm_share"] = row["allreduce_s"] / (row["compute_s"] + row["allreduce_s"])
        rows.append(row)
    return rows
