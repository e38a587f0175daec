"""Checks for lesson 05's task 2 (the pipeline bubble: GPipe's formula, and the idle share measured
on a timeline). checks.py re-exports them."""

from __future__ import annotations

import random

import torch

from fastrain_lib.distributed import pipeline
from fastrain_lib.lessons.checking import (
    CheckResult,
    call_student,
    check,
    failed,
    passed,
    snapshot,
    unchanged,
)
from fastrain_lib.lessons.l05_data_vs_model_parallel.student_code import _number

SEED = 20261202  # the generated cases are the same in every run (a failure can be reproduced)


def reference_bubble_fraction(stages, micro_batches):
    return (stages - 1) / (micro_batches + stages - 1)


def reference_idle_share(events, stages):
    return pipeline.idle_share(events, stages)


# ---------------------------------------------------------------------------------------
# Task 2: the bubble
# ---------------------------------------------------------------------------------------


def _forbidden_pipeline() -> list:
    """The library's answers to task 2 (the task says so): GPipe's formula and the measured idle share."""
    from fastrain_lib.lessons.l05_data_vs_model_parallel import panel

    return [pipeline.bubble_fraction, pipeline.idle_share, panel.measured_idle, reference_bubble_fraction,
            reference_idle_share]


def _call_for_number(fn, *args) -> tuple[float | None, CheckResult | None]:
    """Call the student's function and insist on a number: (value, None) or (None, failure)."""
    got, problem = call_student(fn, *args, forbid=_forbidden_pipeline())
    if problem is not None:
        return None, problem
    value = _number(got)  # int, float, NumPy, a 0-d tensor, or an exact Fraction
    if value is None:
        return None, failed("not_a_number", "lesson05.check_not_a_number")
    return value, None


BUBBLE_CASES = [(3, 7), (2, 1), (2, 4), (4, 4), (4, 16), (5, 3), (7, 10)]


def bubble_cases(seed: int = SEED, count: int = 8) -> list[tuple[int, int]]:
    """BUBBLE_CASES, then generated (K, M): the boundaries K = 1 (no bubble), M = 1 (all but one
    stage idle), M = 4K (GPipe's "negligible"), and random pairs that do not divide."""
    rng = random.Random(seed + 1)
    cases = list(BUBBLE_CASES) + [(1, rng.randint(1, 9)), (rng.randint(2, 8), 1), (1, 1)]
    k = rng.randint(2, 6)
    cases.append((k, 4 * k))
    cases.append((rng.randint(60, 130), rng.randint(500, 5000)))  # a large cluster: no small-number shortcut
    while len(cases) < len(BUBBLE_CASES) + count:
        k, m = rng.randint(2, 9), rng.randint(2, 40)
        if m % (k - 1):
            cases.append((k, m))
    return cases


def fresh_bubble_case() -> tuple[int, int]:
    """One (K, M) drawn anew at every call (no table of the fixed cases can hold it)."""
    rng = random.SystemRandom()
    return rng.randint(10, 40), rng.randint(41, 400)  # outside every fixed and generated case


