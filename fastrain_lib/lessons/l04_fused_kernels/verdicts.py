"""Lesson 04's verdict rules: pure functions of this run's numbers and the device's facts.

Each rule returns a list of `(key, values, stands_on)`: the catalog key of a sentence, its values,
and the measurements the sentence stands on, for `verdicts.say(key, noise=stands_on, **values)`.

- A sentence that only counts (bytes, launches, a formula) stands on no timing: `stands_on` is `()`.
- A ratio of two timings ("N× faster", "N× slower") stands on the two rows it divides (issue 38): when
  either is noisy, `say` prints the noisy line in its place, so no ratio from a noisy row is stated.
- A sentence that explains (why one is faster, what limits a kernel) stands on its measurements, and a
  rule picks it only when every one of them is quiet. When any is noisy the rule adds `lesson04.v.no_cause`
  standing on the noisy ones instead, so `say` prints the noisy-measurement sentence once, in its place.
"""

from __future__ import annotations

import itertools

import torch

from fastrain_lib.lessons.l04_fused_kernels.tables import shown_name
from fastrain_lib.measure import noise

SAME_BAND = 0.05  # within ±5% counts as "no change": closer than run-to-run noise
NEAR_ROOF = 0.5  # a kernel at ≥ half of its roof shows that roof's limit in its time
ABOVE_ROOF = 1.05  # a point more than 5% above its own ceiling: one of the two measurements is off


def noisy(items) -> bool:
    """True when any Record (or noise dict) in `items` (nested lists allowed) is noisy."""
    if items is None:
        return False
    if isinstance(items, dict):
        return noise.is_noisy(items)
    if isinstance(items, (list, tuple, set)):
        return any(noisy(item) for item in items)
    return noise.is_noisy(getattr(items, "noise", None))


def _flat(items) -> list:
    if isinstance(items, (list, tuple, set)):
        return [x for item in items for x in _flat(item)]
    return [] if items is None else [items]


def no_cause(records) -> list[tuple[str, dict, list]]:
    """[] when every record is quiet; else the one sentence whose place `say` gives to the noisy line."""
    flat = _flat(records)
    return [("lesson04.v.no_cause", {}, flat)] if noisy(flat) else []


def compare(what: str, than: str, ratio: float, where: str = "", stands_on=()) -> tuple[str, dict, list]:
    """`what` against `than`, ratio = than's time ÷ what's time, worded the right way round:
    3.0 → "3.0× faster", 0.1 → "10× slower" (never "0.1× faster"), within ±5% → "about the same".
    stands_on: the two timings divided (the sentence gives way to the noisy line when one is noisy)."""
    where = f" ({where})" if where else ""
    rows = list(_flat(stands_on))
    if ratio >= 1 + SAME_BAND:
        return "lesson04.v.cmp_faster", {"what": what, "than": than, "ratio": ratio, "where": where}, rows
    if ratio <= 1 - SAME_BAND:
        return "lesson04.v.cmp_slower", {"what": what, "than": than, "ratio": 1 / ratio, "where": where}, rows
    return "lesson04.v.cmp_same", {"what": what, "than": than, "where": where}, rows


def default_adam_impl_for(device_type: str, foreach_devices) -> str:
    """What torch.optim.Adam/AdamW run when neither foreach= nor fused= is given: foreach when
    the parameters are on a device with foreach kernels (CUDA, XPU, ...), else the for-loop
    (torch/optim/optimizer.py: _default_to_fused_or_foreach)."""
    return "foreach" if device_type in set(foreach_devices) else "forloop"


def default_adam_impl(device) -> str:
    """default_adam_impl_for on this device, asking PyTorch for its list of foreach devices."""
    try:
        from torch.utils._foreach_utils import _get_foreach_kernels_supported_devices as foreach_devices
        devices = foreach_devices()
    except ImportError:  # very old torch: foreach kernels meant CUDA
        devices = ["cuda"]
    return default_adam_impl_for(torch.device(device).type, devices)


# ---------------------------------------------------------------- §1 bias + GELU against the roofline

GELU_FLOPS_PER_ELEMENT = 10  # bias add 1, z³ 2, ·0.044715 and + 2, ·c 1, tanh 1, 1+ 1, ·z 1, ·0.5 1


