"""The capstone Bengali GPT (lesson 07): tokens/s and MFU for a short run in fp32 and in each
faster precision this device runs, with the fused optimizer (fastrain_lib.lessons.l07_capstone.capstone).

Each run trains from scratch (no checkpoint folder), so every number is measured in this call;
its MFU divides by hardware.peak and is logged as a flag, never a number, above 100%. The
full-mode batch is fitted to the device's memory (capstone.fit_batch)."""

from __future__ import annotations

from fastrain_lib.measure import bench, noise

from .common import Context, need, with_window_noise


def run(ctx: Context) -> list[bench.Record]:
    capstone = need("lessons.l07_capstone.capstone", "the capstone of lesson 07")
    precision = need("precision.amp", "AMP helpers of lesson 03")
    steps = ctx.size(ci=4, lab=15, full=200)
    records = []
    for mode in ("fp32", "bf16", "fp16"):
        if mode not in precision.supported(ctx.device):
            continue
        with noise.Window() as window:
            result = capstone.run(device=ctx.device, precision=mode, optimizer="fused", steps=steps,
                                  eval_every=steps, progress=False)
        record = with_window_noise(result.record(), window, ctx.threads)
        peak = f"{result.peak.flops / 1e12:.3g} TFLOP/s" if result.peak.flops else "?"
        ctx.log(f"capstone {mode}: {result.tokens_per_s:.0f} tokens/s, batch {result.settings['model']['batch_size']}, "
                f"MFU {capstone.mfu_text(result.mfu)} of {peak} ({result.peak.kind})")
        records.append(record)
    return records
