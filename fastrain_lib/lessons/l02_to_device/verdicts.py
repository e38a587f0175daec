"""Lesson 02's verdict rules: (catalog key, values) from what the lesson measured."""

from __future__ import annotations

from fastrain_lib.lessons.l02_to_device.transfer import PIN_STEPS
from fastrain_lib.measure import bench


def pin_verdict(records: list[bench.Record]) -> tuple[str, dict]:
    """(catalog key, values) for pin_cost's records: does pinning every batch pay here?"""
    by_name = {r.name: r for r in records}
    if "host copy" in by_name:
        r = by_name["host copy"]
        return "transfer.verdict_pin_cpu", {"mb": r.params["bytes"] / 1e6, "ms": r.metrics["ms"],
                                             "gbs": r.metrics["gbs"]}
    pageable, pin_only, both, pinned = (by_name[n].metrics["ms"] for n in PIN_STEPS)
    values = {"mb": records[0].params["bytes"] / 1e6, "pageable": pageable, "pin": pin_only, "both": both,
              "pinned": pinned, "saved": pageable - pinned}
    return ("transfer.verdict_pin_loses" if both > pageable else "transfer.verdict_pin_wins"), values


def pipeline_verdicts(pipeline: dict[int, dict], cores: int) -> list[tuple[str, dict]]:
    """(catalog key, values) for lesson 02's input-pipeline verdict, from wait_vs_compute results
    per num_workers ({0: ..., 1: ..., 2: ...}): is waiting for data the bottleneck with no workers,
    which worker count was fastest, and — when workers made training slower — why, from the
    measured step times. Measured here (2 cores): waiting fell from 91% to 33% with 2 workers,
    yet training ran at 0.76x, because the step itself grew from 1.31 to 13.63 ms."""
    import statistics

    def step_ms(w):
        return statistics.median(pipeline[w]["step_s"]) * 1e3 if pipeline[w]["step_s"] else float("nan")

    best = max((w for w in pipeline if w > 0), key=lambda w: pipeline[w]["steps_per_s"])
    ratio = pipeline[best]["steps_per_s"] / pipeline[0]["steps_per_s"]
    values = {"best": best, "share": pipeline[best]["wait_share"], "ratio": ratio}
    lines = [("lesson02.bottleneck_data" if pipeline[0]["wait_share"] > 0.5 else "lesson02.bottleneck_step", values)]
    if ratio < 1:
        slower_step = step_ms(best) > 1.2 * step_ms(0)
        lines.append(("lesson02.workers_took_cores" if slower_step else "lesson02.workers_cost_more",
                      {**values, "step0_ms": step_ms(0), "step_ms": step_ms(best), "cores": cores}))
    return lines
