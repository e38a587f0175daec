"""nn.DataParallel's algorithm, phase by phase and timed (lesson 05b section 1 explains the seven
phases: scatter, replicate, threaded forward, gather + loss, backward, reduce onto device 0,
optimizer on device 0), with the one-device baselines beside it.

Where the pieces run: on >= 2 GPUs the real torch.nn.DataParallel through its own scatter /
replicate / parallel_apply / gather (dp_threads.TorchDataParallelSteps); anywhere else torch's
pieces refuse CPU tensors (`torch_pieces_on_cpu`), so dp_threads.ThreadedDataParallel
re-implements the same algorithm with Python threads of one process, labelled as such. The DDP
side is the lesson's own cell (lessons/l05b_ddp_in_depth/saved.py: ddp_worker).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from fastrain_lib.measure import hardware
from fastrain_lib.core.i18n import t
from fastrain_lib.distributed.ddp import parameter_hash
from fastrain_lib.distributed.model_split import mlp
from fastrain_lib.distributed.dp_threads import (  # noqa: F401 - lesson 05b calls them as dataparallel.*
    ThreadedDataParallel, TorchDataParallelSteps, clock, gradient_vector, param_bytes, state_bytes)

PHASES = ("scatter", "replicate", "forward", "gather_loss", "backward", "reduce_grads", "optimizer")
SERIAL = ("scatter", "replicate", "gather_loss", "reduce_grads", "optimizer")  # device 0 / main thread alone
PARALLEL = ("forward", "backward")  # the N threads at once
DDP_PHASES = ("forward", "backward_allreduce", "optimizer")
SINGLE_PHASES = ("forward", "backward", "optimizer")

DEFAULTS = {
    "width": 256,       # hidden width of the MLP (model_split.mlp)
    "depth": 4,         # Linear+ReLU blocks
    "batch": 256,       # GLOBAL batch: DataParallel splits it over its replicas, DDP over its processes
    "replicas": 2,      # devices (DataParallel) = processes (DDP)
    "steps": 8,         # timed steps (after warm-up)
    "warmup": 2,
    "lr": 1e-3,
    "seed": 0,
    "bucket_cap_mb": 25.0,  # DDP's default
}


def checked_cfg(defaults: dict, overrides: dict) -> dict:
    """`defaults` with `overrides`; an unknown key is an error (a typo would be silently ignored)."""
    unknown = set(overrides) - set(defaults)
    if unknown:
        raise ValueError(t("distributed.bad_cfg", keys=", ".join(sorted(unknown)), known=", ".join(defaults)))
    return {**defaults, **overrides}


def make_cfg(**overrides) -> dict:
    return checked_cfg(DEFAULTS, overrides)


# ------------------------------------------------------------------ the decision (pure)


@dataclass(frozen=True)
class Plan:
    """How DataParallel runs here: 'torch' = the real nn.DataParallel on GPUs, 'threads' = the
    re-implementation with threads of one process (on the CPU)."""

    kind: str
    devices: tuple[str, ...]


def plan(replicas: int, f: hardware.Facts) -> Plan:
    """The real nn.DataParallel needs a CUDA GPU per replica; otherwise threads on the CPU."""
    replicas = max(1, int(replicas))
    if f.device_type == "cuda" and f.count >= max(2, replicas):
        return Plan("torch", tuple(f"cuda:{i}" for i in range(replicas)))
    return Plan("threads", ("cpu",) * replicas)


def facts_here() -> hardware.Facts:
    return hardware.node_facts()


def torch_pieces_on_cpu() -> dict[str, str]:
    """Try torch.nn.parallel's four pieces on CPU tensors: {piece: 'works' or the error it raises}."""
    from torch.nn.parallel import gather, parallel_apply, replicate, scatter

    model, x = nn.Linear(4, 2), torch.randn(4, 4)
    tries = {
        "scatter": lambda: scatter(x, [torch.device("cpu"), torch.device("cpu")]),
        "replicate": lambda: replicate(model, [torch.device("cpu"), torch.device("cpu")]),
        "parallel_apply": lambda: parallel_apply([model, model], [x[:2], x[2:]]),
        "gather": lambda: gather([x[:2], x[2:]], torch.device("cpu")),
    }
    found = {}
    for name, call in tries.items():
        try:
            call()
            found[name] = "works"
        except Exception as exc:  # noqa: BLE001 - what torch says is the answer
            found[name] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"  # whole: a cut address misleads
    return found


# ------------------------------------------------------------------ workers (real processes)


def problem(cfg: dict, device: str | torch.device = "cpu"):
    """(model, x, y) for cfg: the same weights and batch for every strategy (a fixed seed)."""
    model = mlp(cfg["width"], cfg["depth"], inputs=cfg["width"], seed=cfg["seed"]).to(device)
    g = torch.Generator().manual_seed(cfg["seed"] + 1)
    x = torch.randn(cfg["batch"], cfg["width"], generator=g)
    y = torch.randint(0, 10, (cfg["batch"],), generator=g)
    return model, x.to(device), y.to(device)


def _medians(rows: list[dict[str, float]], warmup: int) -> dict[str, float]:
    timed = rows[warmup:] or rows
    return {k: statistics.median(r[k] for r in timed) for k in timed[0]}


