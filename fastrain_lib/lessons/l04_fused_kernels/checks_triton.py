"""Lesson 04, task 3: a row-wise softmax written in Triton (check_triton_softmax), and how the check
sees the student's launches (observe_launches).

Without a GPU the student's `@triton.jit` kernel runs in Triton's interpreter (the exercise sets
TRITON_INTERPRET=1 before decorating). triton.language's own @jit helpers (tl.max, tl.sum) were decorated
when triton was first imported, maybe without TRITON_INTERPRET (torch.compile imports triton first on a
CPU): _helpers_interpreted lets them run inside an interpreted launch and puts Triton back afterwards."""

from __future__ import annotations

import contextlib
import importlib.util
import random
from dataclasses import dataclass

import torch

from fastrain_lib.lessons.checking import CheckResult, call_student, check, describe, failed, passed

# ---------------------------------------------------------------- task 3: a row-wise softmax in Triton

# torch functions that would compute the softmax for the student instead of their kernel
SOFTMAX_BY_TORCH = {"softmax", "_softmax", "log_softmax", "exp", "exp_", "exp2", "logsumexp", "sigmoid",
                    "special_softmax", "softmin"}


TSM_MESSAGES = {"zero_padding": "lesson04.tsm_zero_padding", "row_stride": "lesson04.tsm_row_stride",
                "whole_tensor": "lesson04.tsm_whole_tensor", "columns": "lesson04.tsm_columns",
                "no_normalise": "lesson04.tsm_no_normalise", "global_max": "lesson04.tsm_global_max"}
GENERATED_CASES = 3  # seeded cases on top of the fixed ones (the interpreter is slow: a few, small)


def _softmax_cases(device, seed: int = 40) -> list[tuple[str, torch.Tensor]]:
    """(what the case tests, x): a row length that is no power of two (the mask and the padding),
    large values (exp overflows unless the row's maximum is subtracted first), rows far below the
    tensor's largest value (a softmax that subtracts one maximum of the whole tensor gives exp → 0 and
    0/0 there: each row needs its own maximum), a slice whose rows are further apart in memory than
    their length (the row stride), more rows than one — then GENERATED_CASES cases drawn by a seeded
    generator (rows, columns, scale, offsets), so an answer fitted to the fixed shapes fails."""
    g = torch.Generator().manual_seed(seed)
    plain = torch.randn(5, 13, generator=g) * 3
    large = torch.randn(3, 64, generator=g) * 40 + 120  # exp(200) is inf in float32
    apart = torch.randn(4, 24, generator=g) + torch.tensor([[0.0], [-150.0], [60.0], [-300.0]])
    wide = torch.randn(4, 40, generator=g).to(device)
    strided = wide[:, 3:30]  # 27 columns, rows 40 apart (sliced on the device: a copy would be contiguous)
    tall = torch.randn(9, 200, generator=g)
    cases = [("plain", plain.to(device)), ("large", large.to(device)), ("rows_apart", apart.to(device)),
             ("strided", strided), ("tall", tall.to(device))]
    rng = random.Random(seed)
    for i in range(GENERATED_CASES):
        rows, cols = rng.randint(1, 7), rng.choice([rng.randint(2, 70), 2 ** rng.randint(1, 6)])
        offsets = torch.tensor([[rng.choice([0.0, -130.0, 90.0, rng.uniform(-20, 20)])] for _ in range(rows)])
        x = torch.randn(rows, cols, generator=g) * rng.uniform(0.5, 8.0) + offsets
        cases.append((f"generated_{i}", x.to(device)))
    return cases


def _global_max_softmax(x: torch.Tensor) -> torch.Tensor:
    """What a kernel computes when it subtracts one maximum of the whole tensor, not each row's."""
    e = torch.exp(x - x.max())
    return e / e.sum(-1, keepdim=True)


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
    from fastrain_lib.measure import hardware

    return "cuda" if hardware.cuda_available() else "cpu"  # no GPU: the student's kernel is interpreted


@dataclass(frozen=True)
class Launch:
    """One Triton kernel launch: the kernel's name and its grid."""

    name: str
    grid: object


