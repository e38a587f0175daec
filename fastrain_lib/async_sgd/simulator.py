"""Synchronous vs asynchronous SGD, simulated: one parameter server, W workers, one clock.

Everything runs in ONE process, but the model and the data are real: every gradient is
computed with autograd on a real batch, at the parameters the worker really read. Only
the *time* is simulated: each worker takes `step_time / speed` (plus a random straggler
delay) per gradient, and an event queue (heapq) decides in which order gradients reach
the server. That lets us study stragglers and staleness exactly and repeatably
(deterministic for a seed) on a 2-core laptop.

Modes (every gradient g is the mean-loss gradient of one worker's batch of B samples):

  sync    barrier every step: all W workers read the same parameters, the server waits
          for all W gradients and applies their SUM:  theta <- theta - lr * sum_w g_w.
          With no stragglers this is exactly one step of plain mini-batch SGD on the union
          batch (W*B samples, mean loss) with learning rate W*lr (tests/test_async_sgd.py).
  backup  synchronous with b backup workers (Chen et al. 2016): the server sums the first
          W-b gradients to arrive and drops the slowest b (those workers are cancelled and
          restart with the new parameters).
  async   every gradient is applied the moment it arrives: theta <- theta - lr * g, where
          g was computed at the parameters the worker read when it started; meanwhile the
          server may have moved on: that delay, in server updates, is the staleness.
  ssp     stale-synchronous parallel (bounded staleness): like async, but a worker that
          has pushed c gradients may start its next one only if c - min(all clocks) <= s.
          s = 0 makes everybody wait for the slowest after every step.

Every mode applies lr * g per gradient, so the modes differ only in WHERE each gradient
was computed (and how long everybody waited), not in step size.

    problem = make_problem("blobs")
    result = simulate(problem, SimConfig(mode="async", workers=4, lr=0.05, gradients=200))
    result.times, result.losses, result.staleness, result.events
"""

from __future__ import annotations

import heapq
import math
import random
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import torch

from fastrain_lib.async_sgd.problems import BatchStream, Problem
from fastrain_lib.core.i18n import t

MODES = ("sync", "backup", "async", "ssp")
MODE_COLORS = {"sync": "#3B75AF", "backup": "#519E3E", "async": "#EF8636", "ssp": "#8D69B8"}


# ---------------------------------------------------------------------------------------
# The pieces a student can replace (exercises): the async update rule, the SSP test
# ---------------------------------------------------------------------------------------

def async_update(theta, theta_read, batch, grad_fn, lr):
    """The asynchronous update rule, applied by the server when a gradient arrives.

    theta       the server's parameters NOW (other workers may have updated them)
    theta_read  the (older) copy this worker read when it started its step
    The gradient is computed where the worker computed it -- at theta_read -- but it is
    applied to the CURRENT parameters: that mismatch is staleness."""
    return theta - lr * grad_fn(theta_read, batch)


def may_start(clock: int, clocks: list[int], bound: int) -> bool:
    """Stale-synchronous parallel: a worker that has pushed `clock` gradients may start its
    next one only if it is at most `bound` steps ahead of the slowest worker."""
    return clock - min(clocks) <= bound


# ---------------------------------------------------------------------------------------
# The simulator
# ---------------------------------------------------------------------------------------

@dataclass
class SimConfig:
    mode: str = "sync"  # sync | backup | async | ssp
    workers: int = 4
    batch_size: int = 32
    lr: float = 0.05  # applied to every gradient: theta -= lr * g
    gradients: int = 200  # stop after this many gradients were applied (= batches used)
    speeds: tuple | None = None  # relative speed of each worker (1 = normal); None: all 1
    step_time: float = 1.0  # simulated time for one gradient at speed 1
    straggler_prob: float = 0.0  # chance that a step is hit by a straggler delay
    straggler_delay: float = 0.0  # the extra time of such a step, in units of step_time
    backup: int = 1  # backup mode: how many of the slowest gradients are dropped
    staleness_bound: int = 1  # ssp mode: s
    seed: int = 0

    def check(self) -> None:
        """Bad settings get a clear Bengali message (what is wrong, what to do)."""
        if self.mode not in MODES:
            raise ValueError(t("async_sgd.bad_mode", mode=self.mode, modes=", ".join(MODES)))
        if not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(t("async_sgd.bad_workers", workers=self.workers))
        if self.mode == "backup" and not 0 <= self.backup < self.workers:
            raise ValueError(t("async_sgd.bad_backup", backup=self.backup, workers=self.workers))
        if not 0.0 <= self.straggler_prob <= 1.0:
            raise ValueError(t("async_sgd.bad_prob", prob=self.straggler_prob))
        if self.speeds is not None and (len(self.speeds) != self.workers or min(self.speeds) <= 0):
            raise ValueError(t("async_sgd.bad_speeds", workers=self.workers))
        if self.staleness_bound < 0 or self.lr <= 0 or self.gradients < 1 or self.batch_size < 1:
            raise ValueError(t("async_sgd.bad_numbers"))


