"""Checks for lesson 03's exercises (mixed precision).

    check_amp_step(amp_step)          # amp_step(model, optimizer, scaler, inputs, targets, device, dtype) -> loss
    check_clip_step(clip_step)        # the same with gradient clipping: clip_step(..., max_norm, device, dtype)
    check_underflow_share(fn)         # fn(grad) -> share of nonzero entries that become 0 in fp16
    check_accum_step(accum_step)      # accum_step(model, optimizer, scaler, micro_batches, max_norm, device, dtype) -> loss
    check_adam_bytes(fn)              # fn(n_params, precision) -> bytes of weights/grads/optimizer/master/total
    check_predict_fit(fn)             # fn(n_params, activation_bytes, memory_bytes) -> {'fp32': bool, 'amp': bool}

Each check runs the student's function on a tiny model on the CPU (fp16 autocast and
GradScaler("cpu") work there) next to a reference step, and names the mistake it finds.
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import textwrap
import warnings

import torch
from torch.nn import functional as F

from fastrain_lib.precision import amp as precision
from fastrain_lib.models import SimpleNN
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

DEVICE, DTYPE = "cpu", torch.float16


# ---------------------------------------------------------------------------------------
# Reference answers (what the solution notebook does)
# ---------------------------------------------------------------------------------------

def reference_amp_step(model, optimizer, scaler, inputs, targets, device="cpu", dtype=torch.float16):
    optimizer.zero_grad(set_to_none=True)
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


def reference_clip_step(model, optimizer, scaler, inputs, targets, max_norm=1.0, device="cpu", dtype=torch.float16):
    optimizer.zero_grad(set_to_none=True)
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


def reference_underflow_share(grad: torch.Tensor) -> float:
    nonzero = grad[grad != 0]
    if nonzero.numel() == 0:
        return 0.0
    return (nonzero.to(torch.float16) == 0).float().mean().item()


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


def _setup(seed: int = 0, make_opt=STEP_CONFIGS[0][1]):
    """A tiny model, its optimizer (SGD: its step is proportional to the gradient, so a wrong
    scale shows), and a scaler that grows after every good step (a missing update() shows)."""
    torch.manual_seed(seed)
    model = SimpleNN(hidden=8)
    scaler = torch.amp.GradScaler(DEVICE, init_scale=INIT_SCALE, growth_interval=1)
    g = torch.Generator().manual_seed(seed + 1)
    inputs = torch.rand(13, 1, 28, 28, generator=g)
    targets = torch.randint(0, 10, (13,), generator=g)
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, problem = call_student(fn, model, optimizer, scaler, inputs, targets, *extra, DEVICE, dtype)
    spy.remove()
    return spy, caught, result, problem


def _common_problems(fn, spy, caught, dtype) -> CheckResult | None:
    if _uses_cuda_amp(fn) or any("torch.cuda.amp" in str(w.message) for w in caught):
        return failed("deprecated_api", "lesson03.check.deprecated_api")
    if any(spy.backward_autocast):
        return failed("backward_in_autocast", "lesson03.check.backward_in_autocast")
    if spy.forward_dtypes and spy.forward_dtypes[0] != dtype:
        if spy.forward_dtypes[0] in (torch.float16, torch.bfloat16):
            return failed("ignored_dtype", "checks.l03.ignored_dtype", want=str(dtype).replace("torch.", ""),
                          got=str(spy.forward_dtypes[0]).replace("torch.", ""))
        return failed("no_autocast", "lesson03.check.no_autocast")
    return None


def _judge_loss(result, ref_loss, scale) -> CheckResult | None:
    """The returned loss must be this step's (unscaled) loss: a tensor or a float."""
    got, want = as_number(result), float(ref_loss)
    if got is not None and math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-6):
        return None
    if got is not None and math.isclose(got, want * scale, rel_tol=1e-3):
        return failed("returned_scaled_loss", "checks.l03.returned_scaled_loss", scale=f"{scale:g}")
    return failed("wrong_loss", "checks.l03.wrong_loss", got=describe(result), want=f"{want:.4f}")


