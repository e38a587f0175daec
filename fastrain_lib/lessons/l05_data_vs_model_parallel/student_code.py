"""Running a student's function where a check needs it: is it still a stub, and its source text
shipped to real processes (a function typed into a notebook cannot be imported by a spawned one)."""

from __future__ import annotations

import ast
import inspect
import textwrap

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from fastrain_lib.lessons import check_ranks as ranks
from fastrain_lib.lessons.checking import CheckResult, failed


def is_stub(fn) -> bool:
    """True when the function body is only a docstring/pass/`return None`/`raise NotImplementedError`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # docstring
        if isinstance(node, ast.Pass):
            continue
        if isinstance(node, ast.Return) and (node.value is None or
                                             (isinstance(node.value, ast.Constant) and node.value.value is None)):
            continue
        if isinstance(node, ast.Raise):
            continue
        return False
    return True


def answer_name(fn) -> str:
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}".lstrip(".")


def library_answer(fn, answers) -> bool:
    """The library's answer handed in itself (or wrapped): its source is sent to the ranks and runs there
    as a new function, so the ranks' Forbidden cannot see it; it is recognised here, by its code."""
    while fn is not None:
        if any(getattr(fn, "__code__", None) is getattr(a, "__code__", object()) for a in answers):
            return True
        fn = getattr(fn, "__wrapped__", None)
    return False


def source_of(fn) -> str | None:
    """The function's source text (works for functions typed into Jupyter cells), or None."""
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _load_source(source: str, name: str):
    """exec() the student's source in a namespace with the usual names; returns the function."""
    namespace = {"torch": torch, "nn": nn, "F": F, "dist": dist, "DDP": DDP, "DataLoader": DataLoader,
                 "DistributedSampler": DistributedSampler, "__name__": "student"}
    exec(compile(source, "<student>", "exec"), namespace)  # noqa: S102 - the student's own code
    return namespace[name]


def _run_ranks(worker, world_size, args, timeout_s) -> tuple[list | None, CheckResult | None]:
    """The worker in `world_size` real processes; (results, None) or (None, a failure naming why)."""
    try:
        return ranks.run(worker, world_size, args, timeout_s=timeout_s), None
    except ranks.RanksFailed as exc:
        if exc.kind == "timeout":
            return None, failed("timeout", "checking.l05.timeout", world=world_size, seconds=f"{timeout_s:g}")
        return None, failed("worker_failed", "lesson05.check_worker_failed", error=exc.detail[-1500:])


# ---------------------------------------------------------------- watching which collectives an answer calls

# torch.distributed's collectives (point-to-point send/recv apart): what an exercise may require or forbid
COLLECTIVES = ("all_reduce", "all_reduce_coalesced", "reduce_scatter", "reduce_scatter_tensor", "all_gather",
               "all_gather_into_tensor", "broadcast", "reduce", "all_to_all", "all_to_all_single", "gather", "scatter")


class CollectiveCalled(RuntimeError):
    """Raised inside an answer that calls a collective where the exercise forbids it."""


def _number(value):
    """as_number, plus exact fractions (fractions.Fraction: "the fraction" asked for, written exactly)."""
    import math
    import numbers

    from fastrain_lib.lessons.checking import as_number

    got = as_number(value)
    if got is None and isinstance(value, numbers.Rational) and not isinstance(value, bool):
        try:
            got = float(value)
        except (OverflowError, ZeroDivisionError, TypeError):
            return None
        return got if math.isfinite(got) else None
    return got


class spy_collectives:
    """Record (and with forbid=True refuse) every torch.distributed collective called inside the
    block: `calls` lists their names in order. The module's attributes are wrapped, so `dist.all_reduce`,
    `torch.distributed.all_reduce` and a name imported inside the answer all pass through it."""

    def __init__(self, names=COLLECTIVES, *, forbid: bool = False, keep_reduced: bool = False):
        self.names, self.forbid, self.calls, self._saved = tuple(names), forbid, [], {}
        # keep_reduced: (input, output) copies of every tensor an all_reduce reduced, so a check can tie the
        # answer's result to the tensor the collective itself reduced (not to "it was called somewhere")
        self.keep_reduced, self.reduced = keep_reduced, []

    def __enter__(self):
        for name in self.names:
            real = getattr(dist, name, None)
            if real is None:
                continue
            self._saved[name] = real

            def wrapper(*args, _name=name, _real=real, **kwargs):
                self.calls.append(_name)
                if self.forbid:
                    raise CollectiveCalled(_name)
                tensors = self._reduced_tensors(_name, args, kwargs)
                before = [t.detach().clone() for t in tensors]
                out = _real(*args, **kwargs)
                if tensors and kwargs.get("async_op"):
                    out.wait()  # the result is read below: wait for it (waiting again later is harmless)
                self.reduced += [(b, t.detach().clone()) for b, t in zip(before, tensors)]
                return out

            setattr(dist, name, wrapper)
        return self

    def _reduced_tensors(self, name, args, kwargs) -> list:
        if not self.keep_reduced or name not in ("all_reduce", "all_reduce_coalesced"):
            return []
        first = args[0] if args else kwargs.get("tensor", kwargs.get("tensors"))
        items = first if isinstance(first, (list, tuple)) else [first]
        return [t for t in items if isinstance(t, torch.Tensor)]

    def __exit__(self, *exc):
        for name, real in self._saved.items():
            setattr(dist, name, real)
        return False
