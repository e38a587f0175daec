"""Checks for lesson 05c's exercises (ZeRO memory, tensor parallelism by hand).

    check_zero_memory(zero_bytes_per_rank)   # zero_bytes_per_rank(n_params, stage, world_size) -> bytes
    check_column_row_mlp(tp_forward)         # tp_forward(x, w1, b1, w2, b2, rank, world_size) -> y

Where the student's code runs (said plainly):
- check_zero_memory calls the function in this process (it is arithmetic).
- check_column_row_mlp runs it in REAL processes (gloo, 2 and then 3 ranks). A function typed
  into a notebook cell cannot be imported by another process, so the check sends its SOURCE
  TEXT to every rank (as lesson 05's checks do), which runs it with exec(). The names torch, nn,
  F and dist are provided there; `dist` is torch.distributed with every collective counted.
  Each rank gets the FULL weights and must use only its own block (rank r: the r-th of
  world_size equal, contiguous blocks of the hidden units, as torch.chunk cuts them). The check
  proves it: a second run hands each rank weights whose other blocks are NaN.
"""

from __future__ import annotations

import math

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from fastrain_lib.distributed import zero
from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, failed, not_done, passed
from fastrain_lib.lessons import check_ranks as ranks
from fastrain_lib.lessons.l05_data_vs_model_parallel.checks import is_stub, source_of

# ---------------------------------------------------------------------------------------
# Task 1: ZeRO memory per rank (mixed-precision Adam: 2Ψ + 2Ψ + 12Ψ)
# ---------------------------------------------------------------------------------------


def reference_zero_bytes(n_params, stage, world_size):
    """The library's one formula (distributed.zero): mixed-precision Adam, 2Ψ + 2Ψ + 12Ψ, sharded by stage."""
    return zero.formula_bytes(n_params, stage, world_size, "amp")["total"]


def _bytes(n, stage, w, per=(2, 2, 12)):
    """The same sharding rule with other bytes per parameter (a student's wrong accounting)."""
    return zero.shard_bytes(*(b * n for b in per), stage, w)["total"]


# the cases: (Ψ, stage, N) — every stage, world sizes that do not divide Ψ, a 7B model
ZERO_CASES = [(1_000_000, 1, 4), (1_000_000, 0, 4), (3_000_000, 2, 8), (123_457, 3, 3), (7_000_000_000, 3, 64),
              (7_000_000_000, 1, 8), (50_000, 2, 2)]

# wrong ideas a student may have: (code, bytes for (n, stage, w))
ZERO_WRONG = [
    ("fp32", lambda n, s, w: _bytes(n, s, w, (4, 4, 8))),
    ("no_master", lambda n, s, w: _bytes(n, s, w, (2, 2, 8))),
    ("no_shard", lambda n, s, w: 16 * n),
    ("all_sharded", lambda n, s, w: 16 * n / w if s > 0 else 16 * n),
    ("stage_shift", lambda n, s, w: _bytes(n, min(s + 1, 3), w)),
    ("stage_shift", lambda n, s, w: _bytes(n, max(s - 1, 0), w)),
    ("units", lambda n, s, w: _bytes(n, s, w) / 1e9),
    ("units", lambda n, s, w: _bytes(n, s, w) / 2**30),
    ("per_param", lambda n, s, w: _bytes(n, s, w) / n),
]


