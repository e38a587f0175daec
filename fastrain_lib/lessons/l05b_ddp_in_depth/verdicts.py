"""Lesson 05b's verdict rules: which sentence (catalog key + values) this run's numbers support.
The notebook says them after each measuring cell; the panel puts them in its note."""

from __future__ import annotations

from fastrain_lib.core.i18n import pick, t
from fastrain_lib.core.verdicts import say
from fastrain_lib.distributed import cost_model, dataparallel, measured
from fastrain_lib.measure import hardware, noise
from fastrain_lib.lessons.l05b_ddp_in_depth.interleaved import sweep_busy

cores = hardware.usable_cores

# Names shown for strategies, phases, DataParallel kinds and ways of summing (full keys: a test can list them)
STRATEGY_KEYS = {"dp": "lesson05b.strategy_dp", "ddp": "core.ddp", "zero1": "core.zero1",
                 "zero2": "core.zero2", "zero3": "lesson05b.strategy_zero3", "ps": "lesson05b.strategy_ps"}
PHASE_KEYS = {"scatter": "lesson05b.phase_scatter", "replicate": "lesson05b.phase_replicate",
              "forward": "core.forward", "gather_loss": "lesson05b.phase_gather_loss",
              "backward": "core.backward", "reduce_grads": "lesson05b.phase_reduce_grads",
              "optimizer": "core.optimizer", "backward_allreduce": "lesson05b.phase_backward_allreduce"}
KIND_KEYS = {"threads": "lesson05b.kind_threads", "torch": "lesson05b.kind_torch"}
COMM_KEYS = {"gloo": "lesson05b.comm_gloo", "ring": "lesson05b.comm_ring", "ps": "lesson05b.comm_ps"}


# sentences that stand on no timing: a count (devices vs cores, buckets × micro-batches) or the
# statement that a measurement was noisy
# (a noisy sentence, lesson05b.v_noisy, stands on its measurements: say() then prints the one warning
# that names the noisy rows; the offer to measure once more, lesson05b.v_rerun, stands on nothing)
NO_TIMING_KEYS = {"lesson05b.v_oversubscribed", "lesson05b.v_bucket_count", "lesson05b.v_bucket_count_other",
                  "lesson05b.v_alpha_one_side", "lesson05b.v_rerun"}


def noise_for(key: str, infos) -> list:
    """What a sentence stands on, for verdicts.say(noise=...): nothing for NO_TIMING_KEYS, else `infos`."""
    return [] if key in NO_TIMING_KEYS else list(infos)


def _any_noisy(infos) -> bool:
    return any((i or {}).get("verdict") == "noisy" for i in infos)


def _say_all(said, infos) -> None:
    """Say each (key, values); where `infos` hold a noisy run, the sentences on timings become ONE
    warning (say() prints it naming the noisy rows), the counts are still said."""
    warned = False
    for key, values in said:
        stands_on = noise_for(key, infos)
        if _any_noisy(stands_on):
            if warned:
                continue
            warned = True
        say(key, noise=stands_on, **values)


def named(info: dict | None, row: str) -> dict:
    """A run's noise information with the row it stands for, so the noisy line names it ({} stays {})."""
    return {**info, "row": row} if info else {}


def offer_rerun(infos) -> None:
    """After a noisy verdict: one more measurement at the quieter setting, before giving up (a line
    that stands on no timing). The measuring cell, run again, measures anew (runs._cached)."""
    if _any_noisy(infos):
        say("lesson05b.v_rerun", noise=())


def _noisy(what_key: str, **values) -> tuple[str, dict]:
    """The sentence for a measurement whose noise verdict is noisy: what it was, no cause."""
    return "lesson05b.v_noisy", {**values, "what": t(what_key, **values)}


