"""Lesson 05c's verdict rules: which sentence (catalog key + values) this run's numbers support."""

from __future__ import annotations

from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l05_data_vs_model_parallel.panel import cores

# full keys, so that a test can list them
STRATEGY_KEYS = {"ddp": "lesson05c.s_ddp", "zero1": "lesson05c.s_zero1", "zero1_torch": "lesson05c.s_zero1_torch",
                 "zero2": "lesson05c.s_zero2", "zero3": "lesson05c.s_zero3", "tp": "lesson05c.s_tp",
                 "gpipe": "lesson05c.s_gpipe", "1f1b": "lesson05c.s_1f1b"}
SHORT_KEYS = {"ddp": "core.ddp", "zero1": "core.zero1", "zero1_torch": "lesson05c.short_zero1_torch",
              "zero2": "core.zero2", "zero3": "lesson05c.short_zero3"}
PART_KEYS = {"params": "lesson05c.part_params", "grads": "lesson05c.part_grads", "optim": "lesson05c.part_optim"}


def strategy_label(strategy: str) -> str:
    return t(STRATEGY_KEYS[strategy])



def zero_verdicts(rows: list[dict]) -> list[tuple[str, dict]]:
    """(catalog key, values): per strategy, measured bytes vs the formula; then the communication."""
    out = []
    for r in rows:
        measured = r["params_bytes"] + r["grads_bytes"] + r["optim_bytes"]
        want = r["formula"]["total"]
        out.append(("lesson05c.v_zero_bytes", {"name": strategy_label(r["strategy"]), "measured_mb": measured / 2**20,
                                               "formula_mb": want / 2**20, "diff": abs(measured - want) / want}))
    by = {r["strategy"]: r for r in rows}
    if "ddp" in by and "zero3" in by:
        out.append(("lesson05c.v_zero_comm", {"ddp_mb": by["ddp"]["payload"] / 2**20,
                                              "z3_mb": by["zero3"]["payload"] / 2**20,
                                              "ratio": by["zero3"]["payload"] / by["ddp"]["payload"],
                                              "ddp_ms": by["ddp"]["step_s"] * 1e3, "z3_ms": by["zero3"]["step_s"] * 1e3}))
    return out


def tp_verdict(results: list[dict]) -> tuple[str, dict]:
    r = results[0]
    forward = sum(v for k, v in r["forward_comms"].items())
    return ("lesson05c.v_tp_ok" if max(x["error"] for x in results) < 1e-4 else "lesson05c.v_tp_bad",
            {"forward": forward, "backward": sum(r["backward_comms"].values()),
             "error": max(x["error"] for x in results)})


def sweep_verdict(rows: list[dict]) -> tuple[str, dict]:
    first, last = rows[0], rows[-1]
    key = "lesson05c.v_sweep_falls" if last["comm_share"] < first["comm_share"] else "lesson05c.v_sweep_flat"
    return key, {"w0": first["width"], "s0": first["comm_share"], "w1": last["width"], "s1": last["comm_share"]}


# Idle shares of GPipe and 1F1B closer than this are "the same", as the bubble formula says they are.
SAME_IDLE = 0.05


def schedule_verdicts(rows: list[dict]) -> list[tuple[str, dict]]:
    out = []
    for r in rows:
        ok = r["alive"] == r["alive_rule"]
        out.append(("lesson05c.v_sched_alive" if ok else "lesson05c.v_sched_alive_off",
                    {"name": strategy_label(r["schedule"]), "m": r["micro_batches"], "alive": r["alive"],
                     "rule": r["alive_rule"], "kb": [round(b / 1024) for b in r["activation_bytes"]]}))
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
            out.append((key, {"m": m, "g": g["idle"], "o": o["idle"], "f": g["formula"], "cores": cores(),
                              "k": g["stages"], "lower": "GPipe" if g["idle"] < o["idle"] else "1F1B"}))
    return out


def cost_verdict(rows: list[tuple]) -> tuple[str, dict]:
    """From the notebook's prediction table (strategy, compute ms, predicted ms, measured ms, ratio)."""
    if not rows:
        return "lesson05c.v_cost_missing", {}
    ratios = [r[4] for r in rows]
    worst = max(rows, key=lambda r: abs(r[4] - 1))
    key = "lesson05c.v_cost_close" if all(0.5 <= x <= 2 for x in ratios) else "lesson05c.v_cost_far"
    return key, {"low": min(ratios), "high": max(ratios), "name": worst[0], "ratio": worst[4]}
