"""Lesson 04's verdict rules: pure functions of this run's numbers and the device's facts. Each
returns the catalog key(s) of the sentence the lesson prints (core.verdicts.say), so the words
always match the measurement."""

from __future__ import annotations

import torch

SAME_BAND = 0.05  # within ±5% counts as "no change": closer than run-to-run noise


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


def gelu_bound(achieved_gbs: float, roof_gbs: float, share: float = 0.5) -> str:
    """'memory' when the op moves its bytes at ≥ `share` of the measured copy bandwidth (time
    follows bytes), else 'compute' (the arithmetic — tanh for every element — is the limit)."""
    return "memory" if roof_gbs > 0 and achieved_gbs >= share * roof_gbs else "compute"


def gelu_verdicts(*, chain_s: float, library_s: float, chain_bytes: int, library_bytes: int,
                  roof_gbs: float) -> list[tuple[str, dict]]:
    """The chain vs F.gelu: how much faster, and whether this machine's limit was memory or compute."""
    achieved = library_bytes / library_s / 1e9
    out = [("lesson04.v.gelu_ratio", {"bytes": chain_bytes / library_bytes, "time": chain_s / library_s})]
    key = {"memory": "lesson04.v.gelu_memory", "compute": "lesson04.v.gelu_compute"}[gelu_bound(achieved, roof_gbs)]
    out.append((key, {"gbs": achieved, "roof": roof_gbs,
                                            "share": achieved / roof_gbs if roof_gbs else 0.0}))
    return out


def adam_verdicts(counts: list[int], times_ms: dict[str, list[float]]) -> list[tuple[str, dict]]:
    """How much faster fused (and foreach) Adam ran than the for-loop here, at the most and at the
    fewest tensors, and why: fewer passes over memory, fewer calls, or hardly any difference."""
    loop, fast = times_ms["forloop"], times_ms["fused"]
    most, fewest = loop[-1] / fast[-1], loop[0] / fast[0]
    out = [("lesson04.v.adam_ratio", {"n": counts[-1], "ratio": most, "fused": fast[-1], "forloop": loop[-1],
                                      "n1": counts[0], "ratio1": fewest})]
    if "foreach" in times_ms:
        out.append(("lesson04.v.adam_foreach", {"n": counts[-1], "ratio": loop[-1] / times_ms["foreach"][-1]}))
    if most < 1.2 and fewest < 1.2:
        out.append(("lesson04.v.adam_little", {}))
    elif fewest >= 1.5:
        out.append(("lesson04.v.adam_passes", {"n1": counts[0], "ratio1": fewest}))
    else:
        out.append(("lesson04.v.adam_calls", {"n": counts[-1], "ratio": most, "ratio1": fewest}))
    return out


def compile_verdicts(*, cold_s: float, warm_s: float, eager_s: float, compiled_s: float) -> list[tuple[str, dict]]:
    """Break-even of torch.compile from a cold compile (fresh cache), and from a warm one."""
    saved = eager_s - compiled_s
    if saved <= 0:
        return [("lesson04.v.compile_no_gain", {"eager": eager_s * 1e3, "compiled": compiled_s * 1e3, "cold": cold_s})]
    return [("lesson04.v.compile_break_even", {"saved": saved * 1e3, "cold": cold_s, "calls": cold_s / saved,
                                               "warm": warm_s, "warm_calls": warm_s / saved})]


def _amp_and_before(records: list):
    """(the ablation's AMP stage record, the stage record before it), or None without an AMP stage."""
    stages = [r.params.get("stage") for r in records]
    if "amp" not in stages or stages.index("amp") == 0:
        return None
    i = stages.index("amp")
    return records[i], records[i - 1]


def amp_verdicts(records: list, device_type: str, fast_formats) -> list[tuple[str, dict]]:
    """The ablation's AMP stage: its speed-up over the stage before it, and why — from the
    measurement and the hardware facts (does this device run the format natively?)."""
    pair = _amp_and_before(records)
    if pair is None:
        return []
    amp, before = pair
    precision = amp.params.get("precision", "bf16")
    factor = before.median_s / amp.median_s
    out = [("lesson04.v.amp_factor", {"factor": factor, "precision": precision})]
    native = precision in fast_formats
    mfu = records[0].metrics.get("mfu")
    values = {"precision": precision, "device": device_type, "mfu": mfu or 0.0}
    if factor > 1 + SAME_BAND:
        out.append(("lesson04.v.amp_native_fast" if native else "lesson04.v.amp_emulated_fast", values))
    elif not native:
        out.append(("lesson04.v.amp_no_native", values))
    elif mfu is not None and mfu < 0.2:  # overhead-bound: the casts autocast adds are more calls, so slower
        slower = factor < 1 - SAME_BAND
        out.append(("lesson04.v.amp_overhead_slower" if slower else "lesson04.v.amp_overhead", {**values, "factor": factor}))
    else:
        out.append(("lesson04.v.amp_native_small", values))
    return out


