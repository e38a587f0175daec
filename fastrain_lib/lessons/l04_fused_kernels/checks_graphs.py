"""Lesson 04, task 4: a training step without graph breaks (check_graph_breaks; slow_step and
step_problem are the task's given code and inputs)."""

from __future__ import annotations

import random

import torch
import torch.nn.functional as F

from fastrain_lib.lessons.checking import (
    CheckResult,
    call_student,
    check,
    describe,
    failed,
    passed,
    snapshot,
    unchanged,
)

# ---------------------------------------------------------------- task 4: a training step without graph breaks


class StepModel(torch.nn.Module):
    """The small classifier of task 4."""

    def __init__(self, n_in: int = 16, hidden: int = 32, n_classes: int = 5):
        super().__init__()
        self.embed = torch.nn.Linear(n_in, hidden)
        self.head = torch.nn.Linear(hidden, n_classes)


def slow_step(model, x, y):
    """Task 4's given loss function (the notebook shows the same code): three graph breaks."""
    h = model.embed(x)
    print(f"mean activation {h.mean().item():.3f}")  # .item() and print: the graph stops here
    if h.abs().max() > 3:  # a Python `if` on a tensor's value: the graph stops here too
        h = h / h.abs().max() * 3
    logits = model.head(torch.relu(h))
    accuracy = (logits.argmax(-1) == y).float().mean().item()  # .item() again
    print(f"accuracy {accuracy:.2f}")
    return F.cross_entropy(logits, y)


GB_MESSAGES = {"max_not_abs": "lesson04.gb_max_not_abs", "branch_removed": "lesson04.gb_branch_removed", "always_scaled": "lesson04.gb_always_scaled",
               "clamped": "lesson04.gb_clamped"}


def step_problem(seed: int = 0, scale: float = 1.0, shift: float = 0.0):
    """(model, x, y): the model's weights fixed by `seed`; `scale` 1 keeps the activations under 3,
    scale 10 pushes them over (so both sides of the `if` are tested); `shift` moves every activation
    (shift -20: all large and negative, so h.max() is below 3 while h.abs().max() is far above)."""
    with torch.random.fork_rng(devices=[]):  # the student's random stream is left as it was
        torch.manual_seed(seed)
        model = StepModel()
        with torch.no_grad():
            model.embed.bias += shift
    g = torch.Generator().manual_seed(seed + 1)
    x = torch.randn(8, 16, generator=g) * scale * 0.3
    y = torch.randint(0, 5, (8,), generator=g)
    return model, x, y


def graph_cases(seed: int = 11, generated: int = 2) -> list[tuple[int, float]]:
    """(weights seed, activation scale): below and above the threshold of 3 with fixed weights, then
    seeded generated ones (other weights, scales around the threshold), so an answer fitted to the
    two fixed inputs fails."""
    rng = random.Random(seed)
    fixed = [(0, 1.0, 0.0), (0, 10.0, 0.0), (3, 1.0, -20.0)]  # the last: activations only large and negative
    generated = [(rng.randint(1, 99), rng.choice([rng.uniform(0.5, 2.0), rng.uniform(5.0, 14.0)]), 0.0)
                 for _ in range(generated)]
    return fixed + generated + [(0, 10.0, 0.0)]  # the first scaled input again, on a fresh model (another context)


def graph_breaks(fn, *args) -> tuple[int, int, list[str]]:
    """(graphs, graph breaks, reasons) of fn(*args) under torch._dynamo.explain."""
    import torch._dynamo

    out = torch._dynamo.explain(fn)(*args)
    reasons = [str(getattr(b, "reason", b)).splitlines()[0][:160] for b in out.break_reasons]
    # graph_break_count is graphs − 1: a break after the last graph (a print(loss.item()) at the end)
    # leaves one graph and a count of 0, but it is still a break, with its reason listed
    return out.graph_count, max(out.graph_break_count, len(reasons)), reasons


