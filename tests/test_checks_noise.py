"""The exercise check of lesson 01's "why timings lie": a fair speed-up from interleaved rounds."""

from __future__ import annotations

import math
import statistics
import time
from fractions import Fraction

import numpy as np
import torch
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.lessons.l01_gpu_vs_cpu import noise_checks as C

CHECK = C.check_fair_speedup


def solution(baseline_s, variant_s):
    return statistics.median(b / v for b, v in zip(baseline_s, variant_s))


def calls_the_checks_reference(baseline_s, variant_s):
    """Issue 39: the check's own reference is the answer; calling it is forbidden."""
    return C.right_answer(list(baseline_s), list(variant_s))


_LOOKUP = {(tuple(b), tuple(v)): solution(b, v) for b, v in C.CASES + C.generated_cases()}


def lookup_of_the_checks_cases(baseline_s, variant_s):
    """Issue 39: the answers of the cases the check feeds, looked up by input; any other input: a wrong rule."""
    return _LOOKUP.get((tuple(baseline_s), tuple(variant_s)), statistics.fmean(baseline_s) / statistics.fmean(variant_s))


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


def fitted(baseline_s, variant_s):
    """Right on the three fixed cases, median / median elsewhere: the generated cases catch it."""
    if [list(baseline_s), list(variant_s)] in [[list(b), list(v)] for b, v in C.CASES]:
        return solution(baseline_s, variant_s)
    return statistics.median(baseline_s) / statistics.median(variant_s)


def sorts_copies_only(baseline_s, variant_s):  # sorting copies is fine: the inputs stay as they were
    return solution(list(baseline_s), list(variant_s))


def as_fraction(baseline_s, variant_s):
    return statistics.median(Fraction(b) / Fraction(v) for b, v in zip(baseline_s, variant_s))


def scales_in_place(baseline_s, variant_s):
    for i, x in enumerate(baseline_s):
        baseline_s[i] = x * 1000  # to milliseconds, in the caller's list
    return solution(baseline_s, [v * 1000 for v in variant_s])


