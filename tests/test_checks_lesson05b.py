"""Exercise 05b's checks: each is tested against wrong answers a student could write (and must
fail with the code naming the mistake) and valid alternative answers (and must pass); with the
numbers measured in real processes; never raising, whatever the answer is."""

import statistics

import numpy as np
import pytest
from _processes import live_children
from checkcases import coverage_test, right, table_test, wrong
from hypothesis import HealthCheck, given, settings
from test_checks_never_raise import answers

from fastrain_lib.lessons.checking import CheckResult
from fastrain_lib.lessons.l05b_ddp_in_depth import checks as C
from fastrain_lib.distributed.dataparallel import SERIAL

# ------------------------------------------------------------------ task 1: compare()


def solution(dp, ddp):
    dp_step = sum(dp.values())
    ddp_step = max(sum(rank.values()) for rank in ddp)
    serial = dp["scatter"] + dp["replicate"] + dp["gather_loss"] + dp["reduce_grads"] + dp["optimizer"]
    return {"dp_step_s": dp_step, "ddp_step_s": ddp_step, "faster": "ddp" if ddp_step < dp_step else "dp",
            "serial_share": serial / dp_step}


def alternative(dp, ddp):
    # numpy, a loop, parallel phases subtracted, upper-case names, an extra key: all fine
    totals = np.array([np.sum(list(r.values())) for r in ddp])
    step = float(np.sum(list(dp.values())))
    parallel = dp["forward"] + dp["backward"]
    slowest = totals.max()
    return {"dp_step_s": step, "ddp_step_s": slowest, "faster": "DDP" if slowest < step else "DataParallel",
            "serial_share": np.float64((step - parallel) / step), "note": "the slowest rank sets the pace"}


def _with(**changes):
    def answer(dp, ddp):
        out = solution(dp, ddp)
        for key, fn in changes.items():
            out[key] = fn(dp, ddp, out)
        return out
    return answer


def mutating(dp, ddp):
    out = solution(dp, ddp)
    dp.pop("optimizer")
    return out


CASES = [
    right(C.check_compare, solution, "solution"),
    right(C.check_compare, alternative, "numpy_upper_case_extra_key"),
    wrong(C.check_compare, _with(ddp_step_s=lambda dp, ddp, o: statistics.mean(sum(r.values()) for r in ddp)),
          "ddp_mean", "mean over ranks"),
    wrong(C.check_compare, _with(ddp_step_s=lambda dp, ddp, o: sum(sum(r.values()) for r in ddp)),
          "ddp_sum", "sum over ranks"),
    wrong(C.check_compare, _with(ddp_step_s=lambda dp, ddp, o: sum(ddp[0].values())), "ddp_rank0", "rank 0 only"),
    wrong(C.check_compare, _with(ddp_step_s=lambda dp, ddp, o: sum(max(r[k] for r in ddp) for k in ddp[0])),
          "ddp_phase_max", "max of each phase, added"),
    wrong(C.check_compare, _with(faster=lambda dp, ddp, o: "ddp"), "faster_wrong", "always ddp"),
    wrong(C.check_compare, _with(faster=lambda dp, ddp, o: "dp" if o["faster"] == "ddp" else "ddp"),
          "faster_wrong", "inverted"),
    wrong(C.check_compare, _with(serial_share=lambda dp, ddp, o: 1 - o["serial_share"]), "share_parallel",
          "the threads' share"),
    wrong(C.check_compare, _with(serial_share=lambda dp, ddp, o: 100 * o["serial_share"]), "share_percent", "percent"),
    wrong(C.check_compare, _with(serial_share=lambda dp, ddp, o: (dp["reduce_grads"] + dp["optimizer"]) / o["dp_step_s"]),
          "share_wrong", "only the phases after backward"),
    wrong(C.check_compare, _with(serial_share=lambda dp, ddp, o: sum(dp[k] for k in SERIAL) / o["ddp_step_s"]),
          "share_wrong", "divided by DDP's step"),
    wrong(C.check_compare, _with(dp_step_s=lambda dp, ddp, o: dp["forward"] + dp["backward"]), "dp_wrong",
          "only forward + backward"),
    wrong(C.check_compare, _with(faster=lambda dp, ddp, o: "DistributedDataParallel!"), "faster_name", "odd name"),
    wrong(C.check_compare, lambda dp, ddp: [1, 2, 3, 4], "not_dict", "a list"),
    wrong(C.check_compare, lambda dp, ddp: {"dp_step_s": 1.0}, "missing_key", "keys missing"),
    wrong(C.check_compare, _with(ddp_step_s=lambda dp, ddp, o: "0.05 s"), "not_number", "a string"),
    wrong(C.check_compare, mutating, "mutated", "pops a phase"),
    wrong(C.check_compare, lambda dp, ddp: None, "not_done", "the stub"),
    # issue 28: generated tables put the slowest rank anywhere, so "the last rank's time" fails
    wrong(C.check_compare, _with(ddp_step_s=lambda dp, ddp, o: sum(ddp[-1].values())), "ddp_last", "last rank"),
    # fitted to the fixed examples: right on the three hand-written tables, wrong on generated ones
    wrong(C.check_compare, lambda dp, ddp: _fitted_compare(dp, ddp), "ddp_wrong", "fitted to CASES"),
    right(C.check_compare, _with(serial_share=lambda dp, ddp, o: _fraction_share(dp)), "Fraction share"),
    right(C.check_compare, _with(dp_step_s=lambda dp, ddp, o: __import__("torch").tensor(o["dp_step_s"],
                                                                                          dtype=__import__("torch").float64)),
          "0-d tensor"),
]