def _check_step(fn, reference, with_clip: bool) -> CheckResult:
    """The shared part of check_amp_step and check_clip_step: in each configuration two
    good steps, then one with an inf gradient, each compared with the reference step
    (weights, the scaler's scale, the returned loss, and the untouched inputs)."""
    if fn is None:
        return not_done()
    for dtype, make_opt, max_norm in STEP_CONFIGS:
        extra = (max_norm,) if with_clip else ()
        model, optimizer, scaler, inputs, targets = _setup(make_opt=make_opt)
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
                if "No inf checks" in problem.message:  # optimizer.step() instead of scaler.step(optimizer)
                    return failed("no_scaler_step", "lesson03.check.no_scaler_step")
                if "_scale is None" in problem.message:  # loss.backward() without scaler.scale(loss)
                    return failed("not_scaled", "lesson03.check.not_scaled")
                return problem
            common = _common_problems(fn, spy, caught, dtype)
            if common is not None:
                return common
            if not unchanged((inputs, targets), saved):
                return failed("mutated_input", "checks.l03.mutated_input")
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


# ---------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------

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
    for variant, code in ((_clip_before_unscale, "clip_before_unscale"), (_no_clip, "no_clip"),
                          (_fixed_norm, "fixed_max_norm")):
        twin, twin_opt, twin_scaler = _clone(_setup(make_opt=make_opt)[0], make_opt)
        variant(twin, twin_opt, twin_scaler, inputs, targets, max_norm)
        if _same(_params(model), _params(twin)):
            return failed(code, "checks.l03.fixed_max_norm" if code == "fixed_max_norm" else f"lesson03.check.{code}")
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


def underflow_examples() -> list[torch.Tensor]:
    """Gradient-like tensors: tiny values on both sides of fp16's limits, zeros, negatives;
    float32 and float64; 1-D and 2-D; and one with no nonzero entry at all."""
    g = torch.Generator().manual_seed(3)
    magnitudes = 10.0 ** torch.empty(2000).uniform_(-10, -2, generator=g)
    signs = torch.where(torch.rand(2000, generator=g) < 0.5, -1.0, 1.0)
    mixed = magnitudes * signs
    mixed[::7] = 0.0  # zeros are not "lost", they were zero already
    subnormals = torch.tensor([1e-5, 3e-5, 5e-5, -2e-5, 1e-8, 2e-8, 4e-8, 1e-3, 0.0], dtype=torch.float64)
    wide = (10.0 ** torch.empty(37, 11, dtype=torch.float64).uniform_(-9, -3, generator=g))
    return [mixed, subnormals, torch.randn(50, 20, generator=g) * 1e-6, wide, torch.zeros(5)]


@check
def check_underflow_share(fn) -> CheckResult:
    """fn(grad) -> share (0..1) of the nonzero entries of grad that become 0 in fp16.
    The grad itself must come back unchanged."""
    for grad in underflow_examples():
        saved = grad.clone()
        value, problem = call_student(fn, grad)
        if problem is not None:
            return problem
        if not unchanged(grad, saved):
            return failed("mutated_input", "checks.l03.grad_mutated")
        grad = saved
        got = as_number(value)
        if got is None:
            return failed("not_a_number", "lesson03.check.not_a_number")
        value = got
        expected = reference_underflow_share(grad)
        if math.isclose(value, expected, abs_tol=1e-6):
            continue
        if value > 1:
            return failed("count_not_share", "lesson03.check.count_not_share")
        nonzero = grad[grad != 0]
        if math.isclose(value, (grad.to(torch.float16) == 0).float().mean().item(), abs_tol=1e-6):
            return failed("counted_zeros", "lesson03.check.counted_zeros")
        tiny = torch.finfo(torch.float16).tiny
        if math.isclose(value, (nonzero.abs() < tiny).float().mean().item(), abs_tol=1e-6):
            return failed("normal_not_subnormal", "lesson03.check.normal_not_subnormal")
        if math.isclose(value, ((nonzero > 0) & (nonzero.to(torch.float16) == 0)).float().mean().item(), abs_tol=1e-6):
            return failed("sign", "lesson03.check.sign")
        return failed("wrong_share", "lesson03.check.wrong_share", expected=expected, got=value)
    return passed("lesson03.check.underflow_ok")


