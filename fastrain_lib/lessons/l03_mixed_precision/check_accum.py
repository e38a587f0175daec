"""Lesson 03's exercise check, task 2: one optimizer step over several micro-batches (gradient
accumulation with GradScaler, then clipping), against the lesson's amp_backward/amp_update."""

from __future__ import annotations

import math
import random
import warnings
import weakref

import torch
from torch.nn import functional as F

from fastrain_lib.lessons.checking import (
    CheckResult,
    as_number,
    call_student,
    check,
    describe,
    failed,
    follow_threads,
    not_done,
    passed,
    snapshot,
    unchanged,
)
from fastrain_lib.lessons.l03_mixed_precision.check_step import (
    DEVICE,
    _clone,
    _common_problems,
    _params,
    _same,
    _setup,
    _Spy,
    forbidden_step_calls,
)
from fastrain_lib.precision import amp as precision
from fastrain_lib.precision.step import amp_backward, amp_update

# ---------------------------------------------------------------------------------------
# Task: one optimizer step over several micro-batches (gradient accumulation + clipping)
# ---------------------------------------------------------------------------------------

def reference_accum_step(model, optimizer, scaler, micro_batches, max_norm=1.0, device="cpu", dtype=torch.float16):
    """One optimizer step for the effective batch made of `micro_batches` (a list of (inputs, targets)):
    the scaled gradients pile up, then unscale ONCE, clip, step, update (PyTorch AMP examples) — the
    lesson's two halves of a step (precision/step.py)."""
    k = len(micro_batches)
    total = 0.0
    for inputs, targets in micro_batches:
        total += amp_backward(model, scaler, inputs, targets, F.cross_entropy, dtype=dtype, accumulate=k) / k
    amp_update(model, optimizer, scaler, max_norm=max_norm)
    return total

# (dtype, optimizer, max_norm, micro-batches x size): the fp16 run clips hard (a clip on scaled
# gradients shows), the bf16 run never clips (a loss not divided by k shows).
ACCUM_CONFIGS = [
    (torch.float16, lambda ps: torch.optim.SGD(ps, lr=0.5), 0.05, 3, 5),
    (torch.bfloat16, lambda ps: torch.optim.SGD(ps, lr=0.3, momentum=0.9), 1e6, 4, 4),
]
ACCUM_SEED = 2803


def accum_configs(seed: int = ACCUM_SEED, extra: int = 2) -> list:
    """The two fixed configurations, then `extra` drawn by a seeded generator: dtype, k (2..6,
    the first drawn one never 3 or 4 like the fixed ones), micro-batch size (3..9, no power of two),
    a non-round learning rate; every other one clips hard, the others never clip (so a wrong
    divisor of the loss shows in the weights)."""
    rng = random.Random(seed)
    out = [(*config, False) for config in ACCUM_CONFIGS]
    for i in range(extra):
        dtype = rng.choice([torch.float16, torch.bfloat16])
        lr, momentum = round(rng.uniform(0.05, 0.6), 3), rng.choice([0.0, 0.9])
        max_norm = 1e6 if i % 2 == 0 else round(rng.uniform(0.01, 0.2), 3)
        k, size = rng.choice([2, 5, 6]) if i == 0 else rng.randint(2, 6), rng.choice([3, 5, 6, 7, 9])
        out.append((dtype, lambda ps, lr=lr, m=momentum: torch.optim.SGD(ps, lr=lr, momentum=m), max_norm, k, size,
                    False))
    # micro-batches of 1 and a frozen parameter (its .grad stays None): inputs the task allows too
    out.append((torch.bfloat16, lambda ps: torch.optim.SGD(ps, lr=0.45), 0.03, 3, 1, True))
    return out


def _forbidden():
    return forbidden_step_calls(reference_accum_step)


class _Held:
    """One tensor autograd saved for backward, and the forward pass (graph) it belongs to."""

    __slots__ = ("__weakref__", "graph", "tensor")

    def __init__(self, tensor, graph):
        self.tensor, self.graph = tensor, graph