def _fitted_compare(dp, ddp):
    """Looks up the answer for the three fixed tables, guesses rank 0 otherwise."""
    for fixed_dp, fixed_ddp in C.CASES:
        if dp == fixed_dp and [dict(r) for r in ddp] == fixed_ddp:
            return _right_compare(dp, ddp)  # the course's reference is forbidden inside an answer
    return {**_right_compare(dp, ddp), "ddp_step_s": sum(ddp[0].values()) * 1.01}


def _fraction_share(dp):
    from fractions import Fraction

    total = sum(Fraction(v) for v in dp.values())
    return sum(Fraction(dp[k]) for k in SERIAL) / total

# ------------------------------------------------------------------ task 2: the ring formula


def ring(alpha, beta, p, n):
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta


def ring_phases(alpha, beta, p, n):
    # reduce-scatter then all-gather, each (p−1) messages of n/p bytes; returns a NumPy scalar
    one_phase = sum(alpha + (n / p) * beta for _ in range(p - 1))
    return np.float64(2 * one_phase)


RING_CASES = [
    right(C.check_allreduce_time, ring, "formula"),
    right(C.check_allreduce_time, ring_phases, "two_phases_loop"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: (p - 1) * a + (p - 1) / p * n * b, "no_factor_two", "one phase"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * (p - 1) * a + 2 * (p - 1) * n * b, "no_share", "whole tensor"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * p * a + 2 * n * b, "p_not_p_minus_1", "p steps"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: a + 2 * (p - 1) / p * n * b, "alpha_once", "latency once"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * (p - 1) * (a + n * b), "no_share", "parameter server"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * (p - 1) * a + n / p * b, "ring_wrong", "one chunk once"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * (a + n * b / p), "ring_wrong", "p ignored"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: "1 ms", "not_number", "a string"),
    # issue 28: // on sizes that p does not divide; p = 1 and β = 0 boundaries; exact fractions
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * (p - 1) * a + (2 * (p - 1) * n // p) * b,
          "integer_division", "// for the bytes per rank"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: 2 * (p - 1) * a + 2 * (p - 1) / p * n * b if p > 1 else a,
          "ring_wrong", "p = 1 still pays α"),
    wrong(C.check_allreduce_time, lambda a, b, p, n: _ring_table(a, b, p, n), "ring_wrong", "fitted to RING_CASES"),
    right(C.check_allreduce_time, lambda a, b, p, n: _fraction_ring(a, b, p, n), "Fraction"),
    right(C.check_allreduce_time, lambda a, b, p, n: __import__("torch").tensor(ring(a, b, p, n), dtype=__import__("torch").float64),
          "0-d tensor"),
]