def compare_verdicts(dp: dict, ddp: list[dict], *, noisy: bool = False) -> list[tuple[str, dict]]:
    """(catalog key, values) for what this DataParallel-vs-DDP run measured (noisy: only that it
    was noisy, and the count of devices vs cores, which stands on no timing)."""
    if noisy:
        out = [_noisy("lesson05b.what_compare")]
        if dp["replicas"] > cores():
            out.append(("lesson05b.v_oversubscribed", {"n": dp["replicas"], "cores": cores()}))
        return out
    dp_s, ddp_s = dp["step_s"], dataparallel.ddp_step_s(ddp)
    n = dp["replicas"]
    values = {"n": n, "dp_ms": dp_s * 1e3, "ddp_ms": ddp_s * 1e3, "single_ms": dp["single_s"] * 1e3,
              "piece_ms": dp.get("piece_s", 0.0) * 1e3, "cores": cores(),
              "share": dataparallel.serial_share(dp["phases"]),
              "ratio": dp_s / ddp_s if ddp_s > 0 else float("inf")}
    if ddp_s < dp_s:
        key = "lesson05b.v_ddp_faster"
    else:  # "the rest of DDP's step is the all-reduce" only when there is a rest (noise can hide it)
        key = "lesson05b.v_dp_faster" if values["piece_ms"] < values["ddp_ms"] else "lesson05b.v_dp_faster_no_rest"
    out = [(key, values)]
    speedup = dataparallel.thread_speedup(dp)
    if speedup is not None:
        if speedup < 0.9:
            key = "lesson05b.v_threads_slower"
        elif speedup >= 0.8 * min(n, cores()):
            key = "lesson05b.v_threads_overlap"
        else:
            key = "lesson05b.v_threads_gil"
        out.append((key, {"n": n, "cores": cores(), "slower": 1 / speedup if speedup > 0 else 0.0,
                          "phrase": noise.speed_words(speedup),  # 0.94 is "1.1× slower", never "0.94× faster"
                          "ideal": min(n, cores())}))
    if n > cores():
        out.append(("lesson05b.v_oversubscribed", {"n": n, "cores": cores()}))
    return out


def most_buckets(rows: list[dict]) -> dict:
    """The sweep row with the most buckets (the smallest cap): where overlap can show."""
    return max(rows, key=lambda r: (r["buckets"], -r["bucket_cap_mb"]))


def sweep_verdicts(rows: list[dict], *, noisy: bool = False) -> list[tuple[str, dict]]:
    """Smallest vs largest bucket cap: which step was faster; and how much of the all-reduce hid
    behind backward with the most buckets (noisy: said, and no cause drawn from the times)."""
    if noisy:
        return [_noisy("lesson05b.what_sweep")]
    small = min(rows, key=lambda r: r["bucket_cap_mb"])
    large = max(rows, key=lambda r: r["bucket_cap_mb"])
    values = {"small_mb": small["bucket_cap_mb"], "small_ms": small["step_s"] * 1e3, "small_n": small["buckets"],
              "large_mb": large["bucket_cap_mb"], "large_ms": large["step_s"] * 1e3, "large_n": large["buckets"]}
    out = [("lesson05b.v_buckets_small" if small["step_s"] < large["step_s"] else "lesson05b.v_buckets_large", values)]
    many = most_buckets(rows)
    out.append(("lesson05b.v_overlap", {"cap": many["bucket_cap_mb"], "hidden": many["hidden_share"],
                                        "n": many["buckets"]}))
    return out


def bucket_count_verdict(summary: dict) -> tuple[str, dict]:
    """Why k micro-batches made more than k all-reduces: DDP all-reduces every bucket, so an
    optimizer step without no_sync() makes (buckets per backward) × k of them. A count: it stands
    on no timing."""
    k = summary["k"]
    every, quiet = summary["every_allreduces"], summary["no_sync_allreduces"]
    buckets = quiet if quiet else every / max(k, 1)
    values = {"k": k, "every": every, "no_sync": quiet, "buckets": buckets, "product": buckets * k}
    if abs(buckets * k - every) < 0.5:
        return "lesson05b.v_bucket_count", values
    return "lesson05b.v_bucket_count_other", values


def accumulation_verdict(summary: dict, *, noisy: bool = False) -> tuple[str, dict]:
    if noisy:
        return _noisy("lesson05b.what_accumulation")
    key = "lesson05b.v_no_sync_saves" if summary["saving"] > 0.02 else "lesson05b.v_no_sync_none"
    return key, summary


def prediction_verdict(predicted_s: float, measured_s: float, compute_s: float, comm_s: float, *,
                       noisy: bool = False) -> tuple[str, dict]:
    error = (predicted_s - measured_s) / measured_s
    values = {"pred_ms": predicted_s * 1e3, "meas_ms": measured_s * 1e3, "compute_ms": compute_s * 1e3,
              "comm_ms": comm_s * 1e3, "error": abs(error)}
    if noisy:
        return _noisy("lesson05b.what_prediction", **values)
    if measured_s < compute_s:  # overlap brings a step down to its compute, never below it
        return "lesson05b.v_predict_below_compute", {**values, "gap": compute_s / measured_s - 1}
    if abs(error) <= 0.25:
        return "lesson05b.v_predict_close", values
    return ("lesson05b.v_predict_over" if error > 0 else "lesson05b.v_predict_under"), values