ZERO_KEYS = {"fp32": "lesson05c.check_zero_fp32", "no_master": "lesson05c.check_zero_no_master",
             "no_shard": "lesson05c.check_zero_no_shard", "all_sharded": "lesson05c.check_zero_all_sharded",
             "stage_shift": "lesson05c.check_zero_stage_shift", "units": "lesson05c.check_zero_units",
             "per_param": "lesson05c.check_zero_per_param"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


@check
def check_zero_memory(fn) -> CheckResult:
    """Bytes per rank for several (Ψ, stage, N) against 2Ψ+2Ψ+12Ψ divided as each stage shards."""
    for n, stage, w in ZERO_CASES:
        got, problem = call_student(fn, n, stage, w)
        if problem is not None:
            return problem
        value = as_number(got)
        if value is None:
            return failed("not_a_number", "lesson05c.check_not_a_number", got=type(got).__name__)
        want = reference_zero_bytes(n, stage, w)
        if _close(value, want):
            continue
        for code, wrong in ZERO_WRONG:
            if _close(value, wrong(n, stage, w)):
                return failed(code, ZERO_KEYS[code], n=n, stage=stage, w=w, got=value, want=want)
        return failed("wrong_value", "lesson05c.check_zero_wrong", n=n, stage=stage, w=w, got=value, want=want)
    return passed("lesson05c.check_zero_ok")


# ---------------------------------------------------------------------------------------
# Task 2: the Megatron column/row cut of an MLP, by hand, in real processes
# ---------------------------------------------------------------------------------------


def reference_tp_forward(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    h = F.gelu(x @ w1[cut].T + b1[cut])
    y = h @ w2[:, cut].T
    dist.all_reduce(y)
    return y + b2


COLLECTIVES = ("all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_single", "reduce_scatter",
               "reduce_scatter_tensor", "reduce_scatter_single",
               "broadcast", "reduce", "send", "recv", "isend", "irecv", "all_to_all", "gather", "scatter")


def count_collectives(calls: list) -> None:
    """In a rank process made for one check job: wrap torch.distributed's collectives so that
    every call is appended to `calls` (however the student's code imports them)."""
    for name in COLLECTIVES:
        real = getattr(dist, name, None)
        if real is None:
            continue

        def counted(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        setattr(dist, name, counted)


PEER_GONE = ("Connection closed", "Connection reset", "Timed out", "timed out", "Broken pipe")
TP_SHAPES = {2: (5, 6), 3: (4, 6)}  # world size -> (batch, width d); hidden 4d divides by 2 and 3


def _weights(width: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(4 * width, width, generator=g) / width**0.5, torch.randn(4 * width, generator=g),
            torch.randn(width, 4 * width, generator=g) / (2 * width**0.5), torch.randn(width, generator=g))


def _poisoned(weights, rank: int, world_size: int):
    """Copies whose hidden units outside rank's block are NaN: using them shows in the output."""
    w1, b1, w2, b2 = (w.clone() for w in weights)
    block = w1.shape[0] // world_size
    keep = torch.zeros(w1.shape[0], dtype=torch.bool)
    keep[rank * block:(rank + 1) * block] = True
    w1[~keep], b1[~keep], w2[:, ~keep] = float("nan"), float("nan"), float("nan")
    return w1, b1, w2, b2


def _tp_source_worker(rank, world_size, source, name):
    """In each real process: the student's forward on clean, then on poisoned weights."""
    from fastrain_lib.lessons.l05_data_vs_model_parallel.checks import _load_source

    batch, width = TP_SHAPES[world_size]
    weights = _weights(width)
    x = torch.randn(batch, width, generator=torch.Generator().manual_seed(1))
    calls: list[str] = []
    count_collectives(calls)  # this process exists for this job only
    out = {"rank": rank}
    for label, ws in (("clean", weights), ("poison", _poisoned(weights, rank, world_size))):
        fn = _load_source(source, name)
        before = len(calls)
        try:
            y = fn(x.clone(), *(w.clone() for w in ws), rank, world_size)
        except Exception as exc:  # noqa: BLE001 - the student's code: report it
            out[label] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            break
        out[label] = {"y": y.detach().clone() if isinstance(y, torch.Tensor) else None,
                      "type": type(y).__name__, "calls": calls[before:]}
    return out


def _expected(world_size: int):
    batch, width = TP_SHAPES[world_size]
    w1, b1, w2, b2 = _weights(width)
    x = torch.randn(batch, width, generator=torch.Generator().manual_seed(1))
    full = F.gelu(x @ w1.T + b1) @ w2.T + b2
    block = w1.shape[0] // world_size
    partials = [F.gelu(x @ w1[r * block:(r + 1) * block].T + b1[r * block:(r + 1) * block])
                @ w2[:, r * block:(r + 1) * block].T for r in range(world_size)]
    return full, partials, b2


def _near(a, b) -> bool:
    return isinstance(a, torch.Tensor) and a.shape == b.shape and a.is_floating_point() and \
        bool(torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5))


def _diagnose(results: list[dict], world_size: int) -> CheckResult | None:
    full, partials, b2 = _expected(world_size)
    for r in results:
        clean = r.get("clean", {})
        if "error" in clean:
            if any(hint in clean["error"] for hint in PEER_GONE):  # waited for a rank that never came
                return failed("timeout", "lesson05c.check_tp_mismatch", w=world_size)
            return failed("crashed", "checking.crashed", error=clean["error"])
        y = clean.get("y")
        if y is None:
            return not_done() if clean.get("type") == "NoneType" else \
                failed("not_tensor", "lesson05c.check_tp_not_tensor", got=clean.get("type"))
        if tuple(y.shape) != tuple(full.shape):
            return failed("wrong_shape", "lesson05c.check_tp_shape", got=tuple(y.shape), want=tuple(full.shape))
    outputs = [r["clean"]["y"] for r in results]
    calls = results[0]["clean"]["calls"]
    reduces = calls.count("all_reduce")
    if all(_near(y, full) for y in outputs):
        if not calls:
            return failed("no_split", "lesson05c.check_tp_no_split")
        if len(calls) > 1:
            return failed("two_collectives", "lesson05c.check_tp_two", calls=", ".join(calls))
        for r in results:
            poison = r.get("poison", {})
            if "error" in poison or not _near(poison.get("y"), full):
                return failed("foreign_slice", "lesson05c.check_tp_foreign", rank=r["rank"])
        return None
    if reduces == 0 and all(_near(y, p + b2) or _near(y, p) for y, p in zip(outputs, partials)):
        return failed("no_allreduce", "lesson05c.check_tp_no_allreduce")
    if all(_near(y, full + (world_size - 1) * b2) for y in outputs):
        return failed("bias_twice", "lesson05c.check_tp_bias", w=world_size)
    if all(_near(y, (full - b2) / world_size + b2) or _near(y, full / world_size) for y in outputs):
        return failed("averaged", "lesson05c.check_tp_averaged", w=world_size)
    worst = max((y.double() - full.double()).abs().max().item() for y in outputs)
    return failed("wrong_output", "lesson05c.check_tp_wrong", w=world_size, error=worst)


@check
def check_column_row_mlp(fn, *, timeout_s: float = 60.0) -> CheckResult:
    """The student's per-rank forward in 2, then 3 real processes: equal to the single-process
    MLP, with exactly one all-reduce, using only its own block of the weights."""
    if fn is None or (callable(fn) and is_stub(fn)):
        return not_done()
    if not callable(fn):
        return failed("not_callable", "checking.not_callable", kind=type(fn).__name__)
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05c.check_tp_no_source")
    for world_size in (2, 3):
        try:
            results = ranks.run(_tp_source_worker, world_size, (source, fn.__name__), timeout_s=timeout_s)
        except ranks.RanksFailed as exc:
            if exc.kind == "timeout":
                return failed("timeout", "lesson05c.check_tp_timeout", w=world_size, seconds=f"{timeout_s:g}")
            return failed("worker_failed", "lesson05c.check_tp_worker", error=exc.detail[-1200:])
        problem = _diagnose(results, world_size)
        if problem is not None:
            return problem
    return passed("lesson05c.check_tp_ok")


__all__ = ["check_column_row_mlp", "check_zero_memory", "nn", "reference_tp_forward", "reference_zero_bytes"]
