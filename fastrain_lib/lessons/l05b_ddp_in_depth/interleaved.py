"""What a busy run of lesson 05b can still say: a ratio timed in interleaved rounds (A B, B A, ... in the same
processes), where a busy machine slows both sides of a round alike. The milliseconds stay noisy; the ratio is
usable when the per-round ratios agree (lesson 01's interleaved rounds, applied to DDP's steps)."""

from __future__ import annotations

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import measured
from fastrain_lib.measure import noise

# A ratio this close to 1 (or within the rounds' own spread, if wider) names no faster side: the same tie
# rule as the class results' (ui/class_results.py, TIE_FLOOR).
EVEN_FLOOR = 0.05

def interleaved_info(info: dict | None, ratios: list[float], row: str) -> dict:
    """The noise information of a ratio measured in interleaved rounds (A B, B A, ... in the same
    processes): a busy machine slows both sides of a round alike, so when the run was noisy only
    because of other load or shared cores, and the per-round ratios agree (their spread within
    noise.SPREAD_LIMIT over at least noise.MIN_REPEATS rounds), the RATIO is quiet ("busy_interleaved");
    the milliseconds stay as noisy as they were."""
    out = {**info, "row": row} if info else {}
    if not out:
        return out
    spread, rounds = noise.from_times([r for r in ratios if r > 0])
    out.update(rounds=rounds, round_spread=None if spread is None else round(spread, 4))
    usable = (noise.is_noisy(info) and set(info.get("reasons") or []) <= {"load", "threads"}
              and rounds >= noise.MIN_REPEATS and spread is not None and spread <= noise.SPREAD_LIMIT)
    if usable:
        out.update(verdict=noise.QUIET, reasons=[], busy_interleaved=True)
    elif spread is not None and rounds >= noise.MIN_REPEATS and spread > noise.SPREAD_LIMIT:
        out.update(verdict=noise.NOISY, reasons=sorted(set(out.get("reasons") or []) | {"rounds"}))
    return out


def round_values(ratios: list[float], timing: dict) -> dict:
    """A busy interleaved ratio's values: its median, the rounds and their spread, the other load's cores."""
    import statistics

    return {"rounds": timing["rounds"], "round_spread": timing["round_spread"] or 0.0, "ratio": statistics.median(ratios),
            "busy_cores": (timing.get("other_cores") or 0.0) + (timing.get("steal_cores") or 0.0)}


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
        (top_times, top_name), (bottom_times, bottom_name) = _step(*top), _step(*bottom)
        ratios = measured.ratio_per_round(top_times, bottom_times)
        timing = interleaved_info(top[0]["noise"], ratios, f"{top_name} ÷ {bottom_name}")
        if timing.get("busy_interleaved"):
            values = round_values(ratios, timing)
            outcome = ("lesson05b.busy_even" if abs(values["ratio"] - 1) <= max(values["round_spread"], EVEN_FLOOR)
                       else "lesson05b.busy_top_faster" if values["ratio"] < 1 else "lesson05b.busy_bottom_faster")
            out.append(("lesson05b.v_ratio_busy", {**values, "top": top_name, "bottom": bottom_name,
                                                   "outcome": t(outcome)}, timing))
    return out