def zero_verdict(measured_s: dict[str, float], predicted_s: dict[str, float]) -> tuple[str, dict] | None:
    """(catalog key, values) for the ZeRO stage whose measurement is furthest from the model, or None."""
    common = [s for s in ("zero1", "zero2", "zero3") if s in measured_s and s in predicted_s and predicted_s[s] > 0]
    if not common:
        return None
    worst = max(common, key=lambda s: max(measured_s[s] / predicted_s[s], predicted_s[s] / measured_s[s]))
    ratio = measured_s[worst] / predicted_s[worst]
    values = {"stage": t(STRATEGY_KEYS[worst]), "meas_ms": measured_s[worst] * 1e3,
              "pred_ms": predicted_s[worst] * 1e3, "ratio": ratio}
    if ratio > 1.5:
        return "lesson05b.v_zero_under", values
    if ratio < 1 / 1.5:
        return "lesson05b.v_zero_over", values
    return "lesson05b.v_zero_close", values


def held_out_verdict(fit: cost_model.Fit, nbytes: int, measured_s: float, *, noisy: bool = False) -> tuple[str, dict]:
    predicted = fit.allreduce_s(nbytes)
    error = abs(predicted - measured_s) / measured_s
    if noisy:
        return _noisy("lesson05b.what_held_out", p=fit.world_size)
    return ("lesson05b.v_held_out_ok" if error <= 0.5 else "lesson05b.v_held_out_off",
            {"kb": nbytes / 1e3, "pred_ms": predicted * 1e3, "meas_ms": measured_s * 1e3, "error": error,
             "p": fit.world_size, "alpha_us": fit.alpha_s * 1e6, "gbs": fit.bandwidth_bytes_per_s / 1e9})


def comm_verdict(values: dict, *, noisy: bool = False) -> tuple[str, dict]:
    """Whether our Python ring was slower than gloo's own all-reduce in this run (and so what to say)."""
    if noisy:
        return _noisy("lesson05b.what_comm")
    key = "lesson05b.v_comm_ring_slower" if values["ring_meas"] > values["gloo_meas"] else "lesson05b.v_comm_ring_not_slower"
    return key, values


# α this many times the α of the processes that fit the cores is "a jump"; within 1/JUMP..JUMP it did not move
ALPHA_JUMP = 1.5


def alpha_verdict(fits: dict[int, cost_model.Fit], cores_: int | None = None, *,
                  noisy: bool = False) -> tuple[str, dict]:
    """The sentence about α across process counts, computed from the fitted table (the notebook
    used to say "with 3 or 4 processes on 2 cores α jumps" whatever the table showed)."""
    cores_ = cores_ or cores()
    alphas = {p: f.alpha_s * 1e6 for p, f in sorted(fits.items())}
    listing = ", ".join(f"p={p}: {a:.0f} µs" for p, a in alphas.items())
    values = {"listing": listing, "cores": cores_}
    if noisy:
        return _noisy("lesson05b.what_alpha", **values)
    inside = {p: a for p, a in alphas.items() if p <= cores_}
    outside = {p: a for p, a in alphas.items() if p > cores_}
    if not inside or not outside:
        return "lesson05b.v_alpha_one_side", values
    base_p = max(inside)
    top_p = max(outside, key=lambda p: outside[p])
    ratio = outside[top_p] / inside[base_p] if inside[base_p] > 0 else float("inf")
    values.update(base_p=base_p, base_us=inside[base_p], top_p=top_p, top_us=outside[top_p], ratio=ratio)
    if ratio >= ALPHA_JUMP:
        return "lesson05b.v_alpha_jumps", values
    return "lesson05b.v_alpha_flat", values


