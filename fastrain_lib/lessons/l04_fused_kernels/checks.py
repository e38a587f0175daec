"""Checks for lesson 04's exercises: a foreach Adam step, launch counts and their prediction (and a
naive LayerNorm, an earlier task) here; the Triton softmax (checks_triton) and the step without
graph breaks (checks_graphs) beside, imported here so that one `checks` module serves the lesson.

Each check runs the student's function on fresh random inputs, compares with PyTorch's own
implementation, and when the answer is wrong, also with the typical wrong versions
(no bias correction, eps in the wrong place, ...) to name the mistake.
"""

from __future__ import annotations

import contextlib
import functools
import random

import torch

from fastrain_lib.fused import optimizers
from fastrain_lib.lessons.checking import (
    CheckResult,
    as_integer,
    call_student,
    check,
    describe,
    failed,
    not_done,
    passed,
    unchanged,
)

# ---------------------------------------------------------------- task 1: Adam with torch._foreach_*

ADAM_STEPS = 12
SHAPES = ((7, 5), (11,), (3, 4, 2))
# (lr, betas, eps, dtype, shapes): the defaults once, then non-default betas/eps/lr in float64 — an
# answer that hard-codes 0.9/0.999 or 1e-8 fails there; then generated ones (adam_configs)
ADAM_CONFIGS = [(1e-2, (0.9, 0.999), 1e-6, torch.float32, SHAPES), (3e-2, (0.8, 0.95), 1e-3, torch.float64, SHAPES)]
GENERATED_ADAM = 2


def adam_configs(seed: int = 4) -> list[tuple]:
    """ADAM_CONFIGS, then GENERATED_ADAM drawn by a seeded generator: lr, betas, eps, dtype and how many
    tensors of which shapes (a 1-element tensor among them), so an answer fitted to fixed cases fails."""
    rng = random.Random(seed)
    out = list(ADAM_CONFIGS)
    for _ in range(GENERATED_ADAM):
        shapes = tuple(tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(2, 5)))
        out.append((10 ** rng.uniform(-3, -1.3), (rng.uniform(0.7, 0.95), rng.uniform(0.9, 0.9999)),
                    10 ** rng.uniform(-8, -3), rng.choice([torch.float32, torch.float64]), shapes + ((1,),)))
    return out


def _adam_problem(seed: int, dtype, shapes=SHAPES):
    """Start values and a gradient for every step. Small gradients make eps matter, so an eps
    in the wrong place changes the result visibly."""
    g = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=g, dtype=dtype) for s in shapes]
    grads = [[1e-3 * torch.randn(s, generator=g, dtype=dtype) for s in shapes] for _ in range(ADAM_STEPS)]
    return params, grads


class _TorchCalls(torch.overrides.TorchFunctionMode):
    """The torch functions and Tensor methods called while active, by name, in order."""

    def __init__(self):
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


def _calls_of_one_step(adam_step, n_tensors: int) -> list[str] | None:
    """The torch calls of one answer step over `n_tensors` small float32 tensors (None if it fails)."""
    g = torch.Generator().manual_seed(n_tensors)
    params = [torch.randn(3, generator=g) for _ in range(n_tensors)]
    grads = [1e-3 * torch.randn(3, generator=g) for _ in range(n_tensors)]
    m, v = [torch.zeros(3) for _ in params], [torch.zeros(3) for _ in params]
    calls = _TorchCalls()
    with torch.no_grad(), calls, contextlib.redirect_stdout(None):
        _, problem = call_student(adam_step, params, grads, m, v, 1, 1e-2, (0.9, 0.999), 1e-8, none_ok=True)
    return None if problem is not None else calls.names


def _technique(adam_step) -> CheckResult | None:
    """The foreach technique, observed (a TorchFunctionMode records the calls): at least one
    torch._foreach_* call, and no call made once per tensor — one step over 2 tensors and one over 7
    must make the same calls (a per-tensor Python loop makes more with more tensors)."""
    few, many = _calls_of_one_step(adam_step, 2), _calls_of_one_step(adam_step, 7)
    if few is None or many is None:
        return None  # the answer fails on its own: the value checks name that
    if not any(name.startswith("_foreach_") for name in many):
        return failed("no_foreach", "lesson04.adam_no_foreach")
    if len(many) > len(few):
        grown = max(set(many), key=lambda name: many.count(name) - few.count(name))
        return failed("per_tensor_loop", "lesson04.adam_per_tensor_loop", op=grown, few=few.count(grown),
                      many=many.count(grown))
    return None


