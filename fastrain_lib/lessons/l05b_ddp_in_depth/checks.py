"""Checks for lesson 05b's exercises: reasoning from measured numbers, DataParallel vs DDP, and the
ring formula of the cost model.

    check_compare(compare, dp_phases, ddp_phases)
        compare(dp_phases, ddp_phases) -> {"dp_step_s", "ddp_step_s", "faster", "serial_share"}
        dp_phases:  {phase: seconds} of one DataParallel step (dataparallel.PHASES)
        ddp_phases: [{phase: seconds}, ...] one dict per DDP rank (dataparallel.DDP_PHASES)
    check_allreduce_time(allreduce_time)
        allreduce_time(alpha_s, beta_s_per_byte, world_size, nbytes) -> seconds (ring all-reduce)

Each check runs the answer on the numbers measured in the notebook AND on fixed tables chosen
so that the usual mistakes give a different answer (a DDP rank that is slower than the others,
a case where DataParallel wins, a rank whose slowest phase is not its slowest total), so an
answer that only fits this run's numbers fails. When wrong, the feedback names the mistake.
"""

from __future__ import annotations

import math
import random

from fastrain_lib.distributed import cost_model
from fastrain_lib.distributed.dataparallel import DDP_PHASES, PHASES, SERIAL
from fastrain_lib.lessons.checking import call_student, check, describe, failed, passed, snapshot, unchanged
from fastrain_lib.lessons.l05_data_vs_model_parallel.student_code import _number as as_number  # + exact Fractions

SEED = 20261202

# The course's own answers: calling them is not writing the task (said in the task text).
COMPARE_FORBIDDEN = ("fastrain_lib.distributed.dataparallel.ddp_step_s", "fastrain_lib.distributed.dataparallel.serial_share",
                     "fastrain_lib.lessons.l05b_ddp_in_depth.checks.reference_compare")
RING_FORBIDDEN = ("fastrain_lib.distributed.cost_model.Fit.allreduce_s", "fastrain_lib.distributed.cost_model.comm_s",
                  "fastrain_lib.distributed.cost_model.collectives_s")

KEYS = ("dp_step_s", "ddp_step_s", "faster", "serial_share")
REL = 1e-6  # sums in another order differ in the last digits only

# Fixed tables (seconds). Each makes one of the usual mistakes visible.
CASES = [
    # DDP wins; rank 1 is slower (it sets the pace); rank 1's longest phase is not rank 0's
    ({"scatter": 0.004, "replicate": 0.010, "forward": 0.020, "gather_loss": 0.006, "backward": 0.040,
      "reduce_grads": 0.012, "optimizer": 0.008},
     [{"forward": 0.012, "backward_allreduce": 0.030, "optimizer": 0.004},
      {"forward": 0.018, "backward_allreduce": 0.026, "optimizer": 0.005}]),
    # a tiny model: DataParallel wins (DDP's all-reduce costs more than the compute it saves)
    ({"scatter": 0.0002, "replicate": 0.0003, "forward": 0.0010, "gather_loss": 0.0004, "backward": 0.0016,
      "reduce_grads": 0.0003, "optimizer": 0.0002},
     [{"forward": 0.0007, "backward_allreduce": 0.0040, "optimizer": 0.0002},
      {"forward": 0.0006, "backward_allreduce": 0.0041, "optimizer": 0.0002}]),
    # three ranks: the slowest total (rank 2) is not where the slowest forward (rank 0) or the
    # slowest backward (rank 1) is, so "the max of each phase, added" overestimates
    ({"scatter": 0.003, "replicate": 0.009, "forward": 0.015, "gather_loss": 0.005, "backward": 0.030,
      "reduce_grads": 0.015, "optimizer": 0.006},
     [{"forward": 0.016, "backward_allreduce": 0.020, "optimizer": 0.003},
      {"forward": 0.008, "backward_allreduce": 0.029, "optimizer": 0.003},
      {"forward": 0.012, "backward_allreduce": 0.027, "optimizer": 0.004}]),
]


