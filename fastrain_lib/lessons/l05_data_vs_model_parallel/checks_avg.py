"""Check for lesson 05's task 3, run in real processes: averaging gradients by hand (what DDP does for
you), tied to the tensor dist.all_reduce reduced. checks.py re-exports it."""

from __future__ import annotations

import random

import torch
import torch.distributed as dist
from torch import nn

from fastrain_lib.lessons.checking import CheckResult, check, failed, not_done, passed
from fastrain_lib.lessons.l05_data_vs_model_parallel.student_code import (
    _load_source,
    _run_ranks,
    answer_name,
    is_stub,
    library_answer,
    source_of,
    spy_collectives,
)

SEED = 20261202


def reference_average_gradients(model, world_size):
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= world_size



# ---------------------------------------------------------------------------------------
# Task 3: averaging gradients by hand (what DDP does for you)
# ---------------------------------------------------------------------------------------

# (world size, dtype, frozen): 3 first (the usual slip: dividing by 2), then a generated world size, both
# without frozen parameters so the usual mistakes are named; then world size 1 with a frozen parameter (grad None)
AVG_CONFIGS = [(3, torch.float64, False), (1, torch.float32, True)]


def avg_configs(seed: int = SEED) -> list[tuple]:
    """(3, float64) first (the usual slip: dividing by 2), then a generated world size 2 or 4 and dtype
    (an answer fitted to the fixed examples fails there), then world size 1 (the mean of one gradient
    is itself) with a frozen parameter (an answer that touches a None grad fails there)."""
    rng = random.Random(seed + 3)
    return [AVG_CONFIGS[0], (rng.choice([2, 4]), rng.choice([torch.float32, torch.float64]), False), AVG_CONFIGS[1]]


FROZEN = 1  # the parameter (the first layer's bias) that is frozen: requires_grad False, grad None


