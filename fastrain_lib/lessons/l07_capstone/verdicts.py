"""Lesson 07's verdict rules and tables: what a run measured, in words (report_lines); which
switch helped on this machine beyond the noise (switch_effects -> recipe_verdicts, recipe_steps),
why a switch slowed training, profiled (measured_whys); and the evidence table beside reference/.
Each verdict function returns [(catalog key, values)] for verdicts.say."""

from __future__ import annotations

import math
from pathlib import Path

import torch

from fastrain_lib.core import config, verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l07_capstone.capstone import Result, optimizer_factory, quartiles, mfu_text, sizes
from fastrain_lib.lessons.l07_capstone.model_data import build_model, device_batches, load_corpus
from fastrain_lib.lessons.l07_capstone.runs import _date
from fastrain_lib.measure import bench, hardware


def report_lines(result: Result) -> list[str]:
    """What this call of run() trained and measured, in words: an earlier finished run is said to be one."""
    if not result.measured_steps:
        return [t("capstone.report_nothing_new", date=_date(result.finished_earlier), steps=result.steps)]
    lines = []
    if result.resumed_from:
        lines.append(t("capstone.report_resumed", start=result.resumed_from, end=result.steps,
                       n=result.measured_steps))
    else:
        lines.append(t("capstone.report_fresh", n=result.measured_steps))
    lines.append(t("capstone.report_speed", tokens=f"{result.tokens_per_s:,.0f}", mfu=mfu_text(result.mfu),
                   peak=peak_text(result.peak), status=noise_status(result)))
    lines.append(t(PEAK_MOVES[result.peak.kind] if result.peak.kind in PEAK_MOVES else "capstone.peak_unknown_moves"))
    return lines


def noise_status(result: Result) -> str:
    """The MFU line's own noise status (issue 38): noisy when the training or the peak it divides by was
    measured beside other work (naming which), quiet with the threads both used, '' when unknown."""
    from fastrain_lib.measure import noise

    noisy = [t(key) for key, info in (("capstone.status_training", result.noise),
                                      ("capstone.status_peak", result.peak_noise)) if noise.is_noisy(info)]
    if noisy:
        return t("capstone.status_noisy", which=", ".join(noisy))
    if result.noise.get("verdict") and result.peak.kind != "measured":
        return t("capstone.status_quiet_datasheet")
    if result.noise.get("verdict") and result.peak_noise.get("verdict"):
        return t("capstone.status_quiet", threads=result.noise.get("threads") or result.settings.get("threads") or "?")
    return ""


# Why an MFU moves between runs, by where its peak comes from (said under every MFU)
PEAK_MOVES = {"measured": "capstone.peak_measured_moves", "datasheet": "capstone.peak_datasheet_moves"}


def peak_text(peak) -> str:
    """The peak an MFU divides by, always with its number: '37.4 GFLOP/s — measured matmul ...'."""
    if not getattr(peak, "flops", None):
        return peak.label
    value = peak.flops / 1e12
    number = f"{value:,.1f} TFLOP/s" if value >= 1 else f"{peak.flops / 1e9:,.1f} GFLOP/s"
    return f"{number} — {peak.label}"


# MFU ratios closer than this to the tokens/s ratio moved with the training, not the peak
SAME_MOVE = 0.05