def ps_gap_verdict(values: dict, fit: cost_model.Fit, *, noisy: bool = False, close: float = 0.25) -> tuple[str, dict]:
    """Which term of the one-server model (2(p−1) whole-tensor messages, one after another:
    2(p−1)·α + 2(p−1)·n·β) is off when its prediction and the measurement differ, computed from
    the fitted α and β (or that the run was noisy, or that they agree)."""
    p, nbytes = values["p"], values["kb"] * 1e3
    alpha_ms = 2 * (p - 1) * fit.alpha_s * 1e3
    bytes_ms = 2 * (p - 1) * nbytes * fit.beta_s_per_byte * 1e3
    pred, meas = values["ps_pred"], values["ps_meas"]
    out = {"p": p, "kb": values["kb"], "pred_ms": pred, "meas_ms": meas, "alpha_ms": alpha_ms, "bytes_ms": bytes_ms,
           "messages": 2 * (p - 1), "ratio": pred / meas if meas > 0 else float("inf")}
    if noisy:
        return _noisy("lesson05b.what_ps")
    if meas > 0 and abs(pred - meas) / meas <= close:
        return "lesson05b.v_ps_close", out
    if meas < pred:
        if meas < alpha_ms:
            return "lesson05b.v_ps_alpha_off", out
        # the per-byte cost a whole-tensor send really had, from the measurement minus the latency term
        implied = (meas - alpha_ms) / 1e3 / (2 * (p - 1) * nbytes) if nbytes > 0 else 0.0  # s per byte
        out.update(implied_gbs=(1 / implied / 1e9) if implied > 0 else float("inf"),
                   fitted_gbs=fit.bandwidth_bytes_per_s / 1e9)
        if bytes_ms >= alpha_ms:
            return "lesson05b.v_ps_bytes_off", out
        return "lesson05b.v_ps_alpha_off", out
    out["extra_ms"] = meas - pred
    return "lesson05b.v_ps_under", out


# ---------------------------------------------------------------- what the notebook's # VERDICT cells call


def compare(dp: dict, ddp: list[dict], infos: list) -> None:
    """Say who was faster, device 0's share and how far the threads overlapped (noisy: the one warning
    naming the DataParallel and DDP runs, then the offer to measure once more)."""
    n = dp.get("replicas", len(ddp))
    rows = [named(infos[0] if infos else {}, f"DataParallel ×{n}"), named(infos[1] if len(infos) > 1 else {}, f"DDP ×{len(ddp)}")]
    _say_all(compare_verdicts(dp, ddp, noisy=_any_noisy(rows)), rows)
    offer_rerun(rows)


def sweep(rows: list[dict]) -> None:
    """Say small vs large buckets, the hidden share, and our bucketed all-reduce beside DDP's. A busy run
    whose interleaved rounds agree still states the ratios it can read (sweep_busy), each marked on its
    line; what stands on the run's own times (the timeline's hidden share) stays the one warning."""
    infos = [named(r["noise"], f"bucket_cap_mb={r['bucket_cap_mb']:g}") for r in rows]
    noisy = _any_noisy(infos)
    said = sweep_verdicts(rows, noisy=noisy)
    if not noisy:
        many = most_buckets(rows)
        said.append(("lesson05b.v_ours_vs_ddp", {"cap": many["bucket_cap_mb"], "n": many["buckets"],
                                                 "ours_ms": many["ours_s"] * 1e3, "ddp_ms": many["step_s"] * 1e3}))
    busy = sweep_busy(rows, most_buckets(rows)) if noisy else []
    for key, values, timing in busy:
        say(key, noise=[timing], **values)
    if len(busy) == 2:  # both ratios stated: only the timeline is left unsaid
        said = [_noisy("lesson05b.what_overlap")]
    _say_all(said, infos)
    offer_rerun(infos)


def accumulation_info(summary: dict, info: dict | None) -> dict:
    """The noise of the no_sync() timing sentence: the run's, or, where both ways were timed in
    interleaved rounds (summary["ratios"]), that of their per-round ratio (interleaved_info)."""
    row = pick(bn=f"no_sync() বনাম প্রতিটি backward-এ অল-রিডিউস (k={summary.get('k')})",
               en=f"no_sync() vs all-reduce in every backward (k={summary.get('k')})")
    if summary.get("ratios"):
        return measured.interleaved_info(info, summary["ratios"], row)
    return named(info, row)


def accumulation(summary: dict, info: dict) -> None:
    """Say why k micro-batches made that many all-reduces (a count), then what no_sync() saved: from
    a quiet run; from the per-round ratio of a busy run whose interleaved rounds agree (said so on the
    line); else the warning naming the row, and the offer to measure once more."""
    timing = accumulation_info(summary, info)
    count_key, count_values = bucket_count_verdict(summary)
    say(count_key, noise=(), **count_values)
    if timing.get("busy_interleaved"):
        say("lesson05b.v_no_sync_busy", noise=[timing], **busy_values(summary, timing))
        return
    key, values = accumulation_verdict(summary, noisy=_any_noisy([timing]))
    say(key, noise=[timing], **values)
    offer_rerun([timing])


