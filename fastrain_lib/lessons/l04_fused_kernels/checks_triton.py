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

from fastrain_lib.core.i18n import t
from fastrain_lib.measure import hardware
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
    transposed = (torch.randn(19, 6, generator=g) * 4).to(device).t()  # 6 rows of 19, columns 6 apart in memory
    one_row = torch.randn(1, 37, generator=g) * 5 - 60
    half = (torch.randn(4, 33, generator=g) * 6).to(device, torch.float16)  # the task allows any float dtype
    cases = [("plain", plain.to(device)), ("large", large.to(device)), ("rows_apart", apart.to(device)),
             ("strided", strided), ("tall", tall.to(device)), ("transposed", transposed), ("one_row", one_row.to(device)),
             ("float16", half), ("float64", plain.to(device, torch.float64))]
    rng = random.Random(seed)
    for i in range(GENERATED_CASES):
        rows, cols = rng.randint(1, 7), rng.choice([rng.randint(2, 70), 2 ** rng.randint(1, 6)])
        offsets = torch.tensor([[rng.choice([0.0, -130.0, 90.0, rng.uniform(-20, 20)])] for _ in range(rows)])
        x = torch.randn(rows, cols, generator=g) * rng.uniform(0.5, 8.0) + offsets
        cases.append((f"generated_{i}", x.to(device)))
    # one input again, in another context: a fresh copy in a fresh position (an answer cached by its input fails)
    cases.append(("again", plain.to(device).clone()))
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


def without_triton():
    """(triton, tl) stand-ins for a machine without Triton (PyPI's torch on Windows brings none), after saying
    why the task cannot run here: the exercise's `import triton` then ends with this sentence, not a traceback."""
    from fastrain_lib.fused import no_triton

    print("⚠️ " + t("lesson04.tsm_no_triton"))
    return no_triton.triton, no_triton.tl


def _softmax_device():
    from fastrain_lib.measure import hardware

    return "cuda" if hardware.cuda_available() else "cpu"  # no GPU: the student's kernel is interpreted


@dataclass(frozen=True)
class Launch:
    """One Triton kernel launch: the kernel's name and its grid."""

    name: str
    grid: object
    wrote: tuple = ()  # (tensor, its values right after the launch) for each tensor argument the launch changed
    unchanged: tuple = ()  # (tensor, its values) for each tensor argument whose values stayed as they were
    replay: object = None  # replay(tensor) -> the launch, replayed on copies, writes into that argument's memory


def _storage_copy(t: torch.Tensor) -> torch.Tensor:
    """A tensor over a copy of t's whole storage, with t's offset, sizes and strides (a plain clone would
    be compact, and the kernel was given t's strides as numbers)."""
    return t.new_empty(0).set_(t.untyped_storage().clone(), t.storage_offset(), t.size(), t.stride())


def _whole(t: torch.Tensor) -> torch.Tensor:
    """Every element of t's storage, as one flat tensor."""
    return t.new_empty(0).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),))


def _writes_into(call, args, kwargs, target: torch.Tensor) -> bool:
    """Replays a launch on copies of its tensors, the copy of `target` filled with values it did not hold
    (NaN, or each integer plus one): True when the launch changes that copy. A kernel that wrote exactly the
    values its output already held (the same result into reused memory) is told from one that never wrote
    there (a kernel on a dummy tensor): comparing before and after cannot tell them apart."""
    copies = []

    def copy(a):
        if not isinstance(a, torch.Tensor):
            return a
        c = _storage_copy(a.detach())
        if a is target:
            whole = _whole(c)
            whole.fill_(float("nan")) if whole.is_floating_point() else whole.add_(1)
            copies.append((whole, whole.clone()))
        return c

    try:
        call([copy(a) for a in args], {k: copy(v) for k, v in kwargs.items()})
        if target.is_cuda:
            hardware.synchronize("cuda")
    except Exception:  # noqa: BLE001 - a replay that fails proves nothing: not written
        return False
    return bool(copies) and not _same(*copies[0])


def _tensors(args, kwargs) -> list:
    return [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]


