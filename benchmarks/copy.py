"""Memory bandwidth: four streaming kernels on the device (copy, in-place scale, in-place add,
sum; bytes read + written per second), and on a GPU host-to-device copies from pageable and
pinned memory (lessons 01, 02).

The best of the four is this machine's bandwidth ceiling (benchmarks/ceilings.py): a copy
alone under-reads it on CPUs that read the destination before writing it (write-allocate),
and an AdamW step, which updates in place, then showed 167% of "the ceiling"."""

from __future__ import annotations

import torch

from fastrain_lib.measure import bench

from .common import Context


def run(ctx: Context) -> list[bench.Record]:
    numel = ctx.sized("copy_numel", ci=1 << 18, lab=1 << 24, full=1 << 28)
    records = bench.stream_bandwidth(numel, device=ctx.device)
    for record in records:
        ctx.log(f"{record.params['kernel']} on {ctx.device}, {numel} floats: {record.metrics['gbs']:.1f} GB/s "
                f"[{record.noise.get('verdict')}]")
    if ctx.on_gpu:
        for pinned in (False, True):
            src = bench.fresh_random(numel).pin_memory() if pinned else bench.fresh_random(numel)
            dst = torch.empty(numel, device="cuda")
            r = bench.measure(lambda dst=dst, src=src, pinned=pinned: dst.copy_(src, non_blocking=pinned),
                              f"host->cuda {numel}", params={"numel": numel, "pinned": pinned, "device": "cuda"})
            r.metrics["gbs"] = r.per_second(src.numel() * src.element_size()) / 1e9
            ctx.log(f"host->cuda pinned={pinned}: {r.metrics['gbs']:.1f} GB/s")
            records.append(r)
    return records
