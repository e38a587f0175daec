"""Lesson 00's verdicts: each `# VERDICT` cell calls one function here, which prints its sentences
(keys lesson00.* in messages.py); a cause is never printed from a noisy measurement (verdicts.say)."""

from __future__ import annotations

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t


def doubling(small, big) -> None:
    """n×n, then 2n×2n matmul (bench Records): 8× the work; how much more time, and why."""
    n, ratio = small.params["size"], big.median_s / small.median_s
    verdicts.say("lesson00.v_doubling", noise=[small, big], n=n, n2=2 * n, ratio=ratio)
    why = "lesson00.v_doubling_less" if ratio < 6 else "lesson00.v_doubling_about" if ratio <= 10 else "lesson00.v_doubling_more"
    verdicts.say(why, noise=[small, big])


def shaping(version: str, joined: float, apart: float) -> None:
    """A conjunct drawn joined is narrower than its letters drawn apart only when text is shaped."""
    print(t("lesson00.shaping_widths", version=version, joined=joined, apart=apart))
    verdicts.say("lesson00.v_shaping_ok" if joined < apart else "lesson00.v_shaping_broken", noise=())
