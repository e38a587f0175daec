"""Checks for lesson 07's exercises (the capstone): MFU, and Bengali marks that must not dangle.

How each check sees the technique (issue 28), not only a few results:
- check_mfu: hand-written cases plus generated ones (peaks from 1 GFLOP/s to 2 PFLOP/s, FLOPs per token
  and tokens/s over many orders of magnitude, MFUs anywhere in (0, 1)), with inputs of unusual but
  valid types (NumPy scalars, fractions.Fraction, Python ints), so a hard-coded peak or a table
  fitted to the examples fails; the course's own MFU helpers are forbidden while the answer runs.
- check_strip_dangling: the real words plus generated Bengali strings (consonants, vowel signs, ং ঃ ঁ,
  hasanta, ZWJ/ZWNJ, digits, danda, spaces and line breaks in every order), in NFC and in NFD (ো = ে + া,
  য় = য + ়: the task does not say NFC, so an answer that normalises the text changes it), each compared
  with the rule; the library's own corpus.tidy and the check's reference are forbidden; inputs compared
  before and after.
- Both repeat inputs in another context (issue 39): one case drawn afresh on every run (not from the
  fixed seeds), and one earlier case asked again at the end, its numbers scaled and of another type /
  its text after a space. An answer that replays the check's expected values in call order, or keys a
  table on the check's inputs, fails there ("repeat_differs").
"""

from __future__ import annotations

import math
import unicodedata
import random
from fractions import Fraction

from fastrain_lib import corpus
from fastrain_lib.lessons.checking import (CheckResult, as_number, call_student, check, describe, failed, passed,
                                           seeded_cases)

# ---------------------------------------------------------------- task 1: mfu(tokens_per_s, flops_per_token, peak)

# a T4-sized, an A100-sized and an H100-sized case, and awkward numbers (integer division shows)
MFU_CASES = [(1234.5, 7.3e6, 65e12), (1000.0, 6e6, 12e9), (250.0, 1e8, 1e11), (3e5, 2.4e8, 989e12), (7, 3, 100)]


def _mfu_case(rng) -> tuple:
    """A generated (tokens/s, FLOPs per token, peak): the MFU anywhere in (0, 1), values of valid
    but unusual types (a NumPy float or int, a Fraction, a plain int)."""
    import numpy as np

    tokens = rng.choice([rng.uniform(1, 5e5), float(rng.randint(1, 10**6))])
    flops = rng.choice([rng.uniform(1e3, 1e11), rng.randint(10**3, 10**9)])
    peak = tokens * flops / rng.uniform(0.005, 0.95)
    kinds = [float, np.float64, lambda v: np.int64(max(1, round(v))), lambda v: Fraction(v).limit_denominator(1000)]
    pick_kind = rng.choice(range(len(kinds)))
    values = [tokens, flops, peak]
    i = rng.randrange(3)
    values[i] = kinds[pick_kind](values[i])
    return tuple(values)


def mfu_cases(seed: int = 11) -> list[tuple]:
    return seeded_cases(_mfu_case, n=10, seed=seed, fixed=MFU_CASES)


def mfu_repeats(cases: list[tuple], rng=None) -> list[tuple]:
    """Inputs in another context, drawn afresh on every call: a new generated case, and an earlier case
    again with tokens/s and the peak scaled by the same factor (the same share) and of another type."""
    rng = rng or random.Random(random.SystemRandom().random())
    tokens, flops, peak = rng.choice(cases[len(MFU_CASES):] or cases)
    scale = rng.choice([2, 3, 10])
    again = (Fraction(_exact(tokens) * scale).limit_denominator(10**9) if not isinstance(tokens, Fraction)
             else float(tokens) * scale, flops, float(_exact(peak) * scale))
    return [_mfu_case(rng), again]


def _mfu_forbidden() -> list:
    """The course's own MFU: the exercise asks for the formula written out."""
    from fastrain_lib.lessons.l07_capstone import capstone
    from fastrain_lib.measure import peaks

    return [peaks.mfu, capstone.mfu]


def _exact(value) -> Fraction:
    return Fraction(value) if not hasattr(value, "item") else Fraction(value.item())


@check
def check_mfu(fn) -> CheckResult:
    """mfu(tokens_per_s, flops_per_token, peak_flops) must be the share (0..1) of the peak used,
    on hand-written and generated cases, written without the course's own mfu()."""
    forbidden = _mfu_forbidden()
    cases = mfu_cases()
    for n, (tokens, flops, peak) in enumerate(cases + mfu_repeats(cases)):
        expected = float(_exact(tokens) * _exact(flops) / _exact(peak))
        # numbers cannot be written to, so no guard_inputs (and checking.changed_part takes an unchanged
        # NumPy scalar for a changed one: /work/tools/requests/checking.md)
        result, problem = call_student(fn, tokens, flops, peak, forbid=forbidden)
        if problem is not None:
            return problem
        got = as_number(result)
        if got is None:
            return failed("not_number", "lesson07.not_number", got=describe(result))
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        if n >= len(cases):  # right on every fixed case, wrong on the same kind of input asked again
            return failed("repeat_differs", "lesson07.repeat_differs", got=got, expected=expected)
        if math.isclose(got, 100 * expected, rel_tol=1e-6):
            return failed("percent", "lesson07.mfu_percent")
        if math.isclose(got, tokens * flops, rel_tol=1e-6):
            return failed("no_peak", "lesson07.mfu_no_peak")
        if expected and math.isclose(got, 1 / expected, rel_tol=1e-6):
            return failed("inverted", "lesson07.mfu_inverted")
        if got == math.floor(expected) or got == round(expected):
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


