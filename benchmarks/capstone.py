"""The capstone Bengali GPT (lesson 07): tokens/s and MFU for a short run in fp32 and in each
faster precision this device runs, with the fused optimizer (fastrain_lib.capstone)."""

from __future__ import annotations

from fastrain_lib import bench

from .common import Context, need


def run(ctx: Context) -> list[bench.Record]:
    capstone = need("capstone", "the capstone of lesson 07")
    precision = need("precision", "AMP helpers of lesson 03")
    steps = ctx.size(ci=4, lab=15, full=200)
    records = []
    for mode in ("fp32", "bf16", "fp16"):
        if mode not in precision.supported(ctx.device):
            continue
        result = capstone.run(device=ctx.device, precision=mode, optimizer="fused", steps=steps,
                              eval_every=steps, progress=False)
        record = result.record()
        ctx.log(f"capstone {mode}: {result.tokens_per_s:.0f} tokens/s, MFU {100 * result.mfu:.2f}% "
                f"of {result.peak.flops / 1e12:.3g} TFLOP/s ({result.peak.kind})")
        records.append(record)
    return records