def _ring_table(a, b, p, n):
    known = {(c[2], c[3]): 2 * (c[2] - 1) * c[0] + 2 * (c[2] - 1) / c[2] * c[3] * c[1] for c in C.RING_CASES}
    return known.get((p, n), 2 * p * a)


def _fraction_ring(a, b, p, n):
    from fractions import Fraction

    return 2 * (p - 1) * Fraction(a) + Fraction(2 * (p - 1), p) * n * Fraction(b)

test_case = table_test(CASES + RING_CASES)
test_coverage = coverage_test(CASES + RING_CASES, [C.check_compare, C.check_allreduce_time])


def test_generated_tables_put_the_slowest_rank_first_middle_and_last_and_both_winners():
    places, winners = set(), set()
    for dp, ddp in C.compare_cases()[len(C.CASES):]:
        totals = [sum(r.values()) for r in ddp]
        where = totals.index(max(totals))
        places.add("first" if where == 0 else "last" if where == len(ddp) - 1 else "middle")
        winners.add(C.reference_compare(dp, ddp)["faster"])
    assert places == {"first", "middle", "last"} and winners == {"ddp", "dp"}
    cases = C.ring_cases()
    assert any(p == 1 for _, _, p, _ in cases) and any(n % p for _, _, p, n in cases if p > 1)
    assert any(b == 0.0 for _, b, _, _ in cases)


def test_the_fixed_tables_really_separate_the_mistakes():
    # each mistake must change an answer in at least one table, or its wrong answer would pass
    ref = [C.reference_compare(dp, ddp) for dp, ddp in C.CASES]
    assert {r["faster"] for r in ref} == {"ddp", "dp"}
    for dp, ddp in C.CASES:
        totals = [sum(r.values()) for r in ddp]
        assert max(totals) == pytest.approx(C.reference_compare(dp, ddp)["ddp_step_s"])
    dp, ddp = C.CASES[2]
    assert sum(max(r[k] for r in ddp) for k in ddp[0]) > max(sum(r.values()) for r in ddp)


def test_a_wrong_answer_that_fits_only_the_measured_numbers_fails():
    # right on the measured numbers (hard-coded), wrong on the fixed tables
    measured_dp = dict(C.CASES[0][0])
    measured_ddp = [dict(r) for r in C.CASES[0][1]]
    canned = C.reference_compare(measured_dp, measured_ddp)
    result = C.check_compare(lambda dp, ddp: dict(canned), measured_dp, measured_ddp)
    assert not result.ok


def test_with_numbers_measured_in_real_processes():
    from fastrain_lib.lessons.l05b_ddp_in_depth import panel as P

    cfg = P.compare_cfg(width=32, depth=2, batch=32, steps=2, warmup=1)
    dp, ddp = P.dp_run(cfg), P.ddp_run(cfg)
    assert live_children() == []
    dp_phases, ddp_phases = dp["phases"], [r["phases"] for r in ddp]
    result = C.check_compare(solution, dp_phases, ddp_phases)
    assert result.ok, result.message
    want = C.reference_compare(dp_phases, ddp_phases)
    assert f"{want['dp_step_s'] * 1e3:.2f}" in result.message  # the pass message states the measured numbers
    assert not C.check_compare(_with(ddp_step_s=lambda d, r, o: sum(r[0].values()) / 2), dp_phases, ddp_phases).ok


def test_without_measured_numbers_the_check_says_so():
    result = C.check_compare(solution)
    assert result.ok and "check_compare(compare, dp_phases, ddp_phases)" in result.message


def test_english_feedback_has_no_bengali(monkeypatch):
    import re

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    for case in CASES + RING_CASES:
        c = case.values[0]
        message = c.check(c.answer).message
        assert not re.search("[\u0980-\u09ff]", message), (c.name, message)