def compare_cases(seed: int = SEED, count: int = 6) -> list[tuple]:
    """CASES, then generated tables: 2–6 ranks with the slowest rank anywhere (first, middle or
    last, never the same place twice in a row), phase times that are not round, DDP winning in
    some and DataParallel in others, and a rank whose longest phase is not its longest total."""
    rng = random.Random(seed + 5)
    cases = list(CASES)
    places = ["first", "middle", "last"]
    for i in range(count):
        ranks = rng.randint(2, 6) if places[i % 3] != "middle" else rng.randint(3, 6)
        scale = rng.choice([1e-3, 1e-2])
        dp = {k: round(rng.uniform(0.1, 4.0) * scale, 7) for k in PHASES}
        ddp = [{k: round(rng.uniform(0.5, 3.0) * scale, 7) for k in DDP_PHASES} for _ in range(ranks)]
        where = {"first": 0, "middle": rng.randint(1, ranks - 2) if ranks > 2 else 0, "last": ranks - 1}[places[i % 3]]
        others = max(sum(r.values()) for j, r in enumerate(ddp) if j != where)
        ddp[where]["backward_allreduce"] += round(max(0.0, others - sum(ddp[where].values()))
                                                  + rng.uniform(0.5, 2.0) * scale, 7)  # the slowest total
        if i % 2:  # DataParallel wins: every DDP rank slower than its whole step
            factor = sum(dp.values()) / min(sum(r.values()) for r in ddp) * rng.uniform(1.1, 1.6)
            ddp = [{k: round(v * factor, 7) for k, v in r.items()} for r in ddp]
        cases.append((dp, ddp))
    # one DDP process (world size 1): its step is its own total, nothing to wait for
    cases.append(({k: round(rng.uniform(0.1, 4.0) * 1e-3, 7) for k in PHASES},
                  [{k: round(rng.uniform(0.5, 3.0) * 1e-3, 7) for k in DDP_PHASES}]))
    return cases


def repeated_case(dp: dict, ddp: list[dict]) -> tuple[dict, list[dict]]:
    """The same tables in another context: fresh copies, the phases and the ranks in reverse order
    (the answer is the same; an answer remembered by its input or by the call count is not)."""
    return dict(reversed(list(dp.items()))), [dict(reversed(list(r.items()))) for r in reversed(ddp)]


def reference_compare(dp_phases: dict, ddp_phases: list[dict]) -> dict:
    dp_step = sum(dp_phases.values())
    ddp_step = max(sum(rank.values()) for rank in ddp_phases)  # the slowest rank sets the pace
    return {"dp_step_s": dp_step, "ddp_step_s": ddp_step, "faster": "ddp" if ddp_step < dp_step else "dp",
            "serial_share": sum(dp_phases[k] for k in SERIAL) / dp_step}


def _faster_name(value) -> str | None:
    if not isinstance(value, str):
        return None
    name = value.strip().lower().replace("_", "").replace("-", "").replace(" ", "")
    if name in ("ddp", "distributeddataparallel"):
        return "ddp"
    if name in ("dp", "dataparallel", "nn.dataparallel"):
        return "dp"
    return None


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-12)


def _valid_tables(dp_phases, ddp_phases) -> bool:
    try:
        return (isinstance(dp_phases, dict) and set(PHASES) <= set(dp_phases)
                and all(as_number(v) is not None for v in dp_phases.values())
                and isinstance(ddp_phases, (list, tuple)) and len(ddp_phases) >= 1
                and all(isinstance(r, dict) and set(DDP_PHASES) <= set(r) and
                        all(as_number(v) is not None for v in r.values()) for r in ddp_phases))
    except Exception:  # noqa: BLE001
        return False


DDP_KEYS = {"ddp_mean": "lesson05b.check.ddp_mean", "ddp_sum": "lesson05b.check.ddp_sum",
            "ddp_last": "lesson05b.check.ddp_last",
            "ddp_rank0": "lesson05b.check.ddp_rank0", "ddp_phase_max": "lesson05b.check.ddp_phase_max",
            "ddp_min": "lesson05b.check.ddp_min", "ddp_wrong": "lesson05b.check.ddp_wrong"}


