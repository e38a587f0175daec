"""Lesson 03's exercise checks, tasks 1 and 1b: one AMP training step (`amp_step`) and the same
with gradient clipping (`clip_step`). Each runs the student's step on a tiny model on the CPU
(fp16 autocast and GradScaler("cpu") work there) beside the lesson's own step
(precision/step.py), and names the mistake it finds. Shared by check_accum.py: the setup, the
spy on autocast and the common problems."""

from __future__ import annotations

import ast
import copy
import inspect
import math
import random
import textwrap
import warnings

import torch
from torch.nn import functional as F

from fastrain_lib.lessons.checking import (
    CheckResult,
    as_number,
    call_student,
    check,
    describe,
    failed,
    not_done,
    passed,
    snapshot,
    unchanged,
)
from fastrain_lib.models import SimpleNN
from fastrain_lib.precision import amp as precision
from fastrain_lib.precision.step import amp_step

DEVICE, DTYPE = "cpu", torch.float16


def reference_amp_step(model, optimizer, scaler, inputs, targets, device="cpu", dtype=torch.float16):
    """The solution: the lesson's own step (precision/step.py, saved from lesson 03's cell)."""
    return amp_step(model, optimizer, scaler, inputs, targets, F.cross_entropy, dtype=dtype)


def reference_clip_step(model, optimizer, scaler, inputs, targets, max_norm=1.0, device="cpu", dtype=torch.float16):
    return amp_step(model, optimizer, scaler, inputs, targets, F.cross_entropy, dtype=dtype, max_norm=max_norm)


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------

# Each step check runs in both low-precision dtypes a CPU autocasts to, with an optimizer
# whose hyperparameters are not the defaults, on a batch of 13 (no power of two).
STEP_CONFIGS = [  # (dtype, make optimizer, max_norm for the clip task)
    (torch.float16, lambda ps: torch.optim.SGD(ps, lr=0.5), 0.05),
    (torch.bfloat16, lambda ps: torch.optim.SGD(ps, lr=0.3, momentum=0.9, weight_decay=0.01), 0.3),
]
INIT_SCALE = 2.0**10
STEP_SEED = 2807


def step_configs(seed: int = STEP_SEED, extra: int = 2) -> list:
    """(dtype, make optimizer, max_norm, batch size, frozen): the two fixed ones (batch 13), then
    `extra` drawn by a seeded generator (dtype, a batch size that is no power of two, lr, momentum,
    clip), then a batch of 1 with a frozen parameter (requires_grad=False: its .grad stays None,
    as in fine-tuning) — every input the task allows."""
    rng = random.Random(seed)
    out = [(dtype, make_opt, max_norm, 13, False) for dtype, make_opt, max_norm in STEP_CONFIGS]
    for _ in range(extra):
        lr, momentum = round(rng.uniform(0.05, 0.6), 3), rng.choice([0.0, 0.5, 0.9])
        out.append((rng.choice([torch.float16, torch.bfloat16]),
                    lambda ps, lr=lr, m=momentum: torch.optim.SGD(ps, lr=lr, momentum=m),
                    round(rng.uniform(0.02, 0.5), 3), rng.choice([3, 5, 7, 11, 19]), False))
    out.append((torch.float16, lambda ps: torch.optim.SGD(ps, lr=0.4, momentum=0.5), 0.04, 1, True))
    return out


def freeze_one(model) -> None:
    """Freeze fc1's bias (fine-tuning style): it stays in the optimizer, its .grad stays None."""
    model.fc1.bias.requires_grad_(False)


def forbidden_step_calls(*more):
    """The answer must be written, not borrowed (the lesson's one policy): the lesson's saved step
    (every function of precision/step.py) and the check's own reference answers may not be called
    while it runs, in its thread or any thread it starts (checking.Forbidden)."""
    from fastrain_lib.lessons.l03_mixed_precision.observe import forbidden
    from fastrain_lib.precision import step as saved_step

    return forbidden(modules=[saved_step], functions=[reference_amp_step, reference_clip_step, *more])


