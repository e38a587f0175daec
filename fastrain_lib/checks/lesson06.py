"""Checks for lesson 06 (synchronous vs asynchronous SGD).

1. check_async_update  the asynchronous update rule (gradient at the stale copy, applied
                       to the current parameters), also run inside the simulator on a seed
2. check_may_start     the stale-synchronous (SSP) start rule, also run in the simulator
3. check_epoch_times   sync vs async time per epoch by hand, compared with the simulator
"""

from __future__ import annotations

import functools
import math

import torch

from .. import async_sgd
from . import CheckResult, call_student, failed, passed


@functools.lru_cache(maxsize=1)
def _problem():
    return async_sgd.make_problem("blobs", 400, n_eval=100, seed=0)


def _same(a, b, tol: float = 1e-6) -> bool:
    return isinstance(a, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, atol=tol, rtol=1e-5)


# ---------------------------------------------------------------------------------------- 1

def check_async_update(update) -> CheckResult:
    """`update(theta, theta_read, batch, grad_fn, lr)` must return theta - lr * grad_fn(theta_read, batch)."""
    problem = _problem()
    start = problem.initial_theta()
    g = torch.Generator().manual_seed(1)
    theta = start + 0.3 * torch.randn(start.shape, generator=g)  # the server moved on...
    theta_read = start.clone()  # ...since this worker read its copy
    batch = (problem.x[:32], problem.y[:32])
    lr = 0.1
    result, error = call_student(update, theta.clone(), theta_read.clone(), batch, problem.grad, lr)
    if error is not None:
        return error
    if not isinstance(result, torch.Tensor) or result.shape != theta.shape:
        return failed("wrong_shape", "lesson06.check.update_shape")
    stale_grad, fresh_grad = problem.grad(theta_read, batch), problem.grad(theta, batch)
    if _same(result, theta - lr * fresh_grad):
        return failed("no_staleness", "lesson06.check.update_no_staleness")
    if _same(result, theta_read - lr * stale_grad):
        return failed("overwrites", "lesson06.check.update_overwrites")
    if _same(result, theta + lr * stale_grad):
        return failed("wrong_sign", "lesson06.check.update_sign")
    if _same(result, theta - stale_grad):
        return failed("no_lr", "lesson06.check.update_no_lr")
    if not _same(result, theta - lr * stale_grad):
        return failed("wrong", "lesson06.check.update_wrong")
    # the same rule inside the simulator, on a seed, must give the reference run exactly
    cfg = async_sgd.SimConfig(mode="async", workers=3, speeds=(1, 1, 0.5), gradients=30, lr=0.1, seed=3)
    mine = async_sgd.simulate(problem, cfg, update=update)
    reference = async_sgd.simulate(problem, cfg)
    if not _same(mine.theta, reference.theta, 1e-5):
        return failed("sim_mismatch", "lesson06.check.update_sim")
    return passed("lesson06.check.update_ok", staleness=max(reference.staleness))


# ---------------------------------------------------------------------------------------- 2

# (clock, clocks, bound) -> may the worker start?  includes the edge cases: exactly s ahead
CASES = [
    (3, [3, 1, 2], 2, True),  # exactly s ahead: allowed
    (4, [4, 1, 2], 2, False),  # s + 1 ahead: must wait
    (0, [0, 0, 0], 0, True),  # everybody level, s = 0
    (1, [1, 0, 1], 0, False),  # s = 0: wait for the slowest
    (1, [1, 1, 5], 0, True),  # others far ahead: the slowest may always go
    (2, [2, 2, 4], 1, True),  # ahead of nobody (someone else is ahead: that does not matter)
    (5, [5, 2, 3], 3, True),
    (6, [6, 2, 3], 3, False),
]