def _quiet(fn, *args):
    """fn(*args) with its prints swallowed (the reference step prints)."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args)


def _loss_and_grads(fn, model, x, y):
    model.zero_grad(set_to_none=True)
    loss = fn(model, x, y)
    loss.backward()
    return loss.detach(), [p.grad.clone() if p.grad is not None else None for p in model.parameters()]


@check
def check_graph_breaks(fast_step) -> CheckResult:
    """fast_step(model, x, y) must return the same loss as slow_step (and the same gradients) on
    activations below and above 3, and all large and negative (h.max() is not h.abs().max()), fixed and seeded
    generated weights and scales and the first scaled input again on a fresh model, without changing
    its inputs, and compile into one graph with
    no graph breaks (torch._dynamo.explain)."""
    wrong_math = {"max_not_abs": lambda m, x, y: F.cross_entropy(m.head(torch.relu(torch.where(
                      m.embed(x).max() > 3, m.embed(x) / m.embed(x).max() * 3, m.embed(x)))), y),
                  "branch_removed": lambda m, x, y: F.cross_entropy(m.head(torch.relu(m.embed(x))), y),
                  "always_scaled": lambda m, x, y: F.cross_entropy(m.head(torch.relu(
                      m.embed(x) / m.embed(x).abs().max() * 3)), y),
                  "clamped": lambda m, x, y: F.cross_entropy(m.head(torch.relu(m.embed(x).clamp(-3, 3))), y)}
    for seed, scale, shift in graph_cases():
        model, x, y = step_problem(seed, scale, shift)
        ref_loss, ref_grads = _loss_and_grads(lambda *a: _quiet(slow_step, *a), model, x, y)
        saved = snapshot((x, y, [p.detach() for p in model.parameters()]))
        model.zero_grad(set_to_none=True)
        got, problem = call_student(fast_step, model, x, y)
        if problem is not None:
            return problem
        if not unchanged((x, y, [p.detach() for p in model.parameters()]), saved):
            return failed("mutated_input", "lesson04.gb_mutated")
        if not isinstance(got, torch.Tensor) or got.device.type == "meta" or not got.is_floating_point():
            return failed("not_tensor", "lesson04.gb_not_tensor", got=describe(got))
        if got.numel() != 1:
            return failed("wrong_shape", "lesson04.gb_shape", shape=tuple(got.shape))
        if not got.requires_grad:
            return failed("no_grad", "lesson04.gb_no_grad")
        value = got.detach().reshape(()).to(ref_loss.dtype)  # a float64 loss is compared, not an error
        if not torch.allclose(value, ref_loss, atol=1e-5, rtol=1e-5):
            for code, wrong in wrong_math.items():
                if torch.allclose(value, wrong(model, x, y).detach(), atol=1e-5, rtol=1e-5):
                    return failed(code, GB_MESSAGES[code])
            return failed("wrong_values", "lesson04.gb_wrong", got=float(value),
                          expected=float(ref_loss))
        model.zero_grad(set_to_none=True)
        try:
            got.reshape(()).backward()
        except RuntimeError:  # e.g. a graph already freed by a backward inside the answer
            return failed("grads_wrong", "lesson04.gb_grads")
        grads = [p.grad for p in model.parameters()]
        if any(g is None for g in grads) or not all(torch.allclose(g, r, atol=1e-5, rtol=1e-4)
                                                     for g, r in zip(grads, ref_grads)):
            return failed("grads_wrong", "lesson04.gb_grads")
    if getattr(fast_step, "_torchdynamo_disable", False) is True:  # torch.compiler.disable: explain would
        return failed("no_graph", "lesson04.gb_no_graph", graphs=0)  # still trace it; torch.compile would not
    model, x, y = step_problem(0, 10.0)
    try:
        graphs, breaks, reasons = _quiet(graph_breaks, fast_step, model, x, y)
    except Exception as exc:  # noqa: BLE001 - dynamo could not trace the answer at all
        return failed("explain_failed", "lesson04.gb_explain_failed", error=str(exc).splitlines()[0][:200]
                      if str(exc) else type(exc).__name__)
    if breaks:
        return failed("graph_breaks", "lesson04.gb_breaks", breaks=breaks, reasons="; ".join(reasons[:3]))
    if graphs != 1:
        return failed("no_graph", "lesson04.gb_no_graph", graphs=graphs)
    return passed("lesson04.gb_ok")
