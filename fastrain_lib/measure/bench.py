"""Timing that tells the truth, built on torch.utils.benchmark.

- torch.utils.benchmark.Timer synchronises CUDA before reading the clock, so
  asynchronous GPU work is counted.
- We warm up first (caches, allocator, cuDNN/Inductor autotuning), then let
  blocked_autorange pick a repeat count and report the median and the spread (IQR).
- torch.compile's one-off compile time is reported apart from the step time.
- Every measurement carries its noise information (fastrain_lib.measure.noise): the spread of the
  repeated blocks, the load other programs and the hypervisor put on the cores while it ran,
  the threads it used against the cores left free, and a verdict, quiet or noisy, with reasons.
- Every result is a Record with the hardware it ran on, saved as JSON so results
  from different machines (a lab, reference/) can be compared later.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import json
import logging
import time
import timeit
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

# torch.utils.benchmark imports cpp_extension, which logs a CUDA_HOME warning on CPU-only
# machines: noise for a student, not a problem.
logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
import torch.utils.benchmark as tbench

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import hardware, noise

# 2: records carry `noise` (schema 1 files load with an empty one: "not known").
SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)


@dataclass
class Record:
    """One measured setting: what ran, how long it took, where and when."""

    name: str
    median_s: float
    iqr_s: float = 0.0
    times_s: list[float] = field(default_factory=list)
    params: dict = field(default_factory=dict)  # the settings that were measured
    metrics: dict = field(default_factory=dict)  # derived numbers: GFLOP/s, samples/s, ...
    meta: dict = field(default_factory=dict)  # hardware, versions, mode, date
    noise: dict = field(default_factory=dict)  # fastrain_lib.measure.noise: load, threads, spread, verdict

    @property
    def noisy(self) -> bool:
        """True when the machine was too busy (or the repeats too spread) to trust this record."""
        return noise.is_noisy(self.noise)

    def per_second(self, work: float) -> float:
        """Throughput: `work` units (samples, FLOPs, bytes) done per second at the median time."""
        return work / self.median_s

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Record:
        known = {f for f in cls.__dataclass_fields__}
        missing = {"name", "median_s"} - data.keys()
        if missing:
            raise ValueError(f"record lacks {sorted(missing)}")
        return cls(**{k: v for k, v in data.items() if k in known})


@functools.lru_cache(maxsize=1)
def _static_meta() -> dict:
    return hardware.report()


def meta() -> dict:
    """Provenance for a record: hardware report, run mode, date, schema version."""
    info = dict(_static_meta())
    info.update(
        torch_threads=torch.get_num_threads(),
        mode=config.mode(),
        date=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        schema=SCHEMA_VERSION,
    )
    return info


@contextlib.contextmanager
def torch_threads(threads: int | None):
    """torch's CPU threads set to `threads` inside the block and restored after (None: unchanged)."""
    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(int(threads))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def measure(fn, name: str, *, params: dict | None = None, warmup: int = 2,
            min_run_time: float | None = None, threads: int | None = None) -> Record:
    """Time `fn()` with torch.utils.benchmark: warm-up, then median and IQR over repeats,
    with the noise information of the window it ran in (record.noise, record.noisy).

    min_run_time (seconds of measuring) defaults by run mode: short in ci, longer in full.
    threads: CPU threads for the measurement; Timer sets and restores it, warm-up included. By default
    as many of torch's threads as fit beside the other work running now (noise.free_threads): a thread
    team larger than the free cores waits for its descheduled member at every step, so on a busy lab PC
    the full team gives a noisy number and the fitting one a usable one. The record's noise information
    keeps both (threads, threads_wanted) and a verdict sentence on it says so on its line."""
    wanted = torch.get_num_threads()
    threads = threads or noise.free_threads(wanted)
    with torch_threads(threads):
        for _ in range(warmup):
            fn()
    if min_run_time is None:
        min_run_time = config.by_mode(ci=0.05, lab=0.3, full=1.0)
    # Timer runs single-threaded unless told: measure with the threads asked for.
    # Its default clock synchronises any accelerator torch sees, so asynchronous GPU work is counted. When
    # the course runs on the CPU (no GPU, or one this torch cannot run: a V100 with an sm_75+ wheel), the
    # plain clock: synchronising that GPU would start a CUDA context on it for nothing (issue 40).
    clock = {} if hardware.best_device().type != "cpu" else {"timer": timeit.default_timer}
    timer = tbench.Timer(stmt="fn()", globals={"fn": fn}, num_threads=threads, label=name, **clock)
    with noise.Window() as window:
        m = timer.blocked_autorange(min_run_time=min_run_time)
    spread = m.iqr / m.median if m.median > 0 else None
    return Record(name=name, median_s=m.median, iqr_s=m.iqr, times_s=list(m.times),
                  params=dict(params or {}), meta=meta(),
                  noise=window.assess(threads=threads, spread=spread, repeats=len(m.times), threads_wanted=wanted))


