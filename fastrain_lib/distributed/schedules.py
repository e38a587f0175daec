"""GPipe vs 1F1B with PyTorch's own torch.distributed.pipelining, measured on real processes.

Lesson 05's pipeline.py writes GPipe by hand. Here the same model cut (pipeline.stage_layers)
runs under PyTorch's schedules, built and stepped by lesson 05c's cell (pipe_stage.py:
PipelineStage + ScheduleGPipe / Schedule1F1B, schedule.step), and each stage records:

- a timeline of its forward ("F") and backward ("B") micro-batch work (we wrap the stage's
  forward_one_chunk / backward_one_chunk; the schedule's send/recv waits are outside them);
- how many micro-batches are alive (forward done, backward not yet) and how many bytes the
  autograd graph keeps for them (torch.autograd.graph.saved_tensors_hooks; parameters excluded).

With K stages and M micro-batches, GPipe keeps M micro-batches alive on every stage, 1F1B at
most min(M, K−k) on stage k (peak_alive); the bubble, (K−1)/(M+K−1), is the same for both.
"""

from __future__ import annotations

import time

import torch
import torch.distributed as dist

from fastrain_lib.measure import hardware
from fastrain_lib.distributed import pipeline
from fastrain_lib.distributed.launcher import group_device
from fastrain_lib.distributed.pipe_stage import pipeline_schedule, pipeline_step

SCHEDULES = ("gpipe", "1f1b")
DEFAULTS = {"width": 256, "batch": 32, "steps": 3, "layers_per_stage": 2, "lr": 0.05, "seed": 0, "replicas": 1}


def peak_alive(schedule: str, stages: int, micro_batches: int, stage: int) -> int:
    """Micro-batches whose activations stage `stage` keeps at once: GPipe M, 1F1B min(M, K−k)."""
    if schedule == "gpipe":
        return micro_batches
    return min(micro_batches, stages - stage)


def ideal_1f1b(stages: int, micro_batches: int, forward: float = 1.0, backward: float = 2.0) -> list[dict]:
    """The 1F1B schedule on paper (no measurement), as PyTorch orders it: stage k runs
    min(M, K−k) forwards, then alternates one backward and one forward, then the rest of the
    backwards; each piece of work starts when its input is ready and the stage is free."""
    order = {}
    for k in range(stages):
        warm = min(micro_batches, stages - k)
        ops = [("F", m) for m in range(warm)]
        f, b = warm, 0
        while b < micro_batches:
            ops.append(("B", b))
            b += 1
            if f < micro_batches:
                ops.append(("F", f))
                f += 1
        order[k] = ops
    done, free, events = {}, [0.0] * stages, []
    position = [0] * stages
    while any(position[k] < len(order[k]) for k in range(stages)):
        progressed = False
        for k in range(stages):
            if position[k] >= len(order[k]):
                continue
            kind, m = order[k][position[k]]
            if kind == "F":
                need = (k - 1, "F", m) if k > 0 else None  # the activation from the stage before
            else:
                need = (k + 1, "B", m) if k < stages - 1 else (k, "F", m)  # the gradient from the stage after
            if need is not None and need not in done:
                continue
            start = max(free[k], done.get(need, 0.0) if need else 0.0)
            end = start + (forward if kind == "F" else backward)
            done[(k, kind, m)] = free[k] = end
            events.append({"stage": k, "kind": kind, "micro": m, "start": start, "end": end})
            position[k] += 1
            progressed = True
        if not progressed:
            raise RuntimeError("1F1B order deadlocked")  # cannot happen for a valid order
    return events


def alive_over_time(events: list[dict], stage: int) -> int:
    """The largest number of micro-batches alive on `stage` in a timeline (F done, B not yet)."""
    marks = []
    for e in events:
        if e["stage"] == stage and e["kind"] == "F":
            marks.append((e["start"], 1))
        elif e["stage"] == stage and e["kind"] == "B":
            marks.append((e["end"], -1))
    alive = peak = 0
    for _, delta in sorted(marks, key=lambda m: (m[0], m[1])):
        alive += delta
        peak = max(peak, alive)
    return peak


class ActivationMeter:
    """Bytes the autograd graph keeps for backward, live and at their peak, per training step.

    A saved_tensors_hooks pack hook sees every tensor autograd saves; we count the bytes it
    views once (the same view saved twice adds nothing) and skip the parameters (they are not
    activations). When backward frees the graph, the holder objects die and the bytes go away.
    Bytes are counted per step (`start_step`): PyTorch's first stage keeps its last micro-batch's
    graph until the next step, and that leftover is reported apart (`held_over`), not mixed in."""

    def __init__(self, params):
        self.param_storages = {p.untyped_storage().data_ptr() for p in params}
        self.live: dict[tuple, list] = {}  # (step, storage, offset, shape, dtype) -> [bytes, holders]
        self.step = 0
        self.now = self.peak = self.held_over = 0

    def start_step(self) -> None:
        self.step += 1
        self.held_over = sum(b for key, (b, _) in self.live.items())
        self.now = self.peak = 0

    def _pack(self, tensor):
        storage = tensor.untyped_storage().data_ptr()
        if storage in self.param_storages or tensor.numel() == 0:
            return tensor
        key = (self.step, storage, tensor.storage_offset(), tuple(tensor.shape), tensor.dtype)
        return _Holder(self, tensor, key)

    @staticmethod
    def _unpack(obj):
        return obj.tensor if isinstance(obj, _Holder) else obj

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def add(self, key, nbytes):
        entry = self.live.setdefault(key, [nbytes, 0])
        if entry[1] == 0 and key[0] == self.step:
            self.now += nbytes
            self.peak = max(self.peak, self.now)
        entry[1] += 1

    def remove(self, key):
        entry = self.live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            if key[0] == self.step:
                self.now -= entry[0]
            del self.live[key]


