"""Checks for lesson 01's exercises on honest speed-ups (the section "why timings lie").

check_interleaved_rounds: the student writes the measurement itself, `fn(run_baseline,
run_variant, rounds)` -> (baseline_s, variant_s). The check hands it two instrumented functions and
observes the technique: each first call is made slow on purpose (a warm-up that must stay out of
the times), the calls must alternate round by round (A B, A B, ...: interleaved, not all A then
all B), and the reported times must be the times of those calls (baseline slower than variant,
each above the work's own sleep).

check_fair_speedup:

The task: two variants were measured interleaved, round by round (A B, A B, A B, ...);
`fn(baseline_s, variant_s)` gets each variant's time per round and returns how many times
faster the variant is: the median of the per-round ratios baseline_i / variant_i.
Pairing the rounds cancels what changed between rounds (a slow round slows both);
the median ignores a round that a burst of load hit.

The cases have an odd number of rounds, so every way of taking a median agrees
(statistics, NumPy, torch, sorting by hand), and each case is built so that the usual
mistakes give a different number than the right answer.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from fastrain_lib.lessons import checking
from fastrain_lib.lessons.checking import (CheckResult, call_student, check, describe, failed, passed,
                                           snapshot, unchanged)
from fastrain_lib.lessons.l01_gpu_vs_cpu.checks import _number

# (baseline seconds per round, variant seconds per round): a slow round for both, a burst on one
CASES = [
    ([12.0, 30.0, 10.0], [4.0, 15.0, 40.0]),
    ([0.020, 0.021, 0.060, 0.019, 0.020], [0.010, 0.0105, 0.031, 0.0095, 0.050]),
    ([1.0, 1.1, 0.9, 1.0, 3.0, 1.0, 1.05], [1.25, 1.3, 1.2, 1.2, 1.3, 5.0, 1.4]),
]


SEED = 2026


def generated_cases(seed: int = SEED, count: int = 4) -> list[tuple[list[float], list[float]]]:
    """Rounds of a variant that is r times faster (r not round), an odd number of rounds (3-9),
    a slow round for both and a burst on one side; redrawn until every usual mistake gives a
    number different from the right answer (so a rule fitted to the fixed cases fails here)."""
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        rounds, base, r = rng.choice((3, 5, 7, 9)), rng.uniform(1e-3, 2.0), rng.uniform(1.15, 6.0)
        load = [rng.choice((1.0, 1.0, 1.0, rng.uniform(1.5, 4.0))) for _ in range(rounds)]
        baseline = [base * f * rng.uniform(0.97, 1.03) for f in load]
        variant = [base / r * f * rng.uniform(0.97, 1.03) for f in load]
        burst = rng.randrange(rounds)
        (variant if rng.random() < 0.5 else baseline)[burst] *= rng.uniform(3.0, 8.0)
        right = right_answer(baseline, variant)
        if all(not _close(v, right) for values in mistakes(baseline, variant).values() for v in values):
            cases.append(([round(x, 9) for x in baseline], [round(x, 9) for x in variant]))
    return cases


# the message of each named mistake, written out (the unused-key test must see every key)
MISTAKE_KEYS = {"inverted": "noise.check.inverted", "unpaired_medians": "noise.check.unpaired_medians",
                "ratio_of_means": "noise.check.ratio_of_means", "mean_of_ratios": "noise.check.mean_of_ratios",
                "best_of": "noise.check.best_of", "one_round": "noise.check.one_round",
                "difference": "noise.check.difference"}


def right_answer(baseline: list[float], variant: list[float]) -> float:
    return statistics.median(b / v for b, v in zip(baseline, variant))


def mistakes(baseline: list[float], variant: list[float]) -> dict[str, list[float]]:
    """What the usual wrong answers give for one case (code -> values)."""
    ratios = [b / v for b, v in zip(baseline, variant)]
    return {
        "inverted": [statistics.median(v / b for b, v in zip(baseline, variant)), 1 / right_answer(baseline, variant)],
        "unpaired_medians": [statistics.median(baseline) / statistics.median(variant)],
        "ratio_of_means": [statistics.fmean(baseline) / statistics.fmean(variant), sum(baseline) / sum(variant)],
        "mean_of_ratios": [statistics.fmean(ratios)],
        "best_of": [min(baseline) / min(variant)],
        "one_round": [ratios[0], ratios[-1]],
        "difference": [statistics.median(b - v for b, v in zip(baseline, variant)),
                       statistics.median(baseline) - statistics.median(variant)],
    }


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def reordered(case: tuple[list[float], list[float]]) -> tuple[list[float], list[float]]:
    """The same rounds in another order (the pairs kept): the same right answer, another input."""
    baseline, variant = case
    order = list(range(len(baseline)))[::-1]
    order = order[1:] + order[:1]
    return [baseline[i] for i in order], [variant[i] for i in order]


# The check's own reference is the answer: an answer that calls it fails (the task text says so).
FORBIDDEN = ["fastrain_lib.lessons.l01_gpu_vs_cpu.noise_checks.right_answer"]


@check
def check_fair_speedup(fn) -> CheckResult:
    """fn(baseline_s, variant_s) -> median over rounds of baseline_s[i] / variant_s[i]."""
    cases = CASES + generated_cases()
    for baseline, variant in cases + [reordered(cases[1])]:  # one case again, its rounds in another order
        b, v = list(baseline), list(variant)
        before = snapshot((b, v))
        result, problem = call_student(fn, b, v, forbid=FORBIDDEN)
        if problem is not None:
            return problem
        if not unchanged((b, v), before):  # e.g. .sort() in place: the rounds lose their pairs
            return failed("changed_input", "noise.check.changed_input")
        got = _number(result)
        if got is None:
            return failed("not_number", "noise.check.not_number", kind=describe(result))
        expected = right_answer(baseline, variant)
        if _close(got, expected):
            continue
        for code, values in mistakes(baseline, variant).items():
            if any(_close(got, value) for value in values):
                return failed(code, MISTAKE_KEYS[code], expected=expected, got=got, rounds=len(baseline))
        return failed("wrong_value", "noise.check.wrong_value", expected=expected, got=got,
                      baseline=baseline, variant=variant)
    return passed("noise.check.correct")


# ---------------------------------------------------------------- measuring the rounds yourself

WARM_S = 0.15  # the first call of each function: a warm-up (caches, allocation, compiling)
BASE_S, VARIANT_S = 0.006, 0.002  # later calls: the variant is about 3× faster
# Every later call sleeps a little longer than the one before of the same function (STEP_S more), so each
# call's own duration, timed by the check on checking.clock, tells which call a reported time belongs to.
STEP_S = 0.0015
# A reported time belongs to a call when it is at least the call's own duration (less a little) and at most
# MATCH_SLACK_S more (the answer's clock read around the call; a busy machine adds a few hundred µs).
MATCH_SLACK_S = 0.0007
ROUND_CASES = (5, 4)  # rounds asked for: odd and even
# A case whose only fault is times too long for their calls is tried again (a busy machine descheduled a right
# answer for more than MATCH_SLACK_S between its clock read and the call: seen in a clean-clone make test, 2.09 ms
# for a 2-ms call); a clock patched to run slow fails every try.
TRIES = 3


class _Spy:
    """A function to time that notes every call in a shared log with its start and end on the check's own
    clock (checking.clock, bound before any answer ran); its first call is slow, each later one a little
    longer than the last."""

    def __init__(self, name: str, seconds: float, log: list):
        self.name, self.seconds, self.log, self.calls = name, seconds, log, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        start = checking.clock()
        time.sleep(WARM_S if self.calls == 1 else self.seconds + STEP_S * (self.calls - 2))
        self.log.append((self.name, start, checking.clock()))


def _times(value, rounds: int) -> list[float] | None:
    """A list of `rounds` numbers (list, tuple, array or tensor of them), or None."""
    try:
        items = list(value)
    except Exception:  # noqa: BLE001 - not a sequence
        return None
    numbers = [_number(x) for x in items]
    return numbers if len(numbers) == rounds and all(x is not None for x in numbers) else None


def stretches(log: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """The log as stretches of calls to the same function in a row: (name, shortest call, longest call),
    each call's duration read on the check's clock. A B B A -> [A, B B, A]."""
    found: list[list] = []
    for name, start, end in log:
        if found and found[-1][0] == name:
            found[-1][1], found[-1][2] = min(found[-1][1], end - start), max(found[-1][2], end - start)
        else:
            found.append([name, end - start, end - start])
    return [tuple(x) for x in found]


def timed_stretches(runs: list[tuple[str, float, float]], name: str, reported: list[float]):
    """For each reported time of `name`, the index of the stretch of calls it timed: a stretch of that
    function whose calls (on the check's clock) last as long as the time says (one call, or a median or
    mean of several in a row). Returns (indices, None), or (None, "none") when a time belongs to no call,
    or (None, "shared") when two rounds' times come from one stretch (all A, then all B)."""
    found: list[int] = []
    for value in reported:
        fits = [i for i, (who, low, high) in enumerate(runs)
                if who == name and low - 1e-4 <= value <= high + MATCH_SLACK_S]
        if not fits:
            return None, "none"
        free = [i for i in fits if i not in found]
        if not free:
            return None, "shared"
        found.append(free[0])
    return found, None


