"""Lesson 07's checks: valid answers pass, wrong ones a student could write fail with the code
naming their mistake (one row per answer; see tests/checkcases.py)."""

import itertools
import math
import re
import unicodedata

import numpy as np
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.lessons.l07_capstone import checks as C


def mfu_ok(tokens_per_s, flops_per_token, peak_flops):
    return tokens_per_s * flops_per_token / peak_flops


JOINERS = ("\u200d", "\u200c")  # ZWJ, ZWNJ


def is_mark(ch):
    return unicodedata.category(ch) in ("Mn", "Mc")


def is_mark_or_joiner(ch):
    return is_mark(ch) or ch in JOINERS


def strip_ok(text):
    """The solution: marks and the two joiners, dropped when nothing they can attach to is kept before them."""
    out = ""
    for ch in text:
        prev = out[-1:]
        if is_mark_or_joiner(ch) and not (prev.isalpha() or (prev and is_mark_or_joiner(prev))):
            continue
        out += ch
    return out


def strip_list_category(text):
    """Valid: a list of kept characters, letters by Unicode category (L*), joiners named by code point."""
    kept = []
    for ch in text:
        if unicodedata.category(ch)[0] == "M" or ord(ch) in (0x200D, 0x200C):
            before = kept[-1] if kept else ""
            if not before or not (unicodedata.category(before)[0] in "LM" or before in JOINERS):
                continue
        kept.append(ch)
    return "".join(kept)


def strip_reference(text):
    """The check's own reference: forbidden (the rule is the exercise)."""
    return C.reference_strip_dangling(text)


def strip_tidy(text):
    """The library's fuller corpus.tidy: forbidden, the exercise asks for the rule written out."""
    from fastrain_lib import corpus

    return corpus.tidy(text)


FIXED_STRIPS = dict(C.DANGLING_CASES + C.JOINER_CASES)


def strip_fitted(text):
    """A table of the fixed examples, a plausible rule elsewhere (drops only a mark at the very start)."""
    return FIXED_STRIPS.get(text, text[1:] if text and is_mark_or_joiner(text[0]) else text)


MFU_FIXED = {case: case[0] * case[1] / case[2] for case in C.MFU_CASES}


def mfu_fitted(t, f, p):
    return MFU_FIXED.get((t, f, p), t * f / 65e12)  # the fixed cases, else a T4's peak


def mfu_library(t, f, p):
    from fastrain_lib.measure.peaks import mfu as course_mfu

    return course_mfu(t * f, p)


def mfu_fraction(t, f, p):
    from fractions import Fraction

    def exact(v):
        return v if isinstance(v, Fraction) else Fraction(float(v))

    return exact(t) * exact(f) / exact(p)  # exact: a Fraction is a valid share


def mfu_tensor(t, f, p):
    import torch

    return torch.tensor(float(t) * float(f) / float(p), dtype=torch.float64)  # a 0-d tensor


def strip_old_rule(text):
    """The rule as the exercise used to state it: Mn/Mc only. Drops the hasanta of র‍্য (র + ZWJ + ্ + য)."""
    out = ""
    for ch in text:
        prev = out[-1:]
        if is_mark(ch) and not (prev.isalpha() or (prev and is_mark(prev))):
            continue
        out += ch
    return out


def strip_category_only(text):
    """Marks by category, a list of kept characters: the same mistake, written differently."""
    kept = []
    for ch in text:
        if unicodedata.category(ch)[0] == "M" and not (kept and unicodedata.category(kept[-1])[0] in "LM"):
            continue
        kept.append(ch)
    return "".join(kept)


