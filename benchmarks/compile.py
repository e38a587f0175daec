"""torch.compile: the tiny GPT's training step eager vs compiled, with the one-off compile
time reported apart from the step time (lesson 04)."""

from __future__ import annotations

import torch

from fastrain_lib import bench

from .amp import gpt_setup, steps
from .common import Context, Skip, need


def run(ctx: Context) -> list[bench.Record]:
    train = need("train", "the training loop")
    if ctx.mode == "ci":
        raise Skip("ci মোডে compile মাপা হয় না (প্রথম কম্পাইলে ~10 সেকেন্ড) / not measured in ci mode "
                   "(the first compile takes ~10 s)")
    records = []
    for compiled in (False, True):
        model, batches, tokens, cfg = gpt_setup(ctx)
        torch.manual_seed(0)
        history = train.train(model, batches, steps=steps(ctx) + 1, device=ctx.device, compile=compiled,
                              progress=False)
        record = history.to_record(f"gpt step {'compiled' if compiled else 'eager'}",
                                   params={"compile": compiled, "model": "gpt", **cfg})
        record.metrics["tokens_per_s"] = tokens / record.median_s
        ctx.log(f"compile={compiled}: {record.median_s * 1e3:.1f} ms/step"
                + (f", compile {history.compile_s:.1f} s" if compiled else ""))
        records.append(record)
    return records



