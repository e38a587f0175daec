"""How many kernels does a step launch, and where does its time go? Counting and timing with
torch.profiler, and reading what torch.compile generated (lessons 04 and 07)."""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass

import torch
from torch import nn

from fastrain_lib.measure import bench, hardware


@dataclass(frozen=True)
class LaunchCount:
    """What one call of a function launched.

    ops      top-level aten operator calls (what Python asked PyTorch to do; same on every machine);
             a torch.compile'd graph counts as one call on a CPU
    kernels  CUDA kernels that ran on the GPU (None when profiling a CPU-only run)
    names    ops by name, e.g. {'aten::add_': 8, ...}"""

    ops: int
    kernels: int | None
    names: dict

    @property
    def launches(self) -> int:
        """GPU kernels when any ran on a GPU, else operator calls (each one a CPU 'kernel')."""
        return self.kernels if self.kernels else self.ops

    def rows(self, limit: int | None = None) -> list[tuple[str, int]]:
        """(op name, calls) rows, most calls first: for a small table (ui.tables.html_table with the
        headers in the lesson's language) instead of printing the dict ({'aten::item': 128, ...})."""
        return op_rows(self.names, limit)


def op_rows(names: dict, limit: int | None = None) -> list[tuple[str, int]]:
    """(op name, calls) rows of a {name: calls} dict, most calls first, then by name."""
    rows = sorted(((str(n), int(c)) for n, c in names.items()), key=lambda row: (-row[1], row[0]))
    return rows[:limit] if limit is not None else rows


def count_launches(fn, *, warmup: int = 1, cuda: bool | None = None) -> LaunchCount:
    """Profile one call of fn() and count its operator calls (and CUDA kernels on a GPU).

    warmup calls run first and are not counted (the first Adam step also creates its state).
    The counts are deterministic: run it twice, get the same numbers."""
    from torch.profiler import ProfilerActivity, profile

    # Kineto prints start/stop lines straight to the terminal; level 6 keeps it quiet.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    if cuda is None:
        cuda = hardware.cuda_available()
    for _ in range(warmup):
        fn()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        fn()
        if cuda:
            hardware.synchronize("cuda")
    names = Counter()
    kernels = 0
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            kernels += 1
        elif event.name.startswith("## Call CompiledFxGraph"):
            # torch.compile on a CPU: Inductor's C++ kernels are not profiled one by one, so a
            # compiled graph counts as one call (count_generated_kernels tells how many it holds).
            names["compiled graph"] += 1
        elif event.name.startswith("aten::"):
            parent = event.cpu_parent
            # Count only calls made from Python/autograd, not the aten calls nested inside them.
            if parent is None or not parent.name.startswith("aten::"):
                names[event.name] += 1
    return LaunchCount(ops=sum(names.values()), kernels=kernels if cuda else None, names=dict(names))


MATMUL_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul")


def op_ms_per_call(fn, calls: int = 4) -> dict[str, float]:
    """Milliseconds per call of fn() spent in each top-level operator (torch.profiler), after one
    warm-up call (first calls, thread pools, an optimizer's state)."""
    from fastrain_lib.measure.loop_profile import profile_loop

    fn()

    def several():
        for _ in range(calls):
            fn()

    _, profiled = profile_loop(several, rows=10_000)
    return {name: ms / calls for name, _calls, ms in profiled.table}


def grown_op(before: dict[str, float], after: dict[str, float]) -> dict:
    """The operator whose time grew most from `before` to `after` (op_ms_per_call results), with
    both totals and what the matrix multiplies did meanwhile."""
    op = max(set(before) | set(after), key=lambda n: after.get(n, 0.0) - before.get(n, 0.0))
    return {"op": op, "before_ms": before.get(op, 0.0), "after_ms": after.get(op, 0.0),
            "total_before_ms": sum(before.values()), "total_after_ms": sum(after.values()),
            "mm_before_ms": sum(before.get(n, 0.0) for n in MATMUL_OPS),
            "mm_after_ms": sum(after.get(n, 0.0) for n in MATMUL_OPS)}


def profile_pair(profile, before, after, repeats: int = 2) -> tuple[dict, dict]:
    """profile(before) and profile(after), interleaved `repeats` times, each operator's time the
    least it took (op_ms_per_call dicts). A few profiled steps are noisy (measured here: the same
    fp32 step gave 54 and 42 ms of operators in two calls); a burst of other work only adds time,
    so the least of interleaved repeats is the fairest pair."""
    runs = [(profile(before), profile(after)) for _ in range(repeats)]

    def least(profiles):
        names = set().union(*profiles)
        return {n: min(p.get(n, 0.0) for p in profiles) for n in names}

    return least([b for b, _ in runs]), least([a for _, a in runs])


def why_slower(before: dict[str, float], after: dict[str, float], name: str) -> tuple[str, dict]:
    """(catalog key, values): why a change (`name`) slowed a step, read from profiles of the step
    without it (`before`) and with it (`after`). The sentence claims only what the profile shows:
    - the operators' total did not grow: the profiler did not reproduce the slowdown (it lies
      outside the operators, or the timing was disturbed) — never "this operator ate the gain";
    - the matmuls got faster and one operator grew by more than they saved: that operator's slow
      path eats the gain;
    - otherwise: the operator that grew most, with both totals."""
    found = {"name": name, **grown_op(before, after)}
    if found["total_after_ms"] <= found["total_before_ms"]:
        return "launches.not_reproduced", found
    mm_saved = found["mm_before_ms"] - found["mm_after_ms"]
    if mm_saved > 0 and found["after_ms"] - found["before_ms"] > mm_saved:
        return "launches.why_op_grew_mm_faster", found
    return "launches.why_op_grew", found


