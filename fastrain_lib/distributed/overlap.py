"""The instruments lesson 05b measures DDP's buckets and no_sync() with (the technique itself is
written in the lesson's cells: `lessons/l05b_ddp_in_depth/saved.py`).

- the workload: the MLP and each rank's micro-batches (`model_for`, `batch_for`);
- `count_allreduces`: a DDP communication hook that averages like DDP's default and notes every
  bucket's size, when it was ready and when its all-reduce finished;
- `timeline_of`: one step with that hook and a hook on every parameter (when its gradient was
  computed), and `hidden_share`: how much of the all-reduce time fell before backward's end;
- `big_batch_gradient`: what accumulation over every rank's micro-batches must reproduce.
"""

from __future__ import annotations

import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from fastrain_lib.distributed.dataparallel import checked_cfg, gradient_vector, param_bytes  # noqa: F401 - workers use
from fastrain_lib.distributed.model_split import mlp

DEFAULTS = {
    "width": 256,
    "depth": 6,
    "batch": 64,            # per process, per micro-batch
    "bucket_caps_mb": [0.25, 1.0, 25.0, 1000.0],
    "steps": 8,
    "warmup": 2,
    "micro_batches": 4,     # for gradient accumulation
    "seed": 0,
}


def make_cfg(**overrides) -> dict:
    return checked_cfg(DEFAULTS, overrides)


def model_for(cfg: dict) -> torch.nn.Module:
    """The same MLP (same weights) on every rank and for every way of training."""
    return mlp(cfg["width"], cfg["depth"], inputs=cfg["width"], seed=cfg["seed"])


def batch_for(cfg: dict, rank: int, index: int = 0):
    """Rank `rank`'s micro-batch number `index` (a different one for every rank and index)."""
    g = torch.Generator().manual_seed(10_000 * (cfg["seed"] + 1) + 100 * index + rank)
    return torch.randn(cfg["batch"], cfg["width"], generator=g), torch.randint(0, 10, (cfg["batch"],), generator=g)


def timing_hook(state: list, bucket):
    """A DDP communication hook: the same average as DDP's default; notes in `state` one event per bucket
    all-reduced (its bytes, when it was ready and when its all-reduce finished, in perf_counter seconds)."""
    buffer = bucket.buffer()
    event = {"bucket": bucket.index(), "bytes": buffer.numel() * buffer.element_size(), "ready": time.perf_counter()}
    state.append(event)
    buffer.div_(dist.get_world_size())

    def done(fut):
        event["done"] = time.perf_counter()
        return fut.value()[0]

    return dist.all_reduce(buffer, async_op=True).get_future().then(done)


def count_allreduces(ddp) -> list[dict]:
    """Register timing_hook on `ddp` (before its first step); the list it returns gets every all-reduce."""
    state: list[dict] = []
    ddp.register_comm_hook(state, timing_hook)
    return state


def timeline_of(ddp, x, y) -> dict:
    """One step of a fresh `ddp` (after a warm-up step) with timing_hook and a hook on every
    parameter that notes when its gradient was computed. Times relative to the start of backward."""
    hook = count_allreduces(ddp)
    grad_times: list[float] = []
    for p in ddp.module.parameters():
        p.register_post_accumulate_grad_hook(lambda _p: grad_times.append(time.perf_counter()))
    for _ in range(2):  # the first step builds DDP's buckets; record the second
        hook.clear()
        grad_times.clear()
        ddp.zero_grad(set_to_none=True)
        loss = F.cross_entropy(ddp(x), y)
        start = time.perf_counter()
        loss.backward()
        end = time.perf_counter()
    events = [{**e, "ready": e["ready"] - start, "done": e["done"] - start} for e in hook if "done" in e]
    compute_end = max(grad_times) - start if grad_times else end - start
    return {"buckets": len(events), "bucket_bytes": [e["bytes"] for e in events], "events": events,
            "compute_end_s": compute_end, "backward_s": end - start,
            "hidden_share": hidden_share(events, compute_end)}


def hidden_share(events: list[dict], compute_end: float) -> float:
    """The share of all-reduce time (ready → done, summed over buckets) that happened while
    backward was still computing gradients (before compute_end): hidden behind compute."""
    total = sum(max(0.0, e["done"] - e["ready"]) for e in events)
    if total <= 0:
        return 0.0
    hidden = sum(max(0.0, min(e["done"], compute_end) - e["ready"]) for e in events)
    return hidden / total


def big_batch_gradient(cfg: dict, world_size: int) -> list[float]:
    """The gradient one process gets from ONE batch made of every rank's k micro-batches of
    step 0 (what DDP + accumulation must reproduce)."""
    cfg = make_cfg(**cfg)
    k = cfg["micro_batches"]
    xs, ys = zip(*[batch_for(cfg, r, i) for r in range(world_size) for i in range(k)])
    model = model_for(cfg)
    F.cross_entropy(model(torch.cat(xs)), torch.cat(ys)).backward()
    return gradient_vector(model).tolist()