def time_once(fn, device=None) -> float:
    """Seconds for exactly one call, synchronised: for one-off costs such as compiling.

    The device (default: the best one here) is synchronised before the clock starts, so
    earlier queued work is not counted, and again before it stops, so this call's
    asynchronous GPU work is. Not torch.utils.benchmark here: Timer.timeit() runs the
    statement twice as a warm-up first, which would hide exactly the one-off cost we want."""
    device = device or hardware.best_device()
    hardware.synchronize(device)
    start = time.perf_counter()
    fn()
    hardware.synchronize(device)
    return time.perf_counter() - start


def graphs_compiled() -> int:
    """How many graphs torch.compile (dynamo) has compiled in this process so far."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def warm_until_compiled(fn, *, device=None, stable: int = 2, max_calls: int = 20) -> dict:
    """Call `fn` until `stable` calls in a row compile nothing new: a compiled function may
    recompile on its 2nd or 3rd call (new shapes, a changed flag, automatic dynamic shapes),
    and a recompile inside the timed steps makes "compiled" look slower than eager.

    Returns {'compile_s': seconds of the calls that compiled, 'compiles': graphs compiled,
    'recompiles': graphs compiled after the first call, 'warmup_calls': calls made}."""
    compile_s, compiles, recompiles, quiet, calls = 0.0, 0, 0, 0, 0
    while quiet < stable and calls < max_calls:
        before = graphs_compiled()
        seconds = time_once(fn, device)
        new = graphs_compiled() - before
        calls += 1
        compiles += new
        recompiles += new if calls > 1 else 0
        compile_s += seconds if new else 0.0
        quiet = 0 if new else quiet + 1
    return {"compile_s": compile_s, "compiles": compiles, "recompiles": recompiles, "warmup_calls": calls}


def remeasure_noisy(records, remeasure):
    """Issue 38: before a verdict gives up on noisy rows, measure each noisy row once more at a quieter
    setting and keep that measurement; quiet rows stay as they were. `records` is a list (remeasure(record))
    or a dict of records (remeasure(key)); the same kind comes back. Prints one line: how many rows were
    measured again and how many are still noisy, or that none needed it. The caller's remeasure says what
    "quieter" is (1 thread, a longer window) and the printed line says 1 thread: pass threads=1."""
    keyed = records if isinstance(records, dict) else dict(enumerate(records))
    noisy = [k for k, r in keyed.items() if getattr(r, "noisy", False)]
    if not noisy:
        print(t("bench.remeasure_none", n=len(keyed)))
        return records
    again = dict(keyed)
    for k in noisy:
        again[k] = remeasure(k if isinstance(records, dict) else keyed[k])
    print(t("bench.remeasure_done", n=len(noisy), total=len(keyed),
            still=sum(1 for k in noisy if getattr(again[k], "noisy", False))))
    return again if isinstance(records, dict) else [again[i] for i in range(len(records))]


def measure_compiled(fn, example_args: tuple, name: str, **kwargs) -> Record:
    """Compile `fn` with torch.compile, report the compile time apart from the step time.

    Warm-up runs until nothing recompiles (warm_until_compiled); metrics get compile_s,
    compiles, recompiles, and recompiles_timed (graphs compiled while timing: should be 0,
    and a record where it is not is marked noisy)."""
    compiled = torch.compile(fn)
    # the threads it will be timed with, chosen first: a compiled CPU graph recompiles when torch's
    # thread count changes, and the warm-up must leave nothing to compile inside the timed steps
    threads = kwargs.pop("threads", None) or noise.free_threads(torch.get_num_threads())
    with torch_threads(threads):
        warm = warm_until_compiled(lambda: compiled(*example_args))
    before = graphs_compiled()
    record = measure(lambda: compiled(*example_args), name, threads=threads, **kwargs)
    record.metrics.update(warm)
    record.metrics["recompiles_timed"] = graphs_compiled() - before
    if record.metrics["recompiles_timed"]:
        record.noise["recompiles"] = record.metrics["recompiles_timed"]
        record.noise["verdict"], record.noise["reasons"] = noise.verdict(record.noise)
    return record


def save_records(records: list[Record], path: str | Path) -> Path:
    """Write records as a JSON file ({"schema": 2, "records": [...]}); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"schema": SCHEMA_VERSION, "records": [r.to_dict() for r in records]}
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)  # atomic: a half-written file never appears under the real name
    return path