# ---------------------------------------------------------------------------------------
# Task: one optimizer step over several micro-batches (gradient accumulation + clipping)
# ---------------------------------------------------------------------------------------

def reference_accum_step(model, optimizer, scaler, micro_batches, max_norm=1.0, device="cpu", dtype=torch.float16):
    """One optimizer step for the effective batch made of `micro_batches` (a list of (inputs, targets)):
    the scaled gradients pile up, then unscale ONCE, clip, step, update (PyTorch AMP examples)."""
    optimizer.zero_grad(set_to_none=True)
    k = len(micro_batches)
    total = 0.0
    for inputs, targets in micro_batches:
        with torch.amp.autocast(device, dtype=dtype):
            loss = F.cross_entropy(model(inputs), targets) / k
        scaler.scale(loss).backward()
        total += loss.detach()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return total


# (dtype, optimizer, max_norm, micro-batches x size): the fp16 run clips hard (a clip on scaled
# gradients shows), the bf16 run never clips (a loss not divided by k shows).
ACCUM_CONFIGS = [
    (torch.float16, lambda ps: torch.optim.SGD(ps, lr=0.5), 0.05, 3, 5),
    (torch.bfloat16, lambda ps: torch.optim.SGD(ps, lr=0.3, momentum=0.9), 1e6, 4, 4),
]


def _micro_batches(k: int, size: int, seed: int = 5):
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(size, 1, 28, 28, generator=g), torch.randint(0, 10, (size,), generator=g)) for _ in range(k)]


class _ScalerSpy:
    """Records the student's calls to scaler.unscale_ / step / update, in order (unscale_ that
    scaler.step does by itself is not counted). Instance attributes shadow the class methods."""

    def __init__(self, scaler, forwards=lambda: 0):
        self.scaler, self.calls, self._in_step = scaler, [], False
        self.at_update = []  # forward passes done when each update() came
        unscale, step, update = scaler.unscale_, scaler.step, scaler.update

        def unscale_(optimizer):
            if not self._in_step:
                self.calls.append("unscale_")
            return unscale(optimizer)

        def step_(optimizer, *args, **kwargs):
            self.calls.append("step")
            self._in_step = True
            try:
                return step(optimizer, *args, **kwargs)
            finally:
                self._in_step = False

        def update_(new_scale=None):
            self.calls.append("update")
            self.at_update.append(forwards())
            return update(new_scale)

        scaler.unscale_, scaler.step, scaler.update = unscale_, step_, update_

    def remove(self):
        for name in ("unscale_", "step", "update"):
            self.scaler.__dict__.pop(name, None)

    def count(self, name):
        return self.calls.count(name)


def _accum_variants():
    """Wrong answers the check tells apart by their effect (name -> step function)."""

    def clip_before_unscale(model, opt, scaler, mbs, max_norm, device, dtype):
        opt.zero_grad(set_to_none=True)
        for x, y in mbs:
            with torch.amp.autocast(device, dtype=dtype):
                loss = F.cross_entropy(model(x), y) / len(mbs)
            scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(opt)
        scaler.update()

    def not_averaged(model, opt, scaler, mbs, max_norm, device, dtype):
        opt.zero_grad(set_to_none=True)
        for x, y in mbs:
            with torch.amp.autocast(device, dtype=dtype):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(opt)
        scaler.update()

    def last_micro_batch_only(model, opt, scaler, mbs, max_norm, device, dtype):
        for x, y in mbs:  # zero_grad inside the loop: only the last micro-batch survives
            opt.zero_grad(set_to_none=True)
            with torch.amp.autocast(device, dtype=dtype):
                loss = F.cross_entropy(model(x), y) / len(mbs)
            scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(opt)
        scaler.update()

    def no_clip(model, opt, scaler, mbs, max_norm, device, dtype):
        reference_accum_step(model, opt, scaler, mbs, float("inf"), device, dtype)

    return {"clip_before_unscale": clip_before_unscale, "not_averaged": not_averaged,
            "zero_grad_in_loop": last_micro_batch_only, "no_clip": no_clip}


