"""Check for lesson 01's exercise on honest speed-ups (the section "why timings lie").

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
import statistics

from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, describe, failed, passed

# (baseline seconds per round, variant seconds per round): a slow round for both, a burst on one
CASES = [
    ([12.0, 30.0, 10.0], [4.0, 15.0, 40.0]),
    ([0.020, 0.021, 0.060, 0.019, 0.020], [0.010, 0.0105, 0.031, 0.0095, 0.050]),
    ([1.0, 1.1, 0.9, 1.0, 3.0, 1.0, 1.05], [1.25, 1.3, 1.2, 1.2, 1.3, 5.0, 1.4]),
]


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


@check
def check_fair_speedup(fn) -> CheckResult:
    """fn(baseline_s, variant_s) -> median over rounds of baseline_s[i] / variant_s[i]."""
    for baseline, variant in CASES:
        b, v = list(baseline), list(variant)
        result, problem = call_student(fn, b, v)
        if problem is not None:
            return problem
        if b != baseline or v != variant:  # e.g. .sort() in place: the rounds lose their pairs
            return failed("changed_input", "noise.check.changed_input")
        got = as_number(result)
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
