"""The exercise check of lesson 01's "why timings lie": a fair speed-up from interleaved rounds."""

from __future__ import annotations

import math
import statistics

import numpy as np
import torch
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.lessons.l01_gpu_vs_cpu import noise_checks as C

CHECK = C.check_fair_speedup


def solution(baseline_s, variant_s):
    return statistics.median(b / v for b, v in zip(baseline_s, variant_s))


def with_numpy(baseline_s, variant_s):
    return np.median(np.array(baseline_s) / np.array(variant_s))


def with_torch(baseline_s, variant_s):
    return torch.tensor(baseline_s, dtype=torch.float64).div(torch.tensor(variant_s, dtype=torch.float64)).median()


def by_hand(baseline_s, variant_s):
    ratios = sorted(b / v for b, v in zip(baseline_s, variant_s))
    return ratios[len(ratios) // 2]


def geometric(baseline_s, variant_s):  # exp(median(log r)) is the median of r (log is monotone)
    return math.exp(statistics.median(math.log(b / v) for b, v in zip(baseline_s, variant_s)))


def sorts_in_place(baseline_s, variant_s):
    baseline_s.sort()
    variant_s.sort()
    return solution(baseline_s, variant_s)


CASES = [
    right(CHECK, solution, "statistics.median of the ratios"),
    right(CHECK, with_numpy, "numpy"),
    right(CHECK, with_torch, "a torch tensor"),
    right(CHECK, by_hand, "sorted by hand"),
    right(CHECK, geometric, "exp of the median log-ratio"),
    wrong(CHECK, lambda b, v: solution(v, b), "inverted", "variant / baseline"),
    wrong(CHECK, lambda b, v: statistics.median(b) / statistics.median(v), "unpaired_medians", "median / median"),
    wrong(CHECK, lambda b, v: sum(b) / sum(v), "ratio_of_means", "sum / sum"),
    wrong(CHECK, lambda b, v: statistics.mean(b) / statistics.mean(v), "ratio_of_means", "mean / mean"),
    wrong(CHECK, lambda b, v: statistics.mean(x / y for x, y in zip(b, v)), "mean_of_ratios", "mean of ratios"),
    wrong(CHECK, lambda b, v: min(b) / min(v), "best_of", "best of each"),
    wrong(CHECK, lambda b, v: b[0] / v[0], "one_round", "first round"),
    wrong(CHECK, lambda b, v: b[-1] / v[-1], "one_round", "last round"),
    wrong(CHECK, lambda b, v: statistics.median(x - y for x, y in zip(b, v)), "difference", "difference"),
    wrong(CHECK, sorts_in_place, "changed_input", "sorts the lists in place"),
    wrong(CHECK, lambda b, v: statistics.median(x / y for x, y in zip(b, v[1:])), "wrong_value", "rounds off by one"),
    wrong(CHECK, lambda b, v: [x / y for x, y in zip(b, v)], "not_number", "the list of ratios"),
    wrong(CHECK, lambda b, v: None, "not_done", "returns None"),
    wrong(CHECK, lambda b, v: 1 / 0, "crashed", "raises"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [CHECK])


def test_every_usual_mistake_differs_from_the_right_answer_in_the_first_case():
    baseline, variant = C.CASES[0]
    expected = C.right_answer(baseline, variant)
    for code, values in C.mistakes(baseline, variant).items():
        assert all(not math.isclose(v, expected, rel_tol=1e-6) for v in values), code
    assert all(len(b) % 2 == 1 for b, _ in C.CASES)  # odd rounds: every median agrees
