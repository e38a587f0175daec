"""Sentences that state what *this run* measured, so a lesson's words match its numbers.

A lesson never tells the student what a measurement "shows" in static prose that might be
contradicted on their machine. Instead a verdict cell computes the sentence from the numbers:

    # VERDICT
    from fastrain_lib.core import verdicts
    speedup = for_loop_ms / fused_ms
    verdicts.say(pick(bn=f"এখানে fused {speedup:.1f} গুণ দ্রুত", en=f"fused is {speedup:.1f}x faster here"))

A notebook cell writes its sentence inline (pick), so the reader sees it; library code passes a
catalog key and its values (verdicts.say("lesson05.v_ring", ...)).

Conventions (tests rely on them):
- a verdict cell's source starts with the line `# VERDICT`;
- it prints at least one line starting with PREFIX, produced by `say` (or `line`).
Catalog keys for verdicts live in the lesson's catalog file, in both languages.
"""

from __future__ import annotations

import re

from fastrain_lib.core.i18n import t

PREFIX = "➤ "
CELL_MARK = "# VERDICT"


_KEY = re.compile(r"[a-z0-9_]+(\.[A-Za-z0-9_]+)+")


def line(key_or_sentence: str, **values) -> str:
    """The verdict sentence: a catalog key formatted with the measured `values`, or a sentence
    the notebook cell already wrote (pick(bn=..., en=...)). A key that is not in the catalog
    still raises KeyError: a typo must fail a test, not print the key."""
    if _KEY.fullmatch(key_or_sentence):
        return PREFIX + t(key_or_sentence, **values)
    return PREFIX + key_or_sentence


def say(key_or_sentence: str, **values) -> str:
    """Print the verdict sentence (and return it, for tests)."""
    text = line(key_or_sentence, **values)
    print(text)
    return text