def _diagnose_ddp(got: float, ddp: list[dict]) -> str:
    totals = [sum(r.values()) for r in ddp]
    if _close(got, sum(totals) / len(totals)):
        return "ddp_mean"
    if _close(got, sum(totals)):
        return "ddp_sum"
    if _close(got, totals[0]) and not _close(totals[0], max(totals)):
        return "ddp_rank0"
    if _close(got, totals[-1]) and not _close(totals[-1], max(totals)):
        return "ddp_last"
    if _close(got, sum(max(r[k] for r in ddp) for k in DDP_PHASES)):
        return "ddp_phase_max"
    if _close(got, min(totals)):
        return "ddp_min"
    return "ddp_wrong"


def _judge(compare, dp_phases: dict, ddp_phases: list[dict]):
    """None when the answer matches the reference on these tables, else a failed CheckResult."""
    dp_copy, ddp_copy = snapshot(dict(dp_phases)), snapshot([dict(r) for r in ddp_phases])
    dp_arg, ddp_arg = dict(dp_phases), [dict(r) for r in ddp_phases]
    answer, problem = call_student(compare, dp_arg, ddp_arg, forbid=COMPARE_FORBIDDEN)
    if problem is not None:
        return problem
    if not unchanged(dp_arg, dp_copy) or not unchanged(ddp_arg, ddp_copy):
        return failed("mutated", "lesson05b.check.mutated")
    if not isinstance(answer, dict):
        return failed("not_dict", "lesson05b.check.not_dict", got=describe(answer))
    missing = [k for k in KEYS if k not in answer]
    if missing:
        return failed("missing_key", "lesson05b.check.missing_key", keys=", ".join(missing))
    want = reference_compare(dp_phases, ddp_phases)
    numbers = {}
    for key in ("dp_step_s", "ddp_step_s", "serial_share"):
        numbers[key] = as_number(answer[key])
        if numbers[key] is None:
            return failed("not_number", "lesson05b.check.not_number", name=key, got=describe(answer[key]))
    if not _close(numbers["dp_step_s"], want["dp_step_s"]):
        return failed("dp_wrong", "lesson05b.check.dp_wrong", got=numbers["dp_step_s"] * 1e3,
                      want=want["dp_step_s"] * 1e3)
    if not _close(numbers["ddp_step_s"], want["ddp_step_s"]):
        code = _diagnose_ddp(numbers["ddp_step_s"], ddp_phases)
        return failed(code, DDP_KEYS[code], got=numbers["ddp_step_s"] * 1e3,
                      want=want["ddp_step_s"] * 1e3)
    faster = _faster_name(answer["faster"])
    if faster is None:
        return failed("faster_name", "lesson05b.check.faster_name", got=describe(answer["faster"]))
    if faster != want["faster"]:
        return failed("faster_wrong", "lesson05b.check.faster_wrong", dp_ms=want["dp_step_s"] * 1e3,
                      ddp_ms=want["ddp_step_s"] * 1e3)
    share = numbers["serial_share"]
    if not _close(share, want["serial_share"]):
        if _close(share, 100 * want["serial_share"]):
            return failed("share_percent", "lesson05b.check.share_percent", got=share)
        if _close(share, 1 - want["serial_share"]):
            return failed("share_parallel", "lesson05b.check.share_parallel", got=share, want=want["serial_share"])
        return failed("share_wrong", "lesson05b.check.share_wrong", got=share, want=want["serial_share"],
                      serial=", ".join(SERIAL))
    return None


@check
def check_compare(compare, dp_phases=None, ddp_phases=None):
    """The student's compare() on the fixed tables, then on the numbers measured in the notebook."""
    tables = compare_cases()
    measured = _valid_tables(dp_phases, ddp_phases)
    if measured:
        tables.append(({k: float(as_number(v)) for k, v in dp_phases.items()},
                       [{k: float(as_number(v)) for k, v in r.items()} for r in ddp_phases]))
    for dp, ddp in tables + [repeated_case(*tables[0])]:
        problem = _judge(compare, dp, ddp)
        if problem is not None:
            return problem
    dp, ddp = tables[-1]
    want = reference_compare(dp, ddp)
    key = "lesson05b.check.compare_ok" if measured else "lesson05b.check.compare_ok_tables"
    return passed(key, dp_ms=want["dp_step_s"] * 1e3, ddp_ms=want["ddp_step_s"] * 1e3,
                  faster="DDP" if want["faster"] == "ddp" else "DataParallel", share=want["serial_share"])