def mfu_change(earlier: dict | None, now: dict | None) -> list[tuple[str, dict]]:
    """Why the MFU moved between an earlier run and this one, from the three numbers of each
    ({"tokens_per_s", "mfu", "peak_flops"}; a pure rule, tested on the issue's case).

    MFU = tokens/s × FLOPs per token ÷ peak, and the FLOPs per token are the model's: so MFU moves
    with tokens/s unless the peak moved. On a CPU the peak is measured again in every run (a matmul),
    and under load both fall: MFU can rise while tokens/s fall. That is said from the numbers — an
    identity, not a timing's cause — and runs are then compared by tokens/s, not by MFU."""
    keys = ("tokens_per_s", "mfu", "peak_flops")
    if not earlier or not now or not all(earlier.get(k) and now.get(k) for k in keys):
        return []
    values = {"tok0": earlier["tokens_per_s"], "tok1": now["tokens_per_s"], "mfu0": earlier["mfu"], "mfu1": now["mfu"],
              "peak0": earlier["peak_flops"] / 1e9, "peak1": now["peak_flops"] / 1e9}
    tokens = values["tok1"] / values["tok0"]
    ratio = values["mfu1"] / values["mfu0"]
    values.update(tokens_ratio=tokens, mfu_ratio=ratio, peak_ratio=values["peak1"] / values["peak0"])
    if (ratio > 1) != (tokens > 1) and abs(ratio - 1) > SAME_MOVE:
        return [("capstone.mfu_against_tokens", values)]  # the case: MFU up, tokens/s down
    if abs(ratio / tokens - 1) > SAME_MOVE:
        return [("capstone.mfu_peak_moved", values)]
    return [("capstone.mfu_with_tokens", values)]


# --- reference/ results (read through fastrain_lib.measure.reference: one series per run file) ------------
def reference_runs(folder: Path | None = None) -> list[tuple[str, list[bench.Record]]]:
    """[(run label: hardware · date · mode, that run's records)] for every reference/*.json, one per file."""
    from fastrain_lib.measure import reference

    return [(run.label, run.records) for run in reference.runs(folder)]


def speedup(records: list[bench.Record], faster: str, slower: str) -> float | None:
    """median(slower) / median(faster) for two record names of the same machine, or None."""
    by_name = {r.name: r for r in records}
    if faster in by_name and slower in by_name and by_name[faster].median_s > 0:
        return by_name[slower].median_s / by_name[faster].median_s
    return None


def _ratio(records, faster: str, slower: str) -> str:
    value = speedup(records, faster, slower)
    return f"×{value:.2f}" if value else "—"


def evidence_row(label: str, records: list[bench.Record]) -> tuple:
    """One machine's measured speed-ups: AMP, fused optimizer, LayerNorm, compile, 2 DDP processes."""
    amp = max((speedup(records, f"amp {m}", "amp fp32") or 0.0, m) for m in ("bf16", "fp16"))  # autocast modes
    ddp = {r.name: r for r in records}.get("ddp x2")
    return (label,
            f"×{amp[0]:.2f} ({amp[1]})" if amp[0] else "—",
            _ratio(records, "adamw fused", "adamw forloop"),
            _ratio(records, "layernorm torch", "layernorm naive"),
            _ratio(records, "gpt step compiled", "gpt step eager"),
            f"{100 * ddp.metrics['scaling_efficiency']:.0f}%" if ddp and "scaling_efficiency" in ddp.metrics else "—")


def evidence_headers() -> list[str]:
    return [t("lesson07.ev_machine"), t("lesson07.ev_amp"), t("lesson07.ev_optim"), t("lesson07.ev_layernorm"),
            t("lesson07.ev_compile"), t("lesson07.ev_ddp")]


def here_row(results: dict[str, Result]) -> tuple:
    """The evidence row of this machine from the switch results keyed fp32 / bf16 (or fp16) / fused / compile."""
    def ratio(fast: str, base: str = "fp32") -> str:
        if fast in results and base in results and results[base].tokens_per_s > 0:
            return f"×{results[fast].tokens_per_s / results[base].tokens_per_s:.2f}"
        return "—"

    amp = next((m for m in ("bf16", "fp16") if m in results), None)
    return (t("lesson07.here"), f"{ratio(amp)} ({amp})" if amp else "—", ratio("fused"), "—", ratio("compile"), "—")


# --- the recipe of this machine: which switch helped here, beyond the noise -------------------------
SWITCH_NAMES = {"bf16": "bf16 (AMP)", "fp16": "fp16 + GradScaler (AMP)", "fused": "fused AdamW",
                "compile": "torch.compile"}