@check
def check_bubble_fraction(fn) -> CheckResult:
    """The formula against GPipe's for several (stages, micro-batches): K = 1, M = 1, a large
    cluster, pairs that do not divide, one drawn at this call, and the first one again at the end.
    The library's formula (pipeline.bubble_fraction) is forbidden: the task is to write it."""
    cases = bubble_cases()
    # then one fresh case, and the first case again after all the others (an answer that remembers
    # its previous call, or looks its input up in a table, fails here)
    for k, m in cases + [fresh_bubble_case(), cases[0]]:
        got, problem = _call_for_number(fn, k, m)
        if problem is not None:
            return problem
        want = reference_bubble_fraction(k, m)
        if abs(got - want) <= 1e-6 * max(1.0, abs(want)):  # float32 answers are right to ~1e-7
            continue
        if want > 0 and abs(got - (k - 1) // (m + k - 1)) < 1e-9:
            return failed("integer_division", "lesson05.check_bubble_integer_division", k=k, m=m, want=want)
        if abs(got - (k - 1) / (m + k)) < 1e-9:
            return failed("off_by_one", "lesson05.check_bubble_off_by_one")
        if abs(got - (k - 1) / m) < 1e-9:
            return failed("wrong_denominator", "lesson05.check_bubble_denominator")
        return failed("wrong_value", "lesson05.check_bubble_wrong", k=k, m=m, got=got, want=want)
    return passed("lesson05.check_bubble_ok")


def _paper_timeline(k: int, m: int, *, forward: float, backward: float, offset: float, extra: bool, seed: int):
    """A GPipe schedule on paper, shifted to start at `offset` (measured clocks never start at 0),
    listed in a shuffled order, optionally with a gradient all-reduce event (kind "A") that is
    not pipeline work — as in the measured timelines."""
    events = pipeline.ideal_schedule(k, m, forward=forward, backward=backward)
    events = [{**e, "start": e["start"] + offset, "end": e["end"] + offset} for e in events]
    if extra:
        end = max(e["end"] for e in events)
        events += [{"stage": s, "kind": "A", "micro": -1, "start": end, "end": end + 3.0} for s in range(k)]
    order = torch.randperm(len(events), generator=torch.Generator().manual_seed(seed)).tolist()
    return [events[i] for i in order]


IDLE_CASES = [  # (stages, micro-batches, forward, backward, clock offset, with "A" events)
    (4, 5, 0.5, 1.25, 17.0, True),
    (3, 2, 1.0, 2.5, 1234.5, False),
    (2, 4, 1.0, 1.0, 0.0, False),
]


def idle_cases(seed: int = SEED, count: int = 4) -> list[tuple]:
    """IDLE_CASES, then one stage (K = 1: idle 0), then generated schedules: stages 2–5, micro-batches
    1–8 (M = 1 included), backward/forward ratios that are not 2, clocks that start anywhere (up to
    a perf_counter-sized 10^6 s), with or without "A" events."""
    rng = random.Random(seed + 2)
    cases = list(IDLE_CASES) + [(1, rng.randint(1, 6), 0.7, 1.6, 3.25, False)]  # one stage: never idle
    for i in range(count):
        k, m = rng.randint(2, 5), 1 if i == 0 else rng.randint(2, 8)
        forward = round(rng.uniform(0.2, 2.0), 3)
        cases.append((k, m, forward, round(forward * rng.uniform(1.1, 3.3), 3),
                      round(rng.uniform(0, 5000 if i % 2 else 1e6), 2), rng.random() < 0.5))
    return cases


def _idle_variants(events, k):
    work = [e for e in events if e["kind"] in ("F", "B")]
    busy = sum(e["end"] - e["start"] for e in work)
    span = max(e["end"] for e in work) - min(e["start"] for e in work)
    every = sum(e["end"] - e["start"] for e in events)
    every_span = max(e["end"] for e in events) - min(e["start"] for e in events)
    return [("forgot_stages", "lesson05.check_idle_forgot_stages", 1 - busy / span),
            ("busy_not_idle", "lesson05.check_idle_busy", busy / (k * span)),
            ("not_only_work", "checking.l05.idle_not_only_work", 1 - every / (k * every_span)),
            ("span_from_zero", "checking.l05.idle_span_from_zero", 1 - busy / (k * max(e["end"] for e in work)))]


def another_context(events: list[dict], seed: int, shift: float = 250.0) -> list[dict]:
    """The same timeline given another way: fresh dicts (with an extra key, as measured events carry),
    another order, and a clock that starts `shift` seconds later. Its idle share is the same."""
    moved = [{**e, "start": e["start"] + shift, "end": e["end"] + shift, "rank": e.get("stage", 0)} for e in events]
    order = torch.randperm(len(moved), generator=torch.Generator().manual_seed(seed)).tolist()
    return [moved[i] for i in order]


def _judge_idle(fn, events, k, want, wrong_code) -> CheckResult | None:
    before = snapshot(events)
    got, problem = _call_for_number(fn, events, k)
    if problem is not None:
        return problem
    if not unchanged(events, before):
        return failed("mutated_input", "checking.l05.idle_mutated")
    if abs(got - want) <= 1e-6:
        return None
    return _name_idle_mistake(got, events, k, want, wrong_code)


def _judge_repeat(fn, events, k, want, seed) -> CheckResult | None:
    """The timeline again in another context: the answer must give the same (right) share."""
    again = another_context(events, seed)
    got, problem = _call_for_number(fn, again, k)
    if problem is not None:
        return problem
    if abs(got - want) <= 1e-6:
        return None
    return failed("repeat_differs", "lesson05.check_repeat_differs", got=got, want=want)


def _name_idle_mistake(got, events, k, want, wrong_code) -> CheckResult:
    for code, key, value in _idle_variants(events, k):
        if abs(got - value) <= 1e-6:
            return failed(code, key)
    return failed(wrong_code, "lesson05.check_idle_wrong", got=got, want=want)


@check
def check_idle_share(fn, events: list[dict] | None = None) -> CheckResult:
    """The measured idle share: on paper schedules (K = 1 to 5, M = 1 to 8, shifted clocks, shuffled
    order, an extra all-reduce event) it must equal GPipe's formula; on the measured timeline
    `events` (all ranks' events) it must equal the share computed here, and again on the same
    timeline in another order, with another clock and fresh dicts. The events must come back
    unchanged. The library's pipeline.idle_share (and the formula) are forbidden: the task is to write it."""
    first = None
    for k, m, forward, backward, offset, extra in idle_cases():
        paper = _paper_timeline(k, m, forward=forward, backward=backward, offset=offset, extra=extra, seed=k * m)
        first = first or (paper, k, reference_bubble_fraction(k, m))
        problem = _judge_idle(fn, paper, k, reference_bubble_fraction(k, m), "wrong_value")
        if problem is not None:
            return problem
    if not events:
        return _judge_repeat(fn, *first, seed=random.SystemRandom().randrange(10**6)) or passed()
    stages = 1 + max(e["stage"] for e in events)
    want = reference_idle_share(events, stages)  # computed here, from the events (not trusted from anyone)
    problem = _judge_idle(fn, events, stages, want, "wrong_measured")
    if problem is None:
        problem = _judge_repeat(fn, events, stages, want, seed=random.SystemRandom().randrange(10**6))
    if problem is not None:
        return problem
    return passed("lesson05.check_idle_ok", measured=want,
                  formula=reference_bubble_fraction(stages, 1 + max(e["micro"] for e in events)))
