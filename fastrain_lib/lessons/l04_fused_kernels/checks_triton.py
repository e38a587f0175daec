"""Lesson 04, task 3: a row-wise softmax written in Triton (check_triton_softmax)."""

from __future__ import annotations

import torch

from fastrain_lib.lessons.checking import CheckResult, call_student, check, describe, failed, passed


# ---------------------------------------------------------------- task 3: a row-wise softmax in Triton

# torch functions that would compute the softmax for the student instead of their kernel
SOFTMAX_BY_TORCH = {"softmax", "_softmax", "log_softmax", "exp", "exp_", "exp2", "logsumexp", "sigmoid",
                    "special_softmax", "softmin"}


TSM_MESSAGES = {"zero_padding": "lesson04.tsm_zero_padding", "row_stride": "lesson04.tsm_row_stride",
                "whole_tensor": "lesson04.tsm_whole_tensor", "columns": "lesson04.tsm_columns",
                "no_normalise": "lesson04.tsm_no_normalise"}


def _softmax_cases(device) -> list[tuple[str, torch.Tensor]]:
    """(what the case tests, x): a row length that is no power of two (the mask and the padding),
    large values (exp overflows unless the row's maximum is subtracted first), a slice whose rows
    are further apart in memory than their length (the row stride), more rows than one."""
    g = torch.Generator().manual_seed(40)
    plain = torch.randn(5, 13, generator=g) * 3
    large = torch.randn(3, 64, generator=g) * 40 + 120  # exp(200) is inf in float32
    wide = torch.randn(4, 40, generator=g).to(device)
    strided = wide[:, 3:30]  # 27 columns, rows 40 apart (sliced on the device: a copy would be contiguous)
    tall = torch.randn(9, 200, generator=g)
    return [("plain", plain.to(device)), ("large", large.to(device)), ("strided", strided), ("tall", tall.to(device))]


def _zero_padded_softmax(x: torch.Tensor) -> torch.Tensor:
    """What a kernel computes when the masked load pads with 0 instead of -inf: the padding joins
    the max and the sum (each padded entry adds exp(0 - max))."""
    import triton

    pad = triton.next_power_of_2(x.shape[-1]) - x.shape[-1]
    m = torch.clamp(x.max(-1, keepdim=True).values, min=0.0) if pad else x.max(-1, keepdim=True).values
    e = torch.exp(x - m)
    return e / (e.sum(-1, keepdim=True) + pad * torch.exp(-m))


def _row_stride_ignored(x: torch.Tensor) -> torch.Tensor:
    """What a kernel reads when it steps n_cols (not x.stride(0)) from one row to the next."""
    n_rows, n_cols = x.shape
    flat = torch.as_strided(x, (n_rows * n_cols,), (1,))
    return torch.softmax(flat.reshape(n_rows, n_cols), -1)


class _TorchCalls(torch.overrides.TorchFunctionMode):
    """Records the names of torch functions called while it is active."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.add(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


def _softmax_device():
    from fastrain_lib.fused import triton_kernels

    return "cpu" if triton_kernels.interpreted() else "cuda"


@check
def check_triton_softmax(softmax) -> CheckResult:
    """softmax(x) must return torch.softmax(x, dim=-1) for a 2-D x (same shape and dtype, x
    unchanged), computed by the student's Triton kernel (no torch softmax/exp inside), for rows of
    odd length, large values and rows that are a slice of a wider tensor."""
    from fastrain_lib.fused import triton_kernels

    if not triton_kernels.available():
        return failed("no_triton", "lesson04.tsm_no_triton")
    for case, x in _softmax_cases(_softmax_device()):
        saved = x.clone()
        calls = _TorchCalls()
        with calls:
            got, problem = call_student(softmax, x)
        if problem is not None:
            return problem
        if not torch.equal(x, saved):
            return failed("mutated_input", "lesson04.tsm_mutated")
        if not isinstance(got, torch.Tensor) or not got.is_floating_point() or got.device.type == "meta":
            return failed("not_tensor", "lesson04.tsm_not_tensor", got=describe(got))
        if tuple(got.shape) != tuple(x.shape):
            return failed("wrong_shape", "lesson04.tsm_shape", got=tuple(got.shape), expected=tuple(x.shape))
        used = sorted(calls.names & SOFTMAX_BY_TORCH)
        if used:
            return failed("not_triton", "lesson04.tsm_not_triton", names=", ".join(used))
        got = got.detach().to("cpu", torch.float32)
        strided = _row_stride_ignored(x).to("cpu") if case == "strided" else None  # before the copy to the CPU
        x = x.to("cpu", torch.float32)
        expected = torch.softmax(x, -1)
        if torch.allclose(got, expected, atol=1e-5, rtol=1e-4):
            continue
        if not torch.isfinite(got).all():
            return failed("no_max", "lesson04.tsm_no_max" if case == "large" else "lesson04.tsm_not_finite")
        wrong = {"zero_padding": _zero_padded_softmax(x), "row_stride": strided,
                 "whole_tensor": torch.softmax(x.flatten(), 0).reshape(x.shape), "columns": torch.softmax(x, 0),
                 "no_normalise": torch.exp(x - x.max(-1, keepdim=True).values)}
        for code, value in wrong.items():
            if value is None:
                continue
            if torch.allclose(got, value, atol=1e-5, rtol=1e-4):
                return failed(code, TSM_MESSAGES[code])
        return failed("wrong_values", "lesson04.tsm_wrong", case=case, diff=float((got - expected).abs().max()))
    return passed("lesson04.tsm_ok")