def _close(a, b) -> bool:  # other valid orders of the same arithmetic round differently
    return all(torch.allclose(x, y, rtol=1e-2, atol=1e-3) for x, y in zip(a, b))


def _diagnose_accum(after, config) -> CheckResult:
    dtype, make_opt, max_norm, k, size = config
    for code, variant in _accum_variants().items():
        model, _, _, _, _ = _setup(make_opt=make_opt)
        twin, twin_opt, twin_scaler = _clone(model, make_opt)
        variant(twin, twin_opt, twin_scaler, _micro_batches(k, size), max_norm, DEVICE, dtype)
        if _close(after, _params(twin)):
            return failed(code, f"lesson03.check.accum_{code}")
    return failed("wrong_update", "lesson03.check.accum_wrong_update")


def _spy_problems(spy, forwards: int) -> CheckResult | None:
    if spy.count("unscale_") > 1:
        return failed("unscale_per_micro_batch", "lesson03.check.accum_unscale_per_micro_batch")
    if spy.count("step") == 0:
        return failed("no_scaler_step", "lesson03.check.no_scaler_step")
    if spy.count("step") > 1:
        return failed("stepped_per_micro_batch", "lesson03.check.accum_stepped_per_micro_batch")
    if spy.count("update") == 0:
        return failed("missing_update", "lesson03.check.missing_update")
    if spy.count("update") > 1 or spy.calls.index("update") < spy.calls.index("step") or min(spy.at_update) < forwards:
        return failed("update_per_micro_batch", "lesson03.check.accum_update_per_micro_batch")
    return None


@check
def check_accum_step(accum_step) -> CheckResult:
    """accum_step(model, optimizer, scaler, micro_batches, max_norm, device, dtype) -> loss of the
    effective batch (the mean of the micro-batch losses). Two configurations, three steps each,
    the third with an inf gradient; compared with reference_accum_step."""
    if accum_step is None:
        return not_done()
    for config in ACCUM_CONFIGS:
        dtype, make_opt, max_norm, k, size = config
        model, optimizer, scaler, _, _ = _setup(make_opt=make_opt)
        twin, twin_opt, twin_scaler = _clone(model, make_opt)
        mbs = _micro_batches(k, size)
        saved = snapshot(mbs)
        for step in range(3):
            handles = []
            if step == 2:
                handles = [precision.inject_overflow(model, {0}), precision.inject_overflow(twin, {0})]
            before, scale_before = _params(model), scaler.get_scale()
            spy = _Spy(model)
            scaler_spy = _ScalerSpy(scaler, lambda: len(spy.forward_dtypes))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result, problem = call_student(accum_step, model, optimizer, scaler, mbs, max_norm, DEVICE, dtype)
            spy.remove()
            scaler_spy.remove()
            ref_loss = reference_accum_step(twin, twin_opt, twin_scaler, saved, max_norm, DEVICE, dtype)
            for handle in handles:
                handle.remove()
            if problem is not None:
                text = problem.message
                if scaler_spy.count("unscale_") > 1 or "unscale_() has already been called" in text:
                    return failed("unscale_per_micro_batch", "lesson03.check.accum_unscale_per_micro_batch")
                if "is being called after step()" in text:  # the previous call never called update()
                    return failed("missing_update", "lesson03.check.missing_update")
                if "No inf checks" in text:
                    if scaler_spy.at_update and scaler_spy.at_update[0] < k:
                        return failed("update_per_micro_batch", "lesson03.check.accum_update_per_micro_batch")
                    if scaler_spy.count("step") == 0:
                        return failed("no_scaler_step", "lesson03.check.no_scaler_step")
                    return failed("update_per_micro_batch", "lesson03.check.accum_update_per_micro_batch")
                if "step() has already been called" in text:
                    return failed("stepped_per_micro_batch", "lesson03.check.accum_stepped_per_micro_batch")
                if "_scale is None" in text:
                    return failed("not_scaled", "lesson03.check.not_scaled")
                return problem
            bad = _spy_problems(scaler_spy, len(spy.forward_dtypes))
            if bad is None:
                bad = _common_problems(accum_step, spy, caught, dtype)
            if bad is not None:  # (a failed CheckResult is falsy: never chain them with `or`)
                return bad
            if not unchanged(mbs, saved):
                return failed("mutated_input", "checks.l03.mutated_input")
            after = _params(model)
            if step == 2 and (not all(torch.isfinite(p).all() for p in after) or not _same(before, after)):
                return failed("not_skipped", "lesson03.check.not_skipped")
            if not _close(after, _params(twin)):
                if step == 0:
                    return _diagnose_accum(after, config)
                return failed("missing_zero_grad", "lesson03.check.missing_zero_grad")
            got, want = as_number(result), float(ref_loss)
            if got is None or not math.isclose(got, want, rel_tol=1e-3, abs_tol=1e-5):
                if got is not None and math.isclose(got, want * k, rel_tol=1e-3):
                    return failed("summed_loss", "lesson03.check.accum_summed_loss", k=k)
                if got is not None and math.isclose(got, want * scale_before, rel_tol=1e-3):
                    return failed("returned_scaled_loss", "checks.l03.returned_scaled_loss", scale=f"{scale_before:g}")
                return failed("wrong_loss", "checks.l03.wrong_loss", got=describe(result), want=f"{want:.4f}")
    return passed("lesson03.check.accum_ok")


