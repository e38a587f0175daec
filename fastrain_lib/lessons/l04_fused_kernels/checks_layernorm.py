"""Lesson 04, an earlier task: a naive LayerNorm forward (check_layer_norm)."""

from __future__ import annotations

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


def _ln_cases() -> list:
    """(x, weight, bias, eps): float32 and float64; eps = 0.1 on values of variance ~1 makes
    "eps outside the sqrt" visible; a last dimension of 13 (no power of two); a 2-D and a 3-D x; one row;
    a transposed (non-contiguous) x; then the first input again as a fresh copy (another context)."""
    g = torch.Generator().manual_seed(4)
    cases = []
    for shape, eps, dtype in (((4, 6, 16), 0.1, torch.float32), ((5, 13), 1e-5, torch.float64),
                              ((3, 2, 7), 0.25, torch.float64), ((1, 9), 1e-5, torch.float32)):
        x = torch.randn(shape, generator=g, dtype=dtype) * 1.5 + 0.5
        cases.append((x, torch.randn(shape[-1], generator=g, dtype=dtype),
                      torch.randn(shape[-1], generator=g, dtype=dtype), eps))
    wide = torch.randn(11, 6, generator=g) * 2 - 1
    cases.append((wide.t(), torch.randn(11, generator=g), torch.randn(11, generator=g), 0.05))  # x.t(): 6 rows of 11, columns 6 apart
    first = cases[0]
    cases.append((first[0].clone(), first[1].clone(), first[2].clone(), first[3]))
    return cases


# the library answers: PyTorch's own layer norm, forbidden in the answer
LN_FORBIDDEN = (F.layer_norm, torch.layer_norm, torch.native_layer_norm)


@check
def check_layer_norm(layer_norm) -> CheckResult:
    """layer_norm(x, weight, bias, eps) must equal F.layer_norm(x, (x.shape[-1],), weight, bias, eps),
    in the input's dtype, without changing x, weight or bias — written without F.layer_norm (LN_FORBIDDEN)."""
    for x, w, b, eps in _ln_cases():
        saved = snapshot((x, w, b))
        got, problem = call_student(layer_norm, x, w, b, eps, forbid=LN_FORBIDDEN)
        if problem is not None:
            return problem
        if not unchanged((x, w, b), saved):
            return failed("mutated_input", "checking.l04.ln_mutated")
        x, w, b = saved
        expected = F.layer_norm(x, (x.shape[-1],), w, b, eps)
        if not isinstance(got, torch.Tensor) or got.device != x.device:
            return failed("not_tensor", "checking.l04.ln_not_tensor", got=describe(got))
        if got.shape != expected.shape:
            return failed("wrong_shape", "lesson04.ln_shape", got=tuple(got.shape), expected=tuple(expected.shape))
        if not got.is_floating_point():
            return failed("not_tensor", "checking.l04.ln_not_tensor", got=describe(got))
        got = got.detach()
        close = torch.allclose(got.to(x.dtype), expected, atol=1e-4, rtol=1e-4)
        if close and got.dtype != x.dtype:
            return failed("dtype_changed", "checking.l04.ln_dtype", got=str(got.dtype).replace("torch.", ""),
                          want=str(x.dtype).replace("torch.", ""))
        if close:
            continue
        for code, wrong in _ln_variants(x, w, b, eps).items():
            if wrong.shape == got.shape and torch.allclose(got.to(x.dtype), wrong, atol=1e-4, rtol=1e-4):
                return failed(code, LN_MESSAGES[code])
        if eps != 1e-5 and torch.allclose(got.to(x.dtype), F.layer_norm(x, (x.shape[-1],), w, b, 1e-5), atol=1e-4):
            return failed("fixed_eps", "checking.l04.ln_fixed_eps", eps=eps)
        return failed("wrong_values", "lesson04.ln_wrong", diff=float((got.to(x.dtype) - expected).abs().max()))
    return passed()