def _launch_record(name, grid, tensors, before, replay) -> Launch:
    """The Launch: the tensors whose values differ from `before` (their clones before the launch) and the
    ones that stayed the same, with `replay` to ask whether the kernel writes into one of those."""
    if any(t.is_cuda for t in tensors):
        hardware.synchronize("cuda")
    wrote, unchanged = [], []
    for t, b in zip(tensors, before):
        (unchanged if _same(t.detach(), b) else wrote).append((t, t.detach().clone()))
    return Launch(name, grid, tuple(wrote), tuple(unchanged), replay)


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
        if warmup:
            return original_run(self, *args, grid=grid, warmup=warmup, **kwargs)
        tensors = _tensors(args, kwargs)
        before = [t.detach().clone() for t in tensors]
        out = original_run(self, *args, grid=grid, warmup=warmup, **kwargs)

        def replay(target, args=args, kwargs=kwargs):
            return _writes_into(lambda a, k: original_run(self, *a, grid=grid, warmup=False, **k), args, kwargs, target)

        launched.append(_launch_record(getattr(self.fn, "__name__", "?"), grid, tensors, before, replay))
        return out

    def grid_call(self, *args, **kwargs):
        tensors = _tensors(args, kwargs)
        before = [t.detach().clone() for t in tensors]
        with _helpers_interpreted():
            out = original_grid(self, *args, **kwargs)

        def replay(target, args=args, kwargs=kwargs):
            def again(a, k):
                with _helpers_interpreted():
                    original_grid(self, *a, **k)
            return _writes_into(again, args, kwargs, target)

        launched.append(_launch_record(getattr(self.fn, "__name__", "?"), self.grid, tensors, before, replay))
        return out

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


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal values, NaN where NaN (a wrong kernel's NaNs are still what it wrote)."""
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all()) if a.is_floating_point() \
        else torch.equal(a, b)


def _from_kernel(got: torch.Tensor, launched: list) -> bool:
    """True when `got` holds exactly what one of the answer's kernel launches wrote: it is (a view of) a tensor
    the launch changed and unchanged since, or equal to such a tensor's values right after the launch (a cast
    or reshape of the kernel's own output). A kernel launched on a dummy tensor, or an output overwritten
    afterwards by other code, is not the result (issue 39). A tensor whose values the launch left as they
    were may still be its output (it wrote the very values that memory held): the launch is replayed on
    copies to ask, only when nothing the launches visibly changed matches."""
    got_d = got.detach()

    def matches(tensor, after) -> bool:
        if got_d.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr():
            return _same(tensor.detach(), after)
        return after.numel() == got_d.numel() and _same(after.reshape(got_d.shape).to(got_d.dtype), got_d)

    if any(matches(tensor, after) for launch in launched for tensor, after in launch.wrote):
        return True
    return any(matches(tensor, values) and launch.replay is not None and launch.replay(tensor)
               for launch in launched for tensor, values in launch.unchanged)


@check
def check_triton_softmax(softmax) -> CheckResult:
    """softmax(x) must return torch.softmax(x, dim=-1) for a 2-D x (same shape and dtype, x
    unchanged), computed by the student's own Triton kernel: the check counts the Triton launches the
    answer makes (observe_launches) and fails an answer that launches none (NumPy, torch); torch's
    softmax/exp inside count as not Triton, and the returned values must be the ones a launch wrote
    (_from_kernel: not a kernel run on a dummy tensor beside a result computed another way). Cases:
    rows of odd length, large values, rows far below the tensor's maximum, a slice of a wider tensor,
    a transposed x, one row, float16 and float64, seeded generated shapes, and one input again as a fresh copy."""
    if importlib.util.find_spec("triton") is None:
        return failed("no_triton", "lesson04.tsm_no_triton")
    results = []
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
        if not _from_kernel(got, launched):  # the values returned must be what a launch of the kernel wrote
            return failed("not_from_kernel", "lesson04.tsm_not_from_kernel")
        if got.dtype != x.dtype:
            return failed("dtype_changed", "lesson04.tsm_dtype", got=str(got.dtype).replace("torch.", ""),
                          want=str(x.dtype).replace("torch.", ""))
        results.append(got)  # kept alive: a later empty_like cannot hand back this very result
        tol = {"atol": 2e-3, "rtol": 1e-2} if x.dtype in (torch.float16, torch.bfloat16) else {"atol": 1e-5, "rtol": 1e-4}
        got = got.detach().to("cpu", torch.float32)
        strided = _row_stride_ignored(x).to("cpu") if case == "strided" else None  # before the copy to the CPU
        cols_apart, x = x.stride(1), x.to("cpu", torch.float32)
        expected = torch.softmax(x, -1)
        if torch.allclose(got, expected, **tol):
            continue
        if case == "transposed":  # every earlier case passed, so only the layout differs here. Checked before
            # inf/nan: a kernel that steps x.stride(0) = 1 between rows writes only part of an output made with
            # empty_like, and the entries it never wrote hold whatever memory held (inf or nan at times)
            return failed("column_stride", "lesson04.tsm_column_stride", cols_apart=cols_apart)
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
