"""Matrix-multiply peak: GFLOP/s for each number format the device runs (lessons 00, 01, 03).

The best GFLOP/s of each format is this machine's compute ceiling for that format
(benchmarks/ceilings.py); the suite runs this family first."""

from __future__ import annotations

import torch

from fastrain_lib.measure import bench, hardware
from fastrain_lib.precision import amp as precision

from .common import Context

SLOW_CALL_S = 0.1  # slower than this per call (< ~3 GFLOP/s at 512: emulated, e.g. bf16/fp16 on most CPUs): no bigger sizes


def formats(device: str, tf32: bool | None = None) -> list[tuple[str, torch.dtype, bool]]:
    """(label, dtype, allow TF32) to measure on this device. A CPU runs bf16 and fp16 autocast
    (the amp family uses them), so their peaks are measured too, even where they are emulated.
    "tf32" only on a GPU with TF32 tensor cores (hardware.has_tf32): on a T4 or V100 allow_tf32
    changes nothing, and a "tf32" row would be fp32 measured again under another name."""
    if device == "cuda":
        tf32 = hardware.has_tf32(hardware.facts("cuda")) if tf32 is None else tf32
        return [("fp32", torch.float32, False)] + ([("tf32", torch.float32, True)] if tf32 else []) + \
               [("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)]
    return [("fp32", torch.float32, False), ("bf16", torch.bfloat16, False), ("fp16", torch.float16, False)]


def run(ctx: Context) -> list[bench.Record]:
    sizes = ctx.sized("matmul", ci=[128], lab=[256, 512, 1024], full=[1024, 4096, 8192])
    records = []
    for label, dtype, allow_tf32 in formats(ctx.device):
        with precision.tf32(allow_tf32):  # fp32 really means fp32 unless asked
            for size in sizes:
                record = bench.matmul(size, device=ctx.device, dtype=dtype)
                record.params["format"] = label
                record.name = f"matmul {label} {size}"
                ctx.log(f"matmul {label} {size}: {record.metrics['gflops']:.1f} GFLOP/s "
                        f"[{record.noise.get('verdict')}]")
                records.append(record)
                if record.median_s > SLOW_CALL_S and size != sizes[-1]:
                    ctx.log(f"matmul {label}: {record.median_s:.2f} s per call at {size}: larger sizes skipped")
                    break
    return records
