"""Data-parallel scaling (lesson 05): the capstone GPT trained with DistributedDataParallel in
1, 2, ... processes (gloo on CPUs, NCCL with one GPU per process); tokens/s of all processes
together and the scaling efficiency against one process.

On a GPU machine only as many processes as GPUs are measured: two processes sharing one GPU
is not data-parallel scaling (NCCL refuses it; gloo would time-slice one GPU), so a machine
with one GPU skips this family with that reason (hardware.backend_for says which backend a
world size gets). On a CPU more processes than cores still run — slowly — and say so."""

from __future__ import annotations

import os

from fastrain_lib.measure import bench, hardware, noise

from .common import Context, Skip, need, with_window_noise


def world_sizes(ctx: Context, gpus: int | None = None, cores: int | None = None) -> list[int]:
    """1, 2, 4, ... up to the GPUs here (GPU) or the cores here (CPU), at most 8 (ci: 2, lab: 4)."""
    cap = ctx.size(ci=2, lab=4, full=8)
    if ctx.on_gpu:
        limit = min(hardware.gpu_count() if gpus is None else gpus, 8, cap)
        if limit < 2:
            return [1]
    else:
        limit = max(min(cores or os.cpu_count() or 1, 8, cap), 2)  # always try 2: on one core it shows why not
    sizes = [1]
    while sizes[-1] * 2 <= limit:
        sizes.append(sizes[-1] * 2)
    return sizes


def run(ctx: Context) -> list[bench.Record]:
    capstone = need("lessons.l07_capstone.capstone", "the capstone of lesson 07")
    sizes = world_sizes(ctx)
    if ctx.on_gpu and len(sizes) < 2:
        raise Skip("এখানে GPU মাত্র একটি: একই GPU-তে ২টি প্রসেস DDP স্কেলিং নয় / only one GPU here: two processes "
                   "on one GPU are not data-parallel scaling (needs ≥ 2 GPUs, NCCL)")
    steps = ctx.size(ci=3, lab=30, full=100)
    records, base = [], None
    facts = hardware.facts(ctx.device)
    for n in sizes:
        with noise.Window() as window:
            result = capstone.run(device=ctx.device, processes=n, steps=steps, eval_every=steps,
                                  optimizer="foreach", progress=False)
        record = result.record()
        record.name = f"ddp x{n}"
        threads = hardware.threads_for(local_processes=n)
        record.params.update(threads_per_process=threads, processes=n,
                             backend=hardware.backend_for(n, ctx.on_gpu, facts),
                             oversubscribed=(not ctx.on_gpu and n > (os.cpu_count() or 1)))
        with_window_noise(record, window, threads=threads * n)
        base = base or result.tokens_per_s
        record.metrics["scaling_efficiency"] = result.tokens_per_s / (n * base)
        ctx.log(f"ddp {n} processes ({record.params['backend']}, {threads} threads each): "
                f"{result.tokens_per_s:.0f} tokens/s, efficiency {100 * record.metrics['scaling_efficiency']:.0f}%"
                + (" — more processes than cores" if record.params["oversubscribed"] else "")
                + f" [{record.noise.get('verdict')}]")
        records.append(record)
    return records
