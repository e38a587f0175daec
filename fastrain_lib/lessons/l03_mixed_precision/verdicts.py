"""Lesson 03's verdict rules: pure functions of this run's numbers and the device's facts that pick
which catalog sentence the lesson prints, so the words always match the measurement (issue 19).
Each say_* is what one # VERDICT cell calls: it prints the sentences (verdicts.say) with what they
stand on (noise=(): a count or a dtype; the timed Records for the speed rows)."""

from __future__ import annotations

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import noise


def _say(lines, stands_on=()) -> None:
    for key, values in lines:
        verdicts.say(key, noise=stands_on, **values)


def say_gradients(zero_pct: float, below_normal_pct: float) -> None:
    _say([gradient_verdict(zero_pct, below_normal_pct)])


def say_scale_range(ks, underflow_pct, overflow_pct) -> None:
    _say([safe_scale_range(list(ks), list(underflow_pct), list(overflow_pct))])


def say_old_api(caught) -> None:
    """caught: the warnings.catch_warnings(record=True) list of the old torch.cuda.amp lines."""
    verdicts.say(old_api_verdict([str(w.message) for w in caught]), noise=())


def say_autocast(rows_by_mode: dict, device_type: str) -> None:
    """rows_by_mode: mode -> [(op, dtype)] measured under autocast here ({} when none runs)."""
    for mode, rows in rows_by_mode.items():
        _say(autocast_verdict(rows, f"{device_type}, autocast {mode}"))
    if not rows_by_mode:
        verdicts.say("lesson03.v.autocast_none", noise=(), device=device_type)


def say_accumulation(max_diff: float, grad_scale: float, error_text: str | None) -> None:
    _say(accumulation_verdict(max_diff, grad_scale, error_text))


def say_multi_optimizer(changed: dict[str, bool], scale_before: float, scale_after: float) -> None:
    _say([multi_optimizer_verdict(changed, scale_before, scale_after)])


def say_memory(measured: dict[str, dict], n_params: int, activation_bytes: dict[str, int]) -> None:
    _say(memory_verdicts(measured, n_params, activation_bytes))


def say_fp32_regions(rows: list[dict], device_type: str) -> None:
    _say(fp32_region_verdicts(rows, device_type))


def _named(record, mode: str, role_key: str) -> list[dict]:
    """The record's noise information named as the noisy line shows its row: 'fp16 (step)', 'bf16 (matmul)'."""
    info = getattr(record, "noise", None)
    return [{**info, "row": f"{mode} ({t(role_key)})"}] if isinstance(info, dict) and "verdict" in info else []


def say_speed(records: list, mm_records: dict, device_type: str, fast_formats, *, offer_rerun: bool = True) -> None:
    """records: the timed steps, fp32 first; mm_records: format -> matmul Record. Each mode's
    sentences stand on its step, fp32's step and both matmuls. A quiet mode gets its ratio and its
    cause, marked quiet on its line when another row was noisy; all noisy modes together get ONE
    warning that names their noisy rows (no ratio, no cause), then, once, the one-line rerun cell
    to run (offer_rerun; the rerun's own verdict passes False: after it the lesson gives up)."""
    fp32 = records[0]
    ratios = {r.name: fp32.median_s / r.median_s for r in records[1:]}
    mm = {mode: r.metrics["gflops"] for mode, r in mm_records.items()}
    matmul_ratios = {mode: g / mm["fp32"] for mode, g in mm.items() if mode != "fp32"} if "fp32" in mm else {}
    stands_on = {r.name: _named(fp32, fp32.name, "lesson03.v.row_step") + _named(r, r.name, "lesson03.v.row_step")
                 + sum((_named(mm_records[m], m, "lesson03.v.row_matmul") for m in ("fp32", r.name) if m in mm_records), [])
                 for r in records[1:]}
    noisy = [mode for mode, infos in stands_on.items() if any(noise.is_noisy(i) for i in infos)]
    quiet_mark = " " + t("lesson03.v.quiet_mark") if noisy else ""
    for key, values in speed_verdicts(ratios, device_type, fast_formats, matmul_ratios, noisy=noisy):
        if key == "lesson03.v.speed_noisy":
            continue
        verdicts.say(t(key, **values) + quiet_mark, noise=stands_on[values["mode"]])
    if noisy:
        rows = list({i["row"]: i for mode in noisy for i in stands_on[mode]}.values())
        verdicts.say("lesson03.v.speed_noisy", noise=rows, mode=", ".join(noisy))
        if offer_rerun:
            verdicts.say("lesson03.v.speed_rerun_offer", noise=(), modes=", ".join(noisy))


def say_speed_rerun(records: list, mm_records: dict, device_type: str, fast_formats, remeasured) -> None:
    """After the one rerun at the quieter setting (panel.remeasure_noisy): what was measured again,
    then the speed verdict on the new numbers; nothing noisy before: says so and repeats nothing."""
    if not remeasured:
        verdicts.say("lesson03.v.rerun_none", noise=())
        return
    verdicts.say("lesson03.v.rerun_done", noise=(), rows=", ".join(remeasured))
    say_speed(records, mm_records, device_type, fast_formats, offer_rerun=False)


