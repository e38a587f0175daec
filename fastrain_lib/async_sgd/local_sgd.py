"""Local SGD and DiLoCo-style periodic averaging, in real processes (gloo).

Synchronous data parallelism talks after EVERY step (an all-reduce of the gradients).
Local SGD talks less: each of W workers takes H ordinary SGD steps on its own data, alone,
then the workers average their weights with one all-reduce and carry on from the average.
H = 1 is synchronous SGD again (the average of theta - lr*g_w is theta - lr*mean(g_w));
larger H saves communication (ceil(steps / H) all-reduces instead of `steps`) at the price
of workers drifting apart between averages.

DiLoCo (Douillard et al. 2023, arXiv:2311.08105) is the same loop with an "outer" optimizer:
the change the workers made since the last average, global - mean(local), is treated as a
gradient (the "outer gradient") and fed to SGD with Nesterov momentum. DiLoCo's inner
optimizer is AdamW and its H is in the hundreds; here the inner optimizer is plain SGD and the
model tiny, so the numbers are this course's, not the paper's. outer_lr = 1 with no momentum
is exactly plain averaging.

All periods H of one call run in the SAME processes one after another (one start-up, the
same data and initial weights for each H). The all-reduce calls are counted where they
happen, and timed, next to the compute time.

    out = run(LocalSGDConfig(workers=2, steps=120, periods=(1, 4, 16)), problem)
    out[4].rounds, out[4].final_loss, out[4].comm_s
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import torch
import torch.distributed as dist

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed.launcher import launch


def rounds(steps: int, period: int) -> int:
    """All-reduces in `steps` local steps with averaging every `period` steps (and once more at
    the end when steps is not a multiple of period, so every run ends on an average)."""
    return math.ceil(steps / period)


def averages_after(step: int, steps: int, period: int) -> bool:
    """Does the worker average after local step `step` (0-based)?"""
    return (step + 1) % period == 0 or step + 1 == steps


@dataclass
class LocalSGDConfig:
    workers: int = 2
    steps: int = 120  # local SGD steps of every worker (each on its own batch)
    periods: tuple = (1, 4, 16)  # H: average every H steps; one run per value
    batch_size: int = 32
    lr: float = 0.1  # inner SGD
    outer_lr: float = 1.0  # DiLoCo's outer step; 1 with no momentum = plain averaging
    outer_momentum: float = 0.0  # DiLoCo uses 0.9, Nesterov
    seed: int = 0
    points: int = 40  # at most this many evaluation points per run
    timeout_s: float = 120.0

    def check(self) -> None:
        ok = (isinstance(self.workers, int) and self.workers >= 1 and self.steps >= 1 and self.lr > 0
              and self.outer_lr > 0 and 0 <= self.outer_momentum < 1 and self.batch_size >= 1
              and len(self.periods) > 0 and all(isinstance(h, int) and h >= 1 for h in self.periods))
        if not ok:
            raise ValueError(t("local_sgd.bad_config"))


@dataclass
class LocalSGDRun:
    period: int
    config: dict
    rounds: int  # all-reduce calls counted in the worker
    bytes_per_round: int  # the parameters each worker hands to one all-reduce
    wall_s: float  # from the start barrier to the end (rank 0)
    compute_s: float  # local steps
    comm_s: float  # inside all_reduce (includes waiting for the slower worker)
    steps: list[int] = field(default_factory=list)  # local step of each evaluation point
    comms: list[int] = field(default_factory=list)  # all-reduces done by then
    losses: list[float] = field(default_factory=list)  # evaluation loss of the averaged weights
    accuracies: list[float] = field(default_factory=list)
    theta: torch.Tensor | None = None  # the final averaged weights
    drift: list[float] = field(default_factory=list)  # |local - average| just before each average (rank 0)
    all_thetas: list = field(default_factory=list)  # every rank's final weights (all equal: they end on an average)
    all_rounds: list = field(default_factory=list)  # every rank's all-reduce count

    @property
    def final_loss(self) -> float:
        return self.losses[-1]

    @property
    def final_accuracy(self) -> float:
        return self.accuracies[-1]

    @property
    def total_bytes(self) -> int:
        return self.rounds * self.bytes_per_round


def worker(rank: int, world_size: int, cfg: LocalSGDConfig, problem) -> dict:
    """One worker process: for every H in cfg.periods, train from the same initial weights."""
    out = {}
    for period in cfg.periods:
        out[period] = _train(rank, world_size, cfg, problem, period)
    return out


def _train(rank, world_size, cfg, problem, period) -> dict:
    generator = torch.Generator().manual_seed(cfg.seed * 1000 + rank)
    shard = torch.arange(rank, len(problem.x), world_size)  # every W-th sample: disjoint shards
    theta = problem.initial_theta()
    anchor = theta.clone()  # the last average (DiLoCo: the outer parameters)
    velocity = torch.zeros_like(theta)
    total = rounds(cfg.steps, period)
    every = max(1, math.ceil(total / cfg.points))
    snapshots = [(0, 0, theta.clone())]
    drift = []
    comm_count = 0
    compute_s = comm_s = 0.0
    dist.barrier()  # everyone starts together
    start = time.perf_counter()
    for step in range(cfg.steps):
        t0 = time.perf_counter()
        index = shard[torch.randint(len(shard), (cfg.batch_size,), generator=generator)]
        theta = theta - cfg.lr * problem.grad(theta, (problem.x[index], problem.y[index]))
        t1 = time.perf_counter()
        compute_s += t1 - t0
        if not averages_after(step, cfg.steps, period):
            continue
        mean = theta.clone()
        dist.all_reduce(mean)  # the only communication: once per H steps
        mean /= world_size
        comm_count += 1
        t2 = time.perf_counter()
        comm_s += t2 - t1
        if rank == 0:
            drift.append((theta - mean).norm().item())
        if cfg.outer_lr == 1.0 and cfg.outer_momentum == 0.0:
            anchor = mean  # plain averaging (local SGD, FedAvg)
        else:  # DiLoCo: the outer gradient anchor - mean through SGD with Nesterov momentum
            outer_grad = anchor - mean
            velocity = cfg.outer_momentum * velocity + outer_grad
            anchor = anchor - cfg.outer_lr * (outer_grad + cfg.outer_momentum * velocity)
        theta = anchor.clone()
        compute_s += time.perf_counter() - t2
        if rank == 0 and (comm_count % every == 0 or comm_count == total):
            snapshots.append((step + 1, comm_count, anchor.clone()))
    wall = time.perf_counter() - start
    return {"period": period, "rounds": comm_count, "bytes_per_round": theta.numel() * theta.element_size(),
            "wall_s": wall, "compute_s": compute_s, "comm_s": comm_s, "snapshots": [(a, b, th.numpy()) for a, b, th in snapshots] if rank == 0 else [],
            "theta": anchor.numpy(), "drift": drift}  # numpy: a tensor in the result queue dies with this process


def run(cfg: LocalSGDConfig, problem) -> dict[int, LocalSGDRun]:
    """All periods in cfg.periods, in `cfg.workers` real processes; {H: LocalSGDRun}.
    The averaged weights are evaluated afterwards, here, on problem's evaluation set."""
    cfg.check()
    problem.x.share_memory_()
    problem.y.share_memory_()
    outs = launch(worker, cfg.workers, args=(cfg, problem), timeout_s=cfg.timeout_s)
    results = {}
    for period in cfg.periods:
        mine = outs[0][period]
        evaluated = [(step, comm, *problem.evaluate(torch.from_numpy(theta))) for step, comm, theta in mine["snapshots"]]
        results[period] = LocalSGDRun(
            period=period, config=asdict(cfg), rounds=mine["rounds"], bytes_per_round=mine["bytes_per_round"],
            wall_s=mine["wall_s"], compute_s=mine["compute_s"], comm_s=mine["comm_s"],
            steps=[e[0] for e in evaluated], comms=[e[1] for e in evaluated], losses=[e[2] for e in evaluated],
            accuracies=[e[3] for e in evaluated], theta=torch.from_numpy(mine["theta"]), drift=mine["drift"],
            all_thetas=[torch.from_numpy(o[period]["theta"]) for o in outs], all_rounds=[o[period]["rounds"] for o in outs])
    return results


