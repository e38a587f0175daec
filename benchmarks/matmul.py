"""Matrix-multiply peak: GFLOP/s for each number format the device runs (lessons 00, 01, 03)."""

from __future__ import annotations

import torch

from fastrain_lib import bench

from .common import Context


def formats(device: str) -> list[tuple[str, torch.dtype, bool]]:
    """(label, dtype, allow TF32) to measure on this device."""
    if device == "cuda":
        return [("fp32", torch.float32, False), ("tf32", torch.float32, True),
                ("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)]
    return [("fp32", torch.float32, False), ("bf16", torch.bfloat16, False)]


def run(ctx: Context) -> list[bench.Record]:
    sizes = ctx.size(ci=[128], lab=[256, 512, 1024], full=[1024, 4096, 8192])
    records = []
    for label, dtype, allow_tf32 in formats(ctx.device):
        previous = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = allow_tf32  # fp32 really means fp32 unless asked
        try:
            for size in sizes:
                record = bench.matmul(size, device=ctx.device, dtype=dtype)
                record.params["format"] = label
                record.name = f"matmul {label} {size}"
                ctx.log(f"matmul {label} {size}: {record.metrics['gflops']:.1f} GFLOP/s")
                records.append(record)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = previous
    return records
