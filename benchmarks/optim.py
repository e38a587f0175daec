"""Adam(W) optimizer step: for-loop vs foreach vs fused vs Apex FusedAdam, on the parameter
tensors of a small transformer with random gradients (lesson 04). The implementations are
measured interleaved in rounds; speed-ups are against the for-loop."""

from __future__ import annotations

import torch

from fastrain_lib.measure import bench

from . import interleave
from .common import Context, need


def transformer_shapes(n_layer: int, d: int, vocab: int = 256) -> list[tuple[int, ...]]:
    """The parameter shapes of a GPT block stack: many small tensors, as in real models."""
    block = [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,)]
    return [(vocab, d), (1024, d)] + block * n_layer + [(d,), (d,)]


def round_time(ctx: Context) -> float:
    """Seconds of measuring per variant and round (0.3 s in lab mode: 0.15 s gave the naive
    LayerNorm, 35 ms a call, four calls a round)."""
    return ctx.size(ci=0.02, lab=0.3, full=0.5)


def micro_rounds(ctx: Context) -> int:
    """Rounds for the short optimizer and LayerNorm measurements: 9 outside ci. On a 2-core VM
    nn.LayerNorm's time sat at 3.5 ms for some rounds and 5–6 ms for others (other load 0.05
    cores): with 9 short rounds the median is decided by the common case."""
    return ctx.size(ci=2, lab=9, full=9)


def run(ctx: Context) -> list[bench.Record]:
    apex = need("fused.apex", "optimizer implementations of lesson 04")
    optimizers = need("fused.optimizers", "optimizer implementations of lesson 04")
    n_layer, d = ctx.sized("optim", ci=(2, 64), lab=(6, 256), full=(24, 1024))
    shapes = transformer_shapes(n_layer, d)
    variants = {}
    for impl in optimizers.OPTIMIZER_IMPLS:
        if impl == "apex" and not (apex.apex_status().fused_adam and ctx.on_gpu):
            ctx.log("optim apex: NVIDIA Apex FusedAdam is not built here (apex_status), skipped")
            continue
        params = [torch.nn.Parameter(bench.fresh_random(*s, device=ctx.device, seed=i)) for i, s in enumerate(shapes)]
        for p in params:
            p.grad = bench.fresh_random(*p.shape, device=ctx.device) * 1e-3
        try:
            opt = optimizers.make_optimizer(params, impl, lr=1e-3)
        except (RuntimeError, ValueError) as exc:  # e.g. fused=True unsupported on this device/torch
            ctx.log(f"optim {impl}: cannot run here: {exc}")
            continue
        numel, n_tensors = sum(p.numel() for p in params), len(params)
        variants[impl] = (lambda opt=opt, impl=impl, n=n_tensors, numel=numel: bench.measure(
            opt.step, f"adamw {impl}", min_run_time=round_time(ctx),
            params={"impl": impl, "tensors": n, "numel": numel, "device": ctx.device}))
    baseline = "forloop" if "forloop" in variants else next(iter(variants), None)
    records = list(interleave.run(variants, micro_rounds(ctx), baseline=baseline, log=ctx.log).values())
    for record in records:
        # an Adam step reads p, g, m, v and writes p, m, v: ~7 float32 values per parameter
        record.metrics["gbs"] = record.per_second(7 * 4 * record.params["numel"]) / 1e9
        ctx.log(f"optim {record.params['impl']}: {record.median_s * 1e3:.2f} ms/step, "
                f"{record.metrics['speedup']:.2f}× vs {baseline} "
                f"(rounds spread {100 * (record.metrics['speedup_spread'] or 0):.0f}%) [{record.noise.get('verdict')}]")
    return records