def strip_joiner_as_letter(text):
    """Lets a mark follow a joiner but never drops a joiner: a ZWJ after a space keeps the hasanta after it dangling."""
    out = ""
    for ch in text:
        prev = out[-1:]
        if is_mark(ch) and not (prev.isalpha() or (prev and is_mark(prev)) or (prev and prev in JOINERS)):
            continue
        out += ch
    return out


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
    right(C.check_mfu, mfu_fraction, "Fraction"),
    right(C.check_mfu, mfu_tensor, "0-d tensor"),
    wrong(C.check_mfu, mfu_fitted, "wrong_value", "a table of the fixed examples"),
    wrong(C.check_mfu, mfu_library, "forbidden_call", "the course's peaks.mfu"),
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
    wrong(C.check_strip_dangling, strip_reference, "forbidden_call", "the check's reference"),
    wrong(C.check_strip_dangling, strip_tidy, "forbidden_call", "corpus.tidy"),
    wrong(C.check_strip_dangling, strip_old_rule, "joiner_dropped", "Mn/Mc only: র‍্য loses its hasanta"),
    wrong(C.check_strip_dangling, strip_category_only, "joiner_dropped", "category M only, list"),
    wrong(C.check_strip_dangling, strip_joiner_as_letter, "joiner_left", "joiner kept after a space"),
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
    assert any(ch.isdigit() for ch in texts)
    joined = "".join(t for t, _ in C.JOINER_CASES)
    assert "\u200d" in joined and "\u200c" in joined


# Real words, as Bengali keyboards (and the course's own text) write them: র‍্য is র + ZWJ + ্ + য.
REAL_WORDS = ["র\u200d্যাব", "র\u200d্যাঙ্ক", "র\u200d্যাম", "ক্র", "ট্র্যাক", "ক্ষমতা", "উদ্\u200cযাপন", "কার্য"]


def test_real_words_survive_the_rule_whole():
    for word in REAL_WORDS:
        assert unicodedata.is_normalized("NFC", word)
        assert C.reference_strip_dangling(word) == word, word
        assert C.reference_strip_dangling("ি" + word + " ্") == word + " "  # only the dangling marks go
    assert "\u09cd" not in C.reference_strip_dangling("র\u200d্যাব", joiners_are_marks=False)  # the old rule's bug


def test_the_joiner_message_names_zwj_and_its_code_point():
    result = C.check_strip_dangling(strip_old_rule)
    assert not result.ok and result.code == "joiner_dropped"
    from fastrain_lib.core.i18n import t

    for lang in ("bn", "en"):
        text = t("lesson07.joiner_dropped", lang=lang, text="'x'", got="'y'", expected="'z'")
        assert "ZWJ" in text and "U+200D" in text and "U+200C" in text


def test_a_fitted_strip_fails_on_a_generated_string():
    result = C.check_strip_dangling(strip_fitted)
    assert not result.ok and result.code != "forbidden_call"
    generated = C.dangling_cases()[len(C.DANGLING_CASES) + len(C.JOINER_CASES) + len(C.NFD_CASES):]
    assert len(generated) == 16  # every fourth in NFD (the task does not say NFC), the others in NFC
    assert sum(not unicodedata.is_normalized("NFC", t) for t, _ in generated) >= 1
    # marks land in every awkward place: at the start, after a space, after a joiner, two in a row
    texts = [t for t, _ in generated]
    assert any(t and is_mark(t[0]) for t in texts)
    assert any(" " + ch in t for t in texts for ch in map(chr, range(0x0981, 0x09d8)) if is_mark(ch))
    assert any(is_mark(a) and is_mark(b) for t in texts for a, b in itertools.pairwise(t))
    assert C.dangling_cases() == C.dangling_cases()


def test_generated_mfu_cases_cover_types_and_range():
    from fractions import Fraction

    generated = C.mfu_cases()[len(C.MFU_CASES):]
    kinds = {type(v).__name__ for case in generated for v in case}
    assert {"Fraction", "float64"} & kinds and len(generated) == 10
    shares = [float(t) * float(f) / float(p) for t, f, p in generated]
    assert all(0 < x < 1 for x in shares) and max(shares) / min(shares) > 3
    assert Fraction in {type(v) for case in generated for v in case} or "int64" in kinds


# ---- issue 39: inputs the task allows (NFD text), inputs repeated in another context, the library answer


