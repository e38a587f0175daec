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

How each check sees the technique (issue 28), not only the result:
- check_zero_memory: cases from a seeded generator (every stage, world sizes 2..128, parameter
  counts that do not divide by the world size) on top of the hand-written ones, so a table fitted to
  fixed examples or a rounded division fails; the course's own formula (distributed.zero) is
  forbidden while the answer runs (seen through any alias: its code objects are watched).
- check_column_row_mlp: in every rank a TorchDispatchMode (following threads the answer starts)
  records each aten op that computes (anything but slicing, viewing, copying) with its operands'
  shapes; one whose operand spans all 4d hidden units is the full, unsplit layer (computing
  everything, then slicing) and fails, whatever the output and whatever it is called (a matmul, a
  broadcast multiply and sum, an einsum). The course's own cut (tensor_parallel.manual_forward) is
  forbidden in every rank. The collectives are counted (exactly one
  all_reduce), other blocks are NaN in a second run, the inputs are compared before and after, and
  the batch and width are generated per world size.
"""

from __future__ import annotations

import math
import random

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from fastrain_lib.distributed import zero
from fastrain_lib.lessons import check_ranks as ranks
from fastrain_lib.lessons.checking import (
    CheckResult,
    as_number,
    call_student,
    check,
    failed,
    not_done,
    passed,
    seeded_cases,
)
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
              (7_000_000_000, 1, 8), (50_000, 2, 2), (1_000_003, 3, 1), (77, 2, 1), (1, 1, 3)]  # N = 1, Ψ = 1


def _zero_case(rng) -> tuple[int, int, int]:
    """A generated (Ψ, stage, N): N from 2 to 128 (not only powers of two), Ψ NOT divisible by N
    (and small enough that rounding shows), every stage."""
    w = rng.choice([2, 3, 5, 6, 7, 12, 24, 64, 100, 128])
    n = rng.randint(1, 50_000) * w + rng.randint(1, w - 1)
    return n, rng.randint(0, 3), w


def zero_cases(seed: int = 5) -> list[tuple[int, int, int]]:
    """The hand-written cases, then 12 generated ones (the same on every run), every stage three times,
    then three earlier ones asked again in another order (an answer that counts its calls, or one
    fitted to the order of the cases, gives a different number the second time)."""
    generated = seeded_cases(_zero_case, n=12, seed=seed)
    cases = ZERO_CASES + [(n, i % 4, w) for i, (n, _, w) in enumerate(generated)]
    return cases + [cases[-1], cases[3], cases[0]]


def _zero_forbidden() -> list:
    """The course's own answer: the exercise asks for the formula written out."""
    return [zero.formula_bytes, zero.shard_bytes, zero.unsharded_bytes]

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
    ("rounded", lambda n, s, w: _rounded(n, s, w, math.floor)),
    ("rounded", lambda n, s, w: _rounded(n, s, w, math.ceil)),
]


def _rounded(n, stage, w, rounding):
    """The rule with every sharded part rounded to whole bytes (// or math.ceil)."""
    parts = zero.shard_bytes(2 * n, 2 * n, 12 * n, stage, w)
    return sum(rounding(parts[k]) for k in ("params", "grads", "optim"))


ZERO_KEYS = {"fp32": "lesson05c.check_zero_fp32", "no_master": "lesson05c.check_zero_no_master",
             "no_shard": "lesson05c.check_zero_no_shard", "all_sharded": "lesson05c.check_zero_all_sharded",
             "stage_shift": "lesson05c.check_zero_stage_shift", "units": "lesson05c.check_zero_units",
             "per_param": "lesson05c.check_zero_per_param", "rounded": "lesson05c.check_zero_rounded"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-6)


@check
def check_zero_memory(fn) -> CheckResult:
    """Bytes per rank for (Ψ, stage, N) — hand-written and generated — against 2Ψ+2Ψ+12Ψ divided as
    each stage shards, written out (the library's formula may not be called)."""
    for n, stage, w in zero_cases():
        want = reference_zero_bytes(n, stage, w)  # outside the watch: the reference uses the library
        got, problem = call_student(fn, n, stage, w, guard_inputs=True, forbid=_zero_forbidden())
        if problem is not None:
            return problem
        value = as_number(got)
        if value is None:
            return failed("not_a_number", "lesson05c.check_not_a_number", got=type(got).__name__)
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
TP_SHAPES = {2: (5, 6), 3: (4, 6), 1: (1, 5)}  # hand-written (batch, width d) per world size; 4d divides by 2 and 3
# 2 and 3 first (where a wrong cut shows), then one process alone: the same code must hold there too
# (its block is every hidden unit, its all-reduce a no-op), with a batch of one sample
WORLD_SIZES = (2, 3, 1)


def tp_shapes(seed: int = 7) -> dict[int, tuple[int, int]]:
    """(batch, width) per world size, generated (the same on every run): widths whose 4d hidden
    units divide by the world size, different from the hand-written ones."""
    out = {}
    for world_size in WORLD_SIZES:
        rng = random.Random(f"fastrain-tp-{seed}-{world_size}")
        width = rng.choice([3, 9, 12]) if world_size == 3 else rng.choice([3, 5, 7, 10])
        out[world_size] = (rng.randint(2, 7) if world_size > 1 else 1, width)
    return out