# --- torch.compile: show what Inductor generated ------------------------------


def compiled_code(fn, *args) -> tuple[object, str, float]:
    """Compile fn with torch.compile, run it once on args; return (result, generated code, compile seconds).

    The code is the Python module Inductor wrote (C++ loops on a CPU, Triton kernels on a GPU)."""
    from torch._inductor.utils import run_and_get_code

    compiled = torch.compile(fn)
    start = time.perf_counter()
    result, codes = run_and_get_code(compiled, *args)
    for device in {a.device for a in args if isinstance(a, torch.Tensor)}:
        hardware.synchronize(device)  # compiled GPU code runs asynchronously: wait before reading the clock
    return result, "\n".join(codes), time.perf_counter() - start


def kernel_excerpt(code: str, max_lines: int = 60) -> str:
    """The interesting part of Inductor's output: the generated kernel(s) and the call() that runs them."""
    lines = code.splitlines()
    keep, inside = [], False
    for line in lines:
        starts = ("async_compile.cpp" in line or "async_compile.triton(" in line or "@triton.jit" in line)
        if starts:
            inside = True
        if inside:
            keep.append(line)
        if inside and not starts and line.lstrip().startswith("'''"):  # the closing quotes: ''') or ''', device_str=...
            inside = False
            keep.append("")
    call = [i for i, line in enumerate(lines) if line.strip().startswith("def call(")]
    if call:
        start = call[0]
        end = next((i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("return")), start + 20)
        keep += lines[start:end + 1]
    keep = keep or lines
    # Inductor's error-flag and include boilerplate says nothing about the fusion: leave it out.
    noise = ("inductor_cpu_integer_div_error", "#include", "omp_get_thread_num", "assert_size_stride")
    keep = [line for line in keep if not any(word in line for word in noise)]
    if len(keep) > max_lines:
        keep = keep[:max_lines] + [f"# ... ({len(keep) - max_lines} more lines)"]
    return "\n".join(keep)


def count_generated_kernels(code: str) -> int:
    """How many kernels Inductor generated (C++ 'kernel' functions or Triton kernels)."""
    return code.count("async_compile.cpp") + code.count("async_compile.triton(")


# --- the overhead-bound regime and CUDA Graphs ------------------------------------

OVERHEAD_MODES = ("eager", "compile", "reduce-overhead")


class TinyMLP(nn.Module):
    """Many tiny layers on a tiny batch: each operator does almost no arithmetic, so a step's time is
    the cost of calling and launching operators — the overhead-bound regime."""

    def __init__(self, depth: int = 8, width: int = 32):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.norm = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = x + torch.nn.functional.gelu(layer(self.norm(x)))  # 4 small operators per layer (or more)
        return x


def cuda_graphs_apply(device) -> bool:
    """mode="reduce-overhead" records CUDA Graphs only for CUDA tensors; elsewhere it compiles as
    the default mode does (no graphs are recorded on a CPU)."""
    return torch.device(device).type == "cuda"


def overhead_modes(device) -> tuple[str, ...]:
    """The modes worth timing on `device`: on a CPU, reduce-overhead would be the default compile again."""
    return OVERHEAD_MODES if cuda_graphs_apply(device) else OVERHEAD_MODES[:2]


def overhead_regime(device="cpu", modes=None, *, depth: int = 8, width: int = 32, batch: int = 8,
                    seed: int = 0) -> list[bench.Record]:
    """Time one forward call (inference, no gradients, one CPU thread) of TinyMLP in each mode:
    eager, torch.compile (default), torch.compile(mode="reduce-overhead") (CUDA Graphs, CUDA only).

    Compiled modes warm up until nothing recompiles (bench.warm_until_compiled); the compile time goes
    to metrics['compile_s'], not the call time. metrics['launches'] = operator calls (CPU) or CUDA
    kernels (GPU) of one eager call, metrics['us_per_launch'] = eager time ÷ launches (eager only)."""
    device = hardware.check_device(device)
    modes = tuple(modes or overhead_modes(device))
    x = bench.fresh_random(batch, width, device=device, seed=seed)
    records = []
    eager_launches = None
    for mode in modes:
        torch.manual_seed(seed)  # the same weights in every mode; a new module, so each mode compiles its own
        model = TinyMLP(depth, width).to(device).eval()
        fn = model if mode == "eager" else torch.compile(model, mode=None if mode == "compile" else mode)

        def call(fn=fn):
            with torch.no_grad():
                return fn(x)

        warm = bench.warm_until_compiled(call, device=device) if mode != "eager" else {}
        # one CPU thread: operators this small gain nothing from more, and a thread team waiting for a
        # descheduled thread on a busy machine would time the wait, not the overhead (see lesson 01)
        record = bench.measure(call, f"overhead:{mode}", threads=1,
                               params={"mode": mode, "depth": depth, "width": width, "batch": batch,
                                       "device": str(device), "threads": 1, "cuda_graphs": mode == "reduce-overhead"
                                       and cuda_graphs_apply(device)})
        record.metrics.update(warm)
        if mode == "eager":
            eager_launches = count_launches(call).launches
            record.metrics.update(launches=eager_launches, us_per_launch=record.median_s * 1e6 / eager_launches)
        records.append(record)
    return records