def check_may_start(rule) -> CheckResult:
    """`rule(clock, clocks, bound)` -> True when clock - min(clocks) <= bound."""
    answers = []
    for clock, clocks, bound, _ in CASES:
        answer, error = call_student(rule, clock, list(clocks), bound)
        if error is not None:
            return error
        answers.append(bool(answer))
    expected = [case[3] for case in CASES]
    if answers != expected:
        strict = [c - min(cs) < s for c, cs, s, _ in CASES]
        spread = [max(cs) - min(cs) <= s for c, cs, s, _ in CASES]
        if answers == strict:
            return failed("off_by_one", "lesson06.check.rule_off_by_one")
        if answers == spread:
            return failed("spread", "lesson06.check.rule_spread")
        if all(answers):
            return failed("no_bound", "lesson06.check.rule_no_bound")
        bad = CASES[[a == e for a, e in zip(answers, expected)].index(False)]
        return failed("wrong", "lesson06.check.rule_wrong", clock=bad[0], clocks=bad[1], bound=bad[2],
                      expected=bad[3])
    cfg = async_sgd.SimConfig(mode="ssp", workers=3, speeds=(1, 1, 0.4), staleness_bound=1, gradients=30, seed=2)
    mine = async_sgd.simulate(_problem(), cfg, start_rule=rule)
    reference = async_sgd.simulate(_problem(), cfg)
    if mine.stalled or mine.times != reference.times:
        return failed("sim_mismatch", "lesson06.check.rule_sim")
    return passed("lesson06.check.rule_ok", bound=1, time=reference.total_time)


# ---------------------------------------------------------------------------------------- 3

EPOCH_CASES = [((1.0, 1.0, 2.0, 4.0), 44), ((1.0, 2.0), 30), ((1.0, 1.0, 1.0, 3.0), 48)]


def simulated_epoch_times(step_times, n_batches: int) -> tuple[float, float]:
    """What the simulator says: (sync time, async time) for n_batches gradients, no stragglers."""
    times = []
    for mode in ("sync", "async"):
        cfg = async_sgd.SimConfig(mode=mode, workers=len(step_times), speeds=tuple(1.0 / s for s in step_times),
                                  gradients=n_batches, lr=0.01)
        times.append(async_sgd.simulate(_problem(), cfg).time_for(n_batches))
    return times[0], times[1]


def check_epoch_times(epoch_times) -> CheckResult:
    """`epoch_times(step_times, n_batches)` -> (sync time, async time) of one epoch."""
    for step_times, n in EPOCH_CASES:
        answer, error = call_student(epoch_times, list(step_times), n)
        if error is not None:
            return error
        try:
            sync_time, async_time = (float(v) for v in answer)
        except (TypeError, ValueError):
            return failed("wrong_type", "lesson06.check.epoch_type")
        true_sync, true_async = simulated_epoch_times(step_times, n)
        tol = 0.3 * max(step_times)
        workers = len(step_times)
        mean = sum(step_times) / workers
        if not math.isclose(sync_time, true_sync, rel_tol=1e-6, abs_tol=1e-6):
            if math.isclose(sync_time, n / workers * mean, rel_tol=1e-6):
                return failed("sync_mean", "lesson06.check.epoch_sync_mean")
            if math.isclose(sync_time, n * max(step_times), rel_tol=1e-6):
                return failed("sync_no_workers", "lesson06.check.epoch_sync_workers")
            return failed("sync_wrong", "lesson06.check.epoch_sync_wrong", workers=workers,
                          times=list(step_times), n=n, expected=true_sync)
        if abs(async_time - true_async) > tol:
            if math.isclose(async_time, true_sync, rel_tol=1e-6):
                return failed("async_waits", "lesson06.check.epoch_async_waits")
            if math.isclose(async_time, n * mean / workers, rel_tol=1e-6):
                return failed("async_mean", "lesson06.check.epoch_async_mean")
            return failed("async_wrong", "lesson06.check.epoch_async_wrong", times=list(step_times), n=n,
                          expected=true_async)
    step_times, n = EPOCH_CASES[0]
    true_sync, true_async = simulated_epoch_times(step_times, n)
    return passed("lesson06.check.epoch_ok", sync=true_sync, asyn=true_async, speedup=true_sync / true_async)
