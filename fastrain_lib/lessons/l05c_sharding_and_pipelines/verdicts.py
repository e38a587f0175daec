"""Lesson 05c's verdict rules: which sentence (catalog key + values) this run's numbers support.

Every timed row carries a noise-information dict (measure.noise): the machine's load while its
processes ran (one noise.Window around the launch) and the spread of its own repeats. A rule
that explains a trend passes those dicts on (noise=), so verdicts.say prints the noisy sentence
instead of a cause when any is noisy; a rule never reads physics into numbers that contradict
each other (a TP forward faster than its own slice's compute is flagged, not explained).

The notebook's # VERDICT cells call one say_* function each; it prints its sentences itself."""

from __future__ import annotations

from fastrain_lib.core import verdicts as course_verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import noise

# full keys, so that a test can list them
STRATEGY_KEYS = {"ddp": "lesson05c.s_ddp", "zero1": "lesson05c.s_zero1", "zero1_torch": "lesson05c.s_zero1_torch",
                 "zero2": "lesson05c.s_zero2", "zero3": "lesson05c.s_zero3", "tp": "lesson05c.s_tp",
                 "gpipe": "lesson05c.s_gpipe", "1f1b": "lesson05c.s_1f1b"}
SHORT_KEYS = {"ddp": "core.ddp", "zero1": "core.zero1", "zero1_torch": "lesson05c.short_zero1_torch",
              "zero2": "core.zero2", "zero3": "lesson05c.short_zero3"}
PART_KEYS = {"params": "lesson05c.part_params", "grads": "lesson05c.part_grads", "optim": "lesson05c.part_optim"}


def strategy_label(strategy: str) -> str:
    return t(STRATEGY_KEYS[strategy])


def row_noise(window: dict | None, spread: float | None = None, repeats: int = 0, block_steps: int = 1) -> dict:
    """One row's noise information: the launch's load (a Window.assess dict) with this row's own
    spread of repeats (blocks of `block_steps` steps, noise.from_steps), judged again by noise.verdict."""
    info = dict(window or {})
    if not info:
        return {}
    info.update(spread=None if spread is None else round(float(spread), 4), repeats=int(repeats),
                block_steps=int(block_steps))
    return noise.rejudge(info)


def times_noise(window: dict | None, times: list[float]) -> dict:
    """measured.row_noise from a row's per-step times, the first (warm-up) step left out."""
    from fastrain_lib.distributed import measured

    return measured.row_noise(window, list(times)[1:] if len(times) > 2 else list(times))


def noise_word(info: dict | None) -> str:
    """The table's quiet/noisy column ('—' for a row without noise information)."""
    if not info or "verdict" not in info:
        return "—"
    return t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word")



def zero_verdicts(rows: list[dict]) -> list[tuple[str, dict, list]]:
    """(catalog key, values, noise): per strategy, measured bytes vs the formula (a count: noise=());
    then the bytes each step communicates (counted: noise=()), then the two step times (their rows' noise)."""
    out = []
    for r in rows:
        measured = r["params_bytes"] + r["grads_bytes"] + r["optim_bytes"]
        want = r["formula"]["total"]
        out.append(("lesson05c.v_zero_bytes", {"name": strategy_label(r["strategy"]), "measured_mb": measured / 2**20,
                                               "formula_mb": want / 2**20, "diff": abs(measured - want) / want}, []))
    by = {r["strategy"]: r for r in rows}
    if "ddp" in by and "zero3" in by:
        # the bytes are counted (a busy machine changes none of them); the step times are timed
        out.append(("lesson05c.v_zero_comm", {"ddp_mb": by["ddp"]["payload"] / 2**20,
                                              "z3_mb": by["zero3"]["payload"] / 2**20,
                                              "ratio": by["zero3"]["payload"] / by["ddp"]["payload"]}, []))
        out.append(("lesson05c.v_zero_step", {"ddp_ms": by["ddp"]["step_s"] * 1e3, "z3_ms": by["zero3"]["step_s"] * 1e3},
                    [_named(by["ddp"], strategy_label("ddp")), _named(by["zero3"], strategy_label("zero3"))]))
    return out


def tp_verdict(results: list[dict]) -> tuple[str, dict]:
    r = results[0]
    forward = sum(v for k, v in r["forward_comms"].items())
    return ("lesson05c.v_tp_ok" if max(x["error"] for x in results) < 1e-4 else "lesson05c.v_tp_bad",
            {"forward": forward, "backward": sum(r["backward_comms"].values()),
             "error": max(x["error"] for x in results)})


