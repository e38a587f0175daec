"""Exercise checks, one module per lesson (lesson01.py, lesson02.py, ...).

A check never raises on a wrong or unfinished answer: it prints Bengali feedback that
names what is wrong and how to fix it, and returns a CheckResult (truthy when correct),
so an exercise notebook runs top to bottom even before the student has written anything.

How every check judges an answer (so that "✅" means the answer is right):
- by its EFFECT, not its form: outputs, the weights and optimizer state afterwards, the
  files it wrote — compared with a reference answer;
- over SEVERAL configurations (odd sizes, two dtypes, two world sizes, non-default
  hyperparameters), so an answer that hard-codes one of them fails;
- the inputs are compared afterwards too: an answer that changes its input in place fails
  unless the task asks for it;
- `@check` wraps every check: even a bug in a check, or an answer of a type nobody
  thought of, ends in a CheckResult, never in an exception.
"""

from __future__ import annotations

import functools
import math
import traceback
from dataclasses import dataclass

import torch

from fastrain_lib.core.i18n import t


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


def passed(key: str = "checking.correct", **values) -> CheckResult:
    return CheckResult(True, t(key, **values), "ok")


def failed(code: str, key: str, /, **values) -> CheckResult:
    """A failed check: `code` for tests, the catalog message `key` for the student."""
    return CheckResult(False, t(key, **values), code)


def _one_line(exc: BaseException) -> str:
    try:
        return traceback.format_exception_only(type(exc), exc)[-1].strip()[:300]
    except Exception:  # noqa: BLE001 - an exception whose __str__ itself raises
        return type(exc).__name__


def not_done(exc: BaseException | None = None) -> CheckResult:
    """The answer is missing (a TODO still in place) or crashed before returning."""
    if exc is None or isinstance(exc, NotImplementedError):
        return failed("not_done", "checking.not_done")
    return failed("crashed", "checking.crashed", error=_one_line(exc))


def check(fn):
    """Decorator for every check: whatever happens inside, the caller gets a CheckResult.

    The student's code is called through call_student (its errors become "crashed");
    this is the last line of defence for what slips through (an answer of a type the
    check did not expect, or a bug in the check itself)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs) -> CheckResult:
        try:
            result = fn(*args, **kwargs)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a check must never crash the notebook
            return failed("check_error", "checking.unexpected", error=_one_line(exc))
        if not isinstance(result, CheckResult):  # a check bug; say so instead of returning junk
            return failed("check_error", "checking.unexpected", error=repr(result)[:100])
        return result

    return wrapper


def call_student(fn, *args, none_ok: bool = False, **kwargs):
    """Call the student's function; returns (result, None) or (None, CheckResult on failure).

    A None result means "not done yet" (the stubs return None), unless none_ok: for tasks
    that change their arguments in place, where returning nothing is a valid answer."""
    if fn is None:
        return None, not_done()
    if not callable(fn):
        return None, failed("not_callable", "checking.not_callable", kind=type(fn).__name__)
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 — the student's code: report, never crash the notebook
        return None, not_done(exc)
    except SystemExit as exc:  # sys.exit() in an answer must not end the check (or the kernel)
        return None, not_done(exc)
    if result is None and not none_ok:
        return None, not_done()
    return result, None


# ------------------------------------------------------------------ looking at answers safely


def as_number(value) -> float | None:
    """The value as a finite float, or None when it is not one real number.

    Accepted: int, float, NumPy scalars, a one-element tensor or array (any real dtype).
    Not accepted: bool, str, None, complex, meta tensors, several numbers."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, torch.Tensor):
            if value.numel() != 1 or value.is_complex() or value.dtype == torch.bool or value.device.type == "meta":
                return None
            value = value.detach().cpu().reshape(()).item()
        elif hasattr(value, "__array__") and hasattr(value, "size") and hasattr(value, "dtype"):  # NumPy
            if getattr(value, "size", 0) != 1 or getattr(value.dtype, "kind", "") not in "iuf":
                return None
            value = value.reshape(()).item() if hasattr(value, "reshape") else value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        number = float(value)
    except Exception:  # noqa: BLE001 - an odd object: not a number
        return None
    return number if math.isfinite(number) else None


def describe(value) -> str:
    """A short description of an answer for a message: its type, and shape/dtype/device for a tensor."""
    try:
        if isinstance(value, torch.Tensor):
            return f"Tensor(shape={tuple(value.shape)}, dtype={str(value.dtype).replace('torch.', '')}, " \
                   f"device={value.device.type})"
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def snapshot(value):
    """A deep copy of the tensors inside nested dicts/lists/tuples (mutation guard: compare later)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(snapshot(v) for v in value) if type(value) in (list, tuple) else list(map(snapshot, value))
    return value


def unchanged(value, before) -> bool:
    """True when `value` still equals its snapshot `before`: same containers, same tensors
    (device, dtype, shape and every number; meta tensors compare by shape only)."""
    try:
        if isinstance(before, torch.Tensor):
            if not isinstance(value, torch.Tensor) or value.device != before.device:
                return False
            if value.dtype != before.dtype or value.shape != before.shape:
                return False
            return value.device.type == "meta" or torch.equal(value.detach(), before)
        if isinstance(before, dict):
            return isinstance(value, dict) and list(value) == list(before) and all(
                unchanged(value[k], before[k]) for k in before)
        if isinstance(before, (list, tuple)):
            return isinstance(value, (list, tuple)) and len(value) == len(before) and all(
                unchanged(v, b) for v, b in zip(value, before))
        return value is before or bool(value == before)
    except Exception:  # noqa: BLE001
        return False


def params_of(model) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def same_tensors(xs, ys, *, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Two lists of tensors with the same shapes, dtypes and (nearly) the same numbers."""
    try:
        xs, ys = list(xs), list(ys)
        return len(xs) == len(ys) and all(
            isinstance(x, torch.Tensor) and x.shape == y.shape and x.dtype == y.dtype and x.device == y.device
            and torch.allclose(x.detach(), y.detach(), rtol=rtol, atol=atol) for x, y in zip(xs, ys))
    except Exception:  # noqa: BLE001
        return False