def gelu_bound(intensity: float, ridge: float) -> str:
    """'memory' or 'compute' from the roofline (Williams et al. 2009): the operation's arithmetic
    intensity (FLOP per byte) against this machine's ridge point (peak FLOP/s ÷ bandwidth). Never
    from the measured share of the roof: a kernel far below both roofs is limited by neither."""
    return "compute" if intensity >= ridge else "memory"


def gelu_verdicts(*, chain, library, chain_bytes: int, library_bytes: int, flops: float,
                  peak_gflops: float, roof_gbs: float, roof_records=()) -> list[tuple[str, dict, object]]:
    """The chain against F.gelu (records), what the roofline says bounds F.gelu here (intensity vs the
    ridge of the roof measured now), how close this run came to that roof, and — only when every
    measurement was quiet and the run came near its roof — why fusing helps."""
    out = [("lesson04.v.gelu_bytes", {"bytes": chain_bytes / library_bytes}, ()),
           compare("F.gelu", _name("lesson04.chain"), chain.median_s / library.median_s, stands_on=[chain, library])]
    intensity, ridge = flops / library_bytes, peak_gflops / roof_gbs
    bound = gelu_bound(intensity, ridge)
    out.append(("lesson04.v.gelu_memory_by_roofline" if bound == "memory" else "lesson04.v.gelu_compute_by_roofline",
                {"intensity": intensity, "ridge": ridge, "peak": peak_gflops, "roof": roof_gbs}, list(roof_records)))
    achieved = library_bytes / library.median_s / 1e9
    share = achieved / roof_gbs if roof_gbs else 0.0
    values = {"gbs": achieved, "roof": roof_gbs, "share": share}
    if share > ABOVE_ROOF:  # a point above its own ceiling is flagged, not explained
        out.append(("lesson04.v.gelu_above_roof", values, ()))
        return out
    stands_on = [chain, library, *roof_records]
    if noisy(stands_on):
        out.append(("lesson04.v.gelu_share", values, ()))
        return out + no_cause(stands_on)
    if share >= NEAR_ROOF and bound == "memory":
        out.append(("lesson04.v.gelu_follows_bytes", values, stands_on))
    else:
        out.append(("lesson04.v.gelu_far_below", values, ()))
    return out


def _name(key: str) -> str:
    """A name said inside a comparison, in the course language (the chain, the hand-written attention)."""
    from fastrain_lib.core.i18n import t

    return t(key)


# ---------------------------------------------------------------- §2 Adam: for-loop, foreach, fused


def adam_verdicts(counts: list[int], records: dict[str, list]) -> list[tuple[str, dict, object]]:
    """fused (and foreach) against the for-loop at the most and the fewest tensors, worded as faster
    or slower; then why — fewer passes over memory, fewer calls, or hardly any difference — only
    when every timing was quiet."""
    loops, fasts = records["forloop"], records["fused"]
    loop, fast = [r.median_s for r in loops], [r.median_s for r in fasts]
    most, fewest = loop[-1] / fast[-1], loop[0] / fast[0]
    loop_name = shown_name("forloop")
    out = [compare("fused", loop_name, most, f"n={counts[-1]}", [loops[-1], fasts[-1]]),
           compare("fused", loop_name, fewest, f"n={counts[0]}", [loops[0], fasts[0]])]
    if "foreach" in records:
        out.append(compare("foreach", loop_name, loop[-1] / records["foreach"][-1].median_s, f"n={counts[-1]}",
                           [loops[-1], records["foreach"][-1]]))
    everything = [r for rows in records.values() for r in rows]
    if noisy(everything):
        return out + no_cause(everything)
    if most < 1 + 4 * SAME_BAND and fewest < 1 + 4 * SAME_BAND:
        out.append(("lesson04.v.adam_little", {}, everything))
    elif fewest >= 1.5:
        out.append(("lesson04.v.adam_passes", {"n1": counts[0], "ratio1": fewest}, everything))
    else:
        out.append(("lesson04.v.adam_calls", {"n": counts[-1], "ratio": most, "ratio1": fewest}, everything))
    return out


# ---------------------------------------------------------------- §4 torch.compile


