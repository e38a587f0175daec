"""A real parameter server, run and measured: lesson 06's cells (saved by `make sync` as
param_server.py) hold the server, its pull/push over torch.distributed.rpc and the worker loop;
this module starts them as W + 1 real processes (the course's one launcher, distributed.launch),
and turns what the server logged into a PSResult.

What it measures: the staleness of every gradient the server applied, the server's throughput
(gradients per second), how long each worker spent pulling, computing, straggling and pushing,
and the loss the weights reached (the server's snapshots, evaluated afterwards).

Modes (every gradient g is the mean-loss gradient of one worker's batch; lr per gradient, as
in the simulator):
  async  the server applies each gradient the moment it arrives: theta <- theta - lr * g.
         staleness = updates the server made between this worker's pull and its push.
  sync   the server waits for one gradient from every worker, then applies their sum (in
         worker order) as ONE update; each push returns only after that update.
A straggler: worker W-1 sleeps `straggler_ms` after computing each gradient.

Safety (a notebook must never hang): RPC calls have a timeout; the server waits for its
workers at most `timeout_s`; launch() stops every process when one dies and raises a
WorkerError; we turn it into a ParameterServerError that names the worker, in Bengali.

    result = run(PSConfig(mode="async", workers=2, steps=100, straggler_ms=5), problem)
    result.staleness, result.throughput, result.final_loss
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import torch

from fastrain_lib.async_sgd.param_server import process
from fastrain_lib.core.i18n import t
from fastrain_lib.distributed.launcher import WorkerError, free_port, launch

MODES = ("async", "sync")
@dataclass
class PSConfig:
    mode: str = "async"  # async | sync
    workers: int = 2
    steps: int = 100  # async: workers * steps gradients in total (fast workers push more); sync: steps rounds
    batch_size: int = 32
    lr: float = 0.05
    straggler_ms: float = 0.0  # extra sleep per step of the last worker
    seed: int = 0
    snapshot_every: int = 10  # the server keeps a copy of theta every this many updates
    record: bool = False  # keep every applied gradient and batch (tests: replay the server)
    rpc_timeout_s: float = 30.0  # one remote call
    timeout_s: float = 120.0  # the whole run, start-up included

    def check(self) -> None:
        if self.mode not in MODES:
            raise ValueError(t("async_sgd.bad_mode", mode=self.mode, modes=", ".join(MODES)))
        if not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(t("async_sgd.bad_workers", workers=self.workers))
        if self.steps < 1 or self.batch_size < 1 or self.lr <= 0 or self.straggler_ms < 0:
            raise ValueError(t("param_server.bad_numbers"))


class ParameterServerError(RuntimeError):
    """A worker or the server failed (died, raised, or timed out); the message is in Bengali."""

    def __init__(self, message: str, worker: int | None, kind: str):
        super().__init__(message)
        self.worker, self.kind = worker, kind


@dataclass
class PSResult:
    config: dict
    staleness: list[int]  # of every gradient, in the order the server received them
    workers_of: list[int]  # which worker sent each gradient (same order)
    arrival_s: list[float]  # when each arrived (seconds since the first pull)
    train_time_s: float  # first pull -> last gradient received
    startup_s: float  # starting the processes and RPC (the rest of the wall time)
    per_worker: list[dict]  # pull/compute/delay/push seconds of each worker
    snapshot_s: list[float]
    snapshot_versions: list[int]
    losses: list[float]  # evaluation loss of each snapshot
    accuracies: list[float]
    theta: torch.Tensor
    updates: int  # server versions (async: = gradients; sync: rounds)
    late: int = 0  # async: gradients that arrived after the budget (not applied)
    recorded: list = field(default_factory=list)
    pids: list[int] = field(default_factory=list)

    @property
    def gradients(self) -> int:
        return len(self.staleness)

    @property
    def throughput(self) -> float:
        """Gradients the server received per second of training."""
        return self.gradients / self.train_time_s if self.train_time_s > 0 else 0.0

    @property
    def final_loss(self) -> float:
        return self.losses[-1]

    @property
    def final_accuracy(self) -> float:
        return self.accuracies[-1]

    def mean_staleness(self, worker: int | None = None) -> float:
        values = [s for s, w in zip(self.staleness, self.workers_of) if worker is None or w == worker]
        return sum(values) / len(values) if values else 0.0


LAST_PIDS: list[int] = []  # the processes of the latest run (tests check that none survives)


def run(cfg: PSConfig, problem) -> PSResult:
    """Start the server and W workers as real processes, train, stop them all; evaluate the
    server's snapshots on problem's evaluation set. Raises ParameterServerError (Bengali)."""
    cfg.check()
    from fastrain_lib.distributed import launcher
    from fastrain_lib.measure import hardware

    if hardware.rpc_problem():  # Windows: no RPC; said before any process starts
        raise ParameterServerError(hardware.rpc_problem(), None, "no_rpc")

    problem.x.share_memory_()
    problem.y.share_memory_()  # the children get handles to the same memory, not copies
    start = time.perf_counter()
    try:
        outs = launch(process, cfg.workers + 1, args=(cfg, problem, free_port()), timeout_s=cfg.timeout_s + 15)
    except WorkerError as exc:
        raise _explain(exc, cfg) from exc
    finally:
        LAST_PIDS[:] = list(launcher.LAST_PIDS)
    wall = time.perf_counter() - start
    server = outs[0]
    log = server["log"]
    server["theta"] = torch.from_numpy(server["theta"])
    snaps = [(s, v, torch.from_numpy(th)) for s, v, th in server["snapshots"]]
    server["recorded"] = [(w, v, None if i is None else torch.from_numpy(i), torch.from_numpy(g))
                          for w, v, i, g in server["recorded"]]
    if snaps[-1][1] != server["version"]:
        snaps.append((server["train_time_s"], server["version"], server["theta"]))
    losses, accs = zip(*(problem.evaluate(theta) for _, _, theta in snaps))
    return PSResult(
        config=asdict(cfg), staleness=[applied - read for _, _, read, applied in log],
        workers_of=[w for _, w, _, _ in log], arrival_s=[s for s, _, _, _ in log],
        train_time_s=server["train_time_s"], startup_s=max(0.0, wall - server["train_time_s"]),
        per_worker=outs[1:], snapshot_s=[s for s, _, _ in snaps], snapshot_versions=[v for _, v, _ in snaps],
        losses=list(losses), accuracies=list(accs), theta=server["theta"], updates=server["version"],
        recorded=server["recorded"], pids=list(LAST_PIDS), late=server["late"])


def _explain(exc: WorkerError, cfg: PSConfig) -> ParameterServerError:
    """The launcher's error, told in parameter-server words: which worker (or the server) failed."""
    rank = exc.rank
    who = t("param_server.the_server") if rank == 0 else t("param_server.the_worker", w=(rank - 1) if rank is not None else "?")
    key = {"died": "param_server.died", "error": "param_server.raised", "timeout": "param_server.timeout"}.get(exc.kind, "param_server.raised")
    message = t(key, who=who, seconds=cfg.timeout_s) + "\n\n" + str(exc)
    return ParameterServerError(message, None if rank in (None, 0) else rank - 1, exc.kind)


