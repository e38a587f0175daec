"""Mixed precision: training steps/s of the tiny GPT in fp32, tf32, fp16 (+GradScaler) and bf16,
each where it can run on this device (lesson 03)."""

from __future__ import annotations

import torch

from fastrain_lib import bench

from .common import Context, Skip, need


def gpt_setup(ctx: Context, *, norm: str = "torch"):
    """(model, batches, tokens per step) of the tiny GPT on random tokens, sized by run mode."""
    gpt = need("gpt", "the tiny GPT of lesson 04")
    train = need("train", "the training loop")
    cfg = ctx.size(ci={"n_layer": 1, "n_head": 2, "n_embd": 32, "block": 32, "batch": 4},
                   lab={"n_layer": 2, "n_head": 4, "n_embd": 128, "block": 64, "batch": 16},
                   full={"n_layer": 12, "n_head": 12, "n_embd": 768, "block": 1024, "batch": 16})
    vocab = 256
    model = gpt.GPT(vocab, cfg["block"], cfg["n_layer"], cfg["n_head"], cfg["n_embd"], norm=norm)
    n = 8 * cfg["batch"]
    tokens = torch.randint(0, vocab, (n, cfg["block"] + 1), generator=torch.Generator().manual_seed(0))
    batches = train.TensorBatches(tokens[:, :-1], tokens[:, 1:], cfg["batch"], seed=0)
    return model, batches, cfg["batch"] * cfg["block"], cfg


def steps(ctx: Context) -> int:
    return ctx.size(ci=3, lab=10, full=50)


def run(ctx: Context) -> list[bench.Record]:
    precision = need("precision", "AMP helpers of lesson 03")
    train = need("train", "the training loop")
    records = []
    for mode in precision.PRECISIONS:
        try:
            precision.check_precision(ctx.device, mode)
        except ValueError as exc:
            ctx.log(f"amp {mode}: cannot run here: {exc}")
            continue
        model, batches, tokens, cfg = gpt_setup(ctx)
        torch.manual_seed(0)
        history = train.train(model, batches, steps=steps(ctx), device=ctx.device, precision=mode, progress=False)
        record = history.to_record(f"amp {mode}", params={"model": "gpt", **cfg})
        record.metrics["tokens_per_s"] = tokens / record.median_s
        ctx.log(f"amp {mode}: {record.median_s * 1e3:.1f} ms/step, {record.metrics['tokens_per_s']:.0f} tokens/s")
        records.append(record)
    if not records:
        raise Skip("কোনো precision এখানে চলেনি / no precision mode could run here")
    return records
