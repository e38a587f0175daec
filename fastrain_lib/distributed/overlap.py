"""DDP's two tricks, measured: buckets that overlap the all-reduce with backward, and no_sync().

Buckets. DDP does not wait for the whole backward to finish before it all-reduces. It packs
the gradients into buckets of about `bucket_cap_mb` megabytes, in the order backward produces
them (the last layer's first), and starts each bucket's all-reduce as soon as all its
gradients exist — while backward goes on computing the earlier layers. Small buckets start
sending early but pay one message start-up (latency, α) each; one huge bucket pays α once but
cannot start before backward has ended. `bucket_sweep` measures the step time for several
bucket sizes; `timeline` records, with a communication hook, when each bucket was ready and
when its all-reduce finished, next to when each gradient was computed.

no_sync(). With gradient accumulation (k micro-batches per optimizer step) the gradients only
need averaging once, after the k-th backward. Inside `with ddp.no_sync():` DDP skips the
all-reduce and only accumulates locally; `accumulation` measures the step with and without
it, counts the all-reduces, and returns the gradients, which equal one big batch's.
"""

from __future__ import annotations

import contextlib
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from fastrain_lib.distributed.dataparallel import gradient_vector, param_bytes
from fastrain_lib.distributed.model_split import mlp

DEFAULTS = {
    "width": 256,
    "depth": 6,
    "batch": 64,            # per process, per micro-batch
    "bucket_caps_mb": [0.25, 1.0, 25.0, 1000.0],
    "steps": 8,
    "warmup": 2,
    "micro_batches": 4,     # for accumulation()
    "ways": ["every", "no_sync"],  # accumulation(); also "backward_only_in_no_sync", the classic mistake
    "seed": 0,
}


def make_cfg(**overrides) -> dict:
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        from fastrain_lib.core.i18n import t

        raise ValueError(t("distributed.bad_cfg", keys=", ".join(sorted(unknown)), known=", ".join(DEFAULTS)))
    return {**DEFAULTS, **overrides}


def _model(cfg: dict) -> torch.nn.Module:
    return mlp(cfg["width"], cfg["depth"], inputs=cfg["width"], seed=cfg["seed"])


def _batch(cfg: dict, rank: int, index: int, size: int | None = None):
    """Rank `rank`'s micro-batch number `index` (a different one for every rank and index)."""
    g = torch.Generator().manual_seed(10_000 * (cfg["seed"] + 1) + 100 * index + rank)
    n = size or cfg["batch"]
    return torch.randn(n, cfg["width"], generator=g), torch.randint(0, 10, (n,), generator=g)


class Timeline:
    """State of timing_hook: for every bucket, its size and when it was ready (hook called) and
    done (all-reduce finished), in perf_counter seconds; `reset()` between steps."""

    def __init__(self):
        self.events: list[dict] = []
        self.calls = 0

    def reset(self) -> None:
        self.events = []


def timing_hook(state: Timeline, bucket):
    """A DDP communication hook: the same average as DDP's default, with the bucket's times noted."""
    buffer = bucket.buffer()
    event = {"bucket": bucket.index(), "bytes": buffer.numel() * buffer.element_size(), "ready": time.perf_counter()}
    state.calls += 1
    state.events.append(event)
    buffer.div_(dist.get_world_size())

    def done(fut):
        event["done"] = time.perf_counter()
        return fut.value()[0]

    return dist.all_reduce(buffer, async_op=True).get_future().then(done)


def _step(ddp, optimizer, x, y) -> float:
    start = time.perf_counter()
    optimizer.zero_grad(set_to_none=True)
    F.cross_entropy(ddp(x), y).backward()
    optimizer.step()
    return time.perf_counter() - start


