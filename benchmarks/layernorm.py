"""LayerNorm forward + backward: naive composite vs nn.LayerNorm vs naive under torch.compile
vs Apex FusedLayerNorm (lesson 04)."""

from __future__ import annotations

from fastrain_lib import bench

from .common import Context, need


def run(ctx: Context) -> list[bench.Record]:
    fused = need("fused", "LayerNorm implementations of lesson 04")
    rows, dim = ctx.size(ci=(256, 64), lab=(8192, 512), full=(65536, 1024))
    records = []
    for impl in fused.NORM_IMPLS:
        if impl == "apex" and not fused.apex_status().fused_layer_norm:
            ctx.log("layernorm apex: FusedLayerNorm is not built here (apex_status), skipped")
            continue
        if impl == "naive_compiled" and ctx.mode == "ci":
            ctx.log("layernorm naive_compiled: skipped in ci mode (compiling takes ~10 s)")
            continue
        norm = fused.make_layernorm(dim, impl).to(ctx.device)
        x = bench.fresh_random(rows, dim, device=ctx.device, seed=1).requires_grad_(True)
        grad = bench.fresh_random(rows, dim, device=ctx.device, seed=2)

        def step(norm=norm, x=x, grad=grad):
            norm(x).backward(grad)

        compile_s = bench.time_once(step) if impl == "naive_compiled" else None  # the first call compiles
        record = bench.measure(step, f"layernorm {impl}", params={"impl": impl, "rows": rows, "dim": dim,
                                                                  "device": ctx.device})
        if compile_s is not None:
            record.metrics["compile_s"] = compile_s
        # forward reads x, writes y; backward reads x, dy, writes dx: >= 5 tensors of rows x dim
        record.metrics["gbs"] = record.per_second(5 * 4 * rows * dim) / 1e9
        ctx.log(f"layernorm {impl}: {record.median_s * 1e3:.2f} ms (fwd+bwd)")
        records.append(record)
    return records
