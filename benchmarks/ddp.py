"""Data-parallel scaling (lesson 05): the capstone GPT trained with DistributedDataParallel in
1, 2, ... processes (gloo on CPUs, NCCL with one GPU per process); tokens/s of all processes
together and the scaling efficiency against one process."""

from __future__ import annotations

import os

import torch

from fastrain_lib import bench

from .common import Context, need


def world_sizes(ctx: Context) -> list[int]:
    """1, 2, 4, ... up to the GPUs here (GPU) or the cores here (CPU), at most 8."""
    limit = torch.cuda.device_count() if ctx.on_gpu else (os.cpu_count() or 1)
    limit = min(limit, 8, ctx.size(ci=2, lab=4, full=8))
    sizes = [1]
    while sizes[-1] * 2 <= max(limit, 2):  # always try 2: on one core it shows why not
        sizes.append(sizes[-1] * 2)
    return sizes


def run(ctx: Context) -> list[bench.Record]:
    capstone = need("capstone", "the capstone of lesson 07")
    distributed = need("distributed", "the process launcher of lesson 05")
    launcher = distributed.launcher
    steps = ctx.size(ci=3, lab=30, full=100)
    records, base = [], None
    for n in world_sizes(ctx):
        result = capstone.run(device=ctx.device, processes=n, steps=steps, eval_every=steps, optimizer="foreach",
                              progress=False)
        record = result.record()
        record.name = f"ddp x{n}"
        # each of n processes gets cores // n threads (a single process keeps all of them)
        record.params["threads_per_process"] = torch.get_num_threads() if n == 1 else launcher.threads_per_rank(n)
        base = base or result.tokens_per_s
        record.metrics["scaling_efficiency"] = result.tokens_per_s / (n * base)
        ctx.log(f"ddp {n} processes: {result.tokens_per_s:.0f} tokens/s, "
                f"efficiency {100 * record.metrics['scaling_efficiency']:.0f}%")
        records.append(record)
    return records


