"""A GPipe-style pipeline over real processes, and data parallel on top of it (hybrid).

Each process (rank) holds one stage: a consecutive slice of the model's layers. A batch
is cut into M micro-batches. Stage k

  forward:  for each micro-batch: receive the activation from stage k−1 (send/recv),
            run its layers, send the output to stage k+1;
  backward: for each micro-batch, last first: receive the gradient of its output from
            stage k+1, backpropagate through its layers, send the gradient of its input
            to stage k−1.

While stage 1 works on micro-batch 0, stage 0 already works on micro-batch 1: the
stages overlap. They cannot overlap at the start and the end of a step (the "bubble").
With K stages, M micro-batches and equal work per stage the idle share is
(K−1)/(M+K−1) (GPipe, Huang et al. 2018): more micro-batches, smaller bubble.

Hybrid (data + pipeline parallel): world = R replicas × K stages, rank = replica·K + stage.
The stages of one replica form a pipeline; after backward, each stage all-reduces its
gradients with the same stage of the other replicas (a process group per stage).

Every rank records a timeline of its forward ("F"), backward ("B") and all-reduce ("A")
work on ONE clock: each process's perf_counter is translated to rank 0's (the same clock on
one machine; across machines an offset measured by ping-pong at start-up), and every step is drawn from the earliest rank's start. (Each
rank's own "time since the barrier" is not enough: ranks leave a barrier at different
moments, and a chart built that way can show stage 1 starting before stage 0 finished.)
"""

from __future__ import annotations

import hashlib
import socket
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed.model_split import mlp

DEFAULTS = {
    "micro_batches": 4,   # M
    "replicas": 1,        # R data-parallel copies of the whole pipeline
    "batch": 64,          # samples per replica per step (split into M micro-batches)
    "width": 256,         # hidden width of the MLP
    "layers_per_stage": 2,
    "steps": 3,           # the first is a warm-up; the timeline is the last step
    "lr": 0.05,
    "seed": 0,
}


def bubble_fraction(stages: int, micro_batches: int) -> float:
    """GPipe's idle share: (K−1)/(M+K−1)."""
    return (stages - 1) / (micro_batches + stages - 1)


def idle_share(events: list[dict], stages: int) -> float:
    """Measured idle share: 1 − (busy time of all stages) / (stages × span of the step)."""
    work = [e for e in events if e["kind"] in ("F", "B")]
    span = max(e["end"] for e in work) - min(e["start"] for e in work)
    busy = sum(e["end"] - e["start"] for e in work)
    return 1.0 - busy / (stages * span)


def ideal_schedule(stages: int, micro_batches: int, forward: float = 1.0, backward: float = 2.0) -> list[dict]:
    """The GPipe schedule on paper (no measurement): F of micro-batch m on stage k starts
    when stage k finished m−1 and stage k−1 finished m; backwards mirror it."""
    events, free = [], [0.0] * stages
    done = {}
    for m in range(micro_batches):
        for k in range(stages):
            start = max(free[k], done.get((k - 1, m), 0.0))
            done[(k, m)] = free[k] = start + forward
            events.append({"stage": k, "kind": "F", "micro": m, "start": start, "end": start + forward})
    bdone = {}
    for m in reversed(range(micro_batches)):
        for k in reversed(range(stages)):
            start = max(free[k], bdone.get((k + 1, m), 0.0))
            bdone[(k, m)] = free[k] = start + backward
            events.append({"stage": k, "kind": "B", "micro": m, "start": start, "end": start + backward})
    return events


def stage_layers(stages: int, cfg: dict, inputs: int) -> list[torch.nn.Sequential]:
    """The whole MLP built from the seed (so every rank agrees), cut into `stages` slices."""
    depth = stages * cfg["layers_per_stage"]
    full = list(mlp(cfg["width"], depth, inputs=inputs, seed=cfg["seed"]))
    per = 2 * cfg["layers_per_stage"]  # Linear + ReLU per layer
    slices = [full[k * per:(k + 1) * per] for k in range(stages)]
    slices[-1].append(full[-1])  # the classifier goes to the last stage
    return [torch.nn.Sequential(*s) for s in slices]


