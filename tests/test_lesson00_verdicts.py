"""Lesson 00's verdict sentences (fastrain_lib/lessons/l00_setup/verdicts.py): the cause follows the
measured ratio, and a noisy measurement prints only the noisy mark, never a cause."""

import types

import pytest

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l00_setup import verdicts as lesson00


def rec(n, seconds, verdict="quiet"):
    return types.SimpleNamespace(params={"size": n}, median_s=seconds, noise={"verdict": verdict, "reasons": ["load"]})


@pytest.mark.parametrize("ratio, key", [(3.0, "lesson00.v_doubling_less"), (8.0, "lesson00.v_doubling_about"),
                                        (14.0, "lesson00.v_doubling_more")])
def test_doubling_gives_the_cause_that_fits_the_ratio(capsys, ratio, key):
    lesson00.doubling(rec(64, 1e-3), rec(128, ratio * 1e-3))
    out = capsys.readouterr().out.splitlines()
    assert out == [verdicts.line("lesson00.v_doubling", n=64, n2=128, ratio=ratio), verdicts.line(key)]


def test_doubling_on_noisy_measurements_gives_no_cause(capsys):
    lesson00.doubling(rec(64, 1e-3), rec(128, 3e-3, "noisy"))
    out = capsys.readouterr().out
    assert verdicts.NOISY_MARK in out and t("lesson00.v_doubling_less") not in out


def test_shaping_says_which(capsys):
    lesson00.shaping("3.11.0", 50.0, 80.0)
    lesson00.shaping("3.10.0", 80.0, 80.0)
    out = capsys.readouterr().out
    assert verdicts.line("lesson00.v_shaping_ok") in out and verdicts.line("lesson00.v_shaping_broken") in out


def test_doubling_finding_lines_carry_their_noise_status(capsys):
    """Issue 38's sentence rule on this lesson's verdict: noisy rows — every finding line carries the noisy
    mark and no cause is given; quiet rows — the ratio and its cause are stated."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from _sentences import is_finding

    lesson00.doubling(rec(64, 1e-3, "noisy"), rec(128, 9e-3))
    noisy = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert noisy and all(verdicts.NOISY_MARK.strip() in line for line in noisy if is_finding(line))
    assert not any(t(k) in "\n".join(noisy) for k in ("lesson00.v_doubling_less", "lesson00.v_doubling_about",
                                                       "lesson00.v_doubling_more"))
    lesson00.doubling(rec(64, 1e-3), rec(128, 9e-3))
    quiet = capsys.readouterr().out
    assert "9.0" in quiet and verdicts.line("lesson00.v_doubling_about") in quiet and "⚠️" not in quiet
