"""What every benchmark family shares: the run context, skipping, record helpers, and the
two habits that keep numbers honest on a shared machine: compared variants are measured
interleaved in rounds (A B C, A B C, ...), and every record carries its noise verdict."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import torch

from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.core import config


class Skip(Exception):
    """Raised by a family that cannot run here; the message says why (Bengali first)."""


@dataclass
class Context:
    """Where and how the suite runs; `log` writes a line to the screen and the raw log.

    ceilings: this machine's measured limits, filled by the suite before the other families
    run: {"matmul_gflops": {"fp32": ..., "bf16": ...}, "copy_gbs": ...}."""

    device: str
    mode: str
    log: object = print
    notes: list[str] = field(default_factory=list)
    threads: int = 1
    ceilings: dict = field(default_factory=dict)
    gpu_sizes: dict | None = None  # --mode gpu: sizes from this GPU's ceilings (benchmarks/budget.py)
    gpu_mode: bool = False  # --mode gpu: lab sizes elsewhere, nothing compiled

    @property
    def on_gpu(self) -> bool:
        return self.device == "cuda"

    def size(self, ci, lab, full=None):
        return config.by_mode(ci=ci, lab=lab, full=full)

    def sized(self, key: str, ci, lab, full=None):
        """A device-dependent size: GPU mode's (budget.sizes) where it set one, else by run mode."""
        if self.gpu_sizes and key in self.gpu_sizes:
            return self.gpu_sizes[key]
        return self.size(ci=ci, lab=lab, full=full)

    @property
    def compiles(self) -> bool:
        """Whether families measure torch.compile: not in ci (~10 s a graph on a CPU), not in GPU mode
        (a cold compile with Triton takes longer than the family measures; benchmarks/budget.py)."""
        return self.mode != "ci" and not self.gpu_mode

    @property
    def rounds(self) -> int:
        """Rounds of interleaved measurement: 5 outside ci, so the median of the per-round
        ratios is not decided by one disturbed round (with 3, the headline AMP speed-up of two
        quiet runs differed by 27%)."""
        return self.size(ci=2, lab=5, full=5)


def make_context(log=print) -> Context:
    return Context(device=hardware.best_device().type, mode=config.mode(), log=log,
                   threads=torch.get_num_threads())


def tag(records: list[bench.Record], family: str) -> list[bench.Record]:
    """Mark each record with its family (params['family']) and make sure it has provenance."""
    for record in records:
        record.params.setdefault("family", family)
        if not record.meta:
            record.meta = bench.meta()
    return records


def with_window_noise(record: bench.Record, window: noise.Window, threads: int | None = None) -> bench.Record:
    """Give a record measured in a loop (not through bench.measure) its noise information:
    the window's load, and the spread of its own per-step times."""
    if not record.noise:
        spread, repeats = noise.from_times(record.times_s)
        record.noise = window.assess(threads=threads or torch.get_num_threads(), spread=spread, repeats=repeats)
    return record


def from_times(name: str, times_s: list[float], params: dict, metrics: dict | None = None,
               info: dict | None = None) -> bench.Record:
    """A Record from per-step times measured inside a loop (first step left out as warm-up)."""
    times = times_s[1:] if len(times_s) > 2 else times_s
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [0.0, 0.0, 0.0]
    return bench.Record(name=name, median_s=statistics.median(times), iqr_s=q[2] - q[0], times_s=list(times),
                        params=dict(params), metrics=dict(metrics or {}), meta=bench.meta(), noise=dict(info or {}))


def sync(device: str) -> None:
    hardware.synchronize(device)


def timed_calls(fn, calls: int, device: str, threads: int | None = None) -> tuple[list[float], dict]:
    """(seconds of each of `calls` synchronised calls, noise information of the window)."""
    threads = threads or torch.get_num_threads()
    times = []
    with noise.Window() as window:
        for _ in range(calls):
            sync(device)
            start = time.perf_counter()
            fn()
            sync(device)
            times.append(time.perf_counter() - start)
    spread, repeats = noise.from_times(times)
    return times, window.assess(threads=threads, spread=spread, repeats=repeats)


def need(module: str, what: str):
    """Import fastrain_lib.<module> or Skip with a message naming what is missing."""
    import importlib

    try:
        return importlib.import_module(f"fastrain_lib.{module}")
    except ImportError as exc:
        raise Skip(f"fastrain_lib.{module} নেই ({what}) / fastrain_lib.{module} is missing ({what}): {exc}") from exc
