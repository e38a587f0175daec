"""The "3× faster" ablation of lesson 04: fp32 -> +TF32 -> +AMP -> +fused AdamW -> +fused LayerNorm
-> +torch.compile on the tiny GPT; tokens/s, speed-up against the fp32 stage and MFU at each stage.

The stages (fastrain_lib.lessons.l04_fused_kernels.ablation.ablation_stages) are measured interleaved in rounds, and each
speed-up is the median of the per-round ratios. The compile stage is warmed up until nothing
recompiles: measured straight after one warm-up step it once read 0.26× (92 ms/step against
24 ms), because recompiling fell into the timed steps."""

from __future__ import annotations

from fastrain_lib.measure import bench, hardware

from . import ceilings, steps
from .common import Context, Skip, need


TF32_NONE = ("ablation tf32: এই GPU-তে TF32 টেনসর কোর নেই (Ampere, compute capability 8.0-র আগের), তাই allow_tf32 "
             "কিছুই বদলায় না: এই ধাপ আবার fp32 মাপত, তাই বাদ / this GPU has no TF32 tensor cores (before Ampere, "
             "compute capability 8.0), so allow_tf32 changes nothing: the stage would measure fp32 again, left out")


def run(ctx: Context) -> list[bench.Record]:
    ablation = need("lessons.l04_fused_kernels.ablation", "lesson 04's ablation")
    if not hasattr(ablation, "ablation_stages"):
        raise Skip("fastrain_lib.lessons.l04_fused_kernels.ablation.ablation_stages এখনও নেই (পাঠ ০৪) / fastrain_lib.lessons.l04_fused_kernels.ablation.ablation_stages is missing (lesson 04)")
    plan = ablation.ablation_stages(ctx.device, include_compile=ctx.compiles)  # compiling: not in ci or gpu mode
    if ctx.on_gpu and not hardware.has_tf32(hardware.facts(ctx.device)):
        # ablation_stages adds "tf32" on every CUDA GPU; on a T4/V100 it would be fp32 measured again
        ctx.log(TF32_NONE)
        plan = [stage for stage in plan if stage["stage"] != "tf32"]
    cfg = steps.gpt_config(ctx)
    variants = {}
    for settings in plan:
        extra = dict(settings, experiment=ablation.ABLATION_EXPERIMENT, n_layer=cfg["n_layer"], n_head=cfg["n_head"],
                     n_embd=cfg["n_embd"], block_size=cfg["block"], batch_size=cfg["batch"],
                     vocab_size=steps.VOCAB, claimed_speedup=ablation.CLAIMED_SPEEDUP)
        variants[settings["stage"]] = steps.build(
            ctx, f"ablation:{settings['stage']}", precision=settings["precision"], optimizer=settings["optimizer"],
            norm=settings["norm"], compile=settings["compile"], tf32=settings["tf32"], extra=extra)
    records = steps.measure(ctx, variants, baseline=plan[0]["stage"])
    for stage, record in records.items():
        variant = variants[stage]
        record.params.update(tokens_per_step=variant.tokens_per_step, flops_per_token=variant.flops_per_token)
        peak_gflops, source = peak_for(ctx, record)
        record.params["peak_source"] = source
        record.metrics.update(tflops=record.metrics["gflops"] / 1e3,
                              peak_tflops=peak_gflops / 1e3 if peak_gflops else None,
                              mfu=record.metrics["gflops"] / peak_gflops if peak_gflops else None)
        mfu = record.metrics["mfu"]
        ctx.log(f"ablation {stage}: {record.median_s * 1e3:.1f} ms/step, {record.metrics['speedup']:.2f}× "
                f"(rounds spread {100 * (record.metrics['speedup_spread'] or 0):.0f}%), "
                f"MFU {'?' if mfu is None else f'{100 * mfu:.2f}%'} [{record.noise.get('verdict')}]")
    return list(records.values())


def peak_for(ctx: Context, record: bench.Record) -> tuple[float | None, str]:
    """(GFLOP/s, where from) for MFU: a GPU's datasheet peak (what the course's MFU uses),
    else this run's measured matmul ceiling of the record's format."""
    if ctx.on_gpu:
        peak = hardware.peak(ctx.device, record.params.get("precision", "fp32"))
        return (peak.flops / 1e9 if peak.flops else None), peak.label
    peak = ceilings.peak_for(record, ctx.ceilings)
    return peak, f"measured matmul peak of this run ({ceilings.record_format(record)} or fp32, the better)"
