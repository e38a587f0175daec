"""What lesson 03's checks observe while an answer runs, besides its result.

forbidden(): an exercise that teaches X fails when the course's own answer to it is called while the
answer runs ("write it yourself": one policy for every check of the lesson, said in each task's text).
It is checking.Forbidden — one guard for the whole course — over every function (and method) a module
of the course defines that holds the answer, plus the check's own reference answers: a Python function
is recognised by its code object, whatever name the answer imported it under, also inside another
helper and in every thread the answer starts (threading.setprofile), so a helper called in a new
thread does not escape.
"""

from __future__ import annotations

import inspect
from fractions import Fraction
from numbers import Rational

from fastrain_lib.lessons.checking import Forbidden, as_number


def _functions_of(module) -> list:
    """Every function a module defines itself (not the ones it imports), and its classes' methods."""
    out = []
    for obj in vars(module).values():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            out.append(obj)
        elif inspect.isclass(obj):
            for member in vars(obj).values():
                member = getattr(member, "__func__", member)  # staticmethod / classmethod
                if inspect.isfunction(member):
                    out.append(member)
    return out


def forbidden(*, modules=(), functions=()) -> Forbidden:
    """with forbidden(modules=[memory], functions=[reference_adam_bytes]) as seen: ...answer runs...
    seen.calls -> ["fastrain_lib.measure.memory.training_bytes", ...] (empty when none was called)."""
    return Forbidden([fn for module in modules for fn in _functions_of(module)] + list(functions))


def fresh_str(text: str) -> str:
    """An equal string that is not the interned literal: `precision is "amp"` must not pass a check."""
    return "".join(list(text))


def number(value) -> float | None:
    """as_number, and an exact fractions.Fraction (any Rational) too."""
    if isinstance(value, Rational) and not isinstance(value, (bool, int)):
        try:
            return float(Fraction(value))
        except Exception:  # noqa: BLE001
            return None
    return as_number(value)
