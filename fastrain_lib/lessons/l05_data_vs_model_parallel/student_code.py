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
