"""ZeRO and FSDP on 2 real processes (lesson 05c): the lesson's own workers (fastrain_lib.distributed.zero,
launched as lesson 05c's table launches them: gloo on CPUs, one thread each) at the lesson's width. One record
per strategy (DDP, ZeRO-1, ZeRO-2, ZeRO-3/FSDP2): its median is the slowest rank's step time, its metrics the
bytes each rank holds, the formula's total, the bytes one step communicates and the largest difference from
one process's training. A lesson on a busy PC, whose own steps are noisy, shows these rows beside its own."""

from __future__ import annotations

from fastrain_lib.measure import bench

from .common import Context, need


def run(ctx: Context) -> list[bench.Record]:
    lesson05c = need("lessons.l05c_sharding_and_pipelines.panel", "lesson 05c's ZeRO table")
    width = ctx.size(ci=128, lab=256, full=256)  # the lesson's WIDTH in each mode: its rows match this run's
    rows = lesson05c.zero_table(lesson05c.zero_runs(2, width, per_item=False))
    records = []
    for r in rows:
        records.append(bench.Record(
            name=f"zero {r['strategy']}", median_s=r["step_s"], times_s=list(r["times"]),
            params={"strategy": r["strategy"], "stage": r["stage"], "processes": r["world_size"], "width": width,
                    "device": r["device"], "backend": r["backend"], "n_params": r["n_params"]},
            metrics={"params_bytes": r["params_bytes"], "grads_bytes": r["grads_bytes"], "optim_bytes": r["optim_bytes"],
                     "formula_bytes": r["formula"]["total"], "payload_bytes": r["payload"],
                     "max_error": r["max_error"]},
            meta=bench.meta(), noise=dict(r["noise"])))
        ctx.log(f"zero {r['strategy']} (2 processes, {r['backend']}, width {width}): step "
                f"{r['step_s'] * 1e3:.1f} ms [{r['noise'].get('verdict')}]")
    return records