# ---------------------------------------------------------------------------------------
# Task: memory of a model + Adam, by formula and measured
# ---------------------------------------------------------------------------------------

MEMORY_KEYS = ("weights", "grads", "optimizer", "master", "total")


def reference_adam_bytes(n_params, precision):
    """Bytes of weights, gradients, Adam's moments and master weights (Ultra-Scale Playbook)."""
    per = {"fp32": (4, 4, 8, 0), "amp": (2, 2, 8, 4)}[precision]
    parts = dict(zip(MEMORY_KEYS, [n_params * b for b in per]))
    parts["total"] = sum(parts.values())
    return parts


def _read_parts(value) -> dict | None:
    """The answer as {key: float} with the five keys, or None."""
    try:
        if not isinstance(value, dict):
            return None
        out = {}
        for key in MEMORY_KEYS:
            if key not in value:
                return None
            number = as_number(value[key])
            if number is None:
                return None
            out[key] = number
        return out
    except Exception:  # noqa: BLE001 - an odd mapping
        return None


def _same_parts(got: dict, want: dict, rel: float = 1e-9) -> bool:
    return all(math.isclose(got[k], want[k], rel_tol=rel, abs_tol=1e-9) for k in MEMORY_KEYS)


def _adam_patterns(n, precision) -> dict:
    """What typical wrong answers give (code -> dict)."""
    ok = reference_adam_bytes(n, precision)

    def with_(**per):
        parts = {k: ok[k] for k in MEMORY_KEYS[:-1]}
        parts.update({k: n * v for k, v in per.items()})
        parts["total"] = sum(parts.values())
        return parts

    out = {"bits_not_bytes": {k: 8 * v for k, v in ok.items()},
           "gigabytes": {k: v / 1e9 for k, v in ok.items()},
           "gibibytes": {k: v / 2**30 for k, v in ok.items()},
           "no_optimizer_state": with_(optimizer=0),
           "one_moment": with_(optimizer=4)}
    if precision == "amp":
        out.update({"amp_halved_state": with_(optimizer=4, master=0), "no_master": with_(master=0),
                    "fp32_grads_variant": with_(grads=6), "amp_moments_16bit": with_(optimizer=4)})
    else:
        out["fp32_has_master"] = with_(master=4)
    return out


