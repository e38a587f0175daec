"""The "3× faster" ablation of lesson 04: fp32 -> +TF32 -> +AMP -> +fused AdamW -> +fused LayerNorm
-> +torch.compile on the tiny GPT, tokens/s and MFU at each stage (fastrain_lib.fused.ablation)."""

from __future__ import annotations

import inspect

from fastrain_lib import bench

from .common import Context, Skip, need


def run(ctx: Context) -> list[bench.Record]:
    fused = need("fused", "lesson 04's ablation")
    ablation = getattr(fused, "ablation", None)
    if ablation is None:
        raise Skip("fastrain_lib.fused.ablation এখনও নেই (পাঠ ০৪) / fastrain_lib.fused.ablation is not there yet (lesson 04)")
    accepted = inspect.signature(ablation).parameters
    kwargs = {"device": ctx.device} if "device" in accepted else {}
    if "include_compile" in accepted and ctx.mode == "ci":
        kwargs["include_compile"] = False  # compiling takes ~10 s: not in the ci smoke run
    if "progress" in accepted:
        kwargs["progress"] = False
    records = list(ablation(**kwargs))
    for record in records:
        metrics = ", ".join(f"{k}={v:.4g}" for k, v in record.metrics.items() if isinstance(v, float))
        ctx.log(f"ablation {record.name}: {record.median_s * 1e3:.1f} ms/step {metrics}")
    return records
