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

Helpers that observe the technique, not only the result (issue 28; tests/test_checking.py):
- call_student(fn, *args, guard_inputs=True): every argument (nested dicts/lists/sets, tensors,
  NumPy arrays, a module's weights) is compared before/after: code "mutated_input" names the part
  (`table['fc1'][2]`); guard_inputs=("table", 0) guards only those (names or positions).
- call_student(fn, *args, forbid=[memory.training_bytes, "pkg.mod.helper"]) or `with forbid(...)
  as watch:` — "write it without X": calls of X are seen through any alias (code objects are
  watched); code "forbidden_call" names X; watch.calls, watch.failure().
- torch_ops(): records aten ops (a TorchDispatchMode): ops.count("aten::_foreach_").
- seeded_cases(make, n=8, seed=0, fixed=[...]): regression cases, then n from a fixed seed.
- as_number: int, float, Fraction, Decimal, NumPy int/float scalars and one-element arrays,
  one-element tensors; bool refused. as_integer: a whole number (8.0 only if integral_floats).
- snapshot/unchanged/changed_part (check_guards.py, re-exported here): NumPy scalars by value, NaN == NaN.
"""

from __future__ import annotations

import collections
import decimal
import fractions
import functools
import importlib
import inspect
import json
import math
import numbers
import os
import random
import sys
import threading
import time
import traceback
from dataclasses import dataclass

import torch

from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.check_guards import (  # noqa: F401 - re-exported: checks import them from here
    changed_part,
    params_of,
    same_tensors,
    snapshot,
    unchanged,
)


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


# The clock every timing check reads, bound when this module is imported: before any answer runs, so an
# answer that replaces time.perf_counter (or time.monotonic) cannot make itself look fast.
clock = time.perf_counter
# Every check's result is appended here (JSON lines) when set: the tests read it to prove that every
# check a solution calls says ✅ (issue 39), whatever the notebook shows.
CHECK_LOG_ENV = "FASTRAIN_CHECK_LOG"


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
            result = failed("check_error", "checking.unexpected", error=_one_line(exc))
        if not isinstance(result, CheckResult):  # a check bug; say so instead of returning junk
            result = failed("check_error", "checking.unexpected", error=repr(result)[:100])
        _log_result(fn, result)
        return result

    return wrapper


def _log_result(fn, result: CheckResult) -> None:
    path = os.environ.get(CHECK_LOG_ENV)
    if path:
        record = {"check": f"{fn.__module__}.{fn.__qualname__}", "ok": result.ok, "code": result.code,
                  "message": result.message[:300]}
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def call_student(fn, *args, none_ok: bool = False, guard_inputs=False, forbid=(), **kwargs):
    """Call the student's function; returns (result, None) or (None, CheckResult on failure).

    A None result means "not done yet" (the stubs return None), unless none_ok: for tasks
    that change their arguments in place, where returning nothing is a valid answer.
    guard_inputs: True (every argument) or the names/positions of the arguments that must be
    unchanged afterwards ("mutated_input"). forbid: helpers the answer must not call
    ("forbidden_call"), see `forbid`."""
    if fn is None:
        return None, not_done()
    if not callable(fn):
        return None, failed("not_callable", "checking.not_callable", kind=type(fn).__name__)
    guarded = _guarded_arguments(fn, args, kwargs, guard_inputs) if guard_inputs else []
    before = [snapshot(value) for _, value in guarded]
    try:
        with Forbidden(forbid) as watch:
            result = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 — the student's code: report, never crash the notebook
        return None, not_done(exc)
    except SystemExit as exc:  # sys.exit() in an answer must not end the check (or the kernel)
        return None, not_done(exc)
    if watch.calls:
        return None, watch.failure()
    for (name, value), old in zip(guarded, before):
        where = changed_part(value, old, name)
        if where is not None:
            return None, failed("mutated_input", "checking.mutated_input", name=where)
    if result is None and not none_ok:
        return None, not_done()
    return result, None


def _guarded_arguments(fn, args, kwargs, which) -> list[tuple[str, object]]:
    """(name, value) of the arguments to guard: the student's parameter names where the
    signature binds, else 'argument N' / the keyword."""
    try:
        signature = inspect.signature(fn)
        named = []
        for name, value in signature.bind(*args, **kwargs).arguments.items():
            kind = signature.parameters[name].kind
            named += [(f"{name}[{i}]", v) for i, v in enumerate(value)] if kind is inspect.Parameter.VAR_POSITIONAL \
                else list(value.items()) if kind is inspect.Parameter.VAR_KEYWORD else [(name, value)]
    except (TypeError, ValueError):
        named = [(f"#{i + 1}", v) for i, v in enumerate(args)] + list(kwargs.items())
    if which is True:
        return named
    keep = set(which if isinstance(which, (list, tuple, set, frozenset)) else [which])
    return [(n, v) for i, (n, v) in enumerate(named) if n in keep or i in keep]


class Forbidden:
    """Records calls of forbidden helpers while the `with` block runs ("write it without X").

    Targets: function objects or dotted names ("fastrain_lib.measure.memory.training_bytes").
    A Python function is recognised by its code object (so `from m import f as g; g()` is
    seen too, and so is a call made inside another helper); a builtin by identity."""

    def __init__(self, targets=()):
        self.names: dict[object, str] = {}
        for target in ([targets] if isinstance(targets, str) or callable(targets) else list(targets)):
            obj = _resolve(target) if isinstance(target, str) else target
            name = target if isinstance(target, str) else \
                f"{getattr(obj, '__module__', '') or ''}.{getattr(obj, '__qualname__', repr(obj))}".lstrip(".")
            while obj is not None:
                self.names[getattr(obj, "__code__", obj)] = name
                obj = getattr(obj, "__wrapped__", None)
        self.calls: list[str] = []
        self._old = self._old_threads = None

    def _hook(self, frame, event, arg):
        if event == "call" and frame.f_code in self.names:
            self.calls.append(self.names[frame.f_code])
        elif event == "c_call" and arg in self.names:
            self.calls.append(self.names[arg])
        if self._old is not None:
            self._old(frame, event, arg)

    def __enter__(self):
        if self.names:
            self._old, self._old_threads = sys.getprofile(), threading.getprofile()
            sys.setprofile(self._hook)
            threading.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        if self.names:
            sys.setprofile(self._old)
            threading.setprofile(self._old_threads)
        return False

    def failure(self) -> CheckResult | None:
        """The failed CheckResult naming the first forbidden helper called, None when none was."""
        return failed("forbidden_call", "checking.forbidden_call", name=self.calls[0]) if self.calls else None


def forbid(*targets) -> Forbidden:  # with forbid(memory.training_bytes, "json.dumps") as watch: ...
    return Forbidden(targets)


def _resolve(dotted: str):
    """'pkg.module.attr.attr' -> the object (the longest importable module prefix, then getattrs)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            return functools.reduce(getattr, parts[cut:], importlib.import_module(".".join(parts[:cut])))
        except ImportError:
            continue
    raise ImportError(dotted)


class torch_ops:
    """Records every aten op that runs inside the block (ops.names: Counter of 'aten::mul', ...),
    in this thread and in every thread started inside the block (a dispatch mode is thread-local:
    an answer that computes in a new thread, or a thread pool, must not escape the record)."""

    def __init__(self):
        self.names = collections.Counter()

    def count(self, prefix: str) -> int:  # how many recorded ops start with prefix ('aten::_foreach_')
        return sum(n for name, n in self.names.items() if name.startswith(prefix))

    def _mode(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        names = self.names

        class _Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                names[func._schema.name] += 1
                return func(*args, **(kwargs or {}))

        return _Mode()

    def __enter__(self):
        self._here = self._mode()
        self._here.__enter__()
        self._unfollow = follow_threads(self._mode)
        return self

    def __exit__(self, *exc):
        self._unfollow()
        return self._here.__exit__(*exc)


def follow_threads(make_context):
    """Until the returned function is called, every thread started runs inside `make_context()` (a fresh
    context manager per thread): what a check watches in its own thread, it also watches in the answer's."""
    original = threading.Thread.run

    def run(thread):
        with make_context():
            original(thread)

    threading.Thread.run = run
    return lambda: setattr(threading.Thread, "run", original)


def seeded_cases(make, *, n: int = 8, seed: int = 0, fixed=()) -> list:
    """The hand-written regression cases `fixed`, then n cases `make(rng)`, rng a random.Random
    seeded from (seed, i): the same cases on every run, different from any fixed example."""
    return list(fixed) + [make(random.Random(f"fastrain-{seed}-{i}")) for i in range(n)]


# ------------------------------------------------------------------ looking at answers safely


def as_number(value) -> float | None:
    """The value as a finite float, or None when it is not one real number.

    Accepted: int, float, fractions.Fraction, decimal.Decimal, every NumPy integer/float scalar
    (float16 … longdouble), a one-element tensor or array (any real dtype). Not accepted: bool
    (also NumPy's and a bool tensor), str, None, complex, meta tensors, several numbers."""
    try:
        number = float(_real(value))
    except (OverflowError, ValueError, TypeError, decimal.InvalidOperation):  # None, 10**400, sNaN
        return None
    return number if math.isfinite(number) else None


def as_integer(value, *, integral_floats: bool = False) -> int | None:
    """The value as an int when it is one whole number: int, a NumPy/tensor integer,
    Fraction(8, 1), Decimal('8'); a float (8.0) only with integral_floats=True."""
    number = _real(value)
    if number is None or isinstance(number, bool):
        return None
    if isinstance(number, int):
        return number
    try:
        exact = fractions.Fraction(number)
    except (OverflowError, ValueError, TypeError, decimal.InvalidOperation):
        return None
    if exact.denominator != 1 or (isinstance(number, float) and not integral_floats):
        return None
    return int(exact)


def _real(value):
    """int, float, Fraction or Decimal for one real number, else None (bool -> None)."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, torch.Tensor):
            if value.numel() != 1 or value.is_complex() or value.dtype == torch.bool or value.device.type == "meta":
                return None
            value = value.detach().cpu().reshape(()).item()
        elif hasattr(value, "__array__") and hasattr(value, "dtype") and hasattr(value, "size"):  # NumPy
            import numpy as np

            array = np.asarray(value)
            if array.size != 1 or array.dtype.kind not in "iuf":
                return None
            scalar = array.reshape(())[()]
            value = int(scalar) if array.dtype.kind in "iu" else float(scalar)
        if isinstance(value, (int, float, fractions.Fraction, decimal.Decimal)) and not isinstance(value, bool):
            return value
        if isinstance(value, numbers.Integral):
            return int(value)
    except Exception:  # noqa: BLE001 - an odd object: not a number
        return None
    return None


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
