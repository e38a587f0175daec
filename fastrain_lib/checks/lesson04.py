"""Checks for lesson 04's exercises: a foreach Adam step, launch counts, a naive LayerNorm.

Each check runs the student's function on fresh random inputs, compares with PyTorch's own
implementation, and when the answer is wrong, also with the typical wrong versions
(no bias correction, eps in the wrong place, ...) to name the mistake.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .. import fused
from . import call_student, failed, passed

# ---------------------------------------------------------------- task 1: Adam with torch._foreach_*

ADAM_STEPS = 20
ADAM_LR, ADAM_BETAS, ADAM_EPS = 1e-2, (0.9, 0.999), 1e-6
SHAPES = ((7, 5), (11,), (3, 4, 2))


def _adam_problem(seed: int = 0):
    """Start values and a gradient for every step. Small gradients make eps matter, so an eps
    in the wrong place changes the result visibly."""
    g = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=g) for s in SHAPES]
    grads = [[1e-3 * torch.randn(s, generator=g) for s in SHAPES] for _ in range(ADAM_STEPS)]
    return params, grads


def _variant_trajectory(params, grads, *, bias_correction=True, eps_inside=False):
    """A textbook Adam with one deliberate mistake switched on (used to name the student's)."""
    beta1, beta2 = ADAM_BETAS
    ps = [p.clone() for p in params]
    ms = [torch.zeros_like(p) for p in params]
    vs = [torch.zeros_like(p) for p in params]
    for step, gs in enumerate(grads, start=1):
        for p, g, m, v in zip(ps, gs, ms, vs):
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            bc1 = 1 - beta1**step if bias_correction else 1.0
            bc2 = 1 - beta2**step if bias_correction else 1.0
            denom = (v / bc2 + ADAM_EPS).sqrt() if eps_inside else (v / bc2).sqrt() + ADAM_EPS
            p.sub_(ADAM_LR * (m / bc1) / denom)
    return ps


def _reference(params, grads):
    """torch.optim.Adam itself: final params and its state."""
    ps = [torch.nn.Parameter(p.clone()) for p in params]
    opt = torch.optim.Adam(ps, lr=ADAM_LR, betas=ADAM_BETAS, eps=ADAM_EPS, foreach=False)
    firsts = None
    for gs in grads:
        for p, g in zip(ps, gs):
            p.grad = g.clone()
        opt.step()
        if firsts is None:
            firsts = [p.detach().clone() for p in ps]
    state = [opt.state[p] for p in ps]
    return [p.detach() for p in ps], firsts, [s["exp_avg"] for s in state], [s["exp_avg_sq"] for s in state]


def _max_diff(xs, ys) -> float:
    return max(float((x - y).abs().max()) for x, y in zip(xs, ys))


def _close(xs, ys, atol=1e-5, rtol=1e-4) -> bool:
    return all(x.shape == y.shape and torch.allclose(x, y, atol=atol, rtol=rtol) for x, y in zip(xs, ys))


def check_foreach_adam(adam_step) -> object:
    """adam_step(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps) must update params,
    exp_avgs and exp_avg_sqs in place like torch.optim.Adam, with step counting from 1."""
    params0, grads = _adam_problem()
    ref_params, ref_first, ref_m, ref_v = _reference(params0, grads)
    params = [p.clone() for p in params0]
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    grads_changed = False
    first = None
    for step, gs in enumerate(grads, start=1):
        given = [g.clone() for g in gs]
        with torch.no_grad():
            _, problem = call_student(adam_step, params, given, exp_avgs, exp_avg_sqs, step, ADAM_LR, ADAM_BETAS,
                                      ADAM_EPS)
        if problem is not None:
            return problem
        grads_changed = grads_changed or not _close(given, gs, atol=0, rtol=0)
        if first is None:
            first = [p.clone() for p in params]
    if grads_changed:
        return failed("grads_changed", "lesson04.adam_grads_changed")
    if _close(params, ref_params):
        if not (_close(exp_avgs, ref_m) and _close(exp_avg_sqs, ref_v, atol=1e-9)):
            return failed("state_wrong", "lesson04.adam_state_wrong")
        return passed()
    if _close(params, _variant_trajectory(params0, grads, bias_correction=False)):
        return failed("no_bias_correction", "lesson04.adam_no_bias_correction")
    if _close(params, _variant_trajectory(params0, grads, eps_inside=True)):
        return failed("eps_inside_sqrt", "lesson04.adam_eps_inside")
    if not (_close(exp_avgs, ref_m) and _close(exp_avg_sqs, ref_v, atol=1e-9)):
        return failed("state_wrong", "lesson04.adam_state_wrong")
    if not _close(first, ref_first):
        return failed("first_step_wrong", "lesson04.adam_first_step", diff=_max_diff(first, ref_first))
    return failed("params_wrong", "lesson04.adam_params_wrong", diff=_max_diff(params, ref_params))


# ---------------------------------------------------------------- task 2: predict, then measure launches

LAUNCH_CASES = (("forloop", 4), ("foreach", 4), ("forloop", 16), ("foreach", 16))


def check_launch_counts(measure_launches) -> object:
    """measure_launches(impl, n_tensors) must return the launches of one (warmed-up) Adam step."""
    results = {}
    for impl, n in LAUNCH_CASES:
        got, problem = call_student(measure_launches, impl, n)
        if problem is not None:
            return problem
        if isinstance(got, bool) or not isinstance(got, int):
            return failed("not_int", "lesson04.launch_not_int", got=repr(got)[:80])
        expected = fused.optimizer_step_launches(impl, n).launches
        if got != expected:
            if got == fused.optimizer_step_launches(impl, n, warmup=0).launches:
                return failed("no_warmup", "lesson04.launch_no_warmup")
            return failed("wrong_count", "lesson04.launch_wrong", impl=impl, n=n, expected=expected, got=got)
        results[(impl, n)] = got
    return passed("lesson04.launch_ok", forloop=results[("forloop", 16)], foreach=results[("foreach", 16)])


# ---------------------------------------------------------------- task 3: the naive LayerNorm forward


LN_MESSAGES = {"unbiased_var": "lesson04.ln_unbiased", "eps_outside_sqrt": "lesson04.ln_eps_outside",
               "no_affine": "lesson04.ln_no_affine", "wrong_dim": "lesson04.ln_wrong_dim"}


def _ln_variants(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return {
        "unbiased_var": (x - mean) / torch.sqrt(x.var(-1, unbiased=True, keepdim=True) + eps) * w + b,
        "eps_outside_sqrt": (x - mean) / (torch.sqrt(var) + eps) * w + b,
        "no_affine": (x - mean) / torch.sqrt(var + eps),
        "wrong_dim": (x - x.mean(0, keepdim=True)) / torch.sqrt(x.var(0, unbiased=False, keepdim=True) + eps) * w + b,
    }


def check_layer_norm(layer_norm) -> object:
    """layer_norm(x, weight, bias, eps) must equal F.layer_norm(x, (x.shape[-1],), weight, bias, eps)."""
    g = torch.Generator().manual_seed(4)
    # eps = 0.1 on values of variance ~1 makes "eps outside the sqrt" visibly different;
    # the second case uses LayerNorm's usual eps.
    cases = [(torch.randn(4, 6, 16, generator=g) * 1.5 + 0.5, 0.1), (torch.randn(5, 32, generator=g) * 3, 1e-5)]
    for x, eps in cases:
        w = torch.randn(x.shape[-1], generator=g)
        b = torch.randn(x.shape[-1], generator=g)
        got, problem = call_student(layer_norm, x.clone(), w.clone(), b.clone(), eps)
        if problem is not None:
            return problem
        got = torch.as_tensor(got)
        expected = F.layer_norm(x, (x.shape[-1],), w, b, eps)
        if got.shape != expected.shape:
            return failed("wrong_shape", "lesson04.ln_shape", got=tuple(got.shape), expected=tuple(expected.shape))
        if torch.allclose(got.float(), expected, atol=1e-4, rtol=1e-4):
            continue
        for code, wrong in _ln_variants(x, w, b, eps).items():
            if wrong.shape == got.shape and torch.allclose(got.float(), wrong, atol=1e-4, rtol=1e-4):
                return failed(code, LN_MESSAGES[code])
        return failed("wrong_values", "lesson04.ln_wrong", diff=float((got.float() - expected).abs().max()))
    return passed()


# ---------------------------------------------------------------- task 2, the prediction (Lessons 03–04 helper)

PREDICTION_N = 16  # the exercise asks for a guess at 16 parameter tensors


def check_launch_prediction(prediction) -> object:
    """prediction = {"forloop": int, "foreach": int}: the student's guess for one warmed-up Adam step
    over PREDICTION_N tensors. It is compared with the count measured now, on the CPU, exactly as
    the exercise's measure_launches counts (so the expected numbers are never hard-coded: they
    follow this torch version). A wrong guess gets the measured rule — calls with 1 tensor and
    per extra tensor — rather than a bare number."""
    from ..i18n import t

    if not isinstance(prediction, dict) or any(prediction.get(k) is None for k in ("forloop", "foreach")):
        return failed("not_done", "lesson04.prediction_missing")
    for impl in ("forloop", "foreach"):
        guess = prediction[impl]
        if isinstance(guess, bool) or not isinstance(guess, (int, float)) or guess != int(guess):
            return failed("not_int", "lesson04.prediction_not_int", impl=impl, got=repr(guess)[:40])
    measured, details, codes = {}, [], []
    for impl in ("forloop", "foreach"):
        one, four = (fused.optimizer_step_launches(impl, n).launches for n in (1, 4))
        measured[impl] = fused.optimizer_step_launches(impl, PREDICTION_N).launches
        guess = int(prediction[impl])
        if guess != measured[impl]:
            details.append(t("lesson04.prediction_off", impl=impl, guess=guess, measured=measured[impl], one=one,
                             per=(four - one) / 3))
            codes.append(f"wrong_{impl}")
            if impl == "foreach" and guess in (one, four) and four != one:
                details.append(t("lesson04.prediction_foreach_constant"))
                codes[-1] = "foreach_constant"
    if codes:
        return failed("+".join(codes), "lesson04.prediction_wrong", details=" ".join(details))
    return passed("lesson04.prediction_ok", n=PREDICTION_N, forloop=measured["forloop"], foreach=measured["foreach"])