CASES = [
    right(CHECK, solution, "statistics.median of the ratios"),
    wrong(CHECK, calls_the_checks_reference, "forbidden_call", "the check's own reference (noise_checks.right_answer)"),
    wrong(CHECK, lookup_of_the_checks_cases, "ratio_of_means", "the check's cases looked up by input"),
    right(CHECK, as_fraction, "an exact Fraction"),
    right(CHECK, sorts_copies_only, "works on copies"),
    wrong(CHECK, fitted, "unpaired_medians", "fitted to the fixed cases"),
    wrong(CHECK, scales_in_place, "changed_input", "rescales the caller's list"),
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


def test_generated_cases_are_seeded_odd_and_tell_every_mistake_apart():
    cases = C.generated_cases()
    assert cases == C.generated_cases() and cases != C.generated_cases(7)
    for baseline, variant in cases:
        assert len(baseline) % 2 == 1 and len(baseline) == len(variant)
        expected = C.right_answer(baseline, variant)
        for code, values in C.mistakes(baseline, variant).items():
            assert all(not math.isclose(v, expected, rel_tol=1e-6) for v in values), code


# ---------------------------------------------------------------- measuring the rounds: the technique observed

ROUNDS = C.check_interleaved_rounds


def rounds_solution(run_baseline, run_variant, rounds):
    run_baseline()
    run_variant()
    baseline_s, variant_s = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        run_baseline()
        baseline_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        run_variant()
        variant_s.append(time.perf_counter() - start)
    return baseline_s, variant_s


def rounds_with_bench(run_baseline, run_variant, rounds):
    """Valid: each round timed with bench.measure (its own warm-up and median), as a NumPy array."""
    from fastrain_lib.measure import bench

    pairs = [(bench.measure(run_baseline, "a", warmup=1, min_run_time=0.01).median_s,
              bench.measure(run_variant, "b", warmup=1, min_run_time=0.01).median_s) for _ in range(rounds)]
    return np.array([p[0] for p in pairs]), tuple(torch.tensor(p[1]) for p in pairs)


def rounds_no_warmup(run_baseline, run_variant, rounds):
    baseline_s, variant_s = [], []
    for _ in range(rounds):
        for fn, out in ((run_baseline, baseline_s), (run_variant, variant_s)):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return baseline_s, variant_s


def rounds_all_a_then_all_b(run_baseline, run_variant, rounds):
    run_baseline()
    run_variant()
    times = {}
    for name, fn in (("a", run_baseline), ("b", run_variant)):
        times[name] = []
        for _ in range(rounds):
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times["a"], times["b"]


def rounds_made_up(run_baseline, run_variant, rounds):
    """Right shape, no measuring at all: numbers fitted to look plausible."""
    return [0.002] * rounds, [0.001] * rounds


def rounds_swapped(run_baseline, run_variant, rounds):
    b, v = rounds_solution(run_baseline, run_variant, rounds)
    return v, b


def rounds_in_ms(run_baseline, run_variant, rounds):
    b, v = rounds_solution(run_baseline, run_variant, rounds)
    return [x * 1000 for x in b], [x * 1000 for x in v]


def rounds_clock_beside_the_call(run_baseline, run_variant, rounds):
    """Calls both, but reads the clock around nothing."""
    run_baseline()
    run_variant()
    baseline_s, variant_s = [], []
    for _ in range(rounds):
        run_baseline()
        start = time.perf_counter()
        baseline_s.append(time.perf_counter() - start)
        run_variant()
        start = time.perf_counter()
        variant_s.append(time.perf_counter() - start)
    return baseline_s, variant_s


def rounds_fixed_count(run_baseline, run_variant, rounds):
    return rounds_solution(run_baseline, run_variant, 5)  # fitted to 5 rounds


def rounds_timed_apart_then_untimed_interleaved(run_baseline, run_variant, rounds):
    """Issue 39: all A then all B TIMED, followed by an untimed A B A B (the call log alone looks interleaved)."""
    baseline_s, variant_s = rounds_all_a_then_all_b(run_baseline, run_variant, rounds)
    for _ in range(rounds):
        run_baseline()
        run_variant()
    return baseline_s, variant_s


def rounds_patched_clock(run_baseline, run_variant, rounds):
    """Issue 39: time.perf_counter replaced by a clock that runs at half speed: every time looks halved."""
    real = time.perf_counter
    time.perf_counter = lambda: real() / 2
    try:
        return rounds_solution(run_baseline, run_variant, rounds)
    finally:
        time.perf_counter = real


def rounds_clock_fast(run_baseline, run_variant, rounds):
    """time.perf_counter replaced by a clock that runs at double speed: every time looks doubled, too long for
    its call on every try (the check tries such a case again, as it does for a descheduled right answer)."""
    real = time.perf_counter
    time.perf_counter = lambda: real() * 2
    try:
        return rounds_solution(run_baseline, run_variant, rounds)
    finally:
        time.perf_counter = real


_DESCHEDULED: list[int] = []


def rounds_descheduled_once(run_baseline, run_variant, rounds):
    """Correct, on a busy machine: the first time it is called, 4 ms pass between its clock read and its first
    timed call (another program held the core), as in a clean-clone make test; the check tries the case again."""
    calls = []

    def baseline_after_a_pause():
        calls.append(1)
        if len(calls) == 2 and not _DESCHEDULED:  # the first timed call (the first call is the warm-up)
            _DESCHEDULED.append(1)
            time.sleep(0.004)
        run_baseline()

    return rounds_solution(baseline_after_a_pause, run_variant, rounds)


def rounds_variant_first(run_baseline, run_variant, rounds):
    """Correct, unusual: in each round the variant first, then the baseline; the warm-up in another order;
    times read on time.monotonic."""
    run_variant()
    run_baseline()
    baseline_s, variant_s = [], []
    for _ in range(rounds):
        for fn, out in ((run_variant, variant_s), (run_baseline, baseline_s)):
            start = time.monotonic()
            fn()
            out.append(time.monotonic() - start)
    return tuple(baseline_s), tuple(variant_s)


_CACHE: dict = {}


def rounds_cached_by_input(run_baseline, run_variant, rounds):
    """Measures once per number of rounds, then hands the same times back (cached by its input)."""
    if rounds not in _CACHE:
        _CACHE[rounds] = rounds_solution(run_baseline, run_variant, rounds)
    return _CACHE[rounds]


ROUND_CASES = [
    right(ROUNDS, rounds_solution, "perf_counter around each call"),
    wrong(ROUNDS, rounds_timed_apart_then_untimed_interleaved, "rounds_not_interleaved",
          "all A then all B timed, then an untimed A B A B"),
    wrong(ROUNDS, rounds_patched_clock, "rounds_wrong_times", "time.perf_counter patched to run slow"),
    wrong(ROUNDS, rounds_clock_fast, "rounds_wrong_times", "time.perf_counter patched to run fast: every try too long"),
    right(ROUNDS, rounds_descheduled_once, "descheduled 4 ms once between the clock read and the call"),
    right(ROUNDS, rounds_variant_first, "variant first in each round, time.monotonic, tuples"),
    wrong(ROUNDS, rounds_cached_by_input, "rounds_too_few", "cached by the number of rounds"),
    right(ROUNDS, rounds_with_bench, "bench.measure per round, array and tensors"),
    wrong(ROUNDS, rounds_no_warmup, "rounds_warmup_timed", "no warm-up"),
    wrong(ROUNDS, rounds_all_a_then_all_b, "rounds_not_interleaved", "all A, then all B"),
    wrong(ROUNDS, rounds_made_up, "rounds_too_few", "numbers without measuring"),
    wrong(ROUNDS, rounds_swapped, "rounds_swapped", "lists swapped"),
    wrong(ROUNDS, rounds_in_ms, "rounds_units", "milliseconds"),
    wrong(ROUNDS, rounds_clock_beside_the_call, "rounds_wrong_times", "the clock read around nothing"),
    wrong(ROUNDS, rounds_fixed_count, "rounds_shape", "always 5 rounds"),
    wrong(ROUNDS, lambda a, b, n: sum(rounds_solution(a, b, n)[0]), "rounds_shape", "a sum"),
    wrong(ROUNDS, lambda a, b, n: None, "not_done", "stub"),
]

test_round_case = table_test(ROUND_CASES)
test_round_coverage = coverage_test(ROUND_CASES, [ROUNDS])


def test_the_noise_checks_never_raise():
    """The Hypothesis answers of tests/test_checks_never_raise.py (which lists the lessonNN checks), on
    the two checks the exercise calls through noise_checks."""
    from hypothesis import HealthCheck, given, settings
    from test_checks_never_raise import answers

    from fastrain_lib.lessons.checking import CheckResult

    def run(check):
        @settings(max_examples=6, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])
        @given(answer=answers)
        def never_raises(answer):
            result = check(answer)
            assert isinstance(result, CheckResult) and result.message.strip() and isinstance(result.ok, bool)

        never_raises()

    run(C.check_fair_speedup)
    run(C.check_interleaved_rounds)
