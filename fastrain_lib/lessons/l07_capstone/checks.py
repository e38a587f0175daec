"""Checks for lesson 07's exercises (the capstone): MFU, and Bengali marks that must not dangle."""

from __future__ import annotations

import math
import unicodedata

from fastrain_lib import corpus
from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, describe, failed, passed

# ---------------------------------------------------------------- task 1: mfu(tokens_per_s, flops_per_token, peak)

# a T4-sized, an A100-sized and an H100-sized case, and awkward numbers (integer division shows)
MFU_CASES = [(1234.5, 7.3e6, 65e12), (1000.0, 6e6, 12e9), (250.0, 1e8, 1e11), (3e5, 2.4e8, 989e12), (7, 3, 100)]


@check
def check_mfu(fn) -> CheckResult:
    """mfu(tokens_per_s, flops_per_token, peak_flops) must be the share (0..1) of the peak used."""
    for tokens, flops, peak in MFU_CASES:
        expected = tokens * flops / peak
        result, problem = call_student(fn, tokens, flops, peak)
        if problem is not None:
            return problem
        got = as_number(result)
        if got is None:
            return failed("not_number", "lesson07.not_number", got=describe(result))
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        if math.isclose(got, 100 * expected, rel_tol=1e-6):
            return failed("percent", "lesson07.mfu_percent")
        if math.isclose(got, tokens * flops, rel_tol=1e-6):
            return failed("no_peak", "lesson07.mfu_no_peak")
        if expected and math.isclose(got, 1 / expected, rel_tol=1e-6):
            return failed("inverted", "lesson07.mfu_inverted")
        if got == tokens * flops // peak or got == round(expected):
            return failed("integer_division", "checking.l01.integer_division")
        return failed("wrong_value", "lesson07.mfu_wrong", tokens=tokens, flops=flops, peak=peak, got=got,
                      expected=expected)
    return passed()


# ---------------------------------------------------------------- task 2: strip_dangling(text)

ZWJ, ZWNJ = "\u200d", "\u200c"  # zero width joiner / non-joiner: category Cf, neither letter nor mark

# (text, what the task's rule leaves); the rule: a mark (Mn/Mc) or a joiner (ZWJ U+200D, ZWNJ
# U+200C) is dropped unless the character kept just before it is a letter (str.isalpha), a mark
# or a joiner. The joiners sit inside a cluster: র‍্য (the ya-phala after ra, as in র‍্যাব) is
# র + ZWJ + ্ + য, so the hasanta after the ZWJ is attached, not dangling.
DANGLING_CASES = [
    ("িকাজ", "কাজ"),  # a vowel sign at the very start
    ("কাজ ্কর", "কাজ কর"),  # a hasanta after a space
    ("ক্ষমতা", "ক্ষমতা"),  # a conjunct: every mark is attached, nothing goes
    ("আমি বাংলায় গান গাই", "আমি বাংলায় গান গাই"),
    ("।ো শেষ", "। শেষ"),  # after punctuation
    ("কাং কোঁ", "কাং কোঁ"),  # two marks in a row, both attached (া + ং, ো + ঁ)
    ("ক িংখ", "ক খ"),  # two marks in a row after a space: both dangle (the first is gone before the second)
    ("৩ি জন, ১২৩া৪", "৩ জন, ১২৩৪"),  # Bengali digits are not letters
    ("2ো 7্", "2 7"),  # nor are Western digits
    ("aি", "aি"),  # a Latin letter is a letter (str.isalpha)
    ("", ""),
    ("িা্", ""),  # only marks
    ("কা\nি", "কা\n"),  # after a line break
    ("ক্র ট্র্যাক", "ক্র ট্র্যাক"),  # ক্র, ট্র্যাক: hasanta conjuncts without a joiner
]
# Real words with joiners (the last cases, so a basic mistake is named by the cases above first).
JOINER_CASES = [
    ("র\u200d্যাব", "র\u200d্যাব"),  # র‍্যাব: র + ZWJ + ্ + য + া + ব — the hasanta after the ZWJ stays
    ("র\u200d্যাঙ্ক আর র\u200d্যাম", "র\u200d্যাঙ্ক আর র\u200d্যাম"),  # র‍্যাঙ্ক, র‍্যাম
    ("উদ্\u200cযাপন", "উদ্\u200cযাপন"),  # উদ্‌যাপন: ZWNJ after a hasanta shows the hasanta, stays
    ("ক্\u200cষ", "ক্\u200cষ"),  # ক্‌ষ: ZWNJ after a hasanta
    ("কাজ \u200d্যা", "কাজ যা"),  # after a space: the ZWJ dangles, so does the hasanta after it
    ("\u200cকা", "কা"),  # a joiner at the very start dangles
]
JOINERS = (ZWJ, ZWNJ)


def reference_strip_dangling(text: str, joiners_are_marks: bool = True) -> str:
    """The rule (joiners_are_marks=False: the old rule that ignored ZWJ/ZWNJ and dropped the
    hasanta of র‍্য — kept only to recognise that mistake)."""
    def is_mark(ch):
        return unicodedata.category(ch) in ("Mn", "Mc") or (joiners_are_marks and ch in JOINERS)

    out = ""
    for ch in text:
        prev = out[-1:]
        if is_mark(ch) and not (prev.isalpha() or (prev and is_mark(prev))):
            continue
        out += ch
    return out


def _explain(text: str, got: str, expected: str) -> CheckResult:
    shown = {"text": repr(text), "got": repr(got), "expected": repr(expected)}
    if any(ch in JOINERS for ch in text):
        if sum(ch in JOINERS for ch in got) > sum(ch in JOINERS for ch in expected):
            return failed("joiner_left", "lesson07.joiner_left", **shown)
        if got == reference_strip_dangling(text, joiners_are_marks=False):
            return failed("joiner_dropped", "lesson07.joiner_dropped", **shown)
    if any(ch.isdigit() for ch in text) and len(got) > len(expected):
        return failed("digit_as_letter", "checking.l07.digit_as_letter", **shown)
    if got and corpus.is_mark(got[0]):
        return failed("start_left", "lesson07.start_left", text=text)
    if not any(corpus.is_mark(ch) for ch in got) and any(corpus.is_mark(ch) for ch in expected):
        return failed("removes_attached", "lesson07.removes_attached", text=text, got=got)
    if len(got) > len(expected):
        return failed("after_space_left", "lesson07.after_space_left", text=text, got=got, expected=expected)
    if len(got) < len(expected):
        return failed("removes_too_much", "checking.l07.removes_too_much", **shown)
    return failed("wrong_text", "checking.l07.wrong_text", **shown)


@check
def check_strip_dangling(fn) -> CheckResult:
    """strip_dangling(text) removes marks and joiners that have no letter, mark or joiner kept
    before them, and only those (real words: ক্ষমতা, ক্র, র‍্যাব, র‍্যাঙ্ক, উদ্‌যাপন)."""
    for text, expected in DANGLING_CASES + JOINER_CASES:
        got, problem = call_student(fn, text)
        if problem is not None:
            return problem
        if not isinstance(got, str):
            return failed("not_text", "lesson07.not_text", got=type(got).__name__)
        if got != expected:
            return _explain(text, got, expected)
    return passed()
