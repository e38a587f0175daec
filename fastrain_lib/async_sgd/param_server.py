"""A real parameter server over torch.distributed.rpc: one server process owns the weights,
W worker processes pull them, compute a gradient, and push it back -- asynchronously.

Where the simulator (fastrain_lib/async_sgd/simulator.py) has a pretend clock and shows staleness
exactly and repeatably, this module runs the same scheme for real on this machine: W + 1
processes (started by distributed.launch), remote procedure calls over TensorPipe, wall-clock
time. What it measures: the staleness of every gradient the server applied, the server's
throughput (gradients per second), how long each worker spent computing, waiting for the
network and straggling, and the loss the weights reached (snapshots, evaluated afterwards).

    rank 0          the server ("ps"): holds theta and a version counter; answers
                    pull() -> (theta, version) and push(worker, version_read, gradient)
    ranks 1 .. W    workers ("worker0" ...): loop { pull; gradient on own batch; push }

Modes (every gradient g is the mean-loss gradient of one worker's batch; lr per gradient, as
in the simulator):
  async  the server applies each gradient the moment it arrives: theta <- theta - lr * g.
         staleness = updates the server made between this worker's pull and its push.
  sync   the server waits for one gradient from every worker, then applies their sum (in
         worker order) as ONE update; each push returns only after that update. Staleness 0;
         the slowest worker sets the pace.

A straggler: worker W-1 sleeps `straggler_ms` after computing each gradient (a slow or busy
machine). Asynchronous workers do not wait for it (the run ends after workers * steps
gradients in total, however they were shared out); synchronous ones do (steps rounds).

Safety (a notebook must never hang): RPC calls have a timeout; the server waits for its
workers at most `timeout_s`; launch() stops every process when one dies and raises a
WorkerError; we turn it into a ParameterServerError that names the worker, in Bengali.
rpc.shutdown() runs in every process that gets that far.

    result = run(PSConfig(mode="async", workers=2, steps=100, straggler_ms=5), problem)
    result.staleness, result.throughput, result.final_loss
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import asdict, dataclass, field

import torch
import torch.distributed.rpc as rpc

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed.launcher import WorkerError, free_port, launch

MODES = ("async", "sync")
SERVER = "ps"


def worker_name(w: int) -> str:
    return f"worker{w}"


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
    fail_worker: int | None = None  # tests: this worker dies (os._exit) after `fail_after` pushes
    fail_after: int = 3

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


# ---------------------------------------------------------------------------------------
# The server: lives in rank 0; the functions below run there, called by the workers over RPC
# ---------------------------------------------------------------------------------------

class _Server:
    def __init__(self, theta: torch.Tensor, cfg: PSConfig):
        self.cfg = cfg
        self.theta = theta.clone()
        self.version = 0  # updates applied so far
        self.lock = threading.Condition()
        self.start: float | None = None  # the first pull starts the clock
        self.log: list[tuple] = []  # (seconds since start, worker, version read, version applied to)
        self.snapshots: list[tuple] = [(0.0, 0, self.theta.clone())]
        self.recorded: list[tuple] = []  # (worker, version read, batch index, gradient), record=True
        self.pending: dict[int, torch.Tensor] = {}  # sync: this round's gradients by worker
        self.finished: set[int] = set()
        self.late = 0  # async: gradients that arrived after the budget was used up (not applied)
        self.done = threading.Event()

    def now(self) -> float:
        return time.perf_counter() - self.start

    def pull(self):
        with self.lock:
            if self.start is None:
                self.start = time.perf_counter()
            return self.theta.clone(), self.version

    def _apply(self, grad: torch.Tensor) -> None:
        self.theta = self.theta - self.cfg.lr * grad  # a new tensor: pulled copies stay as they were read
        self.version += 1
        if self.version % self.cfg.snapshot_every == 0:
            self.snapshots.append((self.now(), self.version, self.theta.clone()))

    def push(self, worker: int, version_read: int, grad: torch.Tensor, index) -> bool:
        """Apply (async) or collect (sync) one gradient; returns True when the worker should stop.

        Async: the run ends after workers * steps gradients IN TOTAL (as in the simulator), so
        fast workers push more than a straggler; a gradient arriving after that is not applied.
        Sync: every worker pushes `steps` times; the run ends after `steps` rounds."""
        with self.lock:
            if self.cfg.mode == "async":
                if self.version >= self.cfg.workers * self.cfg.steps:
                    self.late += 1
                    return True
                if self.cfg.record:
                    self.recorded.append((worker, version_read, index, grad.clone()))
                self.log.append((self.now(), worker, version_read, self.version))
                self._apply(grad)
                return self.version >= self.cfg.workers * self.cfg.steps
            if self.cfg.record:
                self.recorded.append((worker, version_read, index, grad.clone()))
            round_version = self.version
            self.pending[worker] = grad
            self.log.append((self.now(), worker, version_read, round_version))
            if len(self.pending) == self.cfg.workers:  # the last one of the round: update, wake the others
                total = sum(self.pending[w] for w in sorted(self.pending))
                self.pending = {}
                self._apply(total)
                self.lock.notify_all()
                return self.version >= self.cfg.steps
            deadline = time.monotonic() + self.cfg.rpc_timeout_s
            while self.version == round_version:  # wait for the slowest worker of this round
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(t("param_server.sync_timeout", seconds=self.cfg.rpc_timeout_s,
                                         missing=sorted(set(range(self.cfg.workers)) - set(self.pending))))
                self.lock.wait(timeout=min(left, 1.0))
            return self.version >= self.cfg.steps

    def finish(self, worker: int) -> None:
        with self.lock:
            self.finished.add(worker)
            if len(self.finished) == self.cfg.workers:
                self.done.set()


_STATE: _Server | None = None  # the server object, in the server process only


def _pull():
    return _STATE.pull()


def _push(worker: int, version_read: int, grad: torch.Tensor, index):
    return _STATE.push(worker, version_read, grad, index)


def _finish(worker: int) -> None:
    _STATE.finish(worker)


# ---------------------------------------------------------------------------------------
# The processes
# ---------------------------------------------------------------------------------------

def _options(cfg: PSConfig, port: int):
    return rpc.TensorPipeRpcBackendOptions(init_method=f"tcp://127.0.0.1:{port}", rpc_timeout=cfg.rpc_timeout_s,
                                           num_worker_threads=max(8, 2 * cfg.workers + 2))


def process(rank: int, world_size: int, cfg: PSConfig, problem, rpc_port: int) -> dict:
    """What every process runs (through distributed.launch): rank 0 serves, the others work."""
    global _STATE
    import warnings

    warnings.filterwarnings("ignore", message=".*as a ProcessGroup.*")  # RPC's own use of gloo, not ours
    if rank == 0:
        _STATE = _Server(problem.initial_theta(), cfg)
        rpc.init_rpc(SERVER, rank=0, world_size=world_size, rpc_backend_options=_options(cfg, rpc_port))
        try:
            if not _STATE.done.wait(timeout=cfg.timeout_s):
                raise TimeoutError(t("param_server.server_timeout", seconds=cfg.timeout_s,
                                     missing=sorted(set(range(cfg.workers)) - _STATE.finished)))
            with _STATE.lock:
                # numpy, not tensors: a tensor sent through the result queue is shared memory that
                # vanishes with this process (the parent could not read it any more)
                out = {"log": list(_STATE.log), "snapshots": [(s, v, th.numpy()) for s, v, th in _STATE.snapshots],
                       "theta": _STATE.theta.numpy(), "version": _STATE.version, "late": _STATE.late,
                       "recorded": [(w, v, None if i is None else i.numpy(), g.numpy()) for w, v, i, g in _STATE.recorded],
                       "train_time_s": _STATE.log[-1][0] if _STATE.log else 0.0}
        finally:
            rpc.shutdown(graceful=True, timeout=cfg.rpc_timeout_s)
        return out
    w = rank - 1
    rpc.init_rpc(worker_name(w), rank=rank, world_size=world_size, rpc_backend_options=_options(cfg, rpc_port))
    try:
        return _work(w, cfg, problem)
    finally:
        rpc.shutdown(graceful=True, timeout=cfg.rpc_timeout_s)


def _work(w: int, cfg: PSConfig, problem) -> dict:
    """One worker: pull, compute a gradient on its own batch, (straggle), push; `steps` times."""
    generator = torch.Generator().manual_seed(cfg.seed * 1000 + w)
    shard = torch.arange(w, len(problem.x), cfg.workers)  # every W-th sample: disjoint shards
    straggler = w == cfg.workers - 1 and cfg.straggler_ms > 0
    pull_s = compute_s = delay_s = push_s = 0.0
    pushes, stop = 0, False
    while not stop:  # until the server says the budget is used up
        t0 = time.perf_counter()
        theta, version = rpc.rpc_sync(SERVER, _pull)
        t1 = time.perf_counter()
        index = shard[torch.randint(len(shard), (cfg.batch_size,), generator=generator)]
        grad = problem.grad(theta, (problem.x[index], problem.y[index]))
        t2 = time.perf_counter()
        if straggler:
            time.sleep(cfg.straggler_ms / 1000)
        t3 = time.perf_counter()
        stop = rpc.rpc_sync(SERVER, _push, args=(w, version, grad, index if cfg.record else None))
        t4 = time.perf_counter()
        pushes += 1
        pull_s, compute_s, delay_s, push_s = pull_s + t1 - t0, compute_s + t2 - t1, delay_s + t3 - t2, push_s + t4 - t3
        if cfg.fail_worker == w and pushes >= cfg.fail_after:
            os._exit(3)  # a crash: no exception, no goodbye (tests)
    rpc.rpc_sync(SERVER, _finish, args=(w,))
    return {"worker": w, "pushes": pushes, "pull_s": pull_s, "compute_s": compute_s, "delay_s": delay_s,
            "push_s": push_s, "pid": os.getpid()}


# ---------------------------------------------------------------------------------------
# The caller's side
# ---------------------------------------------------------------------------------------

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
