"""Lesson 04's checks accept the reference solutions and name typical mistakes."""

import math

import torch

from fastrain_lib import fused
from fastrain_lib.checks import lesson04

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


def test_adam_solution_passes():
    result = lesson04.check_foreach_adam(adam_solution)
    assert result.ok, result.message


def test_adam_library_reference_passes():
    assert lesson04.check_foreach_adam(fused.adam_step_reference).ok


def test_adam_typical_mistakes_are_named():
    assert lesson04.check_foreach_adam(adam_no_bias_correction).code == "no_bias_correction"
    assert lesson04.check_foreach_adam(adam_eps_inside).code == "eps_inside_sqrt"
    assert lesson04.check_foreach_adam(adam_aliasing).code == "state_wrong"
    assert lesson04.check_foreach_adam(adam_scales_grads_in_place).code == "grads_changed"


def test_adam_unfinished_and_crashing():
    assert lesson04.check_foreach_adam(lambda *a: None).code == "not_done"
    assert lesson04.check_foreach_adam(lambda *a: 1 / 0).code == "crashed"


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


def test_launch_solution_passes():
    result = lesson04.check_launch_counts(measure_solution)
    assert result.ok, result.message


def test_launch_mistakes():
    assert lesson04.check_launch_counts(measure_without_warmup).code == "no_warmup"
    assert lesson04.check_launch_counts(lambda impl, n: 7).code == "wrong_count"
    assert lesson04.check_launch_counts(lambda impl, n: "many").code == "not_int"
    assert lesson04.check_launch_counts(lambda impl, n: None).code == "not_done"


# ---------------------------------------------------------------- task 3: LayerNorm

def ln_solution(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def test_layer_norm_solution_passes():
    assert lesson04.check_layer_norm(ln_solution).ok


def test_layer_norm_mistakes():
    def unbiased(x, w, b, eps):
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + eps) * w + b

    def eps_outside(x, w, b, eps):
        m = x.mean(-1, keepdim=True)
        return (x - m) / (((x - m) ** 2).mean(-1, keepdim=True).sqrt() + eps) * w + b

    def no_affine(x, w, b, eps):
        return F_layer_norm_plain(x, eps)

    def no_keepdim(x, w, b, eps):
        return (x - x.mean(-1)[..., None]).mean(-1)

    assert lesson04.check_layer_norm(unbiased).code == "unbiased_var"
    assert lesson04.check_layer_norm(eps_outside).code == "eps_outside_sqrt"
    assert lesson04.check_layer_norm(no_affine).code == "no_affine"
    assert lesson04.check_layer_norm(no_keepdim).code == "wrong_shape"
    assert lesson04.check_layer_norm(lambda x, w, b, eps: x).code == "wrong_values"


def F_layer_norm_plain(x, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=eps)
