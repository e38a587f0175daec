"""Lesson 07's checks: valid answers pass, wrong ones a student could write fail with the code
naming their mistake (one row per answer; see tests/checkcases.py)."""

import itertools
import re
import unicodedata

import numpy as np
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.checks import lesson07 as C


def mfu_ok(tokens_per_s, flops_per_token, peak_flops):
    return tokens_per_s * flops_per_token / peak_flops


def is_mark(ch):
    return unicodedata.category(ch) in ("Mn", "Mc")


def strip_ok(text):
    out = ""
    for ch in text:
        prev = out[-1:]
        if is_mark(ch) and not (prev.isalpha() or (prev and is_mark(prev))):
            continue
        out += ch
    return out


def strip_list_category(text):
    """Valid: a list of kept characters, letters by Unicode category (L*)."""
    kept = []
    for ch in text:
        if unicodedata.category(ch)[0] == "M":
            before = kept[-1] if kept else ""
            if not before or unicodedata.category(before)[0] not in "LM":
                continue
        kept.append(ch)
    return "".join(kept)


def strip_joiners_as_marks(text):
    """Valid too: treats ZWJ/ZWNJ like marks (keeps the hasanta in র‍্য)."""
    return C.reference_strip_dangling(text, joiners_are_marks=True)


def strip_original_prev(text):
    """Looks at the previous character of the ORIGINAL text, not the kept one."""
    return "".join(ch for i, ch in enumerate(text)
                   if not (is_mark(ch) and not (text[i - 1:i].isalpha() or (i and is_mark(text[i - 1])))))


def strip_letters_only(text):
    """A mark after a mark is dropped: breaks কাং (া then ং)."""
    out = ""
    for ch in text:
        if is_mark(ch) and not out[-1:].isalpha():
            continue
        out += ch
    return out


def strip_alnum(text):
    """Digits count as letters."""
    out = ""
    for ch in text:
        prev = out[-1:]
        if is_mark(ch) and not (prev.isalnum() or (prev and is_mark(prev))):
            continue
        out += ch
    return out


def strip_after_space_only(text):
    return re.sub(r"(^|\s)[\u0981-\u0983\u09bc-\u09d7]+", r"\1", text)


def strip_and_trim(text):
    return strip_ok(text).strip()


CASES = [
    right(C.check_mfu, mfu_ok, "formula"),
    right(C.check_mfu, lambda t, f, p: np.float64(t) * f / p, "numpy"),
    wrong(C.check_mfu, lambda t, f, p: 100 * t * f / p, "percent", "percent"),
    wrong(C.check_mfu, lambda t, f, p: t * f, "no_peak", "no peak"),
    wrong(C.check_mfu, lambda t, f, p: p / (t * f), "inverted", "inverted"),
    wrong(C.check_mfu, lambda t, f, p: t * f // p, "integer_division", "//"),
    wrong(C.check_mfu, lambda t, f, p: t * f / 989e12, "wrong_value", "H100 peak hard-coded"),
    wrong(C.check_mfu, lambda t, f, p: t * 6 * f / p, "wrong_value", "6 × again"),
    wrong(C.check_mfu, lambda t, f, p: f"{t * f / p:.1%}", "not_number", "text"),
    wrong(C.check_mfu, lambda t, f, p: None, "not_done", "stub"),
    right(C.check_strip_dangling, strip_ok, "solution"),
    right(C.check_strip_dangling, strip_list_category, "categories + list"),
    right(C.check_strip_dangling, strip_joiners_as_marks, "joiners as marks"),
    wrong(C.check_strip_dangling, lambda s: "".join(ch for ch in s if not is_mark(ch)), "removes_attached", "all"),
    wrong(C.check_strip_dangling, lambda s: s.replace(" \u09cd", " "), "start_left", "hasanta after space"),
    wrong(C.check_strip_dangling, lambda s: s[1:] if s and is_mark(s[0]) else s, "after_space_left", "start"),
    wrong(C.check_strip_dangling, strip_original_prev, "after_space_left", "original prev"),
    wrong(C.check_strip_dangling, strip_letters_only, "removes_too_much", "mark after mark"),
    wrong(C.check_strip_dangling, strip_alnum, "digit_as_letter", "isalnum"),
    wrong(C.check_strip_dangling, strip_after_space_only, "after_space_left", "regex after space"),
    wrong(C.check_strip_dangling, strip_and_trim, "removes_too_much", "strip()"),
    wrong(C.check_strip_dangling, lambda s: list(strip_ok(s)), "not_text", "a list"),
    wrong(C.check_strip_dangling, lambda s: None, "not_done", "stub"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_mfu, C.check_strip_dangling])


def test_the_strings_hold_the_awkward_cases():
    texts = "".join(t for t, _ in C.DANGLING_CASES)
    assert any(is_mark(a) and is_mark(b) for a, b in itertools.pairwise(texts))  # two marks in a row
    assert any(ch.isdigit() for ch in texts) and "\u200c" in texts and "\u200d" in "".join(C.JOINER_CASES)