# ---------------------------------------------------------------- task 2: the ring formula

# (alpha, beta, p, nbytes): several process counts, so (p−1)/p and 2(p−1) are both tested, and
# sizes where latency or bandwidth dominates
RING_CASES = [(50e-6, 1e-9, 2, 1_000_000), (50e-6, 1e-9, 4, 1_000_000), (20e-6, 2.5e-10, 8, 64_000_000),
              (100e-6, 1e-9, 3, 1_000), (0.0, 1e-9, 5, 10_000_000)]


def ring_cases(seed: int = SEED, count: int = 8) -> list[tuple]:
    """RING_CASES, then generated (α, β, p, n): p from 1 (no communication: 0 s) to 16, sizes that p
    does not divide (small ones with α = 0, so that (p−1)·n // p differs from (p−1)·n / p), β = 0."""
    rng = random.Random(seed + 6)
    cases = list(RING_CASES) + [(rng.uniform(1e-6, 1e-4), 1e-9, 1, rng.randint(1, 10**6)),  # p = 1
                                (0.0, 1e-3, 4, 7), (0.0, 2.5e-4, 3, 5),  # tiny, not divisible: // shows
                                (rng.uniform(1e-6, 1e-4), 0.0, rng.randint(2, 9), rng.randint(1, 10**6)),  # β = 0
                                (0.0, 1e-3, 3, 1), (rng.uniform(1e-6, 1e-4), 1e-9, 1, 1)]  # one byte, p = 3 and 1
    while len(cases) < len(RING_CASES) + 4 + count:
        p, n = rng.randint(2, 16), rng.randint(1, 10**7)
        if n % p:
            cases.append((rng.choice([0.0, rng.uniform(1e-6, 2e-4)]), rng.uniform(1e-11, 1e-8), p, n))
    return cases


RING_KEYS = {"integer_division": "lesson05b.check.ring_integer_division",
             "no_factor_two": "lesson05b.check.ring_no_factor_two", "no_share": "lesson05b.check.ring_no_share",
             "p_not_p_minus_1": "lesson05b.check.ring_p_not_p_minus_1", "alpha_once": "lesson05b.check.ring_alpha_once"}


def _ring_variants(alpha, beta, p, n) -> dict[str, float]:
    return {
        "no_factor_two": (p - 1) * alpha + (p - 1) / p * n * beta,
        "no_share": 2 * (p - 1) * alpha + 2 * (p - 1) * n * beta,
        "p_not_p_minus_1": 2 * p * alpha + 2 * n * beta,
        "alpha_once": alpha + 2 * (p - 1) / p * n * beta,
        "integer_division": 2 * (p - 1) * alpha + (2 * (p - 1) * n // p) * beta,
    }


@check
def check_allreduce_time(allreduce_time):
    """allreduce_time(alpha_s, beta_s_per_byte, world_size, nbytes) == 2(p−1)α + 2(p−1)/p·n·β."""
    cases = ring_cases()
    for alpha, beta, p, n in cases + [cases[0]]:  # the first case once more, after all the others
        got, problem = call_student(allreduce_time, alpha, beta, p, n, forbid=RING_FORBIDDEN)
        if problem is not None:
            return problem
        value = as_number(got)
        if value is None:
            return failed("not_number", "lesson05b.check.ring_not_number", got=describe(got))
        want = 0.0 if p == 1 else cost_model.Fit(alpha, beta, p).allreduce_s(n)
        if _close(value, want):
            continue
        for code, other in (_ring_variants(alpha, beta, p, n).items() if p > 1 else ()):  # p = 1: no messages at all
            if _close(value, other) and not _close(other, want):
                return failed(code, RING_KEYS[code], p=p, n=n, got=value * 1e3, want=want * 1e3)
        return failed("ring_wrong", "lesson05b.check.ring_wrong", p=p, n=n, got=value * 1e3, want=want * 1e3)
    return passed("lesson05b.check.ring_ok")
