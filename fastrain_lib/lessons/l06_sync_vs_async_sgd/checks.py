"""Checks for lesson 06 (synchronous vs asynchronous SGD).

1. check_async_update  the asynchronous update rule (gradient at the stale copy, applied
                       to the current parameters), also run inside the simulator on a seed
2. check_may_start     the stale-synchronous (SSP) start rule, also run in the simulator
3. check_epoch_times   sync vs async time per epoch by hand, compared with the simulator
4. check_local_sgd_comm  all-reduces of local SGD with period H, and the share saved against
                       H = 1, compared with the rule the real worker (distributed/local_sgd.py) uses

One policy (issue 39): the library function that IS the answer (simulator.async_update,
simulator.may_start, the simulator itself for the epoch times, local_sgd.rounds/averages_after)
and the check's own reference are forbidden while the answer runs (the task text says so). The
cases reach the edges the task allows (one worker, staleness 0, batches of one, n_batches below the
number of workers, one step), and every check asks some inputs again later, in another order and
in fresh copies, so an answer that counts its calls or is fitted to the order of the cases fails.
"""

from __future__ import annotations

import functools
import math
import random

import torch

from fastrain_lib.async_sgd import problems
from fastrain_lib.async_sgd import simulator as async_sgd
from fastrain_lib.lessons.checking import (
    CheckResult,
    call_student,
    check,
    describe,
    failed,
    passed,
    seeded_cases,
    snapshot,
    unchanged,
)
from fastrain_lib.lessons.l06_sync_vs_async_sgd.check_common import SEED, _again, _pair
from fastrain_lib.lessons.l06_sync_vs_async_sgd.check_local_sgd import (  # noqa: F401 - re-exported
    COMM_CASES,
    _comm_forbidden,
    check_local_sgd_comm,
    comm_cases,
    counted_rounds,
)


@functools.lru_cache(maxsize=1)
def _problem():
    return problems.make_problem("blobs", 400, n_eval=100, seed=0)


def _same(a, b, tol: float = 1e-6) -> bool:
    return isinstance(a, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, atol=tol, rtol=1e-5)


# ---------------------------------------------------------------------------------------- 1

# (seed of the server's drift, batch slice, lr): two configurations, a non-round lr in the second
ASYNC_CONFIGS = [(1, slice(0, 32), 0.1), (2, slice(100, 123), 0.037)]
# staleness 0 (one worker: the copy it read IS the server's parameters, equal values in another
# tensor) with a batch of one sample
FRESH_CONFIG = (3, slice(7, 8), 0.25, 0.0)


def _async_config(rng: random.Random):
    start = rng.randint(0, 350)
    return rng.randint(3, 10**6), slice(start, start + rng.choice([1, 7, 19, 33, 50])), round(rng.uniform(0.005, 0.5), 4)


def async_configs() -> list:
    """The two hand-written configurations, then four drawn by a seeded generator (batch sizes from
    1 to 50, anywhere in the data; learning rates that are not round), then staleness 0 with one
    sample, then two of them again (another order: an answer that counts its calls fails)."""
    drawn = [(*c, 1.0) for c in seeded_cases(_async_config, n=4, seed=SEED, fixed=ASYNC_CONFIGS)]
    return _again(drawn + [FRESH_CONFIG], picks=(3, 0))


def _async_forbidden() -> list:
    """The course's own rule (the simulator's default) and the check's reference use of it."""
    return [async_sgd.async_update]


class _GradSpy:
    """The grad_fn handed to the answer: records the parameters each gradient was taken at."""

    def __init__(self, grad_fn):
        self.grad_fn, self.points = grad_fn, []

    def __call__(self, params, batch):
        self.points.append(params.detach().clone() if isinstance(params, torch.Tensor) else params)
        return self.grad_fn(params, batch)


def _as_params(result, like):
    """The answer as a tensor like `like` (a NumPy array or a tensor of another float dtype is fine)."""
    try:
        if not isinstance(result, torch.Tensor) and hasattr(result, "__array__") and hasattr(result, "dtype"):
            result = torch.as_tensor(result)
        if not isinstance(result, torch.Tensor) or result.shape != like.shape or not result.is_floating_point():
            return None
        return result.detach().to(like.dtype)
    except Exception:  # noqa: BLE001
        return None