ADAM_CASES = [(1, "fp32"), (7, "amp"), (1_000_003, "fp32"), (1_000_003, "amp"), (1_500_000_000, "amp"),
              (1_500_000_000, "fp32")]


def _measured_cases():
    """(n, precision, measured bytes) on a small real model after one Adam step: fp32 + Adam,
    and a bf16 model with fp32 master weights (memory.MasterWeightsAdam)."""
    from fastrain_lib.measure import memory

    out = []
    for precision in ("fp32", "amp"):
        torch.manual_seed(0)
        model = SimpleNN(hidden=12)
        dtype = torch.float32
        if precision == "amp":
            dtype = torch.bfloat16
            model = model.to(dtype)
            opt = memory.MasterWeightsAdam(model, lr=1e-3)
        else:
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, y = torch.rand(4, 1, 28, 28, dtype=dtype), torch.randint(0, 10, (4,))
        F.cross_entropy(model(x).float(), y).backward()
        opt.step()
        out.append((sum(p.numel() for p in model.parameters()), precision, memory.measured_bytes(model, opt)))
    return out


@check
def check_adam_bytes(adam_bytes) -> CheckResult:
    """adam_bytes(n_params, precision) -> {'weights','grads','optimizer','master','total'} in bytes,
    precision 'fp32' or 'amp'; checked against the formula and a measurement on a small model."""
    if adam_bytes is None:
        return not_done()
    for n, prec in ADAM_CASES:
        value, problem = call_student(adam_bytes, n, prec)
        if problem is not None:
            return problem
        got = _read_parts(value)
        if got is None:
            return failed("not_a_dict", "lesson03.check.mem_not_a_dict", got=describe(value))
        want = reference_adam_bytes(n, prec)
        if _same_parts(got, want):
            continue
        parts_ok = all(math.isclose(got[k], want[k], rel_tol=1e-9) for k in MEMORY_KEYS[:-1])
        if parts_ok:
            return failed("total_not_sum", "lesson03.check.mem_total_not_sum")
        for code, pattern in _adam_patterns(n, prec).items():
            if _same_parts(got, pattern):
                return failed(code, f"lesson03.check.mem_{code}")
        key = next(k for k in MEMORY_KEYS if not math.isclose(got[k], want[k], rel_tol=1e-9, abs_tol=1e-9))
        return failed("wrong_value", "lesson03.check.mem_wrong_value", key=key, n=n, precision=prec,
                      got=f"{got[key]:.6g}", per=f"{got[key] / max(n, 1):.3g}")
    for n, prec, measured in _measured_cases():
        value, problem = call_student(adam_bytes, n, prec)
        got = _read_parts(value) if problem is None else None
        if got is None:
            return problem or failed("not_a_dict", "lesson03.check.mem_not_a_dict", got=describe(value))
        for key in MEMORY_KEYS:  # Adam's one-number 'step' per tensor: a few bytes more than the formula
            if not math.isclose(got[key], measured[key], rel_tol=0.01, abs_tol=64):
                return failed("measured_differs", "lesson03.check.mem_measured_differs", key=key, n=n,
                              precision=prec, got=f"{got[key]:.0f}", measured=measured[key])
    return passed("lesson03.check.mem_ok")


# ---------------------------------------------------------------------------------------
# Task: which layout fits a GPU (a 16 GB T4)?
# ---------------------------------------------------------------------------------------

T4_BYTES = 16 * 10**9  # "16 GB GDDR6" (NVIDIA T4 datasheet); the driver reports a little less


def reference_predict_fit(n_params, activation_bytes, memory_bytes):
    """{'fp32': fits?, 'amp': fits?}: weights + grads + Adam state (+ master) + that precision's activations."""
    return {p: reference_adam_bytes(n_params, p)["total"] + activation_bytes[p] <= memory_bytes for p in ("fp32", "amp")}


