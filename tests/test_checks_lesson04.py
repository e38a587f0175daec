"""Lesson 04's checks accept the reference solutions and name typical mistakes."""

import math

import torch
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib import fused
from fastrain_lib.checks import lesson04 as C

# ---------------------------------------------------------------- task 1: foreach Adam

def adam_solution(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    beta1, beta2 = betas
    torch._foreach_mul_(exp_avgs, beta1)
    torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    bc1, bc2 = 1 - beta1**step, 1 - beta2**step
    denom = torch._foreach_sqrt(exp_avg_sqs)
    torch._foreach_div_(denom, math.sqrt(bc2))
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr / bc1)
    return params


def adam_no_bias_correction(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    beta1, beta2 = betas
    torch._foreach_mul_(exp_avgs, beta1)
    torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    denom = torch._foreach_add(torch._foreach_sqrt(exp_avg_sqs), eps)
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr)
    return params


def adam_eps_inside(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    beta1, beta2 = betas
    torch._foreach_mul_(exp_avgs, beta1)
    torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    bc1, bc2 = 1 - beta1**step, 1 - beta2**step
    v_hat = torch._foreach_div(exp_avg_sqs, bc2)
    denom = torch._foreach_sqrt(torch._foreach_add(v_hat, eps))
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr / bc1)
    return params


def adam_aliasing(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    beta1, beta2 = betas
    torch._foreach_mul_(exp_avgs, beta1)
    torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    bc1, bc2 = 1 - beta1**step, 1 - beta2**step
    denom = exp_avg_sqs  # the bug: no copy, the sqrt below overwrites v itself
    torch._foreach_sqrt_(denom)
    torch._foreach_div_(denom, math.sqrt(bc2))
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr / bc1)
    return params


def adam_scales_grads_in_place(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    beta1, beta2 = betas
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    torch._foreach_mul_(grads, 1 - beta1)  # the bug: changes the caller's gradients
    torch._foreach_mul_(exp_avgs, beta1)
    torch._foreach_add_(exp_avgs, grads)
    bc1, bc2 = 1 - beta1**step, 1 - beta2**step
    denom = torch._foreach_add(torch._foreach_div(torch._foreach_sqrt(exp_avg_sqs), math.sqrt(bc2)), eps)
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr / bc1)
    return params


# ---------------------------------------------------------------- task 2: launch counts

