"""Mixed precision: training steps/s of the tiny GPT in fp32, tf32, fp16 (+GradScaler) and bf16,
each where it can run on this device (lesson 03). The precisions are measured interleaved in
rounds; speed-ups are against fp32 (TF32 off)."""

from __future__ import annotations

from fastrain_lib.measure import bench

from . import steps
from .common import Context, Skip, need


def run(ctx: Context) -> list[bench.Record]:
    precision = need("precision.amp", "AMP helpers of lesson 03")
    variants = {}
    for mode in precision.PRECISIONS:
        try:
            precision.check_precision(ctx.device, mode)
        except ValueError as exc:
            ctx.log(f"amp {mode}: cannot run here: {exc}")
            continue
        if mode == "tf32" and not ctx.on_gpu:
            ctx.log("amp tf32: a CPU has no TF32, it would be fp32 again: skipped")
            continue
        variants[mode] = steps.build(ctx, f"amp {mode}", precision="fp32" if mode == "tf32" else mode,
                                     tf32=mode == "tf32")
    if not variants:
        raise Skip("কোনো precision এখানে চলেনি / no precision mode could run here")
    records = steps.measure(ctx, variants, baseline="fp32" if "fp32" in variants else next(iter(variants)))
    for mode, record in records.items():
        record.params["precision"] = mode
        ctx.log(f"amp {mode}: {record.median_s * 1e3:.1f} ms/step, {record.metrics['tokens_per_s']:.0f} tokens/s, "
                f"{record.metrics['speedup']:.2f}× vs fp32 [{record.noise.get('verdict')}]")
    return list(records.values())
