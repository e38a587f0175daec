"""What a busy run of lesson 05b's bucket sweep can still say: the ratios of steps its worker timed in the same
interleaved rounds (measured.busy_ratio). The milliseconds stay noisy; a ratio is stated when its rounds agree."""

from __future__ import annotations

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import measured


def _step(row: dict, ours: bool) -> tuple[list[float], str]:
    """A sweep row's per-round times (ours or DDP's) and the step's name."""
    if ours:
        return row.get("rounds_ours") or [], t("lesson05b.busy_ours_step", cap=row["bucket_cap_mb"], n=row["ours_buckets"])
    return row.get("rounds_ddp") or [], t("lesson05b.busy_cap_step", cap=row["bucket_cap_mb"], n=row["buckets"])


def sweep_busy(rows: list[dict], many: dict) -> list[tuple[str, dict, dict]]:
    """(key, values, noise) of each ratio a noisy sweep's interleaved rounds make usable (interleaved_info):
    the smallest cap's DDP step ÷ the largest cap's, and our step ÷ DDP's in `many` (the most buckets)."""
    small, large = (f(rows, key=lambda r: r["bucket_cap_mb"]) for f in (min, max))
    out = []
    for top, bottom in (((small, False), (large, False)), ((many, True), (many, False))):
        if not (top[0].get("rounds_ddp") and bottom[0].get("rounds_ddp")):
            continue  # a worker that did not interleave its rounds: nothing to read on a busy machine
        said = measured.busy_ratio(*_step(*top), *_step(*bottom), top[0]["noise"])
        if said:
            out.append(said)
    return out