def amp_measured_why(records: list, profile=None) -> list[tuple[str, dict]]:
    """When the AMP stage measurably slowed the step: which operator's time grew most, profiled now
    on the stage before it and on the AMP stage (torch.profiler), and what the matmuls did."""
    from fastrain_lib.fused.ablation import stage_op_times
    from fastrain_lib.measure.launches import profile_pair, why_slower

    pair = _amp_and_before(records)
    if pair is None:
        return []
    amp, before = pair
    if before.median_s / amp.median_s >= 1 - SAME_BAND:
        return []
    profile = profile or stage_op_times
    return [why_slower(*profile_pair(profile, before, amp), f"AMP ({amp.params.get('precision', 'bf16')})")]


def baseline_verdicts(device) -> list[tuple[str, dict]]:
    """The ablation's baseline runs AdamW foreach: is that PyTorch's default on this device?"""
    default = default_adam_impl(device)
    key = "lesson04.v.baseline_same" if default == "foreach" else "lesson04.v.baseline_differs"
    return [(key, {"device": torch.device(device).type, "default": default})]


def _at_longest(records: list, variant: str):
    mine = [r for r in records if r.params.get("variant") == variant]
    return max(mine, key=lambda r: r.params["seq"]) if mine else None


def attention_verdicts(records: list) -> list[tuple[str, dict]]:
    """What this run measured: how much less SDPA kept for backward than the hand-written attention
    at the longest T, how each grew with T (≈4× per doubling is T², ≈2× is T), and the time ratio."""
    from fastrain_lib.fused import attention

    naive, fused_rec = _at_longest(records, "naive"), _at_longest(records, "sdpa")
    if naive is None or fused_rec is None:
        return []
    seq = naive.params["seq"]
    n_mb, f_mb = naive.metrics["saved_bytes"] / 1e6, fused_rec.metrics["saved_bytes"] / 1e6
    out = [("lesson04.v.attn_saved", {"seq": seq, "naive": n_mb, "sdpa": f_mb,
                                      "ratio": n_mb / f_mb if f_mb else float("inf")})]
    g_naive, g_sdpa = attention.growth(records, "naive"), attention.growth(records, "sdpa")
    if g_naive is not None and g_sdpa is not None:
        key = "lesson04.v.attn_growth_square" if g_naive >= 3 and g_sdpa <= 2.5 else "lesson04.v.attn_growth_other"
        out.append((key, {"naive": g_naive, "sdpa": g_sdpa}))
    ratio = naive.median_s / fused_rec.median_s
    if ratio > 1 + SAME_BAND:
        out.append(("lesson04.v.attn_faster", {"seq": seq, "ratio": ratio}))
    elif ratio < 1 - SAME_BAND:
        out.append(("lesson04.v.attn_slower", {"seq": seq, "ratio": 1 / ratio}))
    else:
        out.append(("lesson04.v.attn_same", {"seq": seq}))
    peaks = naive.metrics.get("peak_bytes"), fused_rec.metrics.get("peak_bytes")
    if all(peaks):
        out.append(("lesson04.v.attn_peak", {"seq": seq, "naive": peaks[0] / 1e6, "sdpa": peaks[1] / 1e6}))
    return out


def overhead_verdicts(records: list, device_type: str, bigger: float | None = None,
                      factor: int = 8) -> list[tuple[str, dict]]:
    """The overhead-bound regime, from this run: µs per operator call; `bigger` (seconds for a batch
    `factor` times larger) shows that more work hardly costs more time; what compiling gained; and
    CUDA Graphs' gain on a GPU — or, on a CPU, that they were not measured here and why."""
    by = {r.params["mode"]: r for r in records}
    eager = by.get("eager")
    out = []
    if eager is not None:
        out.append(("lesson04.v.overhead_per_call", {"us": eager.metrics["us_per_launch"],
                                                     "launches": eager.metrics["launches"],
                                                     "total": eager.median_s * 1e6}))
        if bigger:
            ratio = bigger / eager.median_s
            key = "lesson04.v.overhead_bound" if ratio < 2 else "lesson04.v.overhead_not_bound"
            out.append((key, {"factor": factor, "ratio": ratio}))
    if eager is not None and "compile" in by:
        out.append(("lesson04.v.overhead_compile", {"ratio": eager.median_s / by["compile"].median_s,
                                                    "compile_s": by["compile"].metrics.get("compile_s", 0.0)}))
    if "reduce-overhead" in by and "compile" in by:
        out.append(("lesson04.v.graphs_gain", {"ratio": by["compile"].median_s / by["reduce-overhead"].median_s,
                                               "eager_ratio": eager.median_s / by["reduce-overhead"].median_s
                                               if eager else 0.0}))
    elif device_type != "cuda":
        out.append(("lesson04.v.graphs_not_here", {"device": device_type}))
    return out
