"""torch.compile: the tiny GPT's training step eager vs compiled (lesson 04), measured
interleaved in rounds after the compiled model was warmed up until nothing recompiles.
The one-off compile time (metrics['compile_s']) and the number of graphs compiled
(compiles, recompiles, recompiles_timed — from torch._dynamo's counters) are recorded
apart from the step time."""

from __future__ import annotations

from fastrain_lib.measure import bench

from . import steps
from .common import Context


def run(ctx: Context) -> list[bench.Record]:
    variants = {"eager": steps.build(ctx, "gpt step eager"),
                "compiled": steps.build(ctx, "gpt step compiled", compile=True)}
    records = steps.measure(ctx, variants, baseline="eager")
    for record in records.values():
        ctx.log(f"{record.name}: {record.median_s * 1e3:.1f} ms/step, {record.metrics['speedup']:.2f}× vs eager"
                + (f", compile {record.metrics['compile_s']:.1f} s, {record.metrics['compiles']} graphs, "
                   f"{record.metrics['recompiles']} recompiles in warm-up, {record.metrics['recompiles_timed']} while timed"
                   if record.params["compile"] else "") + f" [{record.noise.get('verdict')}]")
    return list(records.values())