def compile_verdicts(*, cold_s: float, warm_s: float, eager, compiled) -> list[tuple[str, dict, object]]:
    """Break-even of torch.compile from a cold compile (fresh cache), and from a warm one. The
    break-even stands on the two timings: a noisy one gives the noisy sentence in its place."""
    saved = eager.median_s - compiled.median_s
    out = [compare("torch.compile", "eager", eager.median_s / compiled.median_s, stands_on=[eager, compiled])]
    if saved <= 0:
        out.append(("lesson04.v.compile_no_gain", {"cold": cold_s}, [eager, compiled]))
    else:
        out.append(("lesson04.v.compile_break_even", {"saved": saved * 1e3, "cold": cold_s, "calls": cold_s / saved,
                                                      "warm": warm_s, "warm_calls": warm_s / saved}, [eager, compiled]))
    return out


# ---------------------------------------------------------------- §10 the ablation


def _amp_and_before(records: list):
    """(the ablation's AMP stage record, the stage record before it), or None without an AMP stage."""
    stages = [r.params.get("stage") for r in records]
    if "amp" not in stages or stages.index("amp") == 0:
        return None
    i = stages.index("amp")
    return records[i], records[i - 1]


def amp_verdicts(records: list, device_type: str, fast_formats) -> list[tuple[str, dict, object]]:
    """The ablation's AMP stage: its speed-up over the stage before it, and why — from the
    measurement and the hardware facts (does this device run the format natively?). The why is
    said only when the stages' timings were quiet."""
    pair = _amp_and_before(records)
    if pair is None:
        return []
    amp, before = pair
    precision = amp.params.get("precision", "bf16")
    factor = before.median_s / amp.median_s
    # the ratio itself is said once, by switch_verdicts ("+ AMP ..., FP32-এর চেয়ে ..."): here only the why
    out = []
    stands_on = [amp, before, records[0]]
    if noisy(stands_on):
        return out + no_cause(stands_on)
    native = precision in fast_formats
    mfu = records[0].metrics.get("mfu")
    values = {"precision": precision, "device": device_type, "mfu": mfu or 0.0}
    if factor > 1 + SAME_BAND:
        out.append(("lesson04.v.amp_native_fast" if native else "lesson04.v.amp_emulated_fast", values, stands_on))
    elif not native:
        out.append(("lesson04.v.amp_no_native", values, stands_on))
    elif mfu is not None and mfu < 0.2:  # overhead-bound: the casts autocast adds are more calls, so slower
        slower = factor < 1 - SAME_BAND
        out.append(("lesson04.v.amp_overhead_slower" if slower else "lesson04.v.amp_overhead",
                    {**values, "factor": factor}, stands_on))
    else:
        out.append(("lesson04.v.amp_native_small", values, stands_on))
    return out


def amp_measured_why(records: list, profile=None) -> list[tuple[str, dict, object]]:
    """When the AMP stage measurably slowed the step (on quiet timings): which operator's time grew
    most, profiled now on the stage before it and on the AMP stage (torch.profiler)."""
    from fastrain_lib.lessons.l04_fused_kernels.ablation import stage_op_times
    from fastrain_lib.measure.launches import profile_pair, why_slower

    pair = _amp_and_before(records)
    if pair is None or noisy(list(pair)):
        return []
    amp, before = pair
    if before.median_s / amp.median_s >= 1 - SAME_BAND:
        return []
    profile = profile or stage_op_times
    key, values = why_slower(*profile_pair(profile, before, amp), f"AMP ({amp.params.get('precision', 'bf16')})")
    return [(key, values, [amp, before])]


def switch_verdicts(stacked: list, alone: list) -> list[tuple[str, dict, object]]:
    """Each switch measured two ways: stacked on the stage before it, and alone on the fp32 baseline
    (so "+fused AdamW" is seen by itself, not on top of a slow bf16 stage). Ratios only; a switch
    whose two effects disagree in direction is said to depend on what it is stacked on."""
    from fastrain_lib.lessons.l04_fused_kernels.tables import stage_label

    base = stacked[0]
    by_alone = {r.params.get("stage"): r for r in alone}
    out = []
    for before, after in itertools.pairwise(stacked):
        stage = after.params.get("stage")
        name = stage_label(after)
        on_top = before.median_s / after.median_s
        out.append(compare(name, stage_label(before), on_top, stands_on=[before, after]))
        solo = by_alone.get(stage)
        if solo is not None:
            by_itself = base.median_s / solo.median_s
            out.append(compare(name, stage_label(base), by_itself, stands_on=[base, solo]))
            if (on_top - 1) * (by_itself - 1) < 0 and min(abs(on_top - 1), abs(by_itself - 1)) > SAME_BAND:
                out.append(("lesson04.v.switch_depends", {"name": name}, [before, after, base, solo]))
    return out + no_cause(stacked + alone)