def batch_for(step: int, replica: int, cfg: dict, inputs: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A deterministic batch: stage 0 and the last stage of a replica make the same one
    (the first needs the inputs, the last the labels), so labels need not be sent."""
    g = torch.Generator().manual_seed(cfg["seed"] * 100_003 + step * 1009 + replica)
    x = torch.randn(cfg["batch"], inputs, generator=g)
    y = torch.randint(0, 10, (cfg["batch"],), generator=g)
    return x, y


def _stage_groups(stages: int, replicas: int):
    """One process group per stage, holding that stage of every replica (every rank must
    create every group, in the same order — a torch.distributed rule)."""
    groups = []
    for k in range(stages):
        ranks = [r * stages + k for r in range(replicas)]
        groups.append((ranks, dist.new_group(ranks)))
    return groups


def clock_offset(rank: int, world_size: int, rounds: int = 10) -> float:
    """Seconds to add to this rank's time.perf_counter() to read rank 0's clock.

    On one machine perf_counter is the system-wide monotonic clock: the offset is exactly 0.
    Across machines, NTP-style: rank r sends at t1, rank 0 replies with its own time c, r
    receives at t2; rank 0's clock read c at about (t1 + t2) / 2 on ours. The round with
    the shortest round trip is the most exact (error at most half of it). Every rank runs
    the same loops (only rank 0 and the peer act), so nobody waits for a message that never comes."""
    hosts = [None] * world_size
    dist.all_gather_object(hosts, socket.gethostname())
    if len(set(hosts)) == 1:
        return 0.0
    buf = torch.zeros(1, dtype=torch.float64)
    best_rtt, offset = float("inf"), 0.0
    for peer in range(1, world_size):
        for _ in range(rounds):
            if rank == 0:
                dist.recv(buf, src=peer)
                buf[0] = time.perf_counter()
                dist.send(buf, dst=peer)
            elif rank == peer:
                t1 = time.perf_counter()
                dist.send(buf, dst=0)
                dist.recv(buf, src=0)
                t2 = time.perf_counter()
                if t2 - t1 < best_rtt:
                    best_rtt, offset = t2 - t1, buf.item() - (t1 + t2) / 2
    return offset


def _to_common_clock(timelines: list[list[dict]], starts: list[float], device="cpu") -> None:
    """Shift every step's events from this rank's start to the earliest rank's start
    (`starts`: this rank's step starts on rank 0's clock; one all-reduce MIN after training;
    `device`: where the group reduces, a GPU under NCCL)."""
    mine = torch.tensor(starts, dtype=torch.float64)
    first = mine.to(device, copy=True)  # a copy: all_reduce works in place
    dist.all_reduce(first, op=dist.ReduceOp.MIN)
    first = first.cpu()
    for events, shift in zip(timelines, (mine - first).tolist()):
        for e in events:
            e["start"] += shift
            e["end"] += shift


def pipeline_worker(rank: int, world_size: int, cfg: dict | None = None) -> dict:
    """Train the MLP with a GPipe schedule (× replicas data-parallel); returns this rank's timeline."""
    cfg = {**DEFAULTS, **(cfg or {})}
    replicas, micro = cfg["replicas"], cfg["micro_batches"]
    stages = world_size // replicas
    stage, replica = rank % stages, rank // stages
    if cfg["batch"] % micro:
        raise ValueError(t("distributed.pipeline_shape", batch=cfg["batch"], micro=micro))
    inputs = cfg["width"]
    layers = stage_layers(stages, cfg, inputs)[stage]
    optimizer = torch.optim.SGD(layers.parameters(), lr=cfg["lr"])
    groups = _stage_groups(stages, replicas) if replicas > 1 else []
    my_group = groups[stage][1] if groups else None
    prev_rank = rank - 1 if stage > 0 else None
    next_rank = rank + 1 if stage < stages - 1 else None
    mb = cfg["batch"] // micro

    offset = clock_offset(rank, world_size)  # our clock -> rank 0's clock
    timelines, losses, starts = [], [], []
    for step in range(cfg["steps"]):
        x, y = batch_for(step, replica, cfg, inputs)
        xs, ys = x.chunk(micro), y.chunk(micro)
        events, saved_in, saved_out, pending = [], [], [], []
        optimizer.zero_grad(set_to_none=True)
        dist.barrier()
        t0 = time.perf_counter()
        starts.append(t0 + offset)  # this rank's start on rank 0's clock (ranks leave the barrier apart)
        # ---- forward, micro-batch after micro-batch
        step_loss = 0.0
        for m in range(micro):
            if prev_rank is None:
                h = xs[m]
            else:
                h = torch.empty(mb, inputs)
                dist.recv(h, src=prev_rank)
                h.requires_grad_(True)
            start = time.perf_counter()
            out = layers(h)
            if next_rank is None:
                out = F.cross_entropy(out, ys[m]) / micro  # mean over the whole batch
                step_loss += out.item()
            end = time.perf_counter()
            events.append({"stage": stage, "replica": replica, "kind": "F", "micro": m,
                           "start": start - t0, "end": end - t0})
            if next_rank is not None:
                pending.append(dist.isend(out.detach(), dst=next_rank))  # do not wait: start the next one
            saved_in.append(h)
            saved_out.append(out)
        # ---- backward, last micro-batch first (GPipe)
        for m in reversed(range(micro)):
            if next_rank is None:
                grad = None
            else:
                grad = torch.empty_like(saved_out[m])
                dist.recv(grad, src=next_rank)
            start = time.perf_counter()
            saved_out[m].backward(grad)
            end = time.perf_counter()
            events.append({"stage": stage, "replica": replica, "kind": "B", "micro": m,
                           "start": start - t0, "end": end - t0})
            if prev_rank is not None:
                pending.append(dist.isend(saved_in[m].grad, dst=prev_rank))
        for request in pending:
            request.wait()
        # ---- data parallel across replicas: average this stage's gradients
        if my_group is not None:
            start = time.perf_counter()
            for p in layers.parameters():
                dist.all_reduce(p.grad, group=my_group)
                p.grad /= replicas
            events.append({"stage": stage, "replica": replica, "kind": "A", "micro": -1,
                           "start": start - t0, "end": time.perf_counter() - t0})
        optimizer.step()
        timelines.append(events)
        losses.append(step_loss)
    _to_common_clock(timelines, starts)  # one clock for all ranks: the Gantt chart is causal

    h = hashlib.sha1()
    for p in layers.parameters():
        h.update(p.detach().numpy().tobytes())
    return {"rank": rank, "stage": stage, "replica": replica, "stages": stages, "replicas": replicas,
            "micro_batches": micro, "events": timelines[-1], "all_events": timelines,
            "losses": losses if next_rank is None else [],
            "param_hash": h.hexdigest()[:12],
            "params": [p.detach().numpy().copy() for p in layers.parameters()],
            "groups": [ranks for ranks, _ in groups]}


def gather_events(results: list[dict], step: int | None = None) -> list[dict]:
    """All ranks' events of one step (default: the last) in one list."""
    if step is None:
        return [e for r in results for e in r["events"]]
    return [e for r in results for e in r["all_events"][step]]


def reference_step(stages: int, cfg: dict) -> list[list]:
    """One process, no pipeline: the same model, batch and SGD steps; returns each stage's
    parameters (numpy) — what the pipeline must reproduce."""
    cfg = {**DEFAULTS, **(cfg or {})}
    layers = stage_layers(stages, cfg, cfg["width"])
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    for step in range(cfg["steps"]):
        grads = None
        for replica in range(cfg["replicas"]):
            x, y = batch_for(step, replica, cfg, cfg["width"])
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            now = [p.grad.clone() for p in model.parameters()]
            grads = now if grads is None else [a + b for a, b in zip(grads, now)]
        for p, g in zip(model.parameters(), grads):
            p.grad = g / cfg["replicas"]
        optimizer.step()
    return [[p.detach().numpy().copy() for p in layer.parameters()] for layer in layers]