def _variant_trajectory(params, grads, lr, betas, eps, *, bias_correction=True, eps_inside=False):
    """A textbook Adam with one deliberate mistake switched on (used to name the student's)."""
    beta1, beta2 = betas
    ps = [p.clone() for p in params]
    ms = [torch.zeros_like(p) for p in params]
    vs = [torch.zeros_like(p) for p in params]
    for step, gs in enumerate(grads, start=1):
        for p, g, m, v in zip(ps, gs, ms, vs):
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            bc1 = 1 - beta1**step if bias_correction else 1.0
            bc2 = 1 - beta2**step if bias_correction else 1.0
            denom = (v / bc2 + eps).sqrt() if eps_inside else (v / bc2).sqrt() + eps
            p.sub_(lr * (m / bc1) / denom)
    return ps


def _reference(params, grads, lr, betas, eps):
    """torch.optim.Adam itself: final params, params after step 1, and its state."""
    ps = [torch.nn.Parameter(p.clone()) for p in params]
    opt = torch.optim.Adam(ps, lr=lr, betas=betas, eps=eps, foreach=False)
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
    try:
        return len(xs) == len(ys) and all(
            isinstance(x, torch.Tensor) and x.shape == y.shape and x.dtype == y.dtype
            and torch.allclose(x, y, atol=atol, rtol=rtol) for x, y in zip(xs, ys))
    except Exception:  # noqa: BLE001
        return False


# the library's own Adam is the answer itself: forbidden in the answer (torch's functional adam, which every
# torch.optim.Adam/AdamW step runs through, its foreach and for-loop bodies, and the course's fused.adamw)
ADAM_FORBIDDEN = ("torch.optim.adam.adam", "torch.optim.adam._multi_tensor_adam", "torch.optim.adam._single_tensor_adam",
                  "fastrain_lib.fused.adamw.adamw")


def _run_adam(adam_step, params0, grads, lr, betas, eps):
    """The student's step, ADAM_STEPS times, on lists this function owns; returns
    (params, exp_avgs, exp_avg_sqs, params after step 1, what it returned, failure or None)."""
    params = [p.clone() for p in params0]
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    identities = [id(t) for t in params + exp_avgs + exp_avg_sqs]  # the optimizer holds these very tensors
    first, returned = None, None
    for step, gs in enumerate(grads, start=1):
        given = [g.clone() for g in gs]
        with torch.no_grad():
            returned, problem = call_student(adam_step, params, given, exp_avgs, exp_avg_sqs, step, lr, betas, eps,
                                            none_ok=True, forbid=ADAM_FORBIDDEN)
        if problem is not None:
            return None, None, None, None, None, problem
        if not unchanged(given, gs):
            return None, None, None, None, None, failed("grads_changed", "lesson04.adam_grads_changed")
        if [id(t) for t in params + exp_avgs + exp_avg_sqs] != identities:  # new tensors put in the lists
            return None, None, None, None, None, failed("not_in_place", "checking.l04.adam_not_in_place")
        if first is None:
            first = [p.clone() for p in params]
    return params, exp_avgs, exp_avg_sqs, first, returned, None


