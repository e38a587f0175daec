"""All-reduce cost (lesson 05b): the α–β model of dist.all_reduce on p real processes (gloo, float32 tensors in
CPU memory, one thread each: what the lesson measures), fitted by the lesson's own code
(fastrain_lib.distributed.cost_model) on message sizes from 4 KB to 16 MB.

One record per process count: its median is the measured time of one 1 MiB all-reduce, its metrics the fit
(alpha_s: seconds per message, beta_s_per_byte: seconds per byte over one link, bandwidth_gbs = 1/β, and
max_fit_error: the largest |model − measured| ÷ measured over the fitted sizes). A lesson on a busy PC, whose
own fit is noisy, shows these beside it, labelled with the hardware they were measured on."""

from __future__ import annotations

import os

from fastrain_lib.distributed import cost_model
from fastrain_lib.measure import bench, noise

from .common import Context

HEADLINE_BYTES = 1_048_576  # the record's median: one 1 MiB all-reduce


def world_sizes(ctx: Context, cores: int | None = None) -> list[int]:
    """2, and 4 where the cores allow it (lab, full): the ring's 2(p−1) messages show in α only from p = 3 on."""
    cores = cores or os.cpu_count() or 1
    return [2] + ([4] if cores >= 4 and ctx.mode != "ci" else [])


def sizes(ctx: Context) -> list[int]:
    return ctx.size(ci=[4_096, 65_536, HEADLINE_BYTES],
                    lab=[4_096, 32_768, 262_144, HEADLINE_BYTES, 4_194_304, 16_777_216])


def run(ctx: Context) -> list[bench.Record]:
    records = []
    for processes in world_sizes(ctx):
        with noise.Window() as window:
            points = cost_model.measure_allreduce(processes, sizes(ctx), repeats=ctx.size(ci=5, lab=15, full=25),
                                                  backend="gloo", threads=1)
        fit = cost_model.fit(points, processes)
        record = bench.Record(
            name=f"allreduce p={processes}", median_s=dict(points)[HEADLINE_BYTES], times_s=[s for _, s in points],
            params={"processes": processes, "backend": "gloo", "device": "cpu", "nbytes": HEADLINE_BYTES,
                    "sizes_bytes": [n for n, _ in points], "threads_per_process": 1},
            metrics={"alpha_s": fit.alpha_s, "beta_s_per_byte": fit.beta_s_per_byte,
                     "bandwidth_gbs": None if fit.beta_s_per_byte == 0 else fit.bandwidth_bytes_per_s / 1e9,
                     "max_fit_error": max(fit.relative_errors())},
            meta=bench.meta())
        # the times are one per size, not repeats of one thing: their spread is no noise, the window's load is
        record.noise = window.assess(threads=processes)
        ctx.log(f"allreduce p={processes} (gloo, 1 thread each): α = {fit.alpha_s * 1e6:.1f} µs, "
                f"1/β = {fit.bandwidth_bytes_per_s / 1e9:.3g} GB/s, 1 MiB in {record.median_s * 1e3:.2f} ms "
                f"[{record.noise.get('verdict')}]")
        records.append(record)
    return records