def _setup(seed: int = 0, make_opt=STEP_CONFIGS[0][1], batch: int = 13, frozen: bool = False):
    """A tiny model, its optimizer (SGD: its step is proportional to the gradient, so a wrong
    scale shows), and a scaler that grows after every good step (a missing update() shows)."""
    torch.manual_seed(seed)
    model = SimpleNN(hidden=8)
    if frozen:
        freeze_one(model)
    scaler = torch.amp.GradScaler(DEVICE, init_scale=INIT_SCALE, growth_interval=1)
    g = torch.Generator().manual_seed(seed + 1)
    inputs = torch.rand(batch, 1, 28, 28, generator=g)
    targets = torch.randint(0, 10, (batch,), generator=g)
    return model, make_opt(model.parameters()), scaler, inputs, targets


def _clone(model, make_opt=STEP_CONFIGS[0][1]):
    twin = copy.deepcopy(model)
    return twin, make_opt(twin.parameters()), torch.amp.GradScaler(DEVICE, init_scale=INIT_SCALE, growth_interval=1)


def _params(model) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def _same(a, b, tol=1e-6) -> bool:  # the same ops in the same order give the same bits
    return all(torch.allclose(x, y, rtol=tol, atol=tol) for x, y in zip(a, b))


def _uses_cuda_amp(fn) -> bool:
    """The deprecated torch.cuda.amp API used in the function's code (not in a comment)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    return any(isinstance(node, ast.Attribute) and node.attr == "amp" and ast.unparse(node.value).endswith("cuda")
               for node in ast.walk(tree))


class _Spy:
    """Watches one step: the dtype fc1 produced (autocast on, with which dtype?) and whether
    autocast was still on during backward."""

    def __init__(self, model):
        self.forward_dtypes, self.backward_autocast = [], []
        self.handles = [
            model.fc1.register_forward_hook(lambda m, i, out: self.forward_dtypes.append(out.dtype)),
            model.fc2.weight.register_hook(self._on_grad),
        ]

    def _on_grad(self, grad):
        self.backward_autocast.append(torch.is_autocast_enabled(DEVICE))

    def remove(self):
        for handle in self.handles:
            handle.remove()


def _run_student_step(fn, model, optimizer, scaler, inputs, targets, extra, dtype):
    """Call the student's step; returns (spy, captured warnings, result, failure or None)."""
    spy = _Spy(model)
    with warnings.catch_warnings(record=True) as caught, forbidden_step_calls() as seen:
        warnings.simplefilter("always")
        result, problem = call_student(fn, model, optimizer, scaler, inputs, targets, *extra, DEVICE, dtype)
    spy.remove()
    if seen.calls:
        problem = failed("used_library", "lesson03.check.step_used_library", name=seen.calls[0])
    return spy, caught, result, problem


def _common_problems(fn, spy, caught, dtype) -> CheckResult | None:
    if _uses_cuda_amp(fn) or any("torch.cuda.amp" in str(w.message) for w in caught):
        return failed("deprecated_api", "lesson03.check.deprecated_api")
    if any(spy.backward_autocast):
        return failed("backward_in_autocast", "lesson03.check.backward_in_autocast")
    if spy.forward_dtypes and spy.forward_dtypes[0] != dtype:
        if spy.forward_dtypes[0] in (torch.float16, torch.bfloat16):
            return failed("ignored_dtype", "checking.l03.ignored_dtype", want=str(dtype).replace("torch.", ""),
                          got=str(spy.forward_dtypes[0]).replace("torch.", ""))
        return failed("no_autocast", "lesson03.check.no_autocast")
    return None


def _judge_loss(result, ref_loss, scale) -> CheckResult | None:
    """The returned loss must be this step's (unscaled) loss: a tensor or a float."""
    got, want = as_number(result), float(ref_loss)
    if got is not None and math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-6):
        return None
    if got is not None and math.isclose(got, want * scale, rel_tol=1e-3):
        return failed("returned_scaled_loss", "checking.l03.returned_scaled_loss", scale=f"{scale:g}")
    return failed("wrong_loss", "checking.l03.wrong_loss", got=describe(result), want=f"{want:.4f}")