def _judge_update(update, problem, seed, rows, lr, drift=1.0) -> CheckResult | None:
    start = problem.initial_theta()
    g = torch.Generator().manual_seed(seed)
    theta = start + 0.3 * torch.randn(start.shape, generator=g)  # the server moved on...
    theta_read = start + 0.05 * torch.randn(start.shape, generator=g)  # ...since this worker read its copy
    if not drift:  # staleness 0: nobody updated in between; the copy is equal, but another tensor
        theta_read = theta.clone()
    batch = (problem.x[rows], problem.y[rows])
    saved = snapshot((theta, theta_read, batch))
    spy = _GradSpy(problem.grad)
    result, error = call_student(update, theta, theta_read, batch, spy, lr, forbid=_async_forbidden())
    if error is not None:
        return error
    if not unchanged((theta, theta_read, batch), saved):
        return failed("mutated_input", "checking.l06.update_mutated")
    theta, theta_read, batch = saved
    result = _as_params(result, theta)
    if result is None:
        return failed("wrong_shape", "lesson06.check.update_shape")
    # observed: where the answer took its gradient (the stale copy, as the worker did)
    at_read = any(isinstance(p, torch.Tensor) and p.shape == theta.shape and torch.equal(p.to(theta.dtype), theta_read)
                  for p in spy.points)
    if drift and spy.points and not at_read and all(isinstance(p, torch.Tensor) and torch.equal(p.to(theta.dtype), theta)
                                          for p in spy.points):
        return failed("no_staleness", "lesson06.check.update_no_staleness")
    if not spy.points:
        return failed("no_gradient", "lesson06.check.update_no_gradient")
    stale_grad, fresh_grad = problem.grad(theta_read, batch), problem.grad(theta, batch)
    if _same(result, theta - lr * stale_grad):
        return None
    for wrong, code, key in ((theta - lr * fresh_grad, "no_staleness", "lesson06.check.update_no_staleness"),
                             (theta_read - lr * stale_grad, "overwrites", "lesson06.check.update_overwrites"),
                             (theta + lr * stale_grad, "wrong_sign", "lesson06.check.update_sign"),
                             (theta - stale_grad, "no_lr", "lesson06.check.update_no_lr"),
                             (theta - 0.1 * stale_grad, "fixed_lr", "checking.l06.update_fixed_lr")):
        if _same(result, wrong):
            return failed(code, key)
    return failed("wrong", "lesson06.check.update_wrong")


@check
def check_async_update(update) -> CheckResult:
    """`update(theta, theta_read, batch, grad_fn, lr)` must return theta - lr * grad_fn(theta_read, batch),
    in two configurations, without changing theta, theta_read or the batch; then inside the simulator."""
    problem = _problem()
    for seed, rows, lr, drift in async_configs():
        result = _judge_update(update, problem, seed, rows, lr, drift)
        if result is not None:
            return result
    # the same rule inside the simulator, on a seed, must give the reference run exactly
    cfg = async_sgd.SimConfig(mode="async", workers=3, speeds=(1, 1, 0.5), gradients=30, lr=0.1, seed=3)
    def adapted(theta, *rest):  # a NumPy array or a float64 tensor back in the simulator's dtype
        out = update(theta, *rest)
        params = _as_params(out, theta)
        return out if params is None else params

    for sim in (cfg, async_sgd.SimConfig(mode="async", workers=1, gradients=12, lr=0.1, seed=4)):  # 3, then 1
        mine = async_sgd.simulate(problem, sim, update=adapted)
        reference = async_sgd.simulate(problem, sim)
        if not _same(mine.theta, reference.theta, 1e-5):
            return failed("sim_mismatch", "lesson06.check.update_sim")
    reference = async_sgd.simulate(problem, cfg)
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
    (7, [3, 7, 5, 4], 4, True),  # four workers, the slowest not first
    (9, [9, 4, 6, 5], 4, False),
    (2, [2, 2], 0, True),  # two workers
    (12, [12, 10, 11], 1, False),
    (5, [4, 5, 1], 2, False),  # the worker is not listed first, and the first is not the slowest
    (9, [3, 9, 2], 4, False),
    (0, [0], 0, True),  # one worker alone: always the slowest, whatever the bound
    (6, [6], 0, True),
    (3, [3, 3, 3, 3, 3, 3, 3], 0, True),  # seven workers level, s = 0
]


