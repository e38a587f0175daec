"""Lesson 04's checks accept the reference solutions and name typical mistakes."""

import math

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.fused import (
    optimizers,
    triton_kernels,  # noqa: F401 - sets TRITON_INTERPRET=1 without a GPU, before the kernels below
)
from fastrain_lib.lessons.l04_fused_kernels import checks as C
from fastrain_lib.lessons.l04_fused_kernels import checks_graphs
from fastrain_lib.measure import launches

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
    opt = optimizers.make_optimizer(params, impl)
    opt.step()  # warm-up: the first step creates m and v
    return launches.count_launches(opt.step, warmup=0).launches


def measure_without_warmup(impl, n_tensors):
    params = [torch.nn.Parameter(torch.randn(100)) for _ in range(n_tensors)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = optimizers.make_optimizer(params, impl)
    return launches.count_launches(opt.step, warmup=0).launches


# ---------------------------------------------------------------- task 3: LayerNorm

def ln_solution(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def F_layer_norm_plain(x, eps):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + eps)


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
    return optimizers.optimizer_step_launches(impl, n_tensors).launches


def measure_fixed_16(impl, n_tensors):
    return measure_solution(impl, 16)


def measure_ignores_impl(impl, n_tensors):
    return measure_solution("forloop", n_tensors)


def measure_record(impl, n_tensors):
    params = [torch.nn.Parameter(torch.randn(100)) for _ in range(n_tensors)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = optimizers.make_optimizer(params, impl)
    return launches.count_launches(opt.step)  # the LaunchCount object, not its number


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


def adam_lerp(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """Valid: another foreach form — lerp for m, a list of scalars for the division."""
    beta1, beta2 = betas
    torch._foreach_lerp_(exp_avgs, grads, 1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    denom = torch._foreach_div(torch._foreach_sqrt(exp_avg_sqs), [math.sqrt(1 - beta2**step)] * len(params))
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr / (1 - beta1**step))


def adam_hybrid(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """foreach for the moments, then a per-tensor loop for the update: still one call per tensor."""
    beta1, beta2 = betas
    torch._foreach_mul_(exp_avgs, beta1)
    torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
    for p, m, v in zip(params, exp_avgs, exp_avg_sqs):
        p.addcdiv_(m, (v / (1 - beta2**step)).sqrt() + eps, value=-lr / (1 - beta1**step))
    return params


def adam_library(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """The course's own AdamW (the library answer), fed the lists: forbidden."""
    from fastrain_lib.fused.adamw import adamw

    ps = [torch.nn.Parameter(p) for p in params]
    for p, g in zip(ps, grads):
        p.grad = g
    adamw(ps, "foreach", lr=lr).step()
    return params


def adam_torch_adam(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """The right numbers without torch._foreach_*: torch.optim's functional for-loop Adam."""
    from torch.optim.adam import adam as functional_adam

    steps = [torch.tensor(float(step - 1)) for _ in params]
    functional_adam(params, grads, exp_avgs, exp_avg_sqs, [], steps, foreach=False, amsgrad=False, beta1=betas[0],
                    beta2=betas[1], lr=lr, weight_decay=0.0, eps=eps, maximize=False)
    return params


def adam_replaces_tensors(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """Puts new tensors into the caller's lists: the optimizer's own tensors never change."""
    new = [p.clone() for p in params]
    adam_solution(new, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps)
    params[:] = new
    return params


def adam_fitted(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps):
    """Right only for the two fixed configurations: ignores eps unless it is one of theirs."""
    return adam_solution(params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps if eps in (1e-6, 1e-3) else 1e-8)


def measure_numpy(impl, n_tensors):
    """Valid: the same measurement, returned as a NumPy integer."""
    import numpy as np

    return np.int64(measure_solution(impl, n_tensors))


def measure_float(impl, n_tensors):
    """Valid: a whole number written as a float."""
    return float(measure_solution(impl, n_tensors))


def measure_formula(impl, n_tensors):
    """The right numbers from a formula fitted to this torch version: no optimizer step is measured."""
    one = optimizers.optimizer_step_launches(impl, 1).launches
    four = optimizers.optimizer_step_launches(impl, 4).launches
    return 0 + one + (n_tensors - 1) * (four - one) // 3


FORMULA = {impl: (optimizers.optimizer_step_launches(impl, 1).launches, optimizers.optimizer_step_launches(impl, 4).launches)
           for impl in ("forloop", "foreach")}


def measure_fitted(impl, n_tensors):
    """Measures only the fixed cases (5 and 16 tensors); any other count gets a guess."""
    return measure_solution(impl, n_tensors) if n_tensors in (5, 16) else 100


def measure_from_formula_only(impl, n_tensors):
    one, four = FORMULA[impl]
    return one + (n_tensors - 1) * (four - one) // 3


CASES = [
    right(C.check_foreach_adam, adam_solution, "solution"),
    wrong(C.check_foreach_adam, adam_library, "forbidden_call", "the course's own fused.adamw"),
    right(C.check_foreach_adam, adam_lerp, "lerp and a list of scalars"),
    wrong(C.check_foreach_adam, adam_for_loop, "no_foreach", "a plain for-loop (right numbers, no foreach)"),
    wrong(C.check_foreach_adam, adam_torch_adam, "forbidden_call", "torch's own functional Adam: the library answer"),
    wrong(C.check_foreach_adam, adam_hybrid, "per_tensor_loop", "foreach moments, per-tensor update"),
    wrong(C.check_foreach_adam, adam_replaces_tensors, "not_in_place", "new tensors in the lists"),
    wrong(C.check_foreach_adam, adam_fitted, "fixed_eps", "eps fitted to the fixed cases"),
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
    wrong(C.check_launch_counts, measure_library, "forbidden_call", "the library's one-liner"),
    right(C.check_launch_counts, measure_numpy, "NumPy integer"),
    right(C.check_launch_counts, measure_float, "whole float"),
    wrong(C.check_launch_counts, measure_from_formula_only, "not_measured", "a formula, nothing measured"),
    wrong(C.check_launch_counts, measure_fitted, "wrong_count", "fitted to 5 and 16 tensors"),
    wrong(C.check_launch_counts, measure_without_warmup, "no_warmup", "no warm-up"),
    wrong(C.check_launch_counts, measure_fixed_16, "ignored_n", "16 tensors always"),
    wrong(C.check_launch_counts, measure_ignores_impl, "ignored_impl", "forloop always"),
    wrong(C.check_launch_counts, measure_record, "not_int", "LaunchCount object"),
    wrong(C.check_launch_counts, lambda impl, n: 7, "wrong_count", "a guess"),
    wrong(C.check_launch_counts, lambda impl, n: "many", "not_int", "text"),
    wrong(C.check_launch_counts, lambda impl, n: None, "not_done", "stub"),
    right(C.check_layer_norm, ln_solution, "solution"),
    right(C.check_layer_norm, ln_var_mean, "var_mean + rsqrt"),
    wrong(C.check_layer_norm, lambda x, w, b, eps: torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, eps),
          "forbidden_call", "F.layer_norm: the library answer"),
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


# ---------------------------------------------------------------- task 3: a row-wise softmax in Triton
# Kernels at module level (on a GPU Triton compiles them from their source), decorated with plain
# triton.jit: importing fused.triton_kernels (above) set TRITON_INTERPRET=1 when there is no GPU, as the
# exercise's cell does, so they run in the interpreter here.


@triton.jit
def _sm_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * y_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def _sm_kernel_no_max(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x)
    tl.store(y_ptr + row * y_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def _sm_kernel_zero_pad(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * y_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def _sm_kernel_no_sum(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    tl.store(y_ptr + row * y_stride + cols, tl.exp(x - tl.max(x, axis=0)), mask=mask)


@triton.jit
def _sm_kernel_looped(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # valid: rows longer than one block, in three passes (max, sum, write)
    row = tl.program_id(axis=0)
    biggest = tl.full((BLOCK,), -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        biggest = tl.maximum(biggest, tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols,
                                              other=-float("inf")))
    top = tl.max(biggest, axis=0)
    total = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols, other=-float("inf"))
        total += tl.exp(x - top)
    norm = tl.sum(total, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * y_stride + cols, tl.exp(x - top) / norm, mask=cols < n_cols)


@triton.jit
def _sm_kernel_global_max(x_ptr, y_ptr, n_cols, x_stride, y_stride, max_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.load(max_ptr))  # the whole tensor's maximum, not this row's
    tl.store(y_ptr + row * y_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def _launch(kernel, x, *, x_stride=None, block=None, out=None):
    y = torch.empty_like(x) if out is None else out
    n_rows, n_cols = x.shape
    kernel[(n_rows,)](x, y, n_cols, x.stride(0) if x_stride is None else x_stride, y.stride(0),
                      BLOCK=block or triton.next_power_of_2(n_cols))
    return y


def _rows_contiguous(x):
    return x if x.stride(-1) == 1 else x.contiguous()  # a transposed x: a row's entries are not side by side


def sm_solution(x):
    return _launch(_sm_kernel, _rows_contiguous(x))


def sm_transposed_ignored(x):
    """Right on every row-contiguous x, wrong on a transposed one (its columns are not 1 apart)."""
    return _launch(_sm_kernel, x)


def sm_transposed_ignored_nan_left(x):
    """The same mistake where the entries the kernel never writes hold nan, as memory from empty_like
    sometimes does (CI saw it: the check blamed the padding instead of the layout)."""
    return _launch(_sm_kernel, x, out=torch.full_like(x, float("nan")))


_BUFFERS = {}


def sm_reused_buffer(x):
    """Valid: one output buffer per shape, dtype and layout, reused on every call. On the repeated input the
    kernel writes exactly the values the buffer already holds (issue 39: the check read that as 'not
    written by the kernel'; CI saw the same with reused memory)."""
    x = _rows_contiguous(x)
    key = (tuple(x.shape), x.dtype, x.stride(), x.device.type)
    out = _BUFFERS.setdefault(key, torch.empty_like(x))
    return _launch(_sm_kernel, x, out=out)


def _numpy_softmax(x):
    import numpy as np

    a = x.detach().cpu().double().numpy()
    e = np.exp(a - a.max(-1, keepdims=True))
    return torch.from_numpy(e / e.sum(-1, keepdims=True)).to(x.dtype)


def sm_dummy_launch(x):
    """Issue 39: a kernel launched on a dummy tensor; the softmax returned is NumPy's."""
    _launch(_sm_kernel, torch.randn(2, 8))
    return _numpy_softmax(x)


def sm_overwritten(x):
    """The kernel's output, then overwritten by NumPy's values: not what the kernel wrote."""
    y = sm_solution(x)
    y.copy_(_numpy_softmax(x))
    return y


def sm_upcast(x):
    """Valid and unusual: the kernel runs in float32, the result is cast back to x's dtype."""
    return sm_solution(x.float()).to(x.dtype)


_SM_CACHE = {}


def sm_cached(x):
    """Remembers its answer by the input's shape: the input repeated as a fresh copy gets no launch."""
    key = tuple(x.shape)
    if key not in _SM_CACHE:
        _SM_CACHE[key] = sm_solution(x)
    return _SM_CACHE[key]


def sm_global_max(x):
    """Subtracts one maximum of the whole tensor (computed in torch, a max is no softmax) in the kernel."""
    y = torch.empty_like(x)
    top = x.max().reshape(1).contiguous()
    _sm_kernel_global_max[(x.shape[0],)](x, y, x.shape[1], x.stride(0), y.stride(0), top,
                                         BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


def sm_numpy(x):
    """A NumPy softmax: right numbers, no kernel."""
    import numpy as np

    a = x.cpu().numpy()
    e = np.exp(a - a.max(-1, keepdims=True))
    return torch.from_numpy(e / e.sum(-1, keepdims=True)).to(x.device)


def sm_fitted(x):
    """Right only for shapes seen in the fixed cases (rows of 13, 64, 24, 27, 200 columns)."""
    y = _launch(_sm_kernel, x)
    return y if x.shape[1] in (13, 64, 24, 27, 200) else y * 0.5


def sm_contiguous_first(x):
    """Valid: make x contiguous, then rows are n_cols apart."""
    x = x.contiguous()
    return _launch(_sm_kernel, x, x_stride=x.shape[1])


def sm_looped(x):
    return _launch(_sm_kernel_looped, _rows_contiguous(x), block=16)


def sm_row_stride_ignored(x):
    return _launch(_sm_kernel, x, x_stride=x.shape[1])


def sm_whole_tensor(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    _sm_kernel[(1,)](x, y, x.numel(), 0, 0, BLOCK=triton.next_power_of_2(x.numel()))
    return y


def sm_in_place(x):
    _launch(_sm_kernel, x, out=x)  # writes the result over the caller's x
    return x.clone()


TRITON_CASES = [
    right(C.check_triton_softmax, sm_solution, "solution"),
    right(C.check_triton_softmax, sm_contiguous_first, "contiguous first"),
    right(C.check_triton_softmax, sm_looped, "three passes over blocks"),
    wrong(C.check_triton_softmax, sm_numpy, "no_kernel", "NumPy softmax"),
    wrong(C.check_triton_softmax, sm_global_max, "global_max", "one max for the tensor"),
    wrong(C.check_triton_softmax, sm_fitted, "not_from_kernel", "fitted to the fixed shapes (y * 0.5 after the kernel)"),
    wrong(C.check_triton_softmax, lambda x: _launch(_sm_kernel_no_max, x), "no_max", "no max subtracted"),
    wrong(C.check_triton_softmax, lambda x: _launch(_sm_kernel_zero_pad, x), "zero_padding", "padding 0"),
    wrong(C.check_triton_softmax, lambda x: _launch(_sm_kernel_no_sum, x), "no_normalise", "no division"),
    wrong(C.check_triton_softmax, sm_row_stride_ignored, "row_stride", "n_cols as the row stride"),
    wrong(C.check_triton_softmax, sm_whole_tensor, "whole_tensor", "one program for everything"),
    wrong(C.check_triton_softmax, lambda x: torch.softmax(x, -1), "not_triton", "torch.softmax"),
    wrong(C.check_triton_softmax, lambda x: x.exp() / x.exp().sum(-1, keepdim=True), "not_triton", "torch exp"),
    wrong(C.check_triton_softmax, sm_in_place, "mutated_input", "stores into x"),
    wrong(C.check_triton_softmax, lambda x: _launch(_sm_kernel, x)[:, :1].clone(), "wrong_shape", "one column"),
    wrong(C.check_triton_softmax, lambda x: [_launch(_sm_kernel, x)], "not_tensor", "a list"),
    wrong(C.check_triton_softmax, lambda x: [1.0], "no_kernel", "a list, no kernel"),
    wrong(C.check_triton_softmax, lambda x: None, "not_done", "stub"),
    wrong(C.check_triton_softmax, sm_dummy_launch, "not_from_kernel", "a kernel on a dummy tensor, NumPy's values"),
    wrong(C.check_triton_softmax, sm_overwritten, "not_from_kernel", "kernel output overwritten afterwards"),
    wrong(C.check_triton_softmax, sm_transposed_ignored, "column_stride", "a transposed x read as row-contiguous"),
    wrong(C.check_triton_softmax, sm_transposed_ignored_nan_left, "column_stride",
          "a transposed x read as row-contiguous, unwritten entries nan"),
    wrong(C.check_triton_softmax, sm_cached, "no_kernel", "cached by the input's shape"),
    right(C.check_triton_softmax, sm_upcast, "float32 kernel, cast back"),
    right(C.check_triton_softmax, sm_reused_buffer, "one output buffer reused: the repeat writes the same values"),
]


# ---------------------------------------------------------------- task 4: a step without graph breaks


def gb_max_not_abs(model, x, y):
    """Issue 39: h.max() instead of h.abs().max(): wrong only when the activations are large and negative."""
    h = model.embed(x)
    peak = h.max()
    h = torch.where(peak > 3, h / peak * 3, h)
    return F.cross_entropy(model.head(torch.relu(h)), y)


def gb_float64_loss(model, x, y):
    """Valid and unusual: the loss in float64 (issue 39: the check fell into 'Double did not match Float')."""
    return gb_solution(model, x, y).double()


def gb_solution(model, x, y):
    h = model.embed(x)
    peak = h.abs().max()
    h = torch.where(peak > 3, h / peak * 3, h)
    return F.cross_entropy(model.head(torch.relu(h)), y)


def gb_clamp_factor(model, x, y):
    """Valid: one factor, at most 1 — the same maths without a branch."""
    h = model.embed(x)
    h = h * torch.clamp(3 / h.abs().max(), max=1.0)
    return F.cross_entropy(model.head(torch.relu(h)), y)


def gb_still_prints(model, x, y):
    loss = gb_solution(model, x, y)
    print(f"loss {loss.item():.3f}")
    return loss


def gb_branch_removed(model, x, y):
    return F.cross_entropy(model.head(torch.relu(model.embed(x))), y)


def gb_always_scaled(model, x, y):
    h = model.embed(x)
    return F.cross_entropy(model.head(torch.relu(h / h.abs().max() * 3)), y)


def gb_clamped(model, x, y):
    return F.cross_entropy(model.head(torch.relu(model.embed(x).clamp(-3, 3))), y)


def gb_detached_peak(model, x, y):
    h = model.embed(x)
    peak = h.abs().max().detach()
    h = torch.where(peak > 3, h / peak * 3, h)
    return F.cross_entropy(model.head(torch.relu(h)), y)


def gb_no_grad(model, x, y):
    with torch.no_grad():
        return gb_solution(model, x, y)


def gb_item_condition(model, x, y):
    h = model.embed(x)
    peak = h.abs().max()
    if peak.item() > 3:  # still a Python branch on a tensor's value
        h = h / peak * 3
    return F.cross_entropy(model.head(torch.relu(h)), y)


def gb_scales_input(model, x, y):
    x.mul_(0.5)  # changes the caller's batch
    return gb_solution(model, x * 2, y)


GRAPH_CASES = [
    right(C.check_graph_breaks, gb_solution, "torch.where"),
    right(C.check_graph_breaks, gb_float64_loss, "a float64 loss"),
    wrong(C.check_graph_breaks, gb_max_not_abs, "max_not_abs", "h.max() for h.abs().max()"),
    right(C.check_graph_breaks, gb_clamp_factor, "clamped factor"),
    wrong(C.check_graph_breaks, C.slow_step, "graph_breaks", "the given step"),
    wrong(C.check_graph_breaks, gb_still_prints, "graph_breaks", "prints loss.item()"),
    wrong(C.check_graph_breaks, gb_item_condition, "graph_breaks", "if on .item()"),
    wrong(C.check_graph_breaks, gb_branch_removed, "branch_removed", "if deleted"),
    wrong(C.check_graph_breaks, gb_always_scaled, "always_scaled", "always divides"),
    wrong(C.check_graph_breaks, gb_clamped, "clamped", "clamp(-3, 3)"),
    wrong(C.check_graph_breaks, gb_detached_peak, "grads_wrong", "peak detached"),
    wrong(C.check_graph_breaks, gb_no_grad, "no_grad", "under no_grad"),
    wrong(C.check_graph_breaks, lambda m, x, y: gb_solution(m, x, y).item(), "not_tensor", ".item()"),
    wrong(C.check_graph_breaks, gb_scales_input, "mutated_input", "scales x in place"),
    wrong(C.check_graph_breaks, torch.compiler.disable(gb_solution), "no_graph", "compile disabled"),
    wrong(C.check_graph_breaks, lambda m, x, y: None, "not_done", "stub"),
]

CASES += TRITON_CASES + GRAPH_CASES
test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_foreach_adam, C.check_launch_counts, C.check_layer_norm,
                                      C.check_triton_softmax, C.check_graph_breaks])


def test_the_given_step_really_has_three_graph_breaks():
    model, x, y = C.step_problem(0, 10.0)
    graphs, breaks, reasons = checks_graphs._quiet(C.graph_breaks, C.slow_step, model, x, y)
    assert breaks >= 3 and graphs >= 2 and len(reasons) == breaks
    assert C.graph_breaks(gb_solution, model, x, y)[:2] == (1, 0)


def test_both_sides_of_the_branch_are_tested():
    for scale, over in ((1.0, False), (10.0, True)):
        model, x, _y = C.step_problem(0, scale)
        assert bool(model.embed(x).abs().max() > 3) is over


def test_new_checks_never_raise():
    """The property test of tests/test_checks_never_raise.py, on the two new checks (that file's CHECKS
    list is not this lesson's to edit; see the lesson 04 report)."""
    from hypothesis import HealthCheck, given, settings
    from test_checks_never_raise import answers

    from fastrain_lib.lessons.checking import CheckResult

    def property_for(check):
        @settings(max_examples=6, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])
        @given(answer=answers)
        def never_raises(answer):
            result = check(answer)
            assert isinstance(result, CheckResult) and isinstance(result.ok, bool) and result.message.strip()

        return never_raises

    for check in (C.check_triton_softmax, C.check_graph_breaks):
        property_for(check)()


def test_the_exercise_writes_the_given_step_in_its_cell_as_the_check_uses_it():
    """Convention 3: the task's code is written in the exercise's own cell (no inspect.getsource of an
    English docstring), and it is the very step the check takes as the original."""
    import ast
    import inspect
    import json
    from pathlib import Path

    def body(tree):
        fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "slow_step")
        stmts = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        return [ast.dump(s) for s in stmts]

    for folder in ("solutions", "exercises"):
        nb = json.loads((Path(__file__).resolve().parents[1] / folder / "04_fused_kernels.ipynb").read_text("utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert "inspect.getsource" not in code
        cell = next("".join(c["source"]) for c in nb["cells"] if "def slow_step" in "".join(c["source"]))
        assert body(ast.parse(cell)) == body(ast.parse(inspect.getsource(checks_graphs.slow_step)))


def test_generated_cases_are_seeded_and_reach_beyond_the_fixed_ones():
    from fastrain_lib.lessons.l04_fused_kernels import checks_triton

    assert [c[:3] for c in C.adam_configs()] == [c[:3] for c in C.adam_configs()]
    assert len(C.adam_configs()) == len(C.ADAM_CONFIGS) + C.GENERATED_ADAM
    cases = checks_triton._softmax_cases("cpu")
    names = [name for name, _ in cases]
    assert "rows_apart" in names and sum(n.startswith("generated") for n in names) == checks_triton.GENERATED_CASES
    apart = dict(cases)["rows_apart"]  # one max for the whole tensor makes a row all zeros: 0/0
    assert not torch.isfinite(checks_triton._global_max_softmax(apart)).all()
    assert checks_graphs.graph_cases() == checks_graphs.graph_cases() and len(checks_graphs.graph_cases()) == 6
    # issue 39: inputs the task allows that were never fed, and one input again in another context
    assert {"transposed", "one_row", "float16", "float64", "again"} <= set(names)
    assert not dict(cases)["transposed"].is_contiguous() and dict(cases)["one_row"].shape[0] == 1
    assert torch.equal(dict(cases)["again"], dict(cases)["plain"]) and dict(cases)["again"] is not dict(cases)["plain"]
    seed, scale, shift = checks_graphs.graph_cases()[2]  # activations only large and negative
    model, x, _ = checks_graphs.step_problem(seed, scale, shift)
    h = model.embed(x)
    assert h.max() < 3 < h.abs().max()
    assert checks_graphs.graph_cases()[-1] == checks_graphs.graph_cases()[1]