class _Holder:
    __slots__ = ("key", "meter", "tensor")

    def __init__(self, meter, tensor, key):
        self.meter, self.tensor, self.key = meter, tensor, key
        meter.add(key, tensor.numel() * tensor.element_size())

    def __del__(self):
        self.meter.remove(self.key)


def _timed(fn, kind: str, stage: int, events: list, clock: dict, alive: dict, device=None):
    def wrapper(chunk_id, *args, **kwargs):
        hardware.synchronize(device)
        start = time.perf_counter()
        out = fn(chunk_id, *args, **kwargs)
        hardware.synchronize(device)  # on a GPU the chunk's kernels only end here
        end = time.perf_counter()
        events.append({"stage": stage, "kind": kind, "micro": chunk_id, "start": start - clock["t0"],
                       "end": end - clock["t0"]})
        alive["now"] += 1 if kind == "F" else -1
        alive["peak"] = max(alive["peak"], alive["now"])
        return out

    return wrapper


def run_schedule(schedule: str, rank: int, world_size: int, micro_batches: int, cfg: dict) -> dict:
    """Train cfg["steps"] steps of the MLP cut into `world_size` stages with one of PyTorch's
    schedules; this rank's timeline, live micro-batches, activation bytes and final weights."""
    cfg = {**DEFAULTS, **cfg, "micro_batches": micro_batches}
    stages, width = world_size, cfg["width"]
    device = group_device()  # the CPU under gloo, this rank's GPU under NCCL
    module = pipeline.stage_layers(stages, cfg, width)[rank].to(device)
    optimizer = torch.optim.SGD(module.parameters(), lr=cfg["lr"])
    stage, sched = pipeline_schedule(module, rank, stages, device, micro_batches, schedule)  # the lesson's cell
    meter = ActivationMeter(module.parameters())
    events: list[dict] = []
    clock = {"t0": 0.0}
    alive = {"now": 0, "peak": 0}
    stage.forward_one_chunk = _timed(stage.forward_one_chunk, "F", rank, events, clock, alive, device)
    stage.backward_one_chunk = _timed(stage.backward_one_chunk, "B", rank, events, clock, alive, device)
    timelines, starts, peaks, held = [], [], [], []
    for step in range(cfg["steps"]):
        x, y = (t.to(device) for t in pipeline.batch_for(step, 0, cfg, width))
        optimizer.zero_grad(set_to_none=True)
        events.clear()
        meter.start_step()
        hardware.synchronize(device)
        dist.barrier()
        clock["t0"] = time.perf_counter()
        starts.append(clock["t0"])  # one machine: perf_counter is one clock for all processes
        with meter.hooks():
            pipeline_step(sched, rank, stages, x, y)
        optimizer.step()
        timelines.append([dict(e) for e in events])
        peaks.append(meter.peak)
        held.append(meter.held_over)
    pipeline._to_common_clock(timelines, starts, device)  # lesson 05's: every rank's events on one clock
    return {"schedule": schedule, "rank": rank, "stage": rank, "stages": stages, "micro_batches": micro_batches,
            "device": str(device), "backend": dist.get_backend(),
            "all_events": timelines, "events": timelines[-1], "peak_alive": alive["peak"],
            "activation_peak_bytes": max(peaks[1:] or peaks), "held_over_bytes": max(held),
            "params": [p.detach().cpu().numpy().copy() for p in module.parameters()]}


def schedules_worker(rank: int, world_size: int, micro_list=(4,), schedules=SCHEDULES, cfg: dict | None = None) -> list:
    """Every (schedule, M) in turn in the same processes (one launch for the whole comparison)."""
    cfg = {**DEFAULTS, **(cfg or {})}
    return [run_schedule(s, rank, world_size, m, cfg) for m in micro_list for s in schedules
            if not (s == "1f1b" and m < world_size)]


def measured_idle(results: list[dict]) -> float:
    """The median idle share of the steps after the first (warm-up), all stages together."""
    import statistics

    stages = results[0]["stages"]
    steps = len(results[0]["all_events"])
    shares = [pipeline.idle_share([e for r in results for e in r["all_events"][s]], stages) for s in range(1, steps)]
    return statistics.median(shares) if shares else pipeline.idle_share([e for r in results for e in r["events"]],
                                                                        stages)


def summary(results_by_rank: list[list[dict]]) -> list[dict]:
    """One row per (schedule, M): measured idle vs formula; live micro-batches and activation
    bytes per stage, measured vs the schedule's rule."""
    rows = []
    for i, first in enumerate(results_by_rank[0]):
        runs = [r[i] for r in results_by_rank]
        k, m = first["stages"], first["micro_batches"]
        rows.append({"schedule": first["schedule"], "stages": k, "micro_batches": m,
                     "idle": measured_idle(runs), "formula": pipeline.bubble_fraction(k, m),
                     "alive": [r["peak_alive"] for r in runs],
                     "alive_rule": [peak_alive(first["schedule"], k, m, r["stage"]) for r in runs],
                     "activation_bytes": [r["activation_peak_bytes"] for r in runs],
                     "events": [e for r in runs for e in r["events"]],
                     "span_s": max(e["end"] for r in runs for e in r["events"]) -
                     min(e["start"] for r in runs for e in r["events"])})
    return rows
