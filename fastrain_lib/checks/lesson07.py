"""Checks for lesson 07's exercises (the capstone): MFU, and Bengali marks that must not dangle."""

from __future__ import annotations

import math

from .. import corpus
from . import CheckResult, call_student, failed, passed

# ---------------------------------------------------------------- task 1: mfu(tokens_per_s, flops_per_token, peak)

MFU_CASES = [(1000.0, 6e6, 12e9), (250.0, 1e8, 1e11), (3e5, 2.4e8, 989e12)]


def check_mfu(fn) -> CheckResult:
    """mfu(tokens_per_s, flops_per_token, peak_flops) must be the share (0..1) of the peak used."""
    for tokens, flops, peak in MFU_CASES:
        expected = tokens * flops / peak
        got, problem = call_student(fn, tokens, flops, peak)
        if problem is not None:
            return problem
        if not isinstance(got, (int, float)) or not math.isfinite(got):
            return failed("not_number", "checks07.not_number", got=repr(got)[:40])
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        if math.isclose(got, 100 * expected, rel_tol=1e-6):
            return failed("percent", "checks07.mfu_percent")
        if math.isclose(got, tokens * flops, rel_tol=1e-6):
            return failed("no_peak", "checks07.mfu_no_peak")
        if expected and math.isclose(got, 1 / expected, rel_tol=1e-6):
            return failed("inverted", "checks07.mfu_inverted")
        return failed("wrong_value", "checks07.mfu_wrong", tokens=tokens, flops=flops, peak=peak, got=got,
                      expected=expected)
    return passed()


# ---------------------------------------------------------------- task 2: strip_dangling(text)

DANGLING_CASES = [
    ("িকাজ", "কাজ"),  # a vowel sign at the very start
    ("কাজ ্কর", "কাজ কর"),  # a hasanta after a space
    ("ক্ষমতা", "ক্ষমতা"),  # a conjunct: every mark is attached, nothing goes
    ("আমি বাংলায় গান গাই", "আমি বাংলায় গান গাই"),
    ("।ো শেষ", "। শেষ"),  # after punctuation
]


def check_strip_dangling(fn) -> CheckResult:
    """strip_dangling(text) removes marks that have no letter before them, and only those."""
    for text, expected in DANGLING_CASES:
        got, problem = call_student(fn, text)
        if problem is not None:
            return problem
        if not isinstance(got, str):
            return failed("not_text", "checks07.not_text", got=type(got).__name__)
        if got == expected:
            continue
        if not any(corpus.is_mark(ch) for ch in got) and any(corpus.is_mark(ch) for ch in expected):
            return failed("removes_attached", "checks07.removes_attached", text=text, got=got)
        if got and corpus.is_mark(got[0]):
            return failed("start_left", "checks07.start_left", text=text)
        return failed("after_space_left", "checks07.after_space_left", text=text, got=got, expected=expected)
    return passed()
