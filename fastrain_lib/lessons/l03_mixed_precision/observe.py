"""What lesson 03's checks observe while an answer runs, besides its result.

ForbiddenCalls: an exercise that says "write it without X" fails when X is called. A profile
function (sys.setprofile) sees every Python call made while the answer runs, whatever name the
answer imported X under, and records the first call into a forbidden file (a library module
that already holds the answer) or of a forbidden function.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from numbers import Rational

from fastrain_lib.lessons.checking import as_number


class ForbiddenCalls:
    """with ForbiddenCalls(files={path: "fastrain_lib.measure.memory"}, functions={fn: "name"}) as seen:
           ...answer runs...
       seen.called -> "fastrain_lib.measure.memory.training_bytes" (the first forbidden call) or None"""

    def __init__(self, files: dict | None = None, functions: dict | None = None):
        self.files = dict(files or {})
        self.codes = {fn.__code__: name for fn, name in (functions or {}).items()}
        self.called: str | None = None

    def _profile(self, frame, event, arg):
        if event != "call" or self.called is not None:
            return
        code = frame.f_code
        if code in self.codes:
            self.called = self.codes[code]
        elif code.co_filename in self.files:
            self.called = f"{self.files[code.co_filename]}.{getattr(code, 'co_qualname', code.co_name)}"

    def __enter__(self):
        self._old = sys.getprofile()
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self._old)


def number(value) -> float | None:
    """as_number, and an exact fractions.Fraction (any Rational) too."""
    if isinstance(value, Rational) and not isinstance(value, (bool, int)):
        try:
            return float(Fraction(value))
        except Exception:  # noqa: BLE001
            return None
    return as_number(value)