def synchronous_reference(problem, *, workers: int, steps: int, batch_size: int, lr: float, seed: int = 0):
    """Synchronous data-parallel SGD in ONE process, the batches exactly as the workers draw them:
    theta <- theta - lr * mean_w g_w(theta). Local SGD with H = 1 must give the same weights."""
    generators = [torch.Generator().manual_seed(seed * 1000 + r) for r in range(workers)]
    shards = [torch.arange(r, len(problem.x), workers) for r in range(workers)]
    theta = problem.initial_theta()
    for _ in range(steps):
        grads = []
        for r in range(workers):
            index = shards[r][torch.randint(len(shards[r]), (batch_size,), generator=generators[r])]
            grads.append(problem.grad(theta, (problem.x[index], problem.y[index])))
        theta = theta - lr * sum(grads) / workers
    return theta


# ---------------------------------------------------------------------------------------
# Tables and plots
# ---------------------------------------------------------------------------------------

def table(results: dict[int, LocalSGDRun]) -> tuple[list, list]:
    """One row per H: all-reduces, bytes, share of communication saved vs H = 1, time, loss."""
    headers = [t("local_sgd.col_period"), t("local_sgd.col_rounds"), t("local_sgd.col_saved"), t("local_sgd.col_kb"),
               t("local_sgd.col_wall"), t("local_sgd.col_comm"), t("core.final_loss"), t("async_sgd.col_acc")]
    rows = []
    for period, r in sorted(results.items()):
        steps = r.config["steps"]
        rows.append((period, r.rounds, f"{1 - r.rounds / steps:.0%}", round(r.total_bytes / 1024, 1),
                     round(r.wall_s, 3), round(r.comm_s, 3), round(r.final_loss, 4), round(r.final_accuracy, 3)))
    return headers, rows


def plot(axes, results: dict[int, LocalSGDRun]) -> None:
    """Left: loss vs local steps (the same data seen). Right: loss vs all-reduces (communication)."""
    from fastrain_lib.ui import plots

    for period, r in sorted(results.items()):
        name = f"H = {period}"
        axes[0].plot(r.steps, r.losses, marker=".", label=name)
        axes[1].plot([max(c, 0.8) for c in r.comms], r.losses, marker=".", label=name)
    axes[0].set_xlabel(plots.label("local_sgd.local_steps"))
    axes[1].set_xlabel(plots.label("local_sgd.allreduces"))
    axes[1].set_xscale("log")
    for ax in axes:
        ax.set_ylabel(plots.label("async_sgd.eval_loss"))
        ax.legend(fontsize="small")
    axes[0].set_title(plots.label("local_sgd.title_steps"))
    axes[1].set_title(plots.label("local_sgd.title_comm"))