def mfu_line(record) -> tuple[str, dict, tuple]:
    """MFU with what it divides by: achieved TFLOP/s ÷ peak TFLOP/s, and where the peak comes from."""
    m = record.metrics
    if m.get("mfu") is None or not m.get("peak_tflops"):
        return "lesson04.v.mfu_unknown", {"source": record.params.get("peak_source", "?")}, ()
    return "lesson04.v.mfu", {"mfu": m["mfu"], "achieved": m["tflops"], "peak": m["peak_tflops"],
                              "source": record.params.get("peak_source", "?"),
                              "stage": record.params.get("stage", "")}, ()


def baseline_verdicts(device) -> list[tuple[str, dict, object]]:
    """The ablation's baseline runs AdamW foreach: is that PyTorch's default on this device?"""
    default = default_adam_impl(device)
    key = "lesson04.v.baseline_same" if default == "foreach" else "lesson04.v.baseline_differs"
    return [(key, {"device": torch.device(device).type, "default": shown_name(default)}, ())]


# ---------------------------------------------------------------- §7 attention


def _at_longest(records: list, variant: str):
    mine = [r for r in records if r.params.get("variant") == variant]
    return max(mine, key=lambda r: r.params["seq"]) if mine else None


def inconsistent_times(records: list, factor: float = 2.0) -> list[tuple]:
    """(variant, shorter T, its ms, longer T, its ms) wherever a variant took more than `factor`
    times longer at a shorter T than at a longer one: the work grew, the time fell — a measurement
    that contradicts itself (a busy machine, a first call), never physics."""
    found = []
    for variant in dict.fromkeys(r.params.get("variant") for r in records):
        mine = sorted((r for r in records if r.params.get("variant") == variant), key=lambda r: r.params["seq"])
        for a, b in itertools.pairwise(mine):
            if a.median_s > factor * b.median_s:
                found.append((variant, a.params["seq"], a.median_s * 1e3, b.params["seq"], b.median_s * 1e3))
    return found


def attention_verdicts(records: list) -> list[tuple[str, dict, object]]:
    """What this run measured: how much less SDPA kept for backward than the hand-written attention
    at the longest T (a count), how each grew with T (≈4× per doubling is T², ≈2× is T), the time
    ratio worded the right way round, and — only on quiet, self-consistent timings — what it means."""
    from fastrain_lib.fused import attention

    naive, fused_rec = _at_longest(records, "naive"), _at_longest(records, "sdpa")
    if naive is None or fused_rec is None:
        return []
    seq = naive.params["seq"]
    n_mb, f_mb = naive.metrics["saved_bytes"] / 1e6, fused_rec.metrics["saved_bytes"] / 1e6
    out = [("lesson04.v.attn_saved", {"seq": seq, "naive": n_mb, "sdpa": f_mb,
                                      "ratio": n_mb / f_mb if f_mb else float("inf")}, ())]
    g_naive, g_sdpa = attention.growth(records, "naive"), attention.growth(records, "sdpa")
    if g_naive is not None and g_sdpa is not None:
        key = "lesson04.v.attn_growth_square" if g_naive >= 3 and g_sdpa <= 2.5 else "lesson04.v.attn_growth_other"
        out.append((key, {"naive": g_naive, "sdpa": g_sdpa}, ()))
    ratio = naive.median_s / fused_rec.median_s
    out.append(compare("SDPA", _name("lesson04.hand_written"), ratio, f"T={seq}", [naive, fused_rec]))
    peaks = naive.metrics.get("peak_bytes"), fused_rec.metrics.get("peak_bytes")
    if all(peaks):
        out.append(("lesson04.v.attn_peak", {"seq": seq, "naive": peaks[0] / 1e6, "sdpa": peaks[1] / 1e6}, ()))
    for variant, t1, ms1, t2, ms2 in inconsistent_times(records):
        out.append(("lesson04.v.attn_inconsistent", {"variant": shown_name(variant), "t1": t1, "ms1": ms1, "t2": t2, "ms2": ms2},
                    ()))
    if inconsistent_times(records) or noisy(records):  # no meaning drawn from times that contradict themselves
        return out + (no_cause(records) or [("lesson04.v.no_cause", {}, list(records))])
    if ratio < 1 + SAME_BAND:
        out.append(("lesson04.v.attn_gain_memory", {"seq": seq}, [naive, fused_rec]))
    return out