def _judge_adam(adam_step, config, seed, reverse: bool = False) -> CheckResult | None:
    lr, betas, eps, dtype, shapes = config
    params0, grads = _adam_problem(seed, dtype, shapes)
    if reverse:  # the same input in another context: the tensors in the opposite order, fresh lists
        params0, grads = params0[::-1], [gs[::-1] for gs in grads]
    ref_params, ref_first, ref_m, ref_v = _reference(params0, grads, lr, betas, eps)
    params, exp_avgs, exp_avg_sqs, first, returned, problem = _run_adam(adam_step, params0, grads, lr, betas, eps)
    if problem is not None:
        return problem
    state_ok = _close(exp_avgs, ref_m) and _close(exp_avg_sqs, ref_v, atol=1e-9)
    if unchanged(params, params0):  # the caller's tensors never moved
        return not_done() if returned is None else failed("not_in_place", "checking.l04.adam_not_in_place")
    if _close(params, ref_params):
        return None if state_ok else failed("state_wrong", "lesson04.adam_state_wrong")
    if any(p.dtype != dtype for p in params):
        return failed("dtype_changed", "checking.l04.adam_dtype")
    if _close(params, _variant_trajectory(params0, grads, lr, betas, eps, bias_correction=False)):
        return failed("no_bias_correction", "lesson04.adam_no_bias_correction")
    if _close(params, _variant_trajectory(params0, grads, lr, betas, eps, eps_inside=True)):
        return failed("eps_inside_sqrt", "lesson04.adam_eps_inside")
    if betas != (0.9, 0.999) and _close(params, _reference(params0, grads, lr, (0.9, 0.999), eps)[0]):
        return failed("fixed_betas", "checking.l04.adam_fixed_betas", betas=betas)
    if eps != 1e-8 and _close(params, _reference(params0, grads, lr, betas, 1e-8)[0]):
        return failed("fixed_eps", "checking.l04.adam_fixed_eps", eps=eps)
    if not state_ok:
        return failed("state_wrong", "lesson04.adam_state_wrong")
    if not _close(first, ref_first):
        return failed("first_step_wrong", "lesson04.adam_first_step", diff=_max_diff(first, ref_first))
    return failed("params_wrong", "lesson04.adam_params_wrong", diff=_max_diff(params, ref_params))


@check
def check_foreach_adam(adam_step) -> CheckResult:
    """adam_step(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps) must update params,
    exp_avgs and exp_avg_sqs in place like torch.optim.Adam, with step counting from 1, for
    default, non-default and seeded generated lr/betas/eps/dtypes/shapes (a 1-element tensor among them), then
    the first input again in the opposite tensor order; without torch's own Adam (ADAM_FORBIDDEN); leave the grads alone —
    and do it with torch._foreach_* calls, not one call per tensor (observed with a TorchFunctionMode)."""
    for seed, config in enumerate(adam_configs()):
        problem = _judge_adam(adam_step, config, seed)
        if problem is not None:
            return problem
    problem = _judge_adam(adam_step, ADAM_CONFIGS[0], 0, reverse=True)  # an answer cached by its input fails
    if problem is not None:
        return problem
    problem = _technique(adam_step)  # a failed CheckResult is falsy: no `or` here
    return passed() if problem is None else problem


# ---------------------------------------------------------------- task 2: predict, then measure launches

# both implementations, a tensor count that is no power of two (an answer ignoring n fails), then
# seeded generated counts in a shuffled order (launch_cases)
LAUNCH_CASES = (("forloop", 5), ("foreach", 5), ("forloop", 16), ("foreach", 16))
GENERATED_LAUNCH = 2


def launch_cases(seed: int = 7) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    generated = [(rng.choice(["forloop", "foreach"]), rng.choice([1, 3, 6, 7, 11, 13])) for _ in range(GENERATED_LAUNCH)]
    cases = list(LAUNCH_CASES) + generated + [("foreach", 1)]
    rng.shuffle(cases)
    return cases + cases[:1]  # the first case again, after the others: an answer cached by its input fails


@functools.cache
def _expected_launches(impl: str, n: int, warmup: int = 1) -> int:
    return optimizers.optimizer_step_launches(impl, n, warmup=warmup).launches


def _as_count(value) -> int | None:
    """An exact whole number, or None — accepted alike by both launch checks: int, NumPy integers and
    floats, fractions.Fraction, Decimal, a one-element tensor, when its value is whole (241.0 is 241)."""
    return as_integer(value, integral_floats=True)


