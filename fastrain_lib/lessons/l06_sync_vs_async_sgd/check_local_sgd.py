"""Lesson 06, task 4: the all-reduces of local SGD with period H, and the share saved against H = 1,
compared with the rule the real worker (async_sgd/local_sgd.py) uses; that rule is forbidden."""

from __future__ import annotations

import math
import random

from fastrain_lib.lessons.checking import (
    CheckResult,
    as_integer,
    call_student,
    check,
    describe,
    failed,
    passed,
    seeded_cases,
)
from fastrain_lib.lessons.l06_sync_vs_async_sgd.check_common import SEED, _again, _pair

# (steps, H): multiples of H and not (the last, short period is averaged too), H = 1, H > steps
COMM_CASES = [(30, 4), (100, 10), (30, 7), (10, 1), (7, 8), (12, 5), (1000, 64), (1, 1), (1, 5)]  # one step too


def _comm_case(rng: random.Random):
    """steps 1-500 and H from 1 to past steps: multiples, non-multiples, H == steps, H > steps."""
    steps = rng.randint(1, 500)
    kind = rng.randrange(4)
    period = {0: rng.randint(1, max(1, steps)), 1: steps, 2: steps + rng.randint(1, 9),
              3: rng.choice([d for d in range(1, steps + 1) if steps % d == 0])}[kind]
    return steps, period


def comm_cases() -> list:
    """The hand-written cases, eight drawn ones, then three again (later, another order)."""
    return _again(seeded_cases(_comm_case, n=8, seed=SEED, fixed=COMM_CASES), picks=(-1, 2, 0))


def _comm_forbidden() -> list:
    """The real worker's rule (the answer, in the library) and the check's count of it."""
    from fastrain_lib.async_sgd import local_sgd

    return [local_sgd.rounds, local_sgd.averages_after, counted_rounds]


def _first(answer):
    """The first of the two values as the answer gave it (its own type)."""
    try:
        return answer[0] if isinstance(answer, (list, tuple)) else answer.reshape(-1)[0]
    except Exception:  # noqa: BLE001
        return None


def counted_rounds(steps: int, period: int) -> int:
    """What the real worker counts: one all-reduce after every step where averages_after says so."""
    from fastrain_lib.async_sgd import local_sgd

    return sum(local_sgd.averages_after(step, steps, period) for step in range(steps))


@check
def check_local_sgd_comm(comm) -> CheckResult:
    """`comm(steps, H)` -> (rounds, saved): the all-reduces of local SGD with averaging every H
    steps (and once at the end), and the share of communication saved against H = 1."""
    for steps, period in comm_cases():
        answer, error = call_student(comm, steps, period, forbid=_comm_forbidden())
        if error is not None:
            return error
        pair = _pair(answer)
        if pair is None:
            return failed("wrong_type", "lesson06.real_check.type", got=describe(answer))
        rounds, saved = pair
        expected = counted_rounds(steps, period)
        # a whole number is asked: 8 (int, NumPy int, Fraction(8, 1), an int tensor) yes, 8.0 no
        if math.isclose(rounds, expected, abs_tol=1e-9) and as_integer(_first(answer)) is None:
            return failed("rounds_not_whole", "lesson06.real_check.rounds_float", got=describe(_first(answer)))
        if not math.isclose(rounds, expected, abs_tol=1e-9):
            if math.isclose(rounds, steps // period, abs_tol=1e-9):
                return failed("floor", "lesson06.real_check.floor", steps=steps, h=period)
            if math.isclose(rounds, steps / period, abs_tol=1e-9):
                return failed("not_int", "lesson06.real_check.not_int")
            if math.isclose(rounds, steps * period, abs_tol=1e-9):
                return failed("times", "lesson06.real_check.times")
            return failed("rounds_wrong", "lesson06.real_check.rounds_wrong", steps=steps, h=period, expected=expected,
                          got=describe(rounds))
        true_saved = 1 - expected / steps
        if not math.isclose(saved, true_saved, abs_tol=1e-6):
            if math.isclose(saved, expected / steps, abs_tol=1e-6):
                return failed("saved_inverted", "lesson06.real_check.saved_inverted")
            if math.isclose(saved, 1 - 1 / period, abs_tol=1e-6):
                return failed("saved_1_over_h", "lesson06.real_check.saved_1_over_h")
            return failed("saved_wrong", "lesson06.real_check.saved_wrong", steps=steps, h=period, rounds=expected,
                          expected=true_saved)
    steps, period = COMM_CASES[2]
    rounds = counted_rounds(steps, period)
    return passed("lesson06.real_check.ok", steps=steps, h=period, rounds=rounds, saved=1 - rounds / steps)