def _spread(times: list[float]) -> list[float]:
    """Quartiles of the step times without the first (warm-up) step where there are enough."""
    return quartiles(times[1:] if len(times) >= 4 else times)


def switch_effects(results: dict[str, Result], base: str = "fp32") -> list[dict]:
    """Each switch's measured effect against the baseline run, largest speed-up first.

    speedup = tokens/s with the switch ÷ tokens/s without it; verdict "faster"/"slower" only when
    the interquartile ranges of the step times do not overlap, else "noise" (too close to call).
    "busy" overrides both: other programs took cores while the switch's run or the baseline ran
    (noise.Window, reason "load"), so the two were timed on different machines in effect — a
    burst during one run makes any factor, 0.4× or 2.5×, and no verdict can be read from it."""
    ref = results[base]
    q_ref = _spread(ref.step_times_s)
    effects = []
    for name, r in results.items():
        if name == base or not (r.tokens_per_s > 0 and ref.tokens_per_s > 0):
            continue
        q = _spread(r.step_times_s)
        verdict = "faster" if q[2] < q_ref[0] else "slower" if q[0] > q_ref[2] else "noise"
        busy = [info for info in (r.noise, ref.noise) if _busy(info)]
        if busy:
            verdict = "busy"
        spread = max((q[2] - q[0]) / q[1] if q[1] else 0.0, (q_ref[2] - q_ref[0]) / q_ref[1] if q_ref[1] else 0.0)
        effects.append({"switch": name, "name": SWITCH_NAMES.get(name, name), "speedup": r.tokens_per_s / ref.tokens_per_s,
                        "verdict": verdict, "tokens": r.tokens_per_s, "base": ref.tokens_per_s, "spread": spread,
                        "other_cores": max((_other_cores(info) for info in busy), default=0.0),
                        "cores": max((info.get("cores") or 0 for info in busy), default=0)})
    return sorted(effects, key=lambda e: -e["speedup"])


def stands_on(values: dict, results: dict[str, Result], base: str = "fp32") -> list:
    """The noise= of a recipe or verdict line: a switch judged faster or slower stands on its run's
    and the baseline's noise; a line that claims nothing (busy, within the noise, a heading) on none."""
    if values.get("verdict") in ("faster", "slower") and values.get("switch") in results and base in results:
        return [results[values["switch"]].noise or {}, results[base].noise or {}]
    return []


def _busy(info: dict | None) -> bool:
    """Other work needed cores that this run's threads were using (noise's "load" reason)."""
    return bool(info) and "load" in info.get("reasons", ())


def _other_cores(info: dict) -> float:
    return (info.get("other_cores") or 0.0) + (info.get("steal_cores") or 0.0)


def recipe_verdicts(effects: list[dict], f: hardware.Facts) -> list[tuple[str, dict]]:
    """(catalog key, values) sentences for the # VERDICT cell: the switch to turn on first here,
    with its numbers; the others; and why a switch slowed training where a hardware fact says why."""
    lines = []
    winners = [e for e in effects if e["verdict"] == "faster"]
    close = [e for e in effects if e["verdict"] == "noise"]  # "the best, within the noise": never a slower one
    if winners:
        lines.append(("lesson07.verdict_best", winners[0]))
    elif close:
        lines.append(("lesson07.verdict_none", close[0]))
    for e in effects:
        if winners and e is winners[0]:
            continue
        key = {"faster": "lesson07.verdict_also", "slower": "lesson07.verdict_slower",
               "busy": "lesson07.verdict_busy"}.get(e["verdict"])
        if key is None:
            if not winners and close and e is close[0]:
                continue  # already said by verdict_none
            key = "lesson07.verdict_noise"
        lines.append((key, e))
        if e["verdict"] == "slower" and e["switch"] in ("bf16", "fp16") and e["switch"] not in hardware.fast_formats(f):
            lines.append(("lesson07.why_no_fast_format", {"fmt": e["switch"], "device": f.name or f.device_type}))
    return lines


