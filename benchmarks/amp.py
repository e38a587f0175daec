"""Mixed precision: training steps/s of the tiny GPT in fp32, tf32, fp16 (+GradScaler) and bf16,
each where it can run on this device (lesson 03). The precisions are measured interleaved in
rounds; speed-ups are against fp32 (TF32 off)."""

from __future__ import annotations

from fastrain_lib.measure import bench, hardware

from . import steps
from .common import Context, Skip, need


def tf32_missing(ctx: Context, f=None) -> str | None:
    """Why there is no tf32 record here (bn / en), or None where TF32 exists (Ampere and newer).
    On a CPU, a T4 or a V100 allow_tf32 changes nothing: a "tf32" record would be fp32 again."""
    if not ctx.on_gpu:
        return "CPU-তে TF32 নেই, এটি আবার fp32 হতো: বাদ / a CPU has no TF32, it would be fp32 again: skipped"
    f = f or hardware.facts(ctx.device)
    if hardware.has_tf32(f):
        return None
    major, minor = f.capability or (0, 0)
    return (f"{f.name} (compute capability {major}.{minor})-এ TF32 টেনসর কোর নেই (Ampere, 8.0 থেকে), তাই "
            f"allow_tf32 কিছুই বদলায় না: tf32 রেকর্ড আবার fp32 হতো, বাদ / {f.name} (compute capability "
            f"{major}.{minor}) has no TF32 tensor cores (Ampere, 8.0 and newer), so allow_tf32 changes nothing: "
            f"a tf32 record would be fp32 measured again, left out")


def run(ctx: Context) -> list[bench.Record]:
    precision = need("precision.amp", "AMP helpers of lesson 03")
    variants = {}
    for mode in precision.PRECISIONS:
        try:
            precision.check_precision(ctx.device, mode)
        except ValueError as exc:
            ctx.log(f"amp {mode}: cannot run here: {exc}")
            continue
        reason = tf32_missing(ctx) if mode == "tf32" else None
        if reason:
            ctx.log(f"amp tf32: {reason}")
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