def _single_steps(model, optimizer, x, y, steps: int, warmup: int, device) -> dict[str, float]:
    """Forward, backward, optimizer of plain one-device training, each phase timed."""
    rows = []
    for _ in range(warmup + steps):
        optimizer.zero_grad(set_to_none=True)
        t0 = clock(device)
        loss = F.cross_entropy(model(x), y)
        t1 = clock(device)
        loss.backward()
        t2 = clock(device)
        optimizer.step()
        t3 = clock(device)
        rows.append({"forward": t1 - t0, "backward": t2 - t1, "optimizer": t3 - t2})
    return _medians(rows, warmup)


def _serial_replicas(model, x, y, replicas: int, steps: int, warmup: int) -> float:
    """Forward + backward of every replica's piece one after another in ONE thread: what the
    threads would cost if they could not overlap at all (for the GIL comparison)."""
    xs, ys = x.chunk(replicas), y.chunk(replicas)
    times = []
    for _ in range(warmup + steps):
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        for xi, yi in zip(xs, ys):
            model(xi).backward(torch.ones(len(xi), 10) / len(xi))
        times.append(time.perf_counter() - start)
    return statistics.median(times[warmup:] or times)


def dp_worker(rank: int, world_size: int, cfg: dict) -> dict:
    """Run in ONE process (launch(dp_worker, 1, ...)): DataParallel with cfg['replicas'] devices,
    plus two baselines on the same model: one device on the whole batch, and one device on one
    replica's piece (= a DDP rank's compute, without its all-reduce)."""
    cfg = make_cfg(**cfg)
    how = plan(cfg["replicas"], facts_here())
    device = torch.device(how.devices[0]) if how.kind == "torch" else torch.device("cpu")
    if device.type == "cuda":
        hardware.use_gpu(device.index)
    steps, warmup, n = cfg["steps"], cfg["warmup"], cfg["replicas"]

    # one device, the whole batch
    model, x, y = problem(cfg, device)
    single = _single_steps(model, torch.optim.Adam(model.parameters(), lr=cfg["lr"]), x, y, steps, warmup, device)
    # one device, one replica's piece: what each DDP process computes, with a DDP process's threads
    # (launch gives each of n processes hardware.threads_for(n); this process has 1, so on a 4-core
    # machine the piece would have taken about twice a rank's compute)
    model, x, y = problem(cfg, device)
    threads_before = torch.get_num_threads()
    torch.set_num_threads(hardware.threads_for(n))
    try:
        piece = _single_steps(model, torch.optim.Adam(model.parameters(), lr=cfg["lr"]), x[: len(x) // n],
                              y[: len(y) // n], steps, warmup, device)
    finally:
        torch.set_num_threads(threads_before)
    serial_fb = _serial_replicas(model, x, y, n, steps, warmup) if how.kind == "threads" else None

    # DataParallel
    model, x, y = problem(cfg, device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    runner = (TorchDataParallelSteps(model, how.devices) if how.kind == "torch"
              else ThreadedDataParallel(model, n, device))
    rows, losses = [], []
    for _ in range(warmup + steps):
        optimizer.zero_grad(set_to_none=True)
        loss, phases = runner.step(x, y, optimizer)
        rows.append(phases)
        losses.append(loss)
    phases = _medians(rows, warmup)
    return {
        "kind": how.kind, "devices": list(how.devices), "replicas": n, "threads": torch.get_num_threads(),
        "phases": phases, "step_s": sum(phases.values()), "single": single, "single_s": sum(single.values()),
        "piece": piece, "piece_s": sum(piece.values()), "serial_forward_backward_s": serial_fb,
        "bytes": dict(runner.bytes), "memory": runner.memory(optimizer), "param_bytes": param_bytes(runner.module),
        "losses": losses, "param_hash": parameter_hash(runner.module), "cfg": cfg,
    }


def ddp_result(rank: int, world_size: int, cfg: dict, model, optimizer, rows: list[dict], losses: list[float],
               counter) -> dict:
    """What the lesson's ddp_worker returns: median phases, buckets and bytes per step, memory, hashes."""
    steps = max(1, len(rows))
    phases = _medians(rows, cfg["warmup"])
    memory = state_bytes(model, optimizer)
    memory["buckets"] = sum(e["bytes"] for e in counter) // steps  # DDP's buckets copy the gradients
    return {"rank": rank, "world_size": world_size, "backend": dist.get_backend(), "phases": phases,
            "step_s": sum(phases.values()), "step_times": [sum(r.values()) for r in rows],
            "buckets_per_step": len(counter) / steps, "allreduce_bytes_per_step": memory["buckets"],
            "memory": memory, "param_bytes": param_bytes(model), "losses": losses,
            "param_hash": parameter_hash(model), "cfg": cfg}


def ddp_step_s(results: list[dict]) -> float:
    """The slowest rank sets the pace: everyone waits for everyone in the all-reduce."""
    return max(r["step_s"] for r in results)


def serial_share(phases: dict[str, float]) -> float:
    """The share of a DataParallel step spent in phases that run on device 0 / the main thread alone."""
    total = sum(phases.values())
    return sum(phases.get(k, 0.0) for k in SERIAL) / total if total > 0 else 0.0


def thread_speedup(dp_result: dict) -> float | None:
    """How much faster the N threads ran the replicas' forward + backward than one thread doing
    them one after another (N = perfect overlap, 1 = none: the GIL or too few cores)."""
    serial = dp_result.get("serial_forward_backward_s")
    parallel = dp_result["phases"]["forward"] + dp_result["phases"]["backward"]
    return serial / parallel if serial and parallel > 0 else None