def _all_mfu_expected():
    from fractions import Fraction

    def exact(v):
        return Fraction(v) if not hasattr(v, "item") else Fraction(v.item())

    return {tuple(float(v) for v in case): float(exact(case[0]) * exact(case[1]) / exact(case[2]))
            for case in C.mfu_cases()}


def test_an_mfu_keyed_on_every_case_the_check_feeds_fails_on_the_repeat():
    """A table of every fixed AND seeded case (what a student can record from the check) with a T4 peak
    elsewhere passes every case the check used to feed; the fresh case and the scaled repeat catch it."""
    table = _all_mfu_expected()

    def keyed(t, f, p):
        return table.get((float(t), float(f), float(p)), float(t) * float(f) / 65e12)

    result = C.check_mfu(keyed)
    assert not result.ok and result.code == "repeat_differs", result.message


def test_an_mfu_replaying_the_expected_values_in_call_order_fails():
    answers = iter(_all_mfu_expected().values())

    def replay(t, f, p):
        return next(answers, 0.5)

    result = C.check_mfu(replay)
    assert not result.ok and result.code == "repeat_differs", result.message


def test_correct_mfu_with_a_cache_or_call_count_passes():
    import functools

    calls = []

    @functools.lru_cache(maxsize=None)
    def cached(t, f, p):
        calls.append(1)
        return t * f / p

    assert C.check_mfu(cached).ok and calls


def test_the_mfu_repeats_are_the_same_share_in_another_form():
    import random
    from fractions import Fraction

    cases = C.mfu_cases()
    for seed in range(20):
        fresh, again = C.mfu_repeats(cases, random.Random(seed))
        share = float(Fraction(float(again[0])) * Fraction(float(again[1])) / Fraction(float(again[2])))
        assert any(math.isclose(share, float(t) * float(f) / float(p), rel_tol=1e-6) for t, f, p in cases)
        assert fresh not in cases
    assert C.mfu_repeats(cases) != C.mfu_repeats(cases)  # drawn afresh on every check


def _all_strip_expected():
    return dict(C.dangling_cases())


def test_a_strip_keyed_on_every_case_the_check_feeds_fails_on_the_repeat():
    table = _all_strip_expected()

    def keyed(text):
        return table.get(text, text)

    result = C.check_strip_dangling(keyed)
    assert not result.ok and result.code == "repeat_differs", result.message


def test_nfd_text_is_fed_and_a_normalising_answer_fails():
    texts = [t for t, _ in C.dangling_cases()]
    assert any(not unicodedata.is_normalized("NFC", t) for t in texts)
    assert any("\u09bc" in t for t in texts) and any("\u09c7\u09be" in t for t in texts)  # nukta, ে + া
    result = C.check_strip_dangling(lambda s: strip_ok(unicodedata.normalize("NFC", s)))
    assert not result.ok and result.code == "normalized", result.message
    result = C.check_strip_dangling(lambda s: unicodedata.normalize("NFD", strip_ok(s)))
    assert not result.ok  # the other way round changes NFC text


def test_a_strip_with_a_sign_list_for_nfc_only_fails_on_nfd():
    """Marks listed by hand as the NFC vowel signs (া to ৌ, ্, ং ঃ ঁ): the nukta of NFD য় is missed."""
    signs = set("\u09be\u09bf\u09c0\u09c1\u09c2\u09c3\u09c7\u09c8\u09cb\u09cc\u09cd\u0981\u0982\u0983") | set(JOINERS)

    def listed(text):
        out = ""
        for ch in text:
            prev = out[-1:]
            if ch in signs and not (prev.isalpha() or (prev and prev in signs)):
                continue
            out += ch
        return out

    result = C.check_strip_dangling(listed)
    assert not result.ok and result.code not in ("ok", "forbidden_call")


def test_the_task_text_names_the_forbidden_library_answers_and_nfd():
    import json

    from _nbrun import ROOT

    for folder in ("solutions", "exercises"):
        nb = json.loads((ROOT / folder / "07_capstone_bengali_gpt.ipynb").read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        assert "`mfu`" in text and "`corpus.tidy` ডাকা চলবে না" in text and "NFD" in text, folder