# ---------------------------------------------------------------- §8 the overhead-bound regime


def overhead_verdicts(records: list, device_type: str, bigger=None, factor: int = 8) -> list[tuple[str, dict, object]]:
    """The overhead-bound regime, from this run: µs per operator call; `bigger` (the Record of a batch
    `factor` times larger) shows that more work hardly costs more time; what compiling gained; and
    CUDA Graphs' gain on a GPU — or, on a CPU, that they were not measured here and why."""
    by = {r.params["mode"]: r for r in records}
    eager = by.get("eager")
    out = []
    if eager is not None:
        out.append(("lesson04.v.overhead_per_call", {"us": eager.metrics["us_per_launch"],
                                                     "launches": eager.metrics["launches"],
                                                     "total": eager.median_s * 1e6}, [eager]))
        if bigger is not None:
            ratio = bigger.median_s / eager.median_s
            key = "lesson04.v.overhead_bound" if ratio < 2 else "lesson04.v.overhead_not_bound"
            out.append((key, {"factor": factor, "ratio": ratio}, [eager, bigger]))
    if eager is not None and "compile" in by:
        out.append(compare("torch.compile", "eager", eager.median_s / by["compile"].median_s,
                           stands_on=[eager, by["compile"]]))
    if "reduce-overhead" in by and "compile" in by:
        out.append(compare("CUDA Graphs", "torch.compile", by["compile"].median_s / by["reduce-overhead"].median_s,
                           stands_on=[by["compile"], by["reduce-overhead"]]))
    elif device_type != "cuda":
        out.append(("lesson04.v.graphs_not_here", {"device": device_type}, ()))
    return out


# ---------------------------------------------------------------- what a # VERDICT cell calls: one line each


from fastrain_lib.lessons.l04_fused_kernels.saying import _say, row_label  # noqa: F401 - one sentence rule


def say_gelu(chain, library, *, chain_bytes: int, library_bytes: int, elements: int, roof) -> None:
    """§1: gelu_verdicts for this run, the roof (roofline.measured_roof) measured beside it."""
    _say(gelu_verdicts(chain=chain, library=library, chain_bytes=chain_bytes, library_bytes=library_bytes,
                       flops=GELU_FLOPS_PER_ELEMENT * elements, peak_gflops=roof.peak_gflops,
                       roof_gbs=roof.bandwidth_gbs, roof_records=roof.records))


def say_adam(counts: list[int], records: dict[str, list]) -> None:
    """§2: adam_verdicts for this run."""
    _say(adam_verdicts(counts, records))


def say_compile(cold_s=None, warm_s=None, eager=None, compiled=None) -> None:
    """§4: compile_verdicts, or one sentence that compiling was off (compiled is None)."""
    if compiled is None:
        _say([("lesson04.v.compile_off", {}, ())])
    else:
        _say(compile_verdicts(cold_s=cold_s, warm_s=warm_s, eager=eager, compiled=compiled))


def say_attention(records: list) -> None:
    """§7: attention_verdicts for this run."""
    _say(attention_verdicts(records))


def say_overhead(records: list, device_type: str, bigger=None, factor: int = 8) -> None:
    """§8: overhead_verdicts for this run."""
    _say(overhead_verdicts(records, device_type, bigger=bigger, factor=factor))


def say_ablation(records: list, device) -> None:
    """§10: the baseline, MFU, each switch stacked and alone, the AMP stage and (when AMP slowed the
    step) what the profiler saw grow — all from this run's records and the hardware report."""
    from fastrain_lib.lessons.l04_fused_kernels.tables import stacked as stacked_records
    from fastrain_lib.measure import hardware

    stacked = stacked_records(records)
    alone = [r for r in records if r.params.get("alone")]
    lines = baseline_verdicts(device) + [mfu_line(stacked[0])] + switch_verdicts(stacked, alone)
    lines += amp_verdicts(stacked, torch.device(device).type, hardware.fast_formats(hardware.facts(device)))
    _say(lines + amp_measured_why(stacked))
