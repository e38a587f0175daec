"""Exercise checks, one module per lesson (lesson01.py, lesson02.py, ...).

A check never raises on a wrong or unfinished answer: it prints Bengali feedback that
names what is wrong and how to fix it, and returns a CheckResult (truthy when correct),
so an exercise notebook runs top to bottom even before the student has written anything.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from ..i18n import t


@dataclass
class CheckResult:
    ok: bool
    message: str
    code: str = ""  # a short machine-readable reason, e.g. "missing_update" (tests assert on it)

    def __bool__(self) -> bool:
        return self.ok

    def _repr_html_(self) -> str:
        color = "#0a7d28" if self.ok else "#b00020"
        icon = "✅" if self.ok else "❌"
        return f'<div style="color:{color};font-size:1.1em">{icon} {self.message}</div>'

    def __str__(self) -> str:
        return ("✅ " if self.ok else "❌ ") + self.message


def passed(key: str = "checks.correct", **values) -> CheckResult:
    return CheckResult(True, t(key, **values), "ok")


def failed(code: str, key: str, **values) -> CheckResult:
    """A failed check: `code` for tests, the catalog message `key` for the student."""
    return CheckResult(False, t(key, **values), code)


def not_done(exc: BaseException | None = None) -> CheckResult:
    """The answer is missing (a TODO still in place) or crashed before returning."""
    if exc is None or isinstance(exc, NotImplementedError):
        return failed("not_done", "checks.not_done")
    where = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return failed("crashed", "checks.crashed", error=where)


def call_student(fn, *args, **kwargs):
    """Call the student's function; returns (result, None) or (None, CheckResult on failure)."""
    if fn is None:
        return None, not_done()
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 — the student's code: report, never crash the notebook
        return None, not_done(exc)
    if result is None:
        return None, not_done()
    return result, None