class GraphWatch:
    """Observes what accumulation exists for: how many micro-batch graphs are alive at once.

    torch.autograd.graph.saved_tensors_hooks wraps every tensor saved for backward in a _Held
    tagged with the number of the model's forward pass that saved it; a weakref finalizer removes
    it when autograd frees it (backward does, for a graph it does not retain). `peak_graphs` is the
    most forward passes whose saved tensors were alive at the same time; `rows` the largest batch
    one forward pass saw (micro-batches concatenated into one forward hold them all at once)."""

    def __init__(self, model):
        self.model, self.forwards, self.rows, self.live, self.peak_graphs = model, 0, 0, {}, 0

    def _pre(self, module, args):
        self.forwards += 1
        if args and isinstance(args[0], torch.Tensor) and args[0].dim() > 0:
            self.rows = max(self.rows, int(args[0].shape[0]))

    def _pack(self, tensor):
        held = _Held(tensor, self.forwards)
        self.live[id(held)] = self.forwards
        weakref.finalize(held, self.live.pop, id(held), None)
        self.peak_graphs = max(self.peak_graphs, len(set(self.live.values())))
        return held

    @staticmethod
    def _unpack(held):
        return held.tensor

    def _hooks_here(self):
        return torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def __enter__(self):
        self._handle = self.model.register_forward_pre_hook(self._pre)
        self._hooks = self._hooks_here()
        self._hooks.__enter__()
        # saved_tensors_hooks are thread-local: a forward run in a thread the answer starts is watched too
        self._unfollow = follow_threads(self._hooks_here)
        return self

    def __exit__(self, *exc):
        self._unfollow()
        self._hooks.__exit__(*exc)
        self._handle.remove()


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
    """Wrong answers the check tells apart by their effect (code -> (step function, message key))."""

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

    return {"clip_before_unscale": (clip_before_unscale, "lesson03.check.accum_clip_before_unscale"),
            "not_averaged": (not_averaged, "lesson03.check.accum_not_averaged"),
            "zero_grad_in_loop": (last_micro_batch_only, "lesson03.check.accum_zero_grad_in_loop"),
            "no_clip": (no_clip, "lesson03.check.accum_no_clip")}


def _close(a, b) -> bool:  # other valid orders of the same arithmetic round differently
    return all(torch.allclose(x, y, rtol=1e-2, atol=1e-3) for x, y in zip(a, b))


def _diagnose_accum(after, config) -> CheckResult:
    dtype, make_opt, max_norm, k, size, frozen = config
    for code, (variant, key) in _accum_variants().items():
        model, _, _, _, _ = _setup(make_opt=make_opt, frozen=frozen)
        twin, twin_opt, twin_scaler = _clone(model, make_opt)
        variant(twin, twin_opt, twin_scaler, _micro_batches(k, size), max_norm, DEVICE, dtype)
        if _close(after, _params(twin)):
            return failed(code, key)
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
    for config in accum_configs():
        dtype, make_opt, max_norm, k, size, frozen = config
        model, optimizer, scaler, _, _ = _setup(make_opt=make_opt, frozen=frozen)
        twin, twin_opt, twin_scaler = _clone(model, make_opt)
        mbs = _micro_batches(k, size)
        saved = snapshot(mbs)
        for step in range(3):
            handles = []
            if step == 2:
                handles = [precision.inject_overflow(model, {0}), precision.inject_overflow(twin, {0})]
            before, scale_before = _params(model), scaler.get_scale()
            spy = _Spy(model)
            scaler_spy = _ScalerSpy(scaler, lambda spy=spy: len(spy.forward_dtypes))
            with warnings.catch_warnings(record=True) as caught, GraphWatch(model) as watch, \
                    _forbidden() as seen:
                warnings.simplefilter("always")
                result, problem = call_student(accum_step, model, optimizer, scaler, mbs, max_norm, DEVICE, dtype)
            spy.remove()
            scaler_spy.remove()
            ref_loss = reference_accum_step(twin, twin_opt, twin_scaler, saved, max_norm, DEVICE, dtype)
            for handle in handles:
                handle.remove()
            if seen.calls:
                return failed("used_library", "lesson03.check.step_used_library", name=seen.calls[0])
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
            if watch.rows > size:  # one forward saw several micro-batches: all of them in memory at once
                return failed("concatenated", "lesson03.check.accum_concatenated", rows=watch.rows, size=size, k=k)
            if watch.peak_graphs > 1:  # the saved tensors of several forward passes alive together
                return failed("graphs_alive", "lesson03.check.accum_graphs_alive", graphs=watch.peak_graphs, k=k)
            bad = _spy_problems(scaler_spy, len(spy.forward_dtypes))
            if bad is None:
                bad = _common_problems(accum_step, spy, caught, dtype)
            if bad is not None:  # (a failed CheckResult is falsy: never chain them with `or`)
                return bad
            if not unchanged(mbs, saved):
                return failed("mutated_input", "checking.l03.mutated_input")
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
                    return failed("returned_scaled_loss", "checking.l03.returned_scaled_loss", scale=f"{scale_before:g}")
                return failed("wrong_loss", "checking.l03.wrong_loss", got=describe(result), want=f"{want:.4f}")
    return passed("lesson03.check.accum_ok")