def say_accuracy(rows: list[tuple], steps: int) -> None:
    """rows: (mode, final loss, test loss, accuracy %, skipped); section 7 switched off: says so."""
    if rows:
        _say([accuracy_verdict({row[0]: row[3] for row in rows}, steps=steps)])
    else:
        verdicts.say("lesson03.v.accuracy_off", noise=())

SAME_BAND = 0.05  # within ±5% of fp32 counts as "about the same": closer than run-to-run noise here
LOW_PRECISION = ("float16", "bfloat16")


def old_api_verdict(warning_texts: list[str]) -> str:
    """Which sentence describes what the deprecated torch.cuda.amp lines did here: disabled with a
    UserWarning (no CUDA), or ran on CUDA with only the deprecation FutureWarning."""
    disabled = any("Disabling" in text or "not available" in text for text in warning_texts)
    return "lesson03.v.old_api_disabled" if disabled else "lesson03.v.old_api_ran"


def autocast_verdict(rows: list[tuple[str, str]], device_type: str) -> list[tuple[str, dict]]:
    """From the ops table (op, dtype under autocast) measured here: which ops autocast ran in low
    precision, which in float32, and what that says about reductions and normalisations."""
    low = [op for op, dtype in rows if dtype in LOW_PRECISION]
    high = [op for op, dtype in rows if dtype == "float32"]
    out = [("lesson03.v.autocast_lists", {"device": device_type, "low": ", ".join(low) or "—",
                                           "high": ", ".join(high) or "—"})]
    reductions = [op for op in ("sum", "softmax", "layer_norm") if op in dict(rows)]
    kept_low = [op for op in reductions if op in low]
    if kept_low:
        out.append(("lesson03.v.reductions_low", {"device": device_type, "ops": ", ".join(kept_low)}))
    elif reductions:
        out.append(("lesson03.v.reductions_fp32", {"device": device_type, "ops": ", ".join(reductions)}))
    return out


def speed_class(ratio: float, band: float = SAME_BAND) -> str:
    """'faster', 'slower' or 'same' for a speed ratio (fp32 time ÷ this mode's time)."""
    if ratio > 1 + band:
        return "faster"
    if ratio < 1 - band:
        return "slower"
    return "same"


def speed_reason(mode: str, ratio: float, device_type: str, fast_formats, matmul_ratio: float | None = None) -> str | None:
    """The catalog key of one sentence on *why* `mode` ran at `ratio` × fp32's speed here, chosen from
    the measurement and the device's facts (fast_formats: the formats it runs in hardware)."""
    kind = speed_class(ratio)
    if mode == "tf32":
        return "lesson03.v.why_tf32_cuda" if device_type == "cuda" and "tf32" in fast_formats else "lesson03.v.why_tf32_noop"
    if mode not in ("fp16", "bf16"):
        return None
    native = mode in fast_formats
    if native:
        return "lesson03.v.why_native_fast" if kind == "faster" else "lesson03.v.why_native_small"
    if kind == "slower":
        # Much slower, and the matmul alone is slower too: no arithmetic units for this format.
        if matmul_ratio is not None and matmul_ratio < 1 - SAME_BAND:
            return "lesson03.v.why_no_native_matmul"
        return "lesson03.v.why_no_native"
    return "lesson03.v.why_emulated_ok"


SPEED_KEYS = {"faster": "lesson03.v.speed_faster", "slower": "lesson03.v.speed_slower", "same": "lesson03.v.speed_same"}


def speed_verdicts(ratios: dict[str, float], device_type: str, fast_formats,
                   matmul_ratios: dict[str, float] | None = None, noisy=()) -> list[tuple[str, dict]]:
    """(catalog key, values) for every low-precision mode: how fast against fp32, then why.

    noisy: the modes whose measurements (the mode's step, fp32's step, or their matmuls) were
    noisy; for them no ratio and no cause, only that the row is noisy and what to do. A ratio
    below 1 is said as "N× slower" (slow = 1 / ratio), never "0.1× as fast"."""
    matmul_ratios = matmul_ratios or {}
    out = []
    for mode, ratio in ratios.items():
        if mode in noisy:
            out.append(("lesson03.v.speed_noisy", {"mode": mode}))
            continue
        out.append((SPEED_KEYS[speed_class(ratio)], {"mode": mode, "ratio": ratio, "slow": 1.0 / max(ratio, 1e-12)}))
        reason = speed_reason(mode, ratio, device_type, fast_formats, matmul_ratios.get(mode))
        if reason:
            out.append((reason, {"mode": mode, "device": device_type, "mm": matmul_ratios.get(mode) or 0.0}))
    return out