# The all-reduce "follows the bytes" only when it grows at least this much over the sweep (and never
# falls by more than STEP_DOWN from one width to the next); "flat" when all its times lie within FLAT.
GROWS, FLAT, STEP_DOWN = 2.0, 2.0, 0.9
# A whole TP forward (its slice's compute + the all-reduce) measured below its own compute by more
# than this share is impossible: the timings contradict each other.
BELOW_OWN = 0.0


def allreduce_trend(rows: list[dict]) -> str:
    """'grows' | 'flat' | 'irregular' for the all-reduce times over the widths (a pure rule).

    'grows': rises with the bytes, by at least GROWS overall and never falling between widths;
    'flat': every time within a factor FLAT of the others while the bytes grew — latency-bound:
    at these sizes each all-reduce costs its fixed start-up time, not its bytes;
    'irregular': neither (e.g. 4.7, 1.3, 3.6, 2.0 ms): the times jump without following the
    bytes, which is noise, and nothing can be read from them."""
    times = [r["allreduce_s"] for r in rows]
    if len(times) < 2 or min(times) <= 0:
        return "irregular"
    rising = all(b >= STEP_DOWN * a for a, b in zip(times, times[1:]))
    if rising and times[-1] / times[0] >= GROWS:
        return "grows"
    if max(times) / min(times) <= FLAT:
        return "flat"
    return "irregular"


def impossible_rows(rows: list[dict]) -> list[dict]:
    """Rows whose whole TP forward took less than its own slice's compute alone."""
    return [r for r in rows if r["tp_s"] < (1 - BELOW_OWN) * r["compute_s"]]


def sweep_verdicts(rows: list[dict]) -> list[tuple[str, dict, list]]:
    """(catalog key, values, noise) for the width sweep, computed from its table.

    First any contradiction (a TP forward below its own compute: flagged, with noise=() since it
    is a check of the numbers, never explained); then the all-reduce's trend (grows / flat and
    latency-bound / irregular = noise) and the communication share, each standing on the rows'
    noise, so a noisy row turns the explanation into the noisy sentence."""
    infos = [_named(r, f"d = {r['width']}") for r in rows]
    out = []
    for r in impossible_rows(rows):
        out.append(("lesson05c.v_sweep_impossible", {"w": r["width"], "tp": r["tp_s"] * 1e3,
                                                      "compute": r["compute_s"] * 1e3}, []))
    if len(rows) < 2:
        return out  # one width (the panel): no trend to read
    first, last = rows[0], rows[-1]
    times = ", ".join(f"{r['allreduce_s'] * 1e3:.1f}" for r in rows)
    trend = allreduce_trend(rows)
    values = {"w0": first["width"], "w1": last["width"], "times": times,
              "bytes": last["allreduce_bytes"] / first["allreduce_bytes"] if first.get("allreduce_bytes") else 0.0,
              "growth": last["allreduce_s"] / first["allreduce_s"] if first["allreduce_s"] > 0 else 0.0}
    if trend == "irregular":
        # no cause from times that follow nothing: said as noise whatever the load counters say
        out.append(("lesson05c.v_sweep_ar_irregular", values, []))
        return out
    out.append(({"grows": "lesson05c.v_sweep_ar_grows", "flat": "lesson05c.v_sweep_ar_flat"}[trend], values, infos))
    share = {"w0": first["width"], "s0": first["comm_share"], "w1": last["width"], "s1": last["comm_share"]}
    if last["comm_share"] < first["comm_share"]:
        key = "lesson05c.v_sweep_falls" if trend == "grows" else "lesson05c.v_sweep_falls_compute"
    else:
        key = "lesson05c.v_sweep_flat"
    out.append((key, share, infos))
    return out


# Idle shares of GPipe and 1F1B closer than this are "the same", as the bubble formula says they are.
SAME_IDLE = 0.05


def _named(row: dict, name: str) -> dict:
    """A row's noise information with the row's name, so that the noisy line names the row."""
    info = row.get("noise") or {}
    return {**info, "row": name} if info else info


def _listed(values) -> str:
    """[8, 8] -> '8, 8' (one number per stage, as the table writes them: never a list's repr)."""
    return ", ".join(str(v) for v in values)