# The pieces generated strings are made of: letters, every kind of mark, the joiners, and what
# a mark may dangle after (start, space, line break, danda, digits, Latin letters).
CONSONANTS = "কখগঘচছজটডতথদনপবমযরলশসহয়ড়"
VOWELS = "অআইউএও"
SIGNS = "\u09be\u09bf\u09c0\u09c1\u09c2\u09c7\u09c8\u09cb\u09cc\u0981\u0982\u0983\u09cd"  # া ি ী ু ূ ে ৈ ো ৌ ঁ ং ঃ ্
OTHERS = [" ", " ", "\n", "।", "৩", "7", "a", "-", ZWJ, ZWNJ]


def _dangling_case(rng) -> tuple[str, str]:
    """A generated Bengali string (NFC) with marks at the start, after spaces, after digits, after
    joiners, two in a row, inside real clusters — and what the rule leaves of it."""
    pieces = []
    for _ in range(rng.randint(3, 14)):
        kind = rng.random()
        if kind < 0.35:
            pieces.append(rng.choice(CONSONANTS) + "".join(rng.choice(SIGNS) for _ in range(rng.randint(0, 2))))
        elif kind < 0.45:
            pieces.append(rng.choice(VOWELS))
        elif kind < 0.75:
            pieces.append(rng.choice(SIGNS))
        else:
            pieces.append(rng.choice(OTHERS))
    text = unicodedata.normalize("NFC", "".join(pieces))
    return text, reference_strip_dangling(text)


# NFD text (the task allows any text): ো and ৌ split into two signs (ে + া, ে + ৗ), য় ড় ঢ় into letter + nukta (়).
NFD_CASES = [
    (unicodedata.normalize("NFD", "বোঝা আর য়"), unicodedata.normalize("NFD", "বোঝা আর য়")),  # nothing dangles
    (unicodedata.normalize("NFD", "ো শেষ"), unicodedata.normalize("NFD", " শেষ")),  # ে + া after nothing: both go
    ("়ক ়", "ক "),  # a nukta with nothing before it dangles too
]


def dangling_cases(seed: int = 13) -> list[tuple[str, str]]:
    """The real words and hand-written cases (NFC and NFD), then 16 generated strings (the same on every
    run), every fourth of them in NFD."""
    generated = seeded_cases(_dangling_case, n=16, seed=seed)
    generated = [(unicodedata.normalize("NFD", text), reference_strip_dangling(unicodedata.normalize("NFD", text)))
                 if i % 4 == 3 else (text, expected) for i, (text, expected) in enumerate(generated)]
    return DANGLING_CASES + JOINER_CASES + NFD_CASES + generated


def dangling_repeats(cases: list[tuple[str, str]], rng=None) -> list[tuple[str, str]]:
    """Inputs in another context, drawn afresh on every call: a new generated string, and an earlier case
    again after a space (nothing before it changes: " " + text leaves " " + what text leaves)."""
    rng = rng or random.Random(random.SystemRandom().random())
    text, expected = rng.choice([c for c in cases if c[0] != c[1]])  # a case where something dangles
    fresh = next((c for c in (_dangling_case(rng) for _ in range(50)) if c[0] != c[1]), _dangling_case(rng))
    return [fresh, (" " + text, " " + expected)]


@check
def check_strip_dangling(fn) -> CheckResult:
    """strip_dangling(text) removes marks and joiners that have no letter, mark or joiner kept
    before them, and only those (real words: ক্ষমতা, ক্র, র‍্যাব, র‍্যাঙ্ক, উদ্‌যাপন, and generated
    strings), written without the library's corpus.tidy."""
    forbidden = [corpus.tidy, reference_strip_dangling]
    cases = dangling_cases()
    for n, (text, expected) in enumerate(cases + dangling_repeats(cases)):
        got, problem = call_student(fn, text, guard_inputs=True, forbid=forbidden)
        if problem is not None:
            return problem
        if not isinstance(got, str):
            return failed("not_text", "lesson07.not_text", got=type(got).__name__)
        if got == expected:
            continue
        if not unicodedata.is_normalized("NFC", text) and got == unicodedata.normalize("NFC", expected):
            return failed("normalized", "lesson07.normalized", text=repr(text), got=repr(got))
        if n >= len(cases):
            return failed("repeat_differs", "lesson07.repeat_differs", got=repr(got), expected=repr(expected))
        return _explain(text, got, expected)
    return passed()