def _check_step(fn, reference, with_clip: bool) -> CheckResult:
    """The shared part of check_amp_step and check_clip_step: in each configuration two
    good steps, then one with an inf gradient, each compared with the reference step
    (weights, the scaler's scale, the returned loss, and the untouched inputs)."""
    if fn is None:
        return not_done()
    for dtype, make_opt, max_norm, batch, frozen in step_configs():
        extra = (max_norm,) if with_clip else ()
        model, optimizer, scaler, inputs, targets = _setup(make_opt=make_opt, batch=batch, frozen=frozen)
        twin, twin_opt, twin_scaler = _clone(model, make_opt)
        saved = snapshot((inputs, targets))
        for step in range(3):
            handles = []
            if step == 2:  # an overflow: the step must be skipped and the scale halved
                handles = [precision.inject_overflow(model, {0}), precision.inject_overflow(twin, {0})]
            before = _params(model)
            scale_before = scaler.get_scale()
            spy, caught, result, problem = _run_student_step(fn, model, optimizer, scaler, inputs, targets, extra,
                                                             dtype)
            ref_loss = reference(twin, twin_opt, twin_scaler, *saved, *extra, DEVICE, dtype)
            for handle in handles:
                handle.remove()
            if problem is not None:
                if problem.code == "used_library":
                    return problem
                if "No inf checks" in problem.message:  # optimizer.step() instead of scaler.step(optimizer)
                    return failed("no_scaler_step", "lesson03.check.no_scaler_step")
                if "_scale is None" in problem.message:  # loss.backward() without scaler.scale(loss)
                    return failed("not_scaled", "lesson03.check.not_scaled")
                return problem
            common = _common_problems(fn, spy, caught, dtype)
            if common is not None:
                return common
            if not unchanged((inputs, targets), saved):
                return failed("mutated_input", "checking.l03.mutated_input")
            after = _params(model)
            if step == 2 and (not all(torch.isfinite(p).all() for p in after) or not _same(before, after)):
                return failed("not_skipped", "lesson03.check.not_skipped")
            if scaler.get_scale() == scale_before:
                return failed("missing_update", "lesson03.check.missing_update")
            if step == 0 and scaler.get_scale() < scale_before:
                return failed("overflow_on_good_step", "lesson03.check.wrong_update")
            if not _same(after, _params(twin)):
                return _explain_mismatch(step, extra)
            problem = _judge_loss(result, ref_loss, scale_before)
            if problem is not None:
                return problem
    return passed("lesson03.check.step_ok")


def _explain_mismatch(step: int, extra) -> CheckResult:
    if step == 1:  # the first step matched and the second did not: gradients piled up
        return failed("missing_zero_grad", "lesson03.check.missing_zero_grad")
    return failed("wrong_update", "lesson03.check.wrong_update")


@check
def check_amp_step(amp_step) -> CheckResult:
    """amp_step(model, optimizer, scaler, inputs, targets, device, dtype) -> loss (fp16 and bf16)."""
    return _check_step(amp_step, reference_amp_step, with_clip=False)


@check
def check_clip_step(clip_step) -> CheckResult:
    """clip_step(model, optimizer, scaler, inputs, targets, max_norm, device, dtype) -> loss,
    with max_norm 0.05 (fp16) and 0.3 (bf16)."""
    result = _check_step(clip_step, reference_clip_step, with_clip=True)
    if result.code != "wrong_update":
        return result
    # Which wrong order was it? Compare one step with the two usual mistakes.
    dtype, make_opt, max_norm = STEP_CONFIGS[0]
    model, optimizer, scaler, inputs, targets = _setup(make_opt=make_opt)
    call_student(clip_step, model, optimizer, scaler, inputs, targets, max_norm, DEVICE, dtype)
    for variant, code, key in ((_clip_before_unscale, "clip_before_unscale", "lesson03.check.clip_before_unscale"),
                               (_no_clip, "no_clip", "lesson03.check.no_clip"),
                               (_fixed_norm, "fixed_max_norm", "checking.l03.fixed_max_norm")):
        twin, twin_opt, twin_scaler = _clone(_setup(make_opt=make_opt)[0], make_opt)
        variant(twin, twin_opt, twin_scaler, inputs, targets, max_norm)
        if _same(_params(model), _params(twin)):
            return failed(code, key)
    return result


def _clip_before_unscale(model, optimizer, scaler, inputs, targets, max_norm):
    optimizer.zero_grad(set_to_none=True)
    with torch.amp.autocast(DEVICE, dtype=DTYPE):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()


def _no_clip(model, optimizer, scaler, inputs, targets, max_norm):
    reference_amp_step(model, optimizer, scaler, inputs, targets, DEVICE, DTYPE)


def _fixed_norm(model, optimizer, scaler, inputs, targets, max_norm):
    reference_clip_step(model, optimizer, scaler, inputs, targets, 1.0, DEVICE, DTYPE)