def _ssp_case(rng: random.Random):
    """A drawn SSP situation: 2-6 workers, bound 0-5, the slowest anywhere in the list, the asking
    worker anywhere too, and its lead over the slowest exactly the bound in about a third of the cases."""
    workers, bound = rng.randint(2, 6), rng.randint(0, 5)
    slowest = rng.randint(0, 20)
    lead = rng.choice([bound, bound, bound - 1, bound + 1, rng.randint(0, bound + 3)])
    lead = max(0, lead)
    clocks = [slowest + rng.randint(0, lead) for _ in range(workers)]
    me = rng.randrange(workers)
    clocks[me] = slowest + lead
    clocks[rng.choice([i for i in range(workers) if i != me])] = slowest
    clock = clocks[me]
    return clock, clocks, bound, clock - min(clocks) <= bound


def ssp_cases() -> list:
    """The hand-written cases, then 24 drawn by a seeded generator (exact boundaries included), then
    three of them again, later and in another order."""
    return _again(seeded_cases(_ssp_case, n=24, seed=SEED, fixed=CASES), picks=(-1, 3, 1))


def _as_bool(answer) -> bool | None:
    """True/False (also 0/1 and one-element bool tensors/arrays), or None for anything else."""
    if isinstance(answer, bool):
        return answer
    if isinstance(answer, int) and answer in (0, 1):
        return bool(answer)
    try:
        if getattr(answer, "dtype", None) is not None and getattr(answer, "size", None) is not None:
            item = answer.reshape(()).item() if hasattr(answer, "reshape") else None
            if isinstance(item, bool):
                return item
    except Exception:  # noqa: BLE001
        return None
    return None


@check
def check_may_start(rule) -> CheckResult:
    """`rule(clock, clocks, bound)` -> True when clock - min(clocks) <= bound."""
    answers = []
    cases = ssp_cases()
    for clock, clocks, bound, _ in cases:
        given = list(clocks)
        answer, error = call_student(rule, clock, given, bound, forbid=[async_sgd.may_start])
        if error is not None:
            return error
        if given != clocks:
            return failed("mutated_input", "checking.l06.clocks_mutated")
        value = _as_bool(answer)
        if value is None:
            return failed("not_bool", "checking.l06.not_bool", got=describe(answer))
        answers.append(value)
    expected = [case[3] for case in cases]
    if answers != expected:
        strict = [c - min(cs) < s for c, cs, s, _ in cases]
        spread = [max(cs) - min(cs) <= s for c, cs, s, _ in cases]
        if answers == strict:
            return failed("off_by_one", "lesson06.check.rule_off_by_one")
        if answers == spread:
            return failed("spread", "lesson06.check.rule_spread")
        if answers == [c - cs[0] <= s for c, cs, s, _ in cases]:
            return failed("first_not_min", "checking.l06.rule_first_not_min")
        if all(answers):
            return failed("no_bound", "lesson06.check.rule_no_bound")
        bad = cases[[a == e for a, e in zip(answers, expected)].index(False)]
        return failed("wrong", "lesson06.check.rule_wrong", clock=bad[0], clocks=bad[1], bound=bad[2],
                      expected=bad[3])
    cfg = async_sgd.SimConfig(mode="ssp", workers=3, speeds=(1, 1, 0.4), staleness_bound=1, gradients=30, seed=2)
    mine = async_sgd.simulate(_problem(), cfg, start_rule=rule)
    reference = async_sgd.simulate(_problem(), cfg)
    if mine.stalled or mine.times != reference.times:
        return failed("sim_mismatch", "lesson06.check.rule_sim")
    return passed("lesson06.check.rule_ok", bound=1, time=reference.total_time)


# ---------------------------------------------------------------------------------------- 3

# n_batches that do not divide by the number of workers (the last sync step is not full)
EPOCH_CASES = [((3.0, 0.5, 1.0), 31), ((1.0, 4.0, 2.0, 1.0), 44), ((2.5, 0.5), 13), ((1.0, 2.0), 30),  # unsorted
               ((2.0,), 7), ((1.5, 0.5, 3.0), 2), ((0.7,), 1)]  # one worker; fewer batches than workers; one batch