@pytest.mark.parametrize("check", [C.check_compare, C.check_allreduce_time])
def test_a_check_never_raises(check):
    @settings(max_examples=12, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(answer=answers)
    def never_raises(answer):
        result = check(answer)
        assert isinstance(result, CheckResult) and result.message.strip() and isinstance(result.ok, bool)

    never_raises()
    # hostile measured tables too
    assert isinstance(C.check_compare(solution, {"scatter": "x"}, [None]), CheckResult)


# ---------------------------------------------------------------- issue 39: one policy, whole input space, repeats


def _right_compare(dp, ddp):
    step = sum(dp.values())
    slowest = max(sum(r.values()) for r in ddp)
    return {"dp_step_s": step, "ddp_step_s": slowest, "faster": "ddp" if slowest < step else "dp",
            "serial_share": sum(dp[k] for k in SERIAL) / step}


def _right_ring(alpha, beta, p, n):
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta


def test_the_course_s_own_answers_are_forbidden():
    from fastrain_lib.distributed import cost_model, dataparallel

    assert C.check_compare(lambda dp, ddp: C.reference_compare(dp, ddp)).code == "forbidden_call"
    ring = C.check_allreduce_time(lambda a, b, p, n: cost_model.Fit(a, b, p).allreduce_s(n) if p > 1 else 0.0)
    assert ring.code == "forbidden_call"

    def via_helpers(dp, ddp):  # the library's share and step, called from inside the answer
        out = _right_compare(dp, ddp)
        out["serial_share"] = dataparallel.serial_share(dp)
        return out
    assert C.check_compare(via_helpers).code == "forbidden_call"


def test_generated_cases_cover_world_sizes_1_and_3_and_one_byte():
    assert any(len(ddp) == 1 for _, ddp in C.compare_cases()) and any(len(ddp) == 3 for _, ddp in C.compare_cases())
    cases = C.ring_cases()
    assert {1, 3} <= {p for _, _, p, _ in cases} and any(n == 1 and p == 3 for _, _, p, n in cases)
    assert any(n % p for _, _, p, n in cases if p > 1)

    def assumes_two_ranks(dp, ddp):  # right on every table with 2+ ranks, crashes on one rank
        out = _right_compare(dp, ddp)
        out["ddp_step_s"] = max(sum(ddp[0].values()), sum(ddp[1].values()), *(sum(r.values()) for r in ddp))
        return out
    assert not C.check_compare(assumes_two_ranks)


def test_an_answer_remembered_by_call_count_fails_the_repeated_input():
    seen = []

    def remembers(dp, ddp):  # right for every new table, then replays an old answer
        seen.append(1)
        return _right_compare(dp, ddp) if len(seen) <= len(C.compare_cases()) else _right_compare(*C.CASES[1])
    assert C.check_compare(remembers).code != "ok" and not C.check_compare(remembers)

    calls = []

    def ring_counter(alpha, beta, p, n):
        calls.append(1)
        return _right_ring(alpha, beta, p, n) if len(calls) <= len(C.ring_cases()) else 0.0
    assert not C.check_allreduce_time(ring_counter)


def test_correct_unusual_code_passes():
    from fractions import Fraction
    import functools

    def with_reduce(dp, ddp):
        totals = sorted((functools.reduce(lambda a, b: a + b, r.values()) for r in ddp), reverse=True)
        step = functools.reduce(lambda a, b: a + b, dp.values())
        serial = sum(v for k, v in dp.items() if k in set(SERIAL))
        return {"dp_step_s": step, "ddp_step_s": totals[0], "faster": "DDP" if totals[0] < step else "DataParallel",
                "serial_share": serial / step}
    assert C.check_compare(with_reduce)

    def exact(alpha, beta, p, n):
        return float(Fraction(2 * (p - 1)) * Fraction(alpha) + Fraction(2 * (p - 1), p) * n * Fraction(beta))
    assert C.check_allreduce_time(exact)
    assert C.check_allreduce_time(functools.lru_cache(maxsize=None)(_right_ring))  # cached by value: still right