def bucket_sweep(rank: int, world_size: int, cfg: dict) -> dict:
    """For each bucket_cap_mb: the median step time of plain DDP, then one step with timing_hook
    (how many buckets, their sizes, and the timeline of that step)."""
    cfg = make_cfg(**cfg)
    x, y = _batch(cfg, rank, 0)
    rows = []
    for cap in cfg["bucket_caps_mb"]:
        model = _model(cfg)
        ddp = DDP(model, bucket_cap_mb=cap)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
        times = [_step(ddp, optimizer, x, y) for _ in range(cfg["warmup"] + cfg["steps"])]
        timed = times[cfg["warmup"]:] or times
        rows.append({"bucket_cap_mb": cap, "step_s": statistics.median(timed), "times": timed,
                     **timeline_of(cfg, cap, x, y)})
    return {"rank": rank, "world_size": world_size, "param_bytes": param_bytes(_model(cfg)), "rows": rows}


def timeline_of(cfg: dict, cap: float, x, y) -> dict:
    """One DDP step (after a warm-up step) with timing_hook and a hook on every parameter that
    notes when its gradient was computed. Times relative to the start of backward."""
    model = _model(cfg)
    ddp = DDP(model, bucket_cap_mb=cap)
    hook = Timeline()
    ddp.register_comm_hook(hook, timing_hook)
    grad_times: list[float] = []
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(lambda _p: grad_times.append(time.perf_counter()))
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for _ in range(2):  # the first step builds DDP's buckets; record the second
        hook.reset()
        grad_times.clear()
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(ddp(x), y)
        start = time.perf_counter()
        loss.backward()
        end = time.perf_counter()
        optimizer.step()
    events = [{**e, "ready": e["ready"] - start, "done": e["done"] - start} for e in hook.events if "done" in e]
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


def accumulation(rank: int, world_size: int, cfg: dict) -> dict:
    """k = cfg['micro_batches'] micro-batches per optimizer step, two ways:
    'every': a plain backward each time (DDP all-reduces k times),
    'no_sync': the first k−1 forwards and backwards inside ddp.no_sync() (one all-reduce, after the last);
    'backward_only_in_no_sync' (if asked for in cfg['ways']): only the backwards inside — the mistake.
    Returns the median seconds per optimizer step, all-reduces per step, and the first step's
    accumulated gradient of each way (they must equal one big batch's)."""
    cfg = make_cfg(**cfg)
    k = cfg["micro_batches"]
    out = {"rank": rank, "world_size": world_size, "micro_batches": k}
    for way in cfg["ways"]:
        model = _model(cfg)
        ddp = DDP(model)
        hook = Timeline()
        ddp.register_comm_hook(hook, timing_hook)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
        times, first_grad = [], None
        for step in range(cfg["warmup"] + cfg["steps"]):
            batches = [_batch(cfg, rank, step * k + i) for i in range(k)]
            start = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            for i, (x, y) in enumerate(batches):
                # forward AND backward inside no_sync(): DDP decides in forward whether this
                # backward all-reduces (with only the backward inside, it still syncs every time)
                quiet = way == "no_sync" and i < k - 1
                with ddp.no_sync() if quiet else contextlib.nullcontext():
                    loss = F.cross_entropy(ddp(x), y) / k  # the mean over all k micro-batches
                    if way == "backward_only_in_no_sync" and i < k - 1:
                        with ddp.no_sync():  # too late: this forward already asked for a sync
                            loss.backward()
                    else:
                        loss.backward()
            if first_grad is None:
                first_grad = gradient_vector(model).tolist()
            optimizer.step()
            times.append(time.perf_counter() - start)
        timed = times[cfg["warmup"]:] or times
        steps = cfg["warmup"] + cfg["steps"]
        out[way] = {"step_s": statistics.median(timed), "times": timed, "allreduces_per_step": hook.calls / steps,
                    "bytes_per_step": sum(e["bytes"] for e in hook.events) / steps, "first_grad": first_grad}
    return out


def big_batch_gradient(cfg: dict, world_size: int) -> list[float]:
    """The gradient one process gets from ONE batch made of every rank's k micro-batches of
    step 0 (what DDP + accumulation must reproduce)."""
    cfg = make_cfg(**cfg)
    k = cfg["micro_batches"]
    xs, ys = zip(*[_batch(cfg, r, i) for r in range(world_size) for i in range(k)])
    model = _model(cfg)
    F.cross_entropy(model(torch.cat(xs)), torch.cat(ys)).backward()
    return gradient_vector(model).tolist()