def _fit_cases():
    """(n, activations, memory): three T4 scenarios, one smaller card, and one built from a
    measurement of a small model (memory between its measured AMP and fp32 needs)."""
    from fastrain_lib.measure import memory

    cases = [
        (350_000_000, {"fp32": 12 * 10**9, "amp": 6 * 10**9}, T4_BYTES),
        (1_200_000_000, {"fp32": 2 * 10**9, "amp": 10**9}, T4_BYTES),
        (100_000_000, {"fp32": 9 * 10**9, "amp": 4_500_000_000}, T4_BYTES),
        (500_000_000, {"fp32": 10**9, "amp": 500_000_000}, 8 * 10**9),
        (2_500_000_000, {"fp32": 10**9, "amp": 500_000_000}, T4_BYTES),
    ]
    torch.manual_seed(0)
    model = SimpleNN(hidden=64)
    n = sum(p.numel() for p in model.parameters())
    g = torch.Generator().manual_seed(2)
    x, y = torch.rand(256, 1, 28, 28, generator=g), torch.randint(0, 10, (256,), generator=g)
    act = {"fp32": precision.saved_tensor_bytes(model, x, y, mode="fp32")["bytes"],
           "amp": precision.saved_tensor_bytes(model, x, y, mode="bf16")["bytes"]}
    opt = torch.optim.Adam(model.parameters())
    F.cross_entropy(model(x), y).backward()
    opt.step()
    state = memory.measured_bytes(model, opt)["total"]  # measured: 16 bytes/parameter (+ Adam's step counters)
    need = {p: state + act[p] for p in act}
    if need["amp"] < need["fp32"]:
        cases.append((n, act, (need["amp"] + need["fp32"]) // 2))
    return cases


def _fit_patterns(n, act, mem) -> dict:
    def fits(per_param, use_act=True, amp_act="amp"):
        return {"fp32": per_param["fp32"] * n + (act["fp32"] if use_act else 0) <= mem,
                "amp": per_param["amp"] * n + (act[amp_act] if use_act else 0) <= mem}

    return {"ignored_activations": fits({"fp32": 16, "amp": 16}, use_act=False),
            "amp_halved_state": fits({"fp32": 16, "amp": 8}),
            "no_optimizer_state": fits({"fp32": 8, "amp": 8}),
            "same_activations": fits({"fp32": 16, "amp": 16}, amp_act="fp32"),
            "always_fits": {"fp32": True, "amp": True}}


def _as_bool(value):
    try:
        if isinstance(value, bool):
            return value
        if isinstance(value, torch.Tensor) and value.dtype == torch.bool and value.numel() == 1:
            return bool(value.item())
        import numpy as np

        if isinstance(value, np.bool_):
            return bool(value)
    except Exception:  # noqa: BLE001
        return None
    return None


@check
def check_predict_fit(predict_fit) -> CheckResult:
    """predict_fit(n_params, activation_bytes, memory_bytes) -> {'fp32': bool, 'amp': bool}."""
    if predict_fit is None:
        return not_done()
    cases = _fit_cases()
    answers = []
    for n, act, mem in cases:
        value, problem = call_student(predict_fit, n, dict(act), mem)
        if problem is not None:
            return problem
        try:
            got = {p: _as_bool(value[p]) for p in ("fp32", "amp")} if isinstance(value, dict) else None
        except Exception:  # noqa: BLE001
            got = None
        if got is None or None in got.values():
            return failed("not_bools", "lesson03.check.fit_not_bools", got=describe(value))
        answers.append(got)
    wrong = [i for i, (case, got) in enumerate(zip(cases, answers)) if got != reference_predict_fit(*case)]
    if not wrong:
        return passed("lesson03.check.fit_ok")
    for code in _fit_patterns(*cases[0]):
        if all(answers[i] == _fit_patterns(*cases[i])[code] for i in range(len(cases))):
            return failed(code, f"lesson03.check.fit_{code}")
    n, act, mem = cases[wrong[0]]
    return failed("wrong_prediction", "lesson03.check.fit_wrong", n=n, fp32=act["fp32"], amp=act["amp"], mem=mem)