from fastrain_lib.lessons.l05c_sharding_and_pipelines.check_ops import SELECTS, _op_recorder, full_matmuls  # noqa: F401


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


def _tp_forbidden() -> list:
    """The course's own answer: the hand-written cut in distributed/tensor_parallel.py."""
    from fastrain_lib.distributed import tensor_parallel

    return [tensor_parallel.manual_forward]


def _tp_source_worker(rank, world_size, source, name, shape=None):
    """In each real process: the student's forward on clean, then on poisoned weights; the
    collectives it calls, the shapes of its matrix products, and whether it wrote to its inputs."""
    from fastrain_lib.lessons.checking import Forbidden, changed_part, snapshot
    from fastrain_lib.lessons.l05_data_vs_model_parallel.checks import _load_source

    batch, width = shape or TP_SHAPES[world_size]
    weights = _weights(width)
    x = torch.randn(batch, width, generator=torch.Generator().manual_seed(1))
    calls: list[str] = []
    count_collectives(calls)  # this process exists for this job only
    out = {"rank": rank}
    for label, ws in (("clean", weights), ("poison", _poisoned(weights, rank, world_size))):
        fn = _load_source(source, name)
        before = len(calls)
        inputs = {"x": x.clone(), "w1": ws[0].clone(), "b1": ws[1].clone(), "w2": ws[2].clone(), "b2": ws[3].clone()}
        kept = snapshot(inputs)
        recorder = _op_recorder()
        try:
            with Forbidden(_tp_forbidden()) as watch, recorder:
                y = fn(inputs["x"], inputs["w1"], inputs["b1"], inputs["w2"], inputs["b2"], rank, world_size)
        except Exception as exc:  # noqa: BLE001 - the student's code: report it
            out[label] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            break
        # the result is the tensor the answer returned, read now (a later write to it by a thread it
        # left running does not count), compared by the check with the MLP it computed itself
        out[label] = {"y": y.detach().clone() if isinstance(y, torch.Tensor) else None,
                      "type": type(y).__name__, "calls": calls[before:], "matmuls": recorder.calls,
                      "forbidden": list(watch.calls), "mutated": changed_part(inputs, kept, "")}
    return out


def _expected(world_size: int, shape=None):
    batch, width = shape or TP_SHAPES[world_size]
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


def _mutated(where: str) -> str:
    """'['w1']' -> 'w1' (the argument's name as the exercise calls it)."""
    return where.replace("['", "", 1).replace("']", "", 1) if where.startswith("['") else where


def _diagnose(results: list[dict], world_size: int, shape=None) -> CheckResult | None:
    full, partials, b2 = _expected(world_size, shape)
    hidden = 4 * (shape or TP_SHAPES[world_size])[1]
    for r in results:
        for run in ("clean", "poison"):
            if r.get(run, {}).get("forbidden"):
                return failed("forbidden_call", "checking.forbidden_call", name=r[run]["forbidden"][0])
    for r in results:
        clean = r.get("clean", {})
        if clean.get("mutated"):
            return failed("mutated_input", "checking.mutated_input", name=_mutated(clean["mutated"]))
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
        if world_size == 1:  # alone: the whole layer is this rank's block, and an all-reduce may be skipped
            return None
        if not calls:
            return failed("no_split", "lesson05c.check_tp_no_split")
        if len(calls) > 1:
            return failed("two_collectives", "lesson05c.check_tp_two", calls=", ".join(calls))
        for r in results:
            unsplit = full_matmuls(r["clean"].get("matmuls", []) + r.get("poison", {}).get("matmuls", []),
                                   hidden, hidden // 4)
            if unsplit:
                name, shapes = unsplit[0]
                return failed("full_matmul", "lesson05c.check_tp_full_matmul", rank=r["rank"], op=name,
                              shapes=" , ".join(" × ".join(map(str, s)) for s in shapes), hidden=hidden,
                              block=hidden // world_size)
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
def check_column_row_mlp(fn, *, timeout_s: float = 180.0) -> CheckResult:
    """The student's per-rank forward in 2, then 3 real processes, then 1: equal to the single-process
    MLP, with exactly one all-reduce, using only its own block of the weights, computing no op on
    all hidden units at once (with 2 and 3), and not calling the course's own cut."""
    if fn is None or (callable(fn) and is_stub(fn)):
        return not_done()
    if not callable(fn):
        return failed("not_callable", "checking.not_callable", kind=type(fn).__name__)
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05c.check_tp_no_source")
    shapes = tp_shapes()
    for world_size in WORLD_SIZES:
        try:
            results = ranks.run(_tp_source_worker, world_size, (source, fn.__name__, shapes[world_size]),
                                timeout_s=timeout_s)
        except ranks.RanksFailed as exc:
            if exc.kind == "timeout":
                return failed("timeout", "lesson05c.check_tp_timeout", w=world_size, seconds=f"{timeout_s:g}")
            return failed("worker_failed", "lesson05c.check_tp_worker", error=exc.detail[-1200:])
        problem = _diagnose(results, world_size, shapes[world_size])
        if problem is not None:
            return problem
    return passed("lesson05c.check_tp_ok")


__all__ = ["check_column_row_mlp", "check_zero_memory", "nn", "reference_zero_bytes"]