# --- why a switch slowed training here: measured with torch.profiler, not guessed ----------------------
def op_times(settings: dict, steps: int | None = None, seed: int = 0) -> dict[str, float]:
    """Milliseconds per training step of each top-level operator (launches.op_ms_per_call: forward,
    backward and optimizer) for a switch_result's settings, on the same model sizes and with the threads the
    switch was timed with (a profile with more threads than the free cores would not be the step timed)."""
    from fastrain_lib import train
    from fastrain_lib.measure import launches

    steps = steps or config.by_mode(ci=2, lab=4, full=4)
    data = load_corpus()
    cfg = sizes(**settings.get("model", {}))
    dev = torch.device(settings.get("device", "cpu"))
    model = build_model(data.vocab_size, cfg, settings.get("norm", "torch"), seed).to(dev)
    batches = device_batches(data, "train", cfg, seed=seed + 1, device=dev)
    optimizer = optimizer_factory(settings.get("optimizer", "forloop"), cfg["lr"])(model.parameters())  # one, kept

    def one_step():
        train.train(model, batches, steps=1, device=dev, precision=settings.get("precision", "fp32"),
                    optimizer=optimizer, progress=False, clip_grad=1.0, time_window=1)

    with bench.torch_threads(settings.get("threads")):
        return launches.op_ms_per_call(one_step, steps)


def measured_whys(effects: list[dict], results: dict[str, Result], base: str = "fp32", profile=op_times) -> list:
    """(catalog key, values) for each switch that measurably slowed training: which operator's time
    grew most, profiled now on both variants (and what the matrix multiplies did meanwhile)."""
    lines = []
    slower = [e for e in effects if e["verdict"] == "slower"]
    if not slower:
        return lines
    from fastrain_lib.measure.launches import profile_pair, why_slower

    for e in slower:
        before, after = profile_pair(profile, results[base].settings, results[e["switch"]].settings)
        lines.append(why_slower(before, after, e["name"]))
    return lines


def compare_rows(results: dict[str, Result], base: str = "fp32") -> list[tuple]:
    """The table under the comparison chart: each variant's settings, median step time, tokens/s
    and speed-up over `base`, all measured in this call (the numbers the recipe is computed from)."""
    ref = results.get(base)
    rows = []
    for name, r in results.items():
        ratio = r.tokens_per_s / ref.tokens_per_s if ref and ref.tokens_per_s > 0 else math.nan
        optimizer = r.settings.get("optimizer")
        optimizer = t("lesson07.opt_forloop") if optimizer == "forloop" else optimizer  # the panel's own label
        rows.append((name, f"{r.settings.get('precision')} + {optimizer}"
                     + (" + compile" if r.settings.get("compile") else ""),
                     f"{r.median_step_s * 1e3:.1f}", f"{r.tokens_per_s:,.0f}", f"×{ratio:.2f}", noise_word(r.noise)))
    return rows


def noise_word(info: dict | None) -> str:
    """The table's quiet/noisy mark of one run ('—' without noise information)."""
    from fastrain_lib.measure import noise

    if not info or "verdict" not in info:
        return "—"
    return t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word")


def compare_headers() -> list[str]:
    return [t("lesson07.cmp_switch"), t("lesson07.cmp_settings"), t("lesson07.step_ms"), t("core.tokens_per_s"),
            t("lesson07.cmp_speedup"), t("noise.verdict_col")]


