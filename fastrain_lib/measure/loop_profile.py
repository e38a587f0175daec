"""What torch.profiler saw in this process while a training loop ran: reads of one number to the
CPU (.item()), top-level operator calls, samples loaded here and the time inside DataLoader next().

Used by lesson 02 (its input pipeline and exercise 4) and by launches.op_ms_per_call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

LOAD_SAMPLE = "fastrain::load_sample"  # a dataset marks each sample it loads with this name
NEXT_BATCH = "enumerate(DataLoader)#"  # the DataLoader marks each next() with this prefix


@dataclass
class LoopProfile:
    """What torch.profiler saw in this process while a training loop ran.

    item_calls      reads of one number to the CPU (aten::_local_scalar_dense: .item(), int(t), float(t))
    ops             top-level aten operator calls (each a kernel launch on a GPU)
    samples_here    samples loaded in this process (LOAD_SAMPLE marks); 0 when workers load them
    data_s          seconds inside the DataLoader's next() (waiting for or making the batch)
    total_s         seconds of the whole profiled call
    table           (name, calls, total ms) rows, the busiest first"""

    item_calls: int
    ops: int
    samples_here: int
    data_s: float
    total_s: float
    table: list

    @property
    def data_share(self) -> float:
        return self.data_s / self.total_s if self.total_s > 0 else float("nan")


def profile_loop(fn, *args, rows: int = 12, **kwargs) -> tuple[object, LoopProfile]:
    """Run fn(*args, **kwargs) once under torch.profiler (CPU activity; on a GPU the kernels'
    launches still show as aten ops). Returns (fn's result, LoopProfile)."""
    import os
    from collections import defaultdict

    from torch.profiler import ProfilerActivity, profile

    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # keep Kineto's start/stop lines off the notebook
    start = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        result = fn(*args, **kwargs)
    total = time.perf_counter() - start
    items = ops = samples = 0
    data_us = 0.0
    counts: dict[str, int] = defaultdict(int)
    times: dict[str, float] = defaultdict(float)
    for event in prof.events():
        name = event.name
        if name == LOAD_SAMPLE or name.startswith(NEXT_BATCH):
            if name == LOAD_SAMPLE:
                samples += 1
                label = name
            else:
                data_us += event.cpu_time_total
                label = "DataLoader next()"
            counts[label] += 1
            times[label] += event.cpu_time_total / 1e3
            continue
        if _loading(event):
            continue  # making the batch: counted as samples and data time, not as the step's ops
        if name == "aten::_local_scalar_dense":
            items += 1
        if name.startswith("aten::") and (event.cpu_parent is None or not event.cpu_parent.name.startswith("aten::")):
            ops += 1
            counts[name] += 1
            times[name] += event.cpu_time_total / 1e3
    table = sorted(((n, counts[n], times[n]) for n in counts), key=lambda row: -row[2])[:rows]
    return result, LoopProfile(items, ops, samples, data_us / 1e6, total, table)


def _loading(event) -> bool:
    """True for an op run while making a batch (inside a DataLoader next() or a sample's load)."""
    parent = event.cpu_parent
    while parent is not None:
        if parent.name == LOAD_SAMPLE or parent.name.startswith(NEXT_BATCH):
            return True
        parent = parent.cpu_parent
    return False