def accuracy_verdict(accuracy_pct: dict[str, float], steps: int, close_points: float = 2.0) -> tuple[str, dict]:
    """Do the modes reach about the same test accuracy in this run? (points = percentage points)"""
    spread = max(accuracy_pct.values()) - min(accuracy_pct.values())
    best = max(accuracy_pct, key=accuracy_pct.get)
    worst = min(accuracy_pct, key=accuracy_pct.get)
    key = "lesson03.v.accuracy_close" if spread <= close_points else "lesson03.v.accuracy_apart"
    return key, {"spread": spread, "best": best, "worst": worst, "steps": steps}


def gradient_verdict(zero_pct: float, below_normal_pct: float) -> tuple[str, dict]:
    """How many of this run's real gradients fp16 loses to zero, and how many lose resolution."""
    key = "lesson03.v.grads_many_low" if below_normal_pct >= 10 else "lesson03.v.grads_few_low"
    return key, {"zero": zero_pct, "low": below_normal_pct}


def safe_scale_range(ks: list[int], underflow_pct: list[float], overflow_pct: list[float]) -> tuple[str, dict]:
    """The loss-scale exponents k (scale 2^k) at which nothing of this run's gradients became zero
    or inf: the widest run of consecutive such k, or a sentence saying there is none."""
    best, current = [], []
    for k, under, over in zip(ks, underflow_pct, overflow_pct):
        current = current + [k] if under == 0 and over == 0 else []
        if len(current) > len(best):
            best = current
    if not best:
        return "lesson03.v.scale_no_safe_range", {}
    return "lesson03.v.scale_safe_range", {"lo": best[0], "hi": best[-1]}


# ----------------------------------------------------------------- memory, accumulation, fp32 regions (issue 18)

def memory_verdicts(measured: dict[str, dict], n_params: int, activation_bytes: dict[str, int]) -> list[tuple[str, dict]]:
    """measured: layout name -> memory.measured_bytes(...) after one step; activation_bytes: mode ->
    bytes saved for backward at this batch. Says how many bytes per parameter each layout really
    took, and whether activations or the per-parameter state are the bigger part here."""
    out = []
    per = {name: parts["total"] / max(1, n_params) for name, parts in measured.items()}
    spread = max(per.values()) - min(per.values())
    out.append(("lesson03.v.mem_per_param", {"rows": ", ".join(f"{k} {v:.2f}" for k, v in per.items()),
                                             "same": "yes" if spread < 0.5 else "no"}))
    key = "lesson03.v.mem_same_state" if spread < 0.5 else "lesson03.v.mem_state_differs"
    out.append((key, {"spread": spread}))
    state = min(parts["total"] for parts in measured.values())
    for mode, act in activation_bytes.items():
        k = "lesson03.v.mem_act_bigger" if act > state else "lesson03.v.mem_state_bigger"
        out.append((k, {"mode": mode, "act_mib": act / 2**20, "state_mib": state / 2**20, "ratio": act / max(1, state)}))
    return out


def accumulation_verdict(max_diff: float, grad_scale: float, error_text: str | None) -> list[tuple[str, dict]]:
    """Accumulated gradients vs one big batch, and what a second unscale_ in one step did."""
    key = "lesson03.v.accum_equal" if max_diff <= 1e-3 * max(grad_scale, 1e-12) else "lesson03.v.accum_differs"
    out = [(key, {"diff": max_diff, "scale": grad_scale})]
    if error_text:
        out.append(("lesson03.v.accum_unscale_twice", {"error": error_text}))
    else:
        out.append(("lesson03.v.accum_unscale_twice_silent", {}))
    return out


def multi_optimizer_verdict(changed: dict[str, bool], scale_before: float, scale_after: float) -> tuple[str, dict]:
    """Two optimizers, one GradScaler, an inf in the first one's gradients: who stepped."""
    skipped = [name for name, moved in changed.items() if not moved]
    stepped = [name for name, moved in changed.items() if moved]
    return ("lesson03.v.multi_opt", {"skipped": ", ".join(skipped) or "—", "stepped": ", ".join(stepped) or "—",
                                     "before": scale_before, "after": scale_after})


def fp32_region_verdicts(rows: list[dict], device_type: str) -> list[tuple[str, dict]]:
    """From fp32_regions.fp32_region_rows measured here: where the hand-written loss broke or lost
    accuracy inside autocast, and what the fp32 region changed."""
    out = []
    for mode in sorted({r["mode"] for r in rows if r["how"] == "autocast"}):
        inside = next(r for r in rows if r["mode"] == mode and r["how"] == "autocast")
        region = next(r for r in rows if r["mode"] == mode and r["how"] == "enabled=False")
        values = {"mode": mode, "device": device_type, "exp": inside["exp_dtype"], "err": inside["error"],
                  "fixed": region["error"]}
        if not inside["finite"]:
            out.append(("lesson03.v.fp32_broke", values))
        elif inside["exp_dtype"] != "float32" and inside["error"] > 10 * region["error"]:
            out.append(("lesson03.v.fp32_less_accurate", values))
        else:
            out.append(("lesson03.v.fp32_autocast_ok", values))
    return out
