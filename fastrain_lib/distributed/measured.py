"""A launch with its noise judged: the machine's CPU counters around a multi-process run.

    results, info = measured.launch(worker, 2, args=(cfg,), threads=1)
    row_info = measured.row_noise(info, times)      # the same window, this row's own repeats

The workers are child processes of this one; measure.noise counts our whole process tree's
CPU as our own (noise._descendants), so "other load" is what other programs did meanwhile.
The run asks for `world_size × threads` cores: more than the machine has is noisy
("threads") by itself, since the processes then take turns on shared cores.
"""

from __future__ import annotations

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import launcher
from fastrain_lib.measure import noise

# A busy ratio this close to 1 (or within its rounds' own spread, if wider) names no faster side: the same tie
# rule as the class results' (ui/class_results.py, TIE_FLOOR).
EVEN_FLOOR = 0.05


def launch(fn, world_size: int, *, threads: int = 1, cores_used: int | None = None, **kwargs) -> tuple[list, dict]:
    """launcher.launch inside a noise.Window: (rank results, the run's noise information).

    cores_used: the cores the run keeps busy when it is not world_size × threads (one process
    whose Python threads play several devices)."""
    with noise.Window() as window:
        results = launcher.launch(fn, world_size, threads=threads, **kwargs)
    return results, window.assess(threads=cores_used or world_size * max(1, int(threads or 1)))


def row_noise(info: dict | None, times_s: list[float] | None = None) -> dict:
    """The run's noise information with this row's own spread of repeats (per-step or per-repeat times, the
    warm-up left out; judged in blocks of consecutive steps, noise.from_steps), judged again."""
    if not info:
        return {}
    spread, repeats, per_block = noise.from_steps(list(times_s or []))
    return noise.rejudge({**info, "spread": None if spread is None else round(spread, 4), "repeats": repeats,
                          "block_steps": per_block})


def mark_out_of_order(info: dict) -> dict:
    """A copy of `info` judged noisy because its row contradicts its neighbours (e.g. a smaller
    message slower than a larger one on the same processes: impossible on a quiet machine)."""
    reasons = sorted(set(info.get("reasons", [])) | {"spread"})
    return {**info, "verdict": noise.NOISY, "reasons": reasons, "out_of_order": True}


def word(info: dict | None) -> str:
    """'quiet' / 'noisy' in the student's language, for a table's noise column."""
    from fastrain_lib.core.i18n import t

    if not info or "verdict" not in info:
        return "—"
    return t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word")


def slowest_per_round(per_rank: list[list[float]]) -> list[float]:
    """Round by round, the slowest rank's time (the rounds every rank timed): the step the group waited for."""
    rounds = min((len(times) for times in per_rank), default=0)
    return [max(times[i] for times in per_rank) for i in range(rounds)]


def ratio_per_round(top: list[float], bottom: list[float]) -> list[float]:
    """top ÷ bottom, round by round (both timed in the same interleaved rounds)."""
    return [a / b for a, b in zip(top, bottom) if b > 0]


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


def busy_ratio(top: list[float], top_name: str, bottom: list[float], bottom_name: str,
               info: dict | None) -> tuple[str, dict, dict] | None:
    """(key, values, noise) of the sentence "top ÷ bottom" for two ways timed in the same interleaved rounds
    (per-round times, slowest_per_round) of a noisy run, when those rounds make the ratio usable
    (interleaved_info: the milliseconds stay noisy, the ratio is stated); None otherwise."""
    ratios = ratio_per_round(top, bottom)
    timing = interleaved_info(info, ratios, f"{top_name} ÷ {bottom_name}")
    if not timing.get("busy_interleaved"):
        return None
    values = round_values(ratios, timing)
    outcome = ("noise.busy_even" if abs(values["ratio"] - 1) <= max(values["round_spread"], EVEN_FLOOR)
               else "noise.busy_top_faster" if values["ratio"] < 1 else "noise.busy_bottom_faster")
    return "noise.ratio_busy", {**values, "top": top_name, "bottom": bottom_name, "outcome": t(outcome)}, timing
