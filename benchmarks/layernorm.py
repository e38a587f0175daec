"""LayerNorm forward + backward: naive composite vs nn.LayerNorm vs naive under torch.compile
vs Apex FusedLayerNorm (lesson 04). Measured interleaved in rounds; speed-ups against
nn.LayerNorm. The compiled variant is warmed up until nothing recompiles."""

from __future__ import annotations

from fastrain_lib.measure import bench

from . import interleave
from .common import Context, need
from .optim import micro_rounds, round_time
from .steps import mark_recompiles


def run(ctx: Context) -> list[bench.Record]:
    apex = need("fused.apex", "LayerNorm implementations of lesson 04")
    layernorm = need("fused.layernorm", "LayerNorm implementations of lesson 04")
    rows, dim = ctx.size(ci=(256, 64), lab=(8192, 512), full=(65536, 1024))
    variants, warm = {}, {}
    for impl in layernorm.NORM_IMPLS:
        if impl == "apex" and not apex.apex_status().fused_layer_norm:
            ctx.log("layernorm apex: FusedLayerNorm is not built here (apex_status), skipped")
            continue
        if impl == "naive_compiled" and not ctx.compiles:
            ctx.log("layernorm naive_compiled: not in ci or gpu mode (compiling takes longer than the family)")
            continue
        norm = layernorm.make_layernorm(dim, impl).to(ctx.device)
        x = bench.fresh_random(rows, dim, device=ctx.device, seed=1).requires_grad_(True)
        grad = bench.fresh_random(rows, dim, device=ctx.device, seed=2)

        def step(norm=norm, x=x, grad=grad):
            norm(x).backward(grad)

        if impl == "naive_compiled":  # compile now, apart from the timing, until nothing recompiles
            warm[impl] = bench.warm_until_compiled(step, device=ctx.device)
        for _ in range(3):  # first calls allocate and fault in memory: the first round read 5.7 ms, later 3.5
            step()
        variants[impl] = (lambda step=step, impl=impl: bench.measure(
            step, f"layernorm {impl}", min_run_time=round_time(ctx),
            params={"impl": impl, "rows": rows, "dim": dim, "device": ctx.device}))
    before = bench.graphs_compiled()
    records = interleave.run(variants, micro_rounds(ctx), baseline="torch" if "torch" in variants else None, log=ctx.log)
    recompiled = bench.graphs_compiled() - before
    for impl, record in records.items():
        record.metrics.update(warm.get(impl, {}))
        if impl in warm:
            mark_recompiles(record, recompiled)
        # forward reads x, writes y; backward reads x, dy, writes dx: >= 5 tensors of rows x dim
        record.metrics["gbs"] = record.per_second(5 * 4 * rows * dim) / 1e9
        ctx.log(f"layernorm {impl}: {record.median_s * 1e3:.2f} ms (fwd+bwd) [{record.noise.get('verdict')}]")
    return list(records.values())
