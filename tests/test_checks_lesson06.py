"""Lesson 06 checks: the reference answers pass, typical wrong answers fail with the right code."""

import math

from fastrain_lib import async_sgd
from fastrain_lib.checks import lesson06 as L


def test_async_update_reference_passes():
    assert L.check_async_update(async_sgd.async_update).ok


def test_async_update_wrong_answers():
    cases = {
        "no_staleness": lambda th, old, b, g, lr: th - lr * g(th, b),  # gradient at the current params
        "overwrites": lambda th, old, b, g, lr: old - lr * g(old, b),  # loses the others' updates
        "wrong_sign": lambda th, old, b, g, lr: th + lr * g(old, b),
        "no_lr": lambda th, old, b, g, lr: th - g(old, b),
        "wrong": lambda th, old, b, g, lr: th - 0.5 * lr * g(old, b),
        "not_done": lambda th, old, b, g, lr: None,
        "crashed": lambda th, old, b, g, lr: th - lr * g(b),
    }
    for code, fn in cases.items():
        result = L.check_async_update(fn)
        assert not result.ok and result.code == code, (code, result.code)
    assert L.check_async_update(None).code == "not_done"


def test_may_start_reference_passes():
    assert L.check_may_start(async_sgd.may_start).ok


def test_may_start_wrong_answers():
    cases = {
        "off_by_one": lambda c, cs, s: c - min(cs) < s,
        "spread": lambda c, cs, s: max(cs) - min(cs) <= s,
        "no_bound": lambda c, cs, s: True,
        "wrong": lambda c, cs, s: c - max(cs) < s,
    }
    for code, fn in cases.items():
        result = L.check_may_start(fn)
        assert not result.ok and result.code == code, (code, result.code)


def reference_epoch_times(step_times, n):
    workers = len(step_times)
    return math.ceil(n / workers) * max(step_times), n / sum(1 / t for t in step_times)


def test_epoch_times_reference_passes():
    result = L.check_epoch_times(reference_epoch_times)
    assert result.ok, result.message


def test_epoch_times_wrong_answers():
    def mean_sync(ts, n):
        return n / len(ts) * sum(ts) / len(ts), n / sum(1 / t for t in ts)

    def waits(ts, n):
        s = math.ceil(n / len(ts)) * max(ts)
        return s, s

    def mean_async(ts, n):
        return math.ceil(n / len(ts)) * max(ts), n * (sum(ts) / len(ts)) / len(ts)

    def no_workers(ts, n):
        return n * max(ts), n / sum(1 / t for t in ts)

    cases = {"sync_mean": mean_sync, "async_waits": waits, "async_mean": mean_async,
             "sync_no_workers": no_workers, "wrong_type": lambda ts, n: 3.0, "not_done": lambda ts, n: None}
    for code, fn in cases.items():
        result = L.check_epoch_times(fn)
        assert not result.ok and result.code == code, (code, result.code)


def test_simulated_epoch_times_are_exact_here():
    assert L.simulated_epoch_times((1.0, 1.0, 2.0, 4.0), 44) == (44.0, 16.0)