def measure_solution(impl, n_tensors):
    params = [torch.nn.Parameter(torch.randn(100)) for _ in range(n_tensors)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = fused.make_optimizer(params, impl)
    opt.step()  # warm-up: the first step creates m and v
    return fused.count_launches(opt.step, warmup=0).launches


def measure_without_warmup(impl, n_tensors):
    params = [torch.nn.Parameter(torch.randn(100)) for _ in range(n_tensors)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = fused.make_optimizer(params, impl)
    return fused.count_launches(opt.step, warmup=0).launches


# ---------------------------------------------------------------- task 3: LayerNorm

def ln_solution(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def F_layer_norm_plain(x, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=eps)


def adam_fixed_betas(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    return adam_solution(params, grads, exp_avgs, exp_avg_sqs, step, lr, (0.9, 0.999), eps)


def adam_fixed_eps(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    return adam_solution(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, 1e-8)


def adam_new_lists(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """Returns updated copies; the caller's params never change."""
    ps = [p.clone() for p in params]
    return adam_solution(ps, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps)


def adam_float32(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    adam_solution(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps)
    for p in params:
        p.data = p.data.float()  # "just to be safe"
    return params


def adam_for_loop(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """Valid: the same update written as a plain for-loop over the tensors."""
    beta1, beta2 = betas
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (v / (1 - beta2**step)).sqrt().add_(eps)
        p.addcdiv_(m, denom, value=-lr / (1 - beta1**step))


def measure_library(impl, n_tensors):
    """Valid: the library's own helper."""
    return fused.optimizer_step_launches(impl, n_tensors).launches


def measure_fixed_16(impl, n_tensors):
    return measure_solution(impl, 16)


def measure_ignores_impl(impl, n_tensors):
    return measure_solution("forloop", n_tensors)


def measure_record(impl, n_tensors):
    params = [torch.nn.Parameter(torch.randn(100)) for _ in range(n_tensors)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = fused.make_optimizer(params, impl)
    return fused.count_launches(opt.step)  # the LaunchCount object, not its number


def ln_var_mean(x, weight, bias, eps):
    """Valid: torch.var_mean and rsqrt."""
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return (x - mean) * torch.rsqrt(var + eps) * weight + bias


def ln_in_place(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    x -= mean  # changes the caller's x
    var = (x**2).mean(-1, keepdim=True)
    return x / torch.sqrt(var + eps) * weight + bias


def ln_fixed_eps(x, weight, bias, eps):
    return ln_solution(x, weight, bias, 1e-5)


def ln_float32(x, weight, bias, eps):
    return ln_solution(x.float(), weight.float(), bias.float(), eps)


def ln_all_dims(x, weight, bias, eps):
    return (x - x.mean()) / torch.sqrt(x.var(unbiased=False) + eps) * weight + bias


CASES = [
    right(C.check_foreach_adam, adam_solution, "solution"),
    right(C.check_foreach_adam, fused.adam_step_reference, "library reference"),
    right(C.check_foreach_adam, adam_for_loop, "for-loop"),
    wrong(C.check_foreach_adam, adam_no_bias_correction, "no_bias_correction", "no bias correction"),
    wrong(C.check_foreach_adam, adam_eps_inside, "eps_inside_sqrt", "eps inside sqrt"),
    wrong(C.check_foreach_adam, adam_aliasing, "state_wrong", "sqrt overwrites v"),
    wrong(C.check_foreach_adam, adam_scales_grads_in_place, "grads_changed", "scales grads"),
    wrong(C.check_foreach_adam, adam_fixed_betas, "fixed_betas", "betas ignored"),
    wrong(C.check_foreach_adam, adam_fixed_eps, "fixed_eps", "eps ignored"),
    wrong(C.check_foreach_adam, adam_new_lists, "not_in_place", "new lists"),
    wrong(C.check_foreach_adam, adam_float32, "dtype_changed", "float32"),
    wrong(C.check_foreach_adam, lambda *a: None, "not_done", "stub"),
    wrong(C.check_foreach_adam, lambda *a: 1 / 0, "crashed", "raises"),
    right(C.check_launch_counts, measure_solution, "solution"),
    right(C.check_launch_counts, measure_library, "library"),
    wrong(C.check_launch_counts, measure_without_warmup, "no_warmup", "no warm-up"),
    wrong(C.check_launch_counts, measure_fixed_16, "ignored_n", "16 tensors always"),
    wrong(C.check_launch_counts, measure_ignores_impl, "ignored_impl", "forloop always"),
    wrong(C.check_launch_counts, measure_record, "not_int", "LaunchCount object"),
    wrong(C.check_launch_counts, lambda impl, n: 7, "wrong_count", "a guess"),
    wrong(C.check_launch_counts, lambda impl, n: "many", "not_int", "text"),
    wrong(C.check_launch_counts, lambda impl, n: None, "not_done", "stub"),
    right(C.check_layer_norm, ln_solution, "solution"),
    right(C.check_layer_norm, ln_var_mean, "var_mean + rsqrt"),
    right(C.check_layer_norm, lambda x, w, b, eps: torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, eps), "F"),
    wrong(C.check_layer_norm, lambda x, w, b, eps: (x - x.mean(-1, keepdim=True)) / torch.sqrt(
        x.var(-1, keepdim=True) + eps) * w + b, "unbiased_var", "unbiased var"),
    wrong(C.check_layer_norm, lambda x, w, b, eps: (x - x.mean(-1, keepdim=True)) / (
        x.var(-1, keepdim=True, unbiased=False).sqrt() + eps) * w + b, "eps_outside_sqrt", "eps outside"),
    wrong(C.check_layer_norm, lambda x, w, b, eps: F_layer_norm_plain(x, eps), "no_affine", "no affine"),
    wrong(C.check_layer_norm, lambda x, w, b, eps: (x - x.mean(-1)[..., None]).mean(-1), "wrong_shape", "no keepdim"),
    wrong(C.check_layer_norm, ln_in_place, "mutated_input", "x -= mean"),
    wrong(C.check_layer_norm, ln_fixed_eps, "fixed_eps", "eps 1e-5"),
    wrong(C.check_layer_norm, ln_float32, "dtype_changed", "float32"),
    wrong(C.check_layer_norm, ln_all_dims, "wrong_values", "all dims"),
    wrong(C.check_layer_norm, lambda x, w, b, eps: x.numpy(), "not_tensor", "numpy"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_foreach_adam, C.check_launch_counts, C.check_layer_norm])