def replay(result: PSResult, problem) -> torch.Tensor:
    """What the server's weights must be, recomputed from the recorded gradients alone:
    theta_0 - lr * g_1 - lr * g_2 - ... in the order the server applied them (async), or one
    summed step per round (sync). Needs a run with record=True."""
    cfg = result.config
    theta = problem.initial_theta()
    if cfg["mode"] == "async":
        for _, _, _, grad in result.recorded:
            theta = theta - cfg["lr"] * grad
        return theta
    rounds: dict[int, dict[int, torch.Tensor]] = {}
    for worker, version_read, _, grad in result.recorded:
        rounds.setdefault(version_read, {})[worker] = grad
    for version in sorted(rounds):
        theta = theta - cfg["lr"] * sum(rounds[version][w] for w in sorted(rounds[version]))
    return theta


def simulator_config(result: PSResult, gradients: int | None = None):
    """The simulator's twin of a real run: the same workers, mode, lr and batch, with each
    worker's speed taken from its measured seconds per step (fastest = 1)."""
    from fastrain_lib.async_sgd.simulator import SimConfig

    cfg = result.config
    per_step = [(p["pull_s"] + p["compute_s"] + p["delay_s"] + p["push_s"]) / max(1, p["pushes"])
                for p in result.per_worker]
    fastest = min(per_step)
    return SimConfig(mode=cfg["mode"], workers=cfg["workers"], batch_size=cfg["batch_size"], lr=cfg["lr"],
                     gradients=gradients or result.gradients, speeds=tuple(fastest / s for s in per_step),
                     seed=cfg["seed"])