@contextlib.contextmanager
def _observed_steps():
    """The sizes (parameter tensors) of the optimizer steps run while active (torch.optim's global
    step hook): the answer must measure a real step, not return a formula's number."""
    sizes: list[int] = []
    from torch.optim.optimizer import register_optimizer_step_post_hook

    hook = register_optimizer_step_post_hook(
        lambda opt, args, kwargs: sizes.append(sum(len(g["params"]) for g in opt.param_groups)))
    try:
        yield sizes
    finally:
        hook.remove()


@check
def check_launch_counts(measure_launches) -> CheckResult:
    """measure_launches(impl, n_tensors) must return the launches of one (warmed-up) Adam step, by
    measuring: the check observes (torch.optim's step hook) that the answer ran at least a warm-up
    and a measured step of an optimizer over n tensors, and (checking.forbid) that it did not call the
    library's own optimizers.optimizer_step_launches. Cases: fixed and seeded generated (impl, n), shuffled."""
    results = {}
    for impl, n in launch_cases():
        expected = _expected_launches(impl, n)  # measured before the answer's window
        with _observed_steps() as steps:  # the library's one-line answer is forbidden (seen through any alias)
            got, problem = call_student(measure_launches, impl, n, forbid=[optimizers.optimizer_step_launches])
        if problem is not None:
            return problem
        count = _as_count(got)
        if count is None:
            return failed("not_int", "lesson04.launch_not_int", got=describe(got))
        if count != expected:
            if count == _expected_launches(impl, n, 0):
                return failed("no_warmup", "lesson04.launch_no_warmup")
            for other_n in (4, 5, 8, 16):
                if other_n != n and count == _expected_launches(impl, other_n):
                    return failed("ignored_n", "checking.l04.launch_ignored_n", n=n, other=other_n)
            other_impl = "foreach" if impl == "forloop" else "forloop"
            if count == _expected_launches(other_impl, n):
                return failed("ignored_impl", "checking.l04.launch_ignored_impl", impl=impl)
            return failed("wrong_count", "lesson04.launch_wrong", impl=impl, n=n, expected=expected, got=count)
        if n not in steps:  # the right number, but no step over n tensors ran: not measured
            return failed("not_measured", "lesson04.launch_not_measured", n=n)
        results[(impl, n)] = count
    return passed("lesson04.launch_ok", forloop=results[("forloop", 16)], foreach=results[("foreach", 16)])


# ---------------------------------------------------------------- task 2, the prediction (Lessons 03–04 helper)

PREDICTION_N = 16  # the exercise asks for a guess at 16 parameter tensors


@check
def check_launch_prediction(prediction) -> CheckResult:
    """prediction = {"forloop": int, "foreach": int}: the student's guess for one warmed-up Adam step
    over PREDICTION_N tensors. It is compared with the count measured now, on the CPU, exactly as
    the exercise's measure_launches counts (so the expected numbers are never hard-coded: they
    follow this torch version). A wrong guess gets the measured rule — calls with 1 tensor and
    per extra tensor — rather than a bare number."""
    from fastrain_lib.core.i18n import t

    if not isinstance(prediction, dict) or any(prediction.get(k) is None for k in ("forloop", "foreach")):
        return failed("not_done", "lesson04.prediction_missing")
    guesses = {}
    for impl in ("forloop", "foreach"):  # whole numbers of any type, as check_launch_counts takes them
        guesses[impl] = _as_count(prediction[impl])
        if guesses[impl] is None:
            return failed("not_int", "lesson04.prediction_not_int", impl=impl, got=describe(prediction[impl]))
    measured, details, codes = {}, [], []
    for impl in ("forloop", "foreach"):
        one, four = (_expected_launches(impl, n) for n in (1, 4))  # measured once per session
        measured[impl] = _expected_launches(impl, PREDICTION_N)
        guess = guesses[impl]
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


# ---------------------------------------------------------------- tasks 3 and 4, checked in their own modules

from fastrain_lib.lessons.l04_fused_kernels.checks_graphs import (  # noqa: F401, I001 - the exercise calls them
    check_graph_breaks, graph_breaks, slow_step, step_problem)
from fastrain_lib.lessons.l04_fused_kernels.checks_layernorm import check_layer_norm  # noqa: F401
from fastrain_lib.lessons.l04_fused_kernels.checks_triton import check_triton_softmax, without_triton  # noqa: F401