def _epoch_case(rng: random.Random):
    """2-6 workers with non-round step times, the slowest anywhere; n_batches that may or may not divide."""
    workers = rng.randint(2, 6)
    times = [round(rng.uniform(0.2, 4.0), 2) for _ in range(workers)]
    n = rng.randint(workers + 1, 60)
    return tuple(times), n


def epoch_cases() -> list:
    """The hand-written cases, four drawn ones, then two again (later, another order)."""
    return _again(seeded_cases(_epoch_case, n=4, seed=SEED, fixed=EPOCH_CASES), picks=(-1, 1))


def _epoch_forbidden() -> list:
    """The simulator is the check's reference: the answer is the time worked out by hand."""
    return [async_sgd.simulate, async_sgd.SimResult.time_for, simulated_epoch_times]


def simulated_epoch_times(step_times, n_batches: int) -> tuple[float, float]:
    """What the simulator says: (sync time, async time) for n_batches gradients, no stragglers."""
    times = []
    for mode in ("sync", "async"):
        cfg = async_sgd.SimConfig(mode=mode, workers=len(step_times), speeds=tuple(1.0 / s for s in step_times),
                                  gradients=n_batches, lr=0.01)
        times.append(async_sgd.simulate(_problem(), cfg).time_for(n_batches))
    return times[0], times[1]


@check
def check_epoch_times(epoch_times) -> CheckResult:
    """`epoch_times(step_times, n_batches)` -> (sync time, async time) of one epoch."""
    for step_times, n in epoch_cases():
        given = list(step_times)
        answer, error = call_student(epoch_times, given, n, forbid=_epoch_forbidden())
        if error is not None:
            return error
        if given != list(step_times):
            return failed("mutated_input", "checking.l06.times_mutated")
        pair = _pair(answer)
        if pair is None:
            return failed("wrong_type", "lesson06.check.epoch_type")
        sync_time, async_time = pair
        true_sync, true_async = simulated_epoch_times(step_times, n)
        tol = 0.3 * max(step_times)
        workers = len(step_times)
        mean = sum(step_times) / workers
        if not math.isclose(sync_time, true_sync, rel_tol=1e-6, abs_tol=1e-6):
            if math.isclose(sync_time, n / workers * mean, rel_tol=1e-6):
                return failed("sync_mean", "lesson06.check.epoch_sync_mean")
            if math.isclose(sync_time, n * max(step_times), rel_tol=1e-6):
                return failed("sync_no_workers", "lesson06.check.epoch_sync_workers")
            if max(step_times) != step_times[-1] and math.isclose(
                    sync_time, math.ceil(n / workers) * step_times[-1], rel_tol=1e-6):
                return failed("sync_last_not_slowest", "lesson06.check.epoch_sync_last")
            if any(math.isclose(sync_time, v * max(step_times), rel_tol=1e-6) for v in (n / workers, n // workers)):
                return failed("no_ceil", "checking.l06.epoch_no_ceil", n=n, workers=workers)
            return failed("sync_wrong", "lesson06.check.epoch_sync_wrong", workers=workers,
                          times=list(step_times), n=n, expected=true_sync)
        rate_formula = n / sum(1.0 / t for t in step_times)  # never above the simulated time
        in_band = rate_formula * (1 - 1e-9) <= async_time <= true_async * (1 + 1e-9)
        if abs(async_time - true_async) > tol and not in_band:
            if math.isclose(async_time, true_sync, rel_tol=1e-6):
                return failed("async_waits", "lesson06.check.epoch_async_waits")
            if math.isclose(async_time, n * mean / workers, rel_tol=1e-6):
                return failed("async_mean", "lesson06.check.epoch_async_mean")
            return failed("async_wrong", "lesson06.check.epoch_async_wrong", times=list(step_times), n=n,
                          expected=true_async)
    step_times, n = EPOCH_CASES[0]
    true_sync, true_async = simulated_epoch_times(step_times, n)
    return passed("lesson06.check.epoch_ok", sync=true_sync, asyn=true_async, speedup=true_sync / true_async)


# ---------------------------------------------------------------------------------------- 4
# check_local_sgd_comm lives in check_local_sgd.py (this file's size), re-exported here