@dataclass
class Event:
    """One bar of the timeline: worker w did `kind` from start to end (worker -1: server)."""

    worker: int
    start: float
    end: float
    kind: str  # compute | straggle | wait | dropped | update


@dataclass
class SimResult:
    config: dict
    times: list[float]  # simulated time of every server update (index 0: the start)
    grads: list[int]  # gradients applied so far, after each update
    losses: list[float]  # evaluation loss after each update
    accuracies: list[float]
    staleness: list[int]  # for every applied gradient: server updates since it was read
    events: list[Event]
    dropped: int = 0  # gradients computed but thrown away (backup mode)
    diverged: bool = False  # the loss became inf/nan or exploded: stopped early
    stalled: bool = False  # no worker could start (a wrong staleness rule): stopped early
    theta: torch.Tensor | None = None

    @property
    def final_loss(self) -> float:
        return self.losses[-1]

    @property
    def final_accuracy(self) -> float:
        return self.accuracies[-1]

    @property
    def total_time(self) -> float:
        return self.times[-1]

    def time_for(self, n_gradients: int) -> float:
        """Simulated time at which n_gradients had been applied (e.g. one epoch's batches)."""
        for time, count in zip(self.times, self.grads):
            if count >= n_gradients:
                return time
        return math.inf


class _Clock:
    """Worker step durations: step_time / speed, sometimes plus a straggler delay (seeded)."""

    def __init__(self, cfg: SimConfig):
        self.cfg = cfg
        self.speeds = list(cfg.speeds) if cfg.speeds is not None else [1.0] * cfg.workers
        self.rng = random.Random(cfg.seed)

    def step(self, worker: int) -> tuple[float, float]:
        """(compute time, straggler delay) of one step of `worker`."""
        compute = self.cfg.step_time / self.speeds[worker]
        delay = 0.0
        if self.cfg.straggler_prob > 0 and self.rng.random() < self.cfg.straggler_prob:
            delay = self.cfg.straggler_delay * self.cfg.step_time
        return compute, delay


def _bars(events: list, worker: int, start: float, compute: float, delay: float, end: float, late: str):
    """Timeline bars for one step that ran from `start`, cut off at `end` if cancelled."""
    finish = start + compute + delay
    if finish > end + 1e-12:  # cancelled before it finished (backup mode)
        events.append(Event(worker, start, end, late))
        return
    events.append(Event(worker, start, start + compute, "compute"))
    if delay:
        events.append(Event(worker, start + compute, finish, "straggle"))


class _Recorder:
    """Keeps the curves; stops early when the loss explodes."""

    def __init__(self, problem: Problem, theta: torch.Tensor):
        self.problem = problem
        loss, acc = problem.evaluate(theta)
        self.times, self.grads, self.losses, self.accs = [0.0], [0], [loss], [acc]
        self.limit = max(10.0 * loss, 50.0)

    def record(self, time: float, grads: int, theta: torch.Tensor) -> bool:
        """Record the state after an update; False when training has diverged."""
        loss, acc = self.problem.evaluate(theta)
        self.times.append(time)
        self.grads.append(grads)
        self.losses.append(loss)
        self.accs.append(acc)
        return math.isfinite(loss) and loss < self.limit


def simulate(problem: Problem, cfg: SimConfig, *, update=async_update, start_rule=may_start) -> SimResult:
    """Train `problem` with the parameter-server scheme `cfg.mode` on a simulated clock.

    `update` (async/ssp) and `start_rule` (ssp) are pluggable so that exercises can supply
    their own; see async_update and may_start for what they must do."""
    cfg.check()
    with one_thread():
        return _simulate(problem, cfg, update, start_rule)


