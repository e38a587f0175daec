"""Shared helper for the exercise-check tests: one line per student answer.

    CASES = [
        right(C.check_bubble_fraction, lambda k, m: (k - 1) / (m + k - 1), "formula"),
        wrong(C.check_bubble_fraction, lambda k, m: (k - 1) // (m + k - 1), "wrong_value", "integer division"),
    ]
    test_case = table_test(CASES)               # one test per row
    test_coverage = coverage_test(CASES, [C.check_bubble_fraction])   # ≥5 wrong, ≥2 right each

A row says which check, which answer, and what the check must say: passed ("ok"), or the
failure code naming the mistake. Every result must be a CheckResult with a message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from fastrain_lib.lessons.checking import CheckResult

MIN_WRONG, MIN_RIGHT = 5, 2
NOT_A_PATTERN = {"not_done", "crashed", "not_callable"}  # unfinished answers do not count as wrong ones


@dataclass(frozen=True)
class Case:
    check: object
    answer: object
    ok: bool
    code: str
    name: str
    kwargs: dict = field(default_factory=dict)


def right(check, answer, name: str, **kwargs):
    """A valid answer (the solution, or another correct way to write it)."""
    return pytest.param(Case(check, answer, True, "ok", name, kwargs), id=f"{check.__name__}:ok:{name}")


def wrong(check, answer, code: str, name: str, **kwargs):
    """A wrong answer a student could write, and the failure code the check must give."""
    return pytest.param(Case(check, answer, False, code, name, kwargs), id=f"{check.__name__}:{code}:{name}")


def run_case(case: Case) -> CheckResult:
    result = case.check(case.answer, **case.kwargs)
    assert isinstance(result, CheckResult), f"{case.name}: the check returned {result!r}"
    assert result.message.strip(), f"{case.name}: no feedback"
    assert (bool(result), result.code) == (case.ok, case.code), f"{case.name}: {result.code}: {result.message}"
    return result


def table_test(cases):
    @pytest.mark.parametrize("case", cases)
    def test_case(case):
        run_case(case)

    return test_case


def coverage_test(cases, checks):
    """A test that each check keeps ≥5 distinct wrong answers and ≥2 valid ones in the table."""

    def test_coverage():
        rows = [p.values[0] for p in cases]
        for check in checks:
            mine = [c for c in rows if c.check is check]
            rights = {c.name for c in mine if c.ok}
            wrongs = {c.name for c in mine if not c.ok and c.code not in NOT_A_PATTERN}
            assert len(rights) >= MIN_RIGHT, f"{check.__name__}: {len(rights)} valid answers"
            assert len(wrongs) >= MIN_WRONG, f"{check.__name__}: {len(wrongs)} wrong answers"

    return test_coverage
