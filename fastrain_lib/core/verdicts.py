"""Sentences that state what *this run* measured, so a lesson's words match its numbers.

A lesson never tells the student what a measurement "shows" in static prose that might be
contradicted on their machine. Instead a verdict cell computes the sentence from the numbers:

    # VERDICT
    from fastrain_lib.core import verdicts
    verdicts.say("lesson04.verdict_fused", speedup=for_loop_ms / fused_ms)

Conventions (tests rely on them):
- a verdict cell's source starts with the line `# VERDICT`;
- it prints at least one line starting with PREFIX, produced by `say` (or `line`).
Catalog keys for verdicts live in the lesson's catalog file, in both languages.
"""

from __future__ import annotations

from fastrain_lib.core.i18n import t

PREFIX = "➤ "
CELL_MARK = "# VERDICT"


def line(key: str, **values) -> str:
    """The verdict sentence for `key`, formatted with the measured `values`."""
    return PREFIX + t(key, **values)


def say(key: str, **values) -> str:
    """Print the verdict sentence (and return it, for tests)."""
    text = line(key, **values)
    print(text)
    return text
