"""Lesson 07's checks accept the reference answers and name typical mistakes."""

import unicodedata

from fastrain_lib.checks import lesson07


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


def test_mfu_reference_passes():
    assert lesson07.check_mfu(mfu_ok).ok


def test_mfu_typical_mistakes():
    assert lesson07.check_mfu(lambda a, b, c: 100 * a * b / c).code == "percent"
    assert lesson07.check_mfu(lambda a, b, c: a * b).code == "no_peak"
    assert lesson07.check_mfu(lambda a, b, c: c / (a * b)).code == "inverted"
    assert lesson07.check_mfu(lambda a, b, c: a / c).code == "wrong_value"
    assert lesson07.check_mfu(lambda a, b, c: None).code == "not_done"


def test_strip_reference_passes():
    assert lesson07.check_strip_dangling(strip_ok).ok


def test_strip_typical_mistakes():
    no_marks = lambda s: "".join(ch for ch in s if not is_mark(ch))
    assert lesson07.check_strip_dangling(no_marks).code == "removes_attached"
    only_after_space = lambda s: s.replace(" \u09cd", " ")
    assert lesson07.check_strip_dangling(only_after_space).code == "start_left"
    only_start = lambda s: s[1:] if s and is_mark(s[0]) else s
    assert lesson07.check_strip_dangling(only_start).code == "after_space_left"
    assert lesson07.check_strip_dangling(lambda s: 42).code == "not_text"
    assert lesson07.check_strip_dangling(lambda s: 1 / 0).code == "crashed"