def schedule_verdicts_noise(rows: list[dict]) -> list[tuple[str, dict, list]]:
    """Live micro-batches are counts (noise=()); the idle shares are timings (their rows' noise)."""
    out = []
    for r in rows:
        ok = r["alive"] == r["alive_rule"]
        out.append(("lesson05c.v_sched_alive" if ok else "lesson05c.v_sched_alive_off",
                    {"name": strategy_label(r["schedule"]), "m": r["micro_batches"], "alive": _listed(r["alive"]),
                     "rule": _listed(r["alive_rule"]), "kb": _listed(round(b / 1024) for b in r["activation_bytes"])},
                    []))
    for m in sorted({r["micro_batches"] for r in rows}):
        pair = {r["schedule"]: r for r in rows if r["micro_batches"] == m}
        if len(pair) == 2:
            g, o = pair["gpipe"], pair["1f1b"]
            if min(g["idle"], o["idle"]) > g["formula"] + 0.15:
                key = "lesson05c.v_sched_idle_overhead"
            elif abs(g["idle"] - o["idle"]) > SAME_IDLE:  # measured apart: never "1F1B does not shrink it" alone
                key = "lesson05c.v_sched_idle_differ"
            else:
                key = "lesson05c.v_sched_idle"
            out.append((key, {"m": m, "g": g["idle"], "o": o["idle"], "f": g["formula"],
                              "k": g["stages"], "lower": "GPipe" if g["idle"] < o["idle"] else "1F1B"},
                        [_named(g, strategy_label("gpipe")), _named(o, strategy_label("1f1b"))]))
    return out


def cost_verdict(rows: list[tuple]) -> tuple[str, dict]:
    """From the notebook's prediction table (strategy, compute ms, predicted ms, measured ms, ratio)."""
    if not rows:
        return "lesson05c.v_cost_missing", {}
    ratios = [r[4] for r in rows]
    worst = max(rows, key=lambda r: abs(r[4] - 1))
    key = "lesson05c.v_cost_close" if all(0.5 <= x <= 2 for x in ratios) else "lesson05c.v_cost_far"
    return key, {"low": min(ratios), "high": max(ratios), "name": worst[0], "ratio": worst[4]}


# ---------------------------------------------------------------- what the # VERDICT cells call


def _say_all(found: list[tuple[str, dict, list]], *, offer_rerun: bool = False) -> None:
    """Each (key, values, measurements) said standing on its measurements; with offer_rerun, when any of
    them was noisy, the line offering the next cell's one rerun (measure/rerun.py)."""
    from fastrain_lib.measure import rerun

    course_verdicts.beside([measured for _, _, measured in found])
    for key, values, measured in found:
        course_verdicts.say(key, noise=measured, **values)
    if offer_rerun:
        rerun.offer(stood_on_noise(found))


# Sentences that call the numbers noise from what they show (times that follow no rule, two that contradict
# each other), whatever the load counters said: a rerun is as much in order as after a noisy measurement.
NOISE_READ_FROM_THE_NUMBERS = {"lesson05c.v_sweep_ar_irregular", "lesson05c.v_sweep_impossible"}


def stood_on_noise(found: list[tuple[str, dict, list]]) -> bool:
    """Whether any sentence of `found` stood on a noisy measurement, or called its numbers noise."""
    return any(key in NOISE_READ_FROM_THE_NUMBERS for key, _, _ in found) or \
        any(noise.is_noisy(getattr(m, "noise", m)) for _, _, measured in found for m in measured if m)


def say_zero(rows: list[dict], *, offer_rerun: bool = True) -> None:
    # bytes vs the formula (counts), then ZeRO-3's communication (two step times)
    _say_all(zero_verdicts(rows), offer_rerun=offer_rerun)


def say_cost(rows: list[tuple], measured: list) -> None:
    _say_all([(*cost_verdict(rows), measured if rows else [])])  # measured: the fit's, compute's and steps' noise


def say_tp(results: list[dict]) -> None:
    _say_all([(*tp_verdict(results), [])])  # counts and values against one process: no timing


def say_sweep(rows: list[dict], *, offer_rerun: bool = True) -> None:
    _say_all(sweep_verdicts(rows), offer_rerun=offer_rerun)


def say_schedules(rows: list[dict], *, offer_rerun: bool = True) -> None:
    _say_all(schedule_verdicts_noise(rows), offer_rerun=offer_rerun)