def _judge_rounds(fn, rounds: int) -> tuple[CheckResult | None, bool]:
    """One case of check_interleaved_rounds: (the failure, or None when it passed; whether the only fault was
    times longer than the calls they match, which a busy machine gives a right answer when it deschedules it
    between its clock read and the call: the case is then tried again, up to TRIES times)."""
    log: list[tuple[str, float, float]] = []
    base, variant = _Spy("baseline", BASE_S, log), _Spy("variant", VARIANT_S, log)
    result, problem = call_student(fn, base, variant, rounds)
    if problem is not None:
        return problem, False
    pair = list(result) if isinstance(result, (tuple, list)) and len(result) == 2 else None
    times = [_times(side, rounds) for side in pair] if pair else [None]
    if any(t is None for t in times):
        return failed("rounds_shape", "lesson01.check.rounds_shape", rounds=rounds, kind=describe(result)), False
    baseline_s, variant_s = times
    if min(baseline_s + variant_s) >= 1.0:  # a sleep of 2-6 ms reported as 2-6: milliseconds
        return failed("rounds_units", "lesson01.check.rounds_units", got=min(baseline_s + variant_s)), False
    if min(base.calls, variant.calls) < rounds:
        return failed("rounds_too_few", "lesson01.check.rounds_too_few", rounds=rounds, base=base.calls,
                      variant=variant.calls), False
    if max(baseline_s + variant_s) >= WARM_S * 0.6:
        return failed("rounds_warmup_timed", "lesson01.check.rounds_warmup_timed", warm_ms=WARM_S * 1e3,
                      worst_ms=max(baseline_s + variant_s) * 1e3), False
    runs = stretches(log)
    (calls_b, why_b), (calls_v, why_v) = timed_stretches(runs, "baseline", baseline_s), \
        timed_stretches(runs, "variant", variant_s)
    if "none" in (why_b, why_v):
        swapped = timed_stretches(runs, "variant", baseline_s)[1] != "none" and \
            timed_stretches(runs, "baseline", variant_s)[1] != "none"
        if swapped:
            return failed("rounds_swapped", "lesson01.check.rounds_swapped"), False
        shortest = {name: min(low for who, low, _high in runs if who == name) for name in ("baseline", "variant")}
        too_long = all(v >= shortest["baseline"] - 1e-4 for v in baseline_s) and \
            all(v >= shortest["variant"] - 1e-4 for v in variant_s)
        return failed("rounds_wrong_times", "lesson01.check.rounds_wrong_times", base_ms=BASE_S * 1e3,
                      variant_ms=VARIANT_S * 1e3, got_ms=min(baseline_s + variant_s) * 1e3), too_long
    timed_runs = len(set(calls_b or []) | set(calls_v or []))
    not_interleaved = failed("rounds_not_interleaved", "lesson01.check.rounds_not_interleaved",
                             runs=timed_runs, rounds=rounds)
    if "shared" in (why_b, why_v):  # several rounds timed in one stretch of the same function
        return not_interleaved, False
    if any(abs(calls_b[i] - calls_v[i]) != 1 for i in range(rounds)):  # round i: its A and its B side by side
        return not_interleaved, False
    return None, False


@check
def check_interleaved_rounds(fn) -> CheckResult:
    """fn(run_baseline, run_variant, rounds) -> (baseline_s, variant_s): one warm-up call of each
    first (not timed), then `rounds` rounds, each timing run_baseline once and run_variant once.

    Interleaving is judged on the TIMED calls: every reported time is matched to the call it timed (each call
    lasts a little longer than the one before, timed by the check itself), and those calls, in the order they
    ran, must alternate A B A B. All-A-then-all-B timed, followed by an untimed A B A B, fails; so do times
    that belong to no call (made up, or read on a patched clock). A round's time may be one call or the median
    of several calls in a row (bench.measure per round)."""
    for rounds in ROUND_CASES + ROUND_CASES[:1]:  # the first case again: an answer cached by its input fails
        for _try in range(TRIES):
            problem, only_too_long = _judge_rounds(fn, rounds)
            if not only_too_long:
                break
        if problem is not None:
            return problem
    return passed("noise.check.correct")