def recipe_steps(effects: list[dict], machine: str) -> list[tuple[str, dict]]:
    """(catalog key, values) lines of the closing recipe of *this* machine, from switch_effects:
    the switches that measurably helped, largest speed-up first, numbered; then those that did
    not (slower, or within the noise) with their measured factor; then those measured while the
    machine was busy, which get no verdict at all: "keep fp32" is never said when a switch could
    not be judged (under load, a ×2.5 gain was once called noise beside that advice). Nothing
    here is typed in."""
    winners = [e for e in effects if e["verdict"] == "faster"]
    busy = [e for e in effects if e["verdict"] == "busy"]
    unclear = [e for e in effects if e["verdict"] == "noise"]
    # with no switch to turn on, the head says so instead of announcing a list that never comes
    lines = [("lesson07.recipe_head" if winners else "lesson07.recipe_head_none", {"machine": machine})]
    lines += [("lesson07.recipe_step", {**e, "n": n}) for n, e in enumerate(winners, 1)]
    if not winners and not busy and not unclear:
        lines.append(("lesson07.recipe_nothing", {}))  # every switch measurably slower: keep the baseline
    slower = [e for e in effects if e["verdict"] == "slower"]
    if slower:
        why = t("lesson07.recipe_slower")
        names = ", ".join(f"{e['name']} ×{e['speedup']:.2f} ({why})" for e in slower)
        lines.append(("lesson07.recipe_skip", {"names": names}))
    if unclear:
        # within this run's own spread: neither "turn it on" nor "keep the for-loop" (×1.13, ×1.11 of issue 27)
        names = ", ".join(f"{e['name']} ×{e['speedup']:.2f}" for e in unclear)
        key = "lesson07.recipe_unclear_gain" if any(e["speedup"] > 1 for e in unclear) else "lesson07.recipe_unclear"
        lines.append((key, {"names": names, "spread": max(e.get("spread") or 0.0 for e in unclear)}))
    if busy:
        names = ", ".join(f"{e['name']} ×{e['speedup']:.2f}" for e in busy)
        worst = max(busy, key=lambda e: e["other_cores"])
        lines.append(("lesson07.recipe_busy", {"names": names, "other": worst["other_cores"], "cores": worst["cores"]}))
    return lines


# --- what the lesson's # VERDICT cells call: one function each, which says its sentences itself ------------
def say_mfu_change(earlier: dict | None, result: Result) -> None:
    """MFU against the earlier run's, or that there is none. The reading is an identity of measured numbers,
    but its ratios compare two runs' timings: it stands on both runs' and both peaks' noise (issue 38)."""
    lines = mfu_change(earlier, {"tokens_per_s": result.tokens_per_s, "mfu": result.mfu if result.mfu_ok else None,
                                 "peak_flops": result.peak.flops})
    stands = [info for info in ((earlier or {}).get("noise"), (earlier or {}).get("peak_noise"), result.noise,
                                result.peak_noise) if info]
    for key, values in lines:
        verdicts.say(key, noise=stands, **values)
    if not lines:
        verdicts.say("lesson07.no_earlier_run", noise=())


def say_recipe(results: dict[str, Result], f: hardware.Facts) -> list[dict]:
    """This machine's recipe from the comparison just measured, each sentence with the noise of the two runs
    it stands on; returns the switch effects (the profiler and the closing recipe use them)."""
    effects = switch_effects(results)
    said = recipe_verdicts(effects, f)
    verdicts.beside([stands_on(values, results) for _, values in said])
    for key, values in said:
        verdicts.say(key, noise=stands_on(values, results), **values)
    return effects


def say_whys(effects: list[dict], results: dict[str, Result], run_profile: bool, profile=op_times) -> None:
    """Why a switch slowed training, profiled (when run_profile); otherwise why there is nothing to say."""
    slower = [e for e in effects if e["verdict"] == "slower"]
    if not slower:
        verdicts.say("lesson07.nothing_to_profile", noise=())
    elif run_profile:
        for key, values in measured_whys(effects, results, profile=profile):
            verdicts.say(key, noise=[results[e["switch"]].noise for e in slower] + [results["fp32"].noise], **values)
    else:
        verdicts.say("lesson07.profiler_off", noise=())