@contextmanager
def one_thread():
    """Tiny tensors: one thread is fastest, and extra threads only fight over a busy CPU."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _simulate(problem, cfg, update, start_rule):
    theta = problem.initial_theta()
    stream = BatchStream(problem, cfg.batch_size, cfg.seed)
    clock = _Clock(cfg)
    recorder = _Recorder(problem, theta)
    if cfg.mode in ("sync", "backup"):
        state = _run_synchronous(problem, cfg, theta, stream, clock, recorder)
    else:
        state = _run_asynchronous(problem, cfg, theta, stream, clock, recorder, update, start_rule)
    theta, staleness, events, dropped, diverged, stalled = state
    return SimResult(asdict(cfg), recorder.times, recorder.grads, recorder.losses, recorder.accs,
                     staleness, events, dropped, diverged, stalled, theta)


def _run_synchronous(problem, cfg, theta, stream, clock, recorder):
    """Rounds with a barrier: everyone reads theta, the server waits for W-b gradients."""
    keep = cfg.workers - (cfg.backup if cfg.mode == "backup" else 0)
    now, applied, dropped, staleness, events = 0.0, 0, 0, [], []
    diverged = False
    while applied < cfg.gradients and not diverged:
        jobs = []  # (finish time, worker, batch, compute, delay)
        for worker in range(cfg.workers):
            batch = stream.next()
            compute, delay = clock.step(worker)
            jobs.append((now + compute + delay, worker, batch, compute, delay))
        jobs.sort(key=lambda job: (job[0], job[1]))  # ties: the lower worker id first
        used, late = jobs[:keep], jobs[keep:]
        end = used[-1][0]
        # every gradient of the round is computed at the same theta: staleness 0
        total = sum(problem.grad(theta, batch) for _, _, batch, _, _ in used)
        theta = theta - cfg.lr * total
        applied += len(used)
        dropped += len(late)
        staleness += [0] * len(used)
        for finish, worker, _, compute, delay in jobs:
            _bars(events, worker, now, compute, delay, end, "dropped")
            if finish < end:
                events.append(Event(worker, finish, end, "wait"))  # at the barrier
        events.append(Event(-1, end, end, "update"))
        diverged = not recorder.record(end, applied, theta)
        now = end
    return theta, staleness, events, dropped, diverged, False


def _run_asynchronous(problem, cfg, theta, stream, clock, recorder, update, start_rule):
    """An event queue of gradient arrivals; the server applies each one as it comes."""
    ssp = cfg.mode == "ssp"
    queue, seq = [], 0  # heap of (arrival time, sequence number, worker, job)
    version, applied, staleness, events = 0, 0, [], []
    clocks = [0] * cfg.workers  # gradients pushed by each worker
    blocked = {}  # worker -> time it started waiting (ssp)

    def start(worker, now):
        nonlocal seq
        compute, delay = clock.step(worker)
        job = (theta.clone(), version, stream.next(), now, compute, delay)  # the copy it read
        heapq.heappush(queue, (now + compute + delay, seq, worker, job))
        seq += 1

    for worker in range(cfg.workers):
        start(worker, 0.0)
    diverged = stalled = False
    while applied < cfg.gradients and not diverged:
        if not queue:  # every worker is blocked: the start rule never lets anyone go
            stalled = True
            break
        now, _, worker, (theta_read, read_version, batch, began, compute, delay) = heapq.heappop(queue)
        theta = update(theta, theta_read, batch, problem.grad, cfg.lr)
        staleness.append(version - read_version)
        version += 1
        applied += 1
        clocks[worker] += 1
        _bars(events, worker, began, compute, delay, now, "dropped")
        events.append(Event(-1, now, now, "update"))
        diverged = not recorder.record(now, applied, theta)
        # who may start now? async: this worker at once; ssp: whoever the bound allows
        candidates = [worker] + sorted(blocked) if ssp else [worker]
        for w in candidates:
            if not ssp or start_rule(clocks[w], list(clocks), cfg.staleness_bound):
                if w in blocked:
                    events.append(Event(w, blocked.pop(w), now, "wait"))
                start(w, now)
            else:
                blocked.setdefault(w, now)
    return theta, staleness, events, 0, diverged, stalled


def plain_sgd(problem: Problem, *, workers: int, batch_size: int, lr: float, steps: int, seed: int = 0):
    """Plain mini-batch SGD on the union batch (workers*batch_size samples, mean loss) with
    learning rate workers*lr -- what sync mode must equal when nobody straggles."""
    theta = problem.initial_theta()
    stream = BatchStream(problem, batch_size, seed)
    for _ in range(steps):
        parts = [stream.next() for _ in range(workers)]
        x = torch.cat([p[0] for p in parts])
        y = torch.cat([p[1] for p in parts])
        theta = theta - (workers * lr) * problem.grad(theta, (x, y))
    return theta


def compare_modes(problem: Problem, base: SimConfig, modes=MODES) -> dict[str, SimResult]:
    """Run the same setting in several modes: {mode: result}."""
    results = {}
    for mode in modes:
        cfg = SimConfig(**{**asdict(base), "mode": mode})
        results[mode] = simulate(problem, cfg)
    return results


def one_slow_worker(workers: int, slow: float = 0.25) -> tuple:
    """Speeds for the classic straggler story: everyone at 1, the last worker at `slow`."""
    return tuple([1.0] * (workers - 1) + [slow])