def busy_values(summary: dict, timing: dict) -> dict:
    """The values of lesson05b.v_no_sync_busy: the counts, and the median per-round time ratio."""
    return {**summary, **measured.round_values(summary["ratios"], timing)}


def fits(fitted: dict, held: dict, infos: dict) -> None:
    """Say how α moved across process counts, then each fit's prediction for its held-out size
    (a quiet one beside noisy ones carries the quiet mark on its line)."""
    rows = {p: named(infos.get(p), pick(bn=f"অল-রিডিউস p={p}", en=f"all-reduce p={p}")) for p in fitted}
    _say_all([alpha_verdict(fitted, cores(), noisy=_any_noisy(rows.values()))], list(rows.values()))
    mixed = _any_noisy(rows.values())
    for p, fit in fitted.items():
        key, values = held_out_verdict(fit, *held[p], noisy=_any_noisy([rows[p]]))
        if mixed and not _any_noisy([rows[p]]):  # its α from a quiet run, beside noisy ones: said on its line
            say(t(key, **values) + " " + t("lesson05b.quiet_mark"), noise=[rows[p]])
        else:
            _say_all([(key, values)], [rows[p]])
    offer_rerun(rows.values())


def predictions(compute_s: float, measured_s: dict, fit: cost_model.Fit, param_bytes: int, counts: dict,
                infos: dict) -> None:
    """DDP's step, the model (compute + one all-reduce) vs measured; then the ZeRO stage furthest from it.
    infos: the noise of 'compute', 'fit' and every measured strategy."""
    names = {"compute": pick(bn="গণনা, 1টি প্রসেস", en="compute, 1 process"),
             "fit": pick(bn="অল-রিডিউস p=2 (α, β)", en="all-reduce p=2 (α, β)"), "ddp": "DDP ×2"}
    rows = {k: named(v, names.get(k, t(STRATEGY_KEYS[k]) if k in STRATEGY_KEYS else k)) for k, v in infos.items()}
    comm = cost_model.comm_s("ddp", param_bytes, fit)
    step = [rows["compute"], rows.get("ddp", {}), rows["fit"]]
    _say_all([prediction_verdict(compute_s + comm, measured_s["ddp"], compute_s, comm, noisy=_any_noisy(step))], step)
    zero = zero_verdict(measured_s, {s: compute_s + cost_model.collectives_s(c, fit) for s, c in counts.items()})
    stood = step
    if zero:
        stood = [rows["compute"], rows["fit"]] + [rows.get(s, {}) for s in counts]
        say(zero[0], noise=stood, **zero[1])
    offer_rerun(step + stood)


def comm(values: dict, fit: cost_model.Fit, infos: list) -> None:
    """gloo, our Python ring and one server: model vs measured; then which term of the server's model is off."""
    p = values.get("p", 2)
    rows = [named(infos[0] if infos else {}, pick(bn=f"gloo / রিং / সার্ভার p={p}", en=f"gloo / ring / server p={p}")),
            named(infos[1] if len(infos) > 1 else {}, pick(bn=f"অল-রিডিউস p={p} (α, β)", en=f"all-reduce p={p} (α, β)"))]
    noisy = _any_noisy(rows)
    busy = comm_busy(values, rows[0]) if _any_noisy(rows[:1]) else None
    if busy:  # our ring ÷ gloo, from this run's interleaved rounds: on no model, so not on the fit's run
        say(busy[0], noise=[busy[2]], **busy[1])
    _say_all([ps_gap_verdict(values, fit, noisy=noisy)] if busy else
             [comm_verdict(values, noisy=noisy), ps_gap_verdict(values, fit, noisy=noisy)], rows)
    offer_rerun(rows)


def comm_busy(values: dict, info: dict) -> tuple[str, dict, dict] | None:
    """Our Python ring ÷ gloo's all-reduce, where a noisy run timed both in the same interleaved rounds
    and those rounds agree (measured.busy_ratio); None otherwise."""
    rounds = values.get("rounds") or {}
    if not rounds:
        return None
    return measured.busy_ratio(rounds["ring"], t("lesson05b.comm_ring"), rounds["gloo"], t("lesson05b.comm_gloo"), info)