def _grad_model(rank: int, dtype=torch.float32, frozen: bool = False, variant: int = 0) -> nn.Module:
    """The same weights on every rank, different gradients (as after each rank's backward); with
    frozen, one parameter is frozen (grad None, as after a backward that never reached it). variant
    makes another set of gradients of the same shapes (the check repeats the task in a new context)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 3), nn.ReLU(), nn.Linear(3, 2)).to(dtype)
    g = torch.Generator().manual_seed(100 + rank + 1000 * variant)
    for i, p in enumerate(model.parameters()):
        if frozen and i == FROZEN:
            p.requires_grad_(False)
            continue
        p.grad = torch.randn(p.shape, generator=g, dtype=dtype)
    return model


def _forbidden_answers() -> list:
    return [reference_average_gradients]


def _avg_source_worker(rank, world_size, source, name, dtype, frozen=False):
    from fastrain_lib.lessons.checking import Forbidden

    student = _load_source(source, name)
    out = {"rank": rank, "collectives": [], "rounds": []}
    for variant in (0, 1):  # the second call: a fresh model, other gradients of the same shapes
        model = _grad_model(rank, dtype, frozen, variant)
        with spy_collectives(keep_reduced=True) as spy, Forbidden(_forbidden_answers()) as watch:
            try:  # which collectives the answer calls (the exercise: dist.all_reduce), on which tensors
                student(model, world_size)
            except Exception as exc:  # noqa: BLE001 - every rank fails at the same place: no one waits
                out["error"] = f"{type(exc).__name__}: {exc}"
                return out
        out["collectives"] += spy.calls
        out["forbidden"] = watch.calls
        out["rounds"].append({"variant": variant, "reduced": spy.reduced,
                              "grads": [None if p.grad is None else p.grad.detach().clone() for p in model.parameters()],
                              "weights": [p.detach().clone() for p in model.parameters()]})
        if watch.calls:
            break
    return out


def _slice_of(flat: torch.Tensor, part: torch.Tensor, offset: int, tol: float) -> bool:
    n = part.numel()
    return offset + n <= flat.numel() and bool(torch.allclose(flat[offset:offset + n], part, atol=tol, rtol=tol))


def _came_from_all_reduce(reduced, original: torch.Tensor, final: torch.Tensor, world: int, tol: float) -> bool:
    """True when `final` (this rank's p.grad afterwards) is what an all_reduce made of this rank's own
    gradient `original`: some all_reduce's input held `original` (or original / world) at an offset, and
    its output at the same offset holds world × final (or final) — p.grad itself, or one flat buffer."""
    orig, fin = original.detach().double().flatten(), final.detach().double().flatten()
    for before, after in reduced:
        b, a = before.detach().double().flatten(), after.detach().double().flatten()
        if b.numel() < orig.numel():
            continue
        for first in (orig[0], orig[0] / world):
            for offset in torch.nonzero(torch.isclose(b, first.expand_as(b), atol=tol, rtol=tol)).flatten().tolist():
                if _slice_of(b, orig, offset, tol) and _slice_of(a, world * fin, offset, tol):
                    return True
                if _slice_of(b, orig / world, offset, tol) and _slice_of(a, fin, offset, tol):
                    return True
    return False


def _judge_average(results, world, dtype, frozen=False) -> CheckResult | None:
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        if frozen and ("NoneType" in errors[0] or "None" in errors[0]):
            return failed("frozen_grad_none", "lesson05.check_avg_frozen", error=errors[0][:200])
        return failed("worker_failed", "lesson05.check_worker_failed", error=errors[0][:1500])
    forbidden = [name for r in results for name in r.get("forbidden", [])]
    if forbidden:
        return failed("forbidden_call", "checking.forbidden_call", name=forbidden[0])
    rounds = len(results[0]["rounds"])
    for i in range(rounds):
        variant = results[0]["rounds"][i]["variant"]
        problem = _judge_round([r["rounds"][i] for r in results], [r["collectives"] for r in results],
                               world, dtype, frozen, variant)
        if problem is not None:
            return problem
    return None


def _judge_round(rounds, collectives, world, dtype, frozen, variant) -> CheckResult | None:
    models = [_grad_model(r, dtype, frozen, variant) for r in range(world)]
    originals = [[p.grad for p in m.parameters()] for m in models]
    trained = [i for i, g in enumerate(originals[0]) if g is not None]
    mean = [None if originals[0][i] is None else sum(o[i] for o in originals) / world
            for i in range(len(originals[0]))]
    weights = [p.detach() for p in models[0].parameters()]
    for r in rounds:
        if any(r["grads"][i] is not None for i in range(len(mean)) if mean[i] is None):
            return failed("frozen_grad_set", "lesson05.check_avg_frozen_set")
        if any(r["grads"][i] is None or r["grads"][i].shape != mean[i].shape for i in trained):
            return failed("grad_lost", "checking.l05.avg_grad_lost")
        if any(r["grads"][i].dtype != dtype for i in trained):
            return failed("dtype_changed", "checking.l05.avg_dtype", got=str(r["grads"][trained[0]].dtype), want=str(dtype))
        if not all(torch.equal(w, v) for w, v in zip(r["weights"], weights)):
            return failed("weights_changed", "checking.l05.avg_weights_changed")
    grads = [[r["grads"][i] for i in trained] for r in rounds]
    want_all = [mean[i] for i in trained]
    if all(torch.allclose(g, m, atol=1e-6) for rg in grads for g, m in zip(rg, want_all)):
        used = sorted({name for c in collectives for name in c})
        if "all_reduce" not in used and "all_reduce_coalesced" not in used:  # the mean, reached another way
            return failed("no_all_reduce", "lesson05.check_avg_no_all_reduce", used=", ".join(used) or "send/recv")
        tol = 1e-5 if dtype == torch.float32 else 1e-9
        for rank, r in enumerate(rounds):  # the mean must be what all_reduce made of this rank's own gradients
            if not all(_came_from_all_reduce(r["reduced"], originals[rank][i], r["grads"][i], world, tol)
                       for i in trained):
                return failed("not_reduced", "lesson05.check_avg_not_reduced")
        return None
    if world > 1 and not all(torch.equal(a, b) for rg in grads[1:] for a, b in zip(rg, grads[0])):
        return failed("not_synced", "lesson05.check_avg_not_synced")
    # the same on every rank: how far from the mean? (ratio of the summed gradients)
    got = torch.cat([g.flatten() for g in grads[0]])
    want = torch.cat([m.flatten() for m in want_all])
    factor = float((got @ want) / (want @ want))
    if torch.allclose(got, factor * want, atol=1e-6):
        if abs(factor - world) < 1e-6:
            return failed("not_averaged", "lesson05.check_avg_not_averaged", world=world)
        return failed("off_by_factor", "checking.l05.avg_factor", world=world, factor=f"{factor:.3g}")
    return failed("wrong_result", "lesson05.check_avg_wrong")


@check
def check_average_gradients(fn, *, timeout_s: float = 60.0) -> CheckResult:
    """Real processes, world sizes 3, 2 or 4, and 1 (float64 and float32 gradients, a frozen parameter
    whose grad is None): afterwards every rank must hold the mean of all ranks' gradients, made by
    dist.all_reduce from its own p.grad (the tensor the collective reduced is compared, not only the
    fact that it was called), the weights untouched, the frozen grad still None. Each rank calls the
    answer twice, on fresh models with other gradients. The library's answer is forbidden."""
    if fn is None or is_stub(fn):
        return not_done()
    if library_answer(fn, _forbidden_answers()):
        return failed("forbidden_call", "checking.forbidden_call", name=answer_name(fn))
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05.check_no_source")
    configs = avg_configs()
    for world, dtype, frozen in configs:
        results, problem = _run_ranks(_avg_source_worker, world, (source, fn.__name__, dtype, frozen), timeout_s)
        if problem is not None:
            return problem
        problem = _judge_average(results, world, dtype, frozen)
        if problem is not None:
            return problem
    return passed("lesson05.check_avg_ok", worlds=", ".join(str(w) for w, _, _ in configs))