@contextlib.contextmanager
def observe_launches():
    """Record every Triton kernel launch made while the block runs (a list of Launch). On a GPU a launch
    is `kernel[grid](...)` -> JITFunction.run; in the interpreter every launch goes through
    triton.runtime.interpreter.GridExecutor. There, the launch also runs with tl's helpers interpreted."""
    launched: list[Launch] = []
    if importlib.util.find_spec("triton") is None:
        yield launched
        return
    from triton.runtime import interpreter
    from triton.runtime.jit import JITFunction

    original_run, original_grid = JITFunction.run, interpreter.GridExecutor.__call__

    def run(self, *args, grid, warmup, **kwargs):
        if not warmup:
            launched.append(Launch(getattr(self.fn, "__name__", "?"), grid))
        return original_run(self, *args, grid=grid, warmup=warmup, **kwargs)

    def grid_call(self, *args, **kwargs):
        launched.append(Launch(getattr(self.fn, "__name__", "?"), self.grid))
        with _helpers_interpreted():
            return original_grid(self, *args, **kwargs)

    JITFunction.run, interpreter.GridExecutor.__call__ = run, grid_call
    try:
        yield launched
    finally:
        JITFunction.run, interpreter.GridExecutor.__call__ = original_run, original_grid


@contextlib.contextmanager
def _helpers_interpreted():
    """While an interpreted kernel runs, let triton.language's own @jit helpers (tl.max, tl.sum, ...) run
    as interpreted device functions; Triton is put back afterwards (the interpreter patches
    triton.language and never restores it, which would break every later real compile)."""
    import triton.language as tl
    from triton.runtime import interpreter
    from triton.runtime.jit import JITFunction

    original = JITFunction.__call__
    objects = [tl, tl.core, getattr(tl, "math", None), getattr(tl, "standard", None), tl.core.tensor,
               getattr(tl.core, "tensor_descriptor_base", None)]
    state = [(obj, dict(vars(obj))) for obj in objects if obj is not None]

    def call_interpreted(self, *args, **kwargs):
        return interpreter.InterpretedFunction(self.fn)(*args, **kwargs)

    JITFunction.__call__ = call_interpreted
    try:
        yield
    finally:
        JITFunction.__call__ = original
        injected = vars(interpreter)  # names the interpreter added to a helper's globals stay (its cache needs them)
        for obj, saved in state:
            for name in [n for n in vars(obj) if n not in saved and vars(obj)[n] is not injected.get(n, object())]:
                delattr(obj, name)
            for name, value in saved.items():
                if vars(obj).get(name) is not value:
                    setattr(obj, name, value)


@check
def check_triton_softmax(softmax) -> CheckResult:
    """softmax(x) must return torch.softmax(x, dim=-1) for a 2-D x (same shape and dtype, x
    unchanged), computed by the student's own Triton kernel: the check counts the Triton launches the
    answer makes (observe_launches) and fails an answer that launches none (NumPy, torch); torch's
    softmax/exp inside count as not Triton. Cases:
    rows of odd length, large values, rows far below the tensor's maximum, a slice of a wider tensor,
    and seeded generated shapes."""
    if importlib.util.find_spec("triton") is None:
        return failed("no_triton", "lesson04.tsm_no_triton")
    for case, x in _softmax_cases(_softmax_device()):
        saved = x.clone()
        calls = _TorchCalls()
        with observe_launches() as launched, calls:
            got, problem = call_student(softmax, x)
        if problem is not None:
            return problem
        if not torch.equal(x, saved):
            return failed("mutated_input", "lesson04.tsm_mutated")
        used = sorted(calls.names & SOFTMAX_BY_TORCH)
        if used:
            return failed("not_triton", "lesson04.tsm_not_triton", names=", ".join(used))
        if not launched:
            return failed("no_kernel", "lesson04.tsm_no_kernel")
        if not isinstance(got, torch.Tensor) or not got.is_floating_point() or got.device.type == "meta":
            return failed("not_tensor", "lesson04.tsm_not_tensor", got=describe(got))
        if tuple(got.shape) != tuple(x.shape):
            return failed("wrong_shape", "lesson04.tsm_shape", got=tuple(got.shape), expected=tuple(x.shape))
        got = got.detach().to("cpu", torch.float32)
        strided = _row_stride_ignored(x).to("cpu") if case == "strided" else None  # before the copy to the CPU
        x = x.to("cpu", torch.float32)
        expected = torch.softmax(x, -1)
        if torch.allclose(got, expected, atol=1e-5, rtol=1e-4):
            continue
        one_max = _global_max_softmax(x)
        if not torch.isfinite(one_max).all() and torch.equal(torch.isnan(got), torch.isnan(one_max)):
            return failed("global_max", "lesson04.tsm_global_max")
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