def load_records(path: str | Path) -> list[Record]:
    """Read a file written by save_records (any schema in READABLE_SCHEMAS; records of
    schema 1 have no noise information); raises ValueError on a malformed file."""
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
        return [Record.from_dict(r) for r in payload["records"]]
    except (ValueError, KeyError, TypeError) as exc:  # JSONDecodeError is a ValueError
        raise ValueError(f"{path}: not a fastrain results file ({exc})") from exc


def fresh_random(*shape, device="cpu", dtype=None, seed: int | None = None) -> torch.Tensor:
    """Random normal data for timing: never time on all-zero tensors (some hardware and
    kernels shortcut zeros)."""
    generator = torch.Generator(device="cpu")
    generator.manual_seed(torch.seed() if seed is None else seed)
    return torch.randn(*shape, generator=generator).to(device=device, dtype=dtype or torch.float32)


def matmul(size: int, device: str = "cpu", dtype: torch.dtype = torch.float32, **kwargs) -> Record:
    """Time one size x size matrix multiply; metrics['gflops'] = 2·n³ FLOPs / median time."""
    a = fresh_random(size, size, device=device, dtype=dtype)
    b = fresh_random(size, size, device=device, dtype=dtype)
    record = measure(lambda: a @ b, f"matmul {size}", params={"size": size, "device": str(device),
                                                                "dtype": str(dtype).replace("torch.", "")}, **kwargs)
    record.metrics["gflops"] = record.per_second(2 * size**3) / 1e9
    return record


# Streaming kernels that bound memory bandwidth (as in the STREAM benchmark): for each, the
# bytes counted per element. A copy into a fresh buffer also reads the destination into the
# cache before writing it (write-allocate), traffic the count leaves out, so on many CPUs a
# copy reads lower than an in-place update; the machine's bandwidth ceiling is the best of them.
BANDWIDTH_KERNELS = {"copy": 2, "scale": 2, "add": 3, "sum": 1}


def stream_bandwidth(numel: int, device: str = "cpu", dtype: torch.dtype = torch.float32, **kwargs) -> list[Record]:
    """The four streaming kernels (BANDWIDTH_KERNELS) over `numel` elements, one record each. The
    best GB/s among them is the device's bandwidth ceiling: a copy alone reads low on CPUs that
    read the destination before writing it (write-allocate; measured on an Intel Xeon: copy 23.8
    GB/s, in-place scale 57.8 GB/s), and in-place elementwise ops then exceed "the ceiling"."""
    return [copy_bandwidth(numel, device=device, dtype=dtype, kernel=kernel, **kwargs) for kernel in BANDWIDTH_KERNELS]


def copy_bandwidth(numel: int, device: str = "cpu", dtype: torch.dtype = torch.float32, kernel: str = "copy",
                   **kwargs) -> Record:
    """Time one streaming kernel over `numel` elements; metrics['gbs'] counts the bytes it
    reads + writes (BANDWIDTH_KERNELS): copy dst <- src, scale x *= s in place, add x += s·y in
    place, sum of x."""
    src = fresh_random(numel, device=device, dtype=dtype)
    other = fresh_random(numel, device=device, dtype=dtype) if kernel in ("copy", "add") else None
    work = {"copy": lambda: other.copy_(src), "scale": lambda: src.mul_(1.0000001),
            "add": lambda: src.add_(other, alpha=1e-7), "sum": lambda: src.sum()}[kernel]
    name = f"copy {numel}" if kernel == "copy" else f"bandwidth {kernel} {numel}"
    moved = BANDWIDTH_KERNELS[kernel] * numel * src.element_size()
    params = {"numel": numel, "device": str(device), "dtype": str(dtype).replace("torch.", ""), "kernel": kernel,
              "bytes": moved}
    record = measure(work, name, params=params, **kwargs)
    record.metrics["gbs"] = record.per_second(moved) / 1e9
    return record
