"""Lesson 04's panel and charts: one training step of a tiny GPT with each fused feature on or off.

Controls: optimizer implementation, LayerNorm implementation, precision, torch.compile on/off,
model size -> time per step, operator/kernel launches per step, and a chart that keeps every
setting run so far, so the effect of each switch is visible side by side.
"""

from __future__ import annotations

import itertools
import warnings

import ipywidgets as widgets
import torch

from fastrain_lib.measure import bench, launches, hardware
from fastrain_lib.core import config
from fastrain_lib.fused import optimizers, ablation, apex
from fastrain_lib.ui import plots
from fastrain_lib.gpt import GPT
from fastrain_lib.core.i18n import t
from fastrain_lib.train import train
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

# benchmarks/ families whose reference/ results the instructor dashboard shows beside this panel
REFERENCE_FAMILIES = ("optim", "layernorm", "compile", "ablation")

# (n_layer, n_head, n_embd, block_size, batch_size)
SIZES = {
    "tiny": (1, 2, 32, 16, 4),
    "small": (2, 4, 64, 32, 8),
    "medium": (4, 4, 128, 64, 8),
}
VOCAB = 96
NORMS = ("torch", "naive", "apex")


def _precisions(device: torch.device) -> list[str]:
    return ["fp32", "bf16", "fp16"] if device.type in ("cpu", "cuda") else ["fp32"]


def step_experiment(optimizer: str, norm: str, precision: str, compile: bool, size: str,
                    history: list | None = None) -> Outcome:
    """Train a few steps of a tiny GPT with these settings; time the steps and count launches."""
    device = hardware.best_device()
    n_layer, n_head, n_embd, block, batch = SIZES[size]
    warmup, steps = 1, config.by_mode(ci=3, lab=8, full=20)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Apex fallbacks: explained in the lesson text
        model = GPT(VOCAB, block, n_layer, n_head, n_embd, norm=norm).to(device)
        opt = optimizers.make_optimizer(model.parameters(), optimizer)
    batches = ablation.token_batches(warmup + steps, batch, block, VOCAB, device)
    run = train(model, batches, steps=len(batches), device=device, precision=precision, optimizer=opt,
                compile=compile, progress=False, skip_nonfinite=False)
    times = run.step_times_s[warmup:]
    median_ms = float(torch.tensor(times).median()) * 1e3

    # Launches: one whole step, and the optimizer step alone (gradients are in place after backward).
    stepper = torch.compile(model) if compile else model  # compiled already by train(): cache hit
    scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None
    x, y = batches[0]
    whole = launches.count_launches(lambda: ablation.training_step(stepper, opt, x, y, precision=precision,
                                                             scaler=scaler), warmup=1)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision, torch.float32)
    with torch.autocast(device.type, dtype=dtype, enabled=precision in ("bf16", "fp16")):
        loss = torch.nn.functional.cross_entropy(stepper(x).float().flatten(0, -2), y.flatten())
    loss.backward()
    only_opt = launches.count_launches(opt.step, warmup=0)
    opt.zero_grad(set_to_none=True)
    opt_launches = only_opt.launches
    model_launches = max(whole.launches - opt_launches, 0)

    label = f"{optimizer}/{norm}/{precision}{'/compile' if compile else ''}/{size}"
    if history is not None:
        history[:] = [h for h in history if h[0] != label] + [(label, median_ms)]
        shown = history[-8:]
    else:
        shown = [(label, median_ms)]

    fig, (ax_time, ax_launch) = plots.new_figure(ncols=2)
    names = [name for name, _ in shown]
    values = [value for _, value in shown]
    drawn = plots.bars(ax_time, list(range(1, len(names) + 1)), values, ylabel=plots.label("lesson04.ms_per_step"),
                       title=plots.label("lesson04.time_title", device=device.type))
    for bar, name in zip(drawn, names):
        bar.set_alpha(1.0 if name == label else 0.45)
    ax_time.set_xlabel(plots.label("lesson04.run_number"))
    ax_launch.bar([0], [model_launches], label=plots.label("lesson04.model_part"))
    ax_launch.bar([0], [opt_launches], bottom=[model_launches], label=plots.label("lesson04.optimizer_part"))
    ax_launch.set_xticks([0], [label], rotation=0, fontsize=9)
    ax_launch.set_ylabel(plots.label("lesson04.launches_gpu" if whole.kernels is not None else "lesson04.launches_cpu"))
    ax_launch.set_title(plots.label("lesson04.launch_title", total=whole.launches))
    ax_launch.legend()

    headers = ["#", t("lesson04.setting"), t("lesson04.ms_per_step")]
    rows = [(i + 1, name, value) for i, (name, value) in enumerate(shown)]
    rows.append(("", t("lesson04.launches_now"), f"{model_launches} + {opt_launches} = {whole.launches}"))
    record = bench.Record(name=f"lesson04_step:{label}", median_s=median_ms / 1e3, times_s=times,
                          params={"optimizer": optimizer, "norm": norm, "precision": precision, "compile": compile,
                                  "size": size, "device": str(device)},
                          metrics={"launches": whole.launches, "optimizer_launches": opt_launches,
                                   "compile_s": run.compile_s}, meta=bench.meta())
    notes = []
    if compile and run.compile_s:
        notes.append(t("lesson04.compile_note", seconds=run.compile_s))
    status = apex.apex_status()
    if (optimizer == "apex" and not (status.fused_adam and device.type == "cuda")) or (
            norm == "apex" and not status.fused_layer_norm):
        notes.append(t("lesson04.apex_note"))
    note = " ".join(notes)
    return Outcome(figure=fig, headers=headers, rows=rows, records=[record], note=note)


def make() -> ExperimentPanel:
    """The lesson 04 panel. torch.compile is off by default: a first compile takes seconds (more on a CPU)."""
    device = hardware.best_device()
    history: list = []

    def experiment(optimizer, norm, precision, compile, size):
        return step_experiment(optimizer, norm, precision, compile, size, history=history)

    experiment.__name__ = "lesson04_fused"
    return ExperimentPanel(
        t("lesson04.panel_title"),
        {
            "optimizer": widgets.Dropdown(options=list(optimizers.OPTIMIZER_IMPLS), value="foreach",
                                          description=t("lesson04.optimizer")),
            "norm": widgets.Dropdown(options=list(NORMS), value="torch", description="LayerNorm"),
            "precision": widgets.Dropdown(options=_precisions(device), value="fp32",
                                          description=t("lesson04.precision")),
            # a short label, not indented: a long one was cut off with "…" in the panel's narrow column
            "compile": widgets.Checkbox(value=False, description=t("lesson04.compile"), indent=False,
                                        layout=widgets.Layout(width="auto")),
            "size": widgets.Dropdown(options=list(SIZES), value="tiny", description=t("lesson04.model_size")),
        },
        experiment,
        name="lesson04_fused",
    )


# ----------------------------------------------------------------- the ablation chart


def stage_label(record: bench.Record) -> str:
    stage = record.params.get("stage", record.name.split(":")[-1])
    return plots.label(f"fused.stage.{stage}", precision=record.params.get("precision", ""))


def plot_ablation(ax, records: list[bench.Record], title: str = "", claimed: float = ablation.CLAIMED_SPEEDUP):
    """Waterfall of the speed-up: each bar starts where the previous stage ended (relative to the
    first stage), green when the feature helped, red when it slowed training; the last bar is
    the total; a dashed line marks the claimed speed-up."""
    speed = [records[0].median_s / r.median_s for r in records]
    names = [stage_label(r) for r in records] + [plots.label("fused.stage.total")]
    bottoms, heights, colors = [0.0], [speed[0]], ["#7f7f7f"]
    for before, after in itertools.pairwise(speed):
        bottoms.append(min(before, after))
        heights.append(abs(after - before))
        colors.append("#2ca02c" if after >= before else "#d62728")
    bottoms.append(0.0)
    heights.append(speed[-1])
    colors.append("#1f77b4")
    positions = list(range(len(names)))
    ax.bar(positions, heights, bottom=bottoms, color=colors)
    def text(value, record):
        mfu = record.metrics.get("mfu")
        return f"{value:.2f}×" + ("" if mfu is None else f"\nMFU {100 * mfu:.2g}%")

    ax.annotate(text(speed[0], records[0]), (0, speed[0]), ha="center", va="bottom", fontsize=9)
    for x, before, value, record in zip(positions[1:-1], speed, speed[1:], records[1:]):
        # the stage's cumulative speed-up (and MFU), written above its bar
        ax.annotate(text(value, record), (x, max(before, value)), ha="center", va="bottom", fontsize=9)
    ax.annotate(f"{speed[-1]:.2f}×", (positions[-1], speed[-1]), ha="center", va="bottom", fontsize=11,
                weight="bold")
    ax.axhline(claimed, linestyle="--", color="#444")
    ax.text(positions[-1] + 0.4, claimed, plots.label("lesson04.claimed", claimed=claimed), va="bottom",
            ha="right", fontsize=10)
    ax.axhline(1.0, color="#999", linewidth=0.8)
    ax.set_xticks(positions, names, rotation=20, ha="right")
    ax.set_ylabel(plots.label("lesson04.speedup_axis"))
    ax.set_ylim(0, max(claimed, max(speed)) * 1.15)
    ax.set_title(title)


def ablation_rows(records: list[bench.Record]) -> list[tuple]:
    """Table rows: stage, ms/step, tokens/s, speed-up, MFU (%), compile seconds."""
    rows = []
    for r in records:
        mfu = r.metrics.get("mfu")
        compile_s = r.metrics.get("compile_s")
        rows.append((stage_label(r), r.median_s * 1e3, r.metrics["tokens_per_s"], r.metrics["speedup"],
                     "—" if mfu is None else f"{100 * mfu:.3g}%", "—" if compile_s is None else f"{compile_s:.1f}"))
    return rows


def ablation_headers() -> list[str]:
    return [t("lesson04.stage"), t("lesson04.ms_per_step"), t("lesson04.tokens_per_s"), t("lesson04.speedup"),
            "MFU", t("lesson04.compile_s")]


def ablation_figure(records: list[bench.Record], references: dict | None = None):
    """This machine's ablation beside any reference/ results (one panel per machine, labelled)."""
    references = references or {}
    fig, axes = plots.new_figure(ncols=1 + len(references))
    axes = list(axes) if references else [axes]
    here = ablation.hardware_label(records[0])
    plot_ablation(axes[0], records, plots.label("lesson04.ablation_here", hardware=here))
    for ax, (label, refs) in zip(axes[1:], references.items()):
        plot_ablation(ax, refs, plots.label("lesson04.ablation_reference", hardware=label))
    return fig


# ----------------------------------------------------------------- verdicts for the notebook
# Pure functions of this run's numbers and the device's facts: each returns the catalog key(s) of
# the sentence the lesson prints (verdicts.say), so the words always match the measurement.

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
    bound = gelu_bound(achieved, roof_gbs)
    out.append((f"lesson04.v.gelu_{bound}", {"gbs": achieved, "roof": roof_gbs,
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


def compile_cold_and_warm(fn, *args):
    """(result, Inductor's code, cold seconds, warm seconds) for torch.compile(fn)(*args).

    Cold: an empty Inductor cache (a fresh TORCHINDUCTOR_CACHE_DIR and in-memory caches cleared),
    as on a student's first run. Warm: compiled again with that cache filled — what a second run
    of the notebook would see. Measuring with a warm cache and calling it the first compile
    would make compiling look cheaper than it is."""
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="fastrain-inductor-")
    try:
        try:
            from torch._inductor.runtime.cache_dir_utils import temporary_cache_dir
        except ImportError:  # older torch: point the cache somewhere empty by hand
            import contextlib
            import os

            @contextlib.contextmanager
            def temporary_cache_dir(path):
                old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = path
                try:
                    yield
                finally:
                    if old is None:
                        os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
                    else:
                        os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
        with temporary_cache_dir(directory):
            torch.compiler.reset()
            result, code, cold = launches.compiled_code(fn, *args)
            torch.compiler.reset()
            _, _, warm = launches.compiled_code(fn, *args)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return result, code, cold, warm


# ----------------------------------------------------------------- reference/ ablations, one series per run


def reference_ablation_runs(directory=None) -> tuple[dict[str, list[bench.Record]], bool]:
    """Ablation results in reference/, one series per run (fastrain_lib.measure.reference: two runs on the
    same machine and day stay two series), labelled with hardware, date and mode; and whether
    reference/ holds any GPU results."""
    from fastrain_lib.measure import reference

    found = reference.ablations(directory)
    return found, reference.has_gpu_results(directory)


# ----------------------------------------------------------------- attention, CUDA Graphs, Triton backward


def attention_rows(records: list) -> list[tuple]:
    """Table rows: variant, T, forward+backward ms, saved for backward (MB), peak (MB or —), max diff."""
    rows = []
    for r in records:
        peak = r.metrics.get("peak_bytes")
        rows.append((r.params["variant"], r.params["seq"], r.median_s * 1e3, r.metrics["saved_bytes"] / 1e6,
                     "—" if peak is None else f"{peak / 1e6:.3g}", f"{r.metrics['max_diff']:.1e}"))
    return rows


def attention_headers() -> list[str]:
    return [t("lesson04.variant"), "T", t("lesson04.fwd_bwd_ms"), t("lesson04.saved_mb"), t("lesson04.peak_mb"),
            t("lesson04.max_diff")]


def attention_figure(records: list):
    """Saved-for-backward memory (left) and forward+backward time (right) against T, per variant."""
    variants = list(dict.fromkeys(r.params["variant"] for r in records))
    seqs = sorted({r.params["seq"] for r in records})
    by = {(r.params["variant"], r.params["seq"]): r for r in records}
    saved = {v: [by[(v, s)].metrics["saved_bytes"] / 1e6 for s in seqs] for v in variants}
    times = {v: [by[(v, s)].median_s * 1e3 for s in seqs] for v in variants}
    fig, (ax_mem, ax_time) = plots.new_figure(ncols=2)
    plots.lines(ax_mem, seqs, saved, logx=True, logy=True, xlabel=plots.label("lesson04.seq_len"),
                ylabel=plots.label("lesson04.saved_mb"), title=plots.label("lesson04.attn_mem_title"))
    plots.lines(ax_time, seqs, times, logx=True, xlabel=plots.label("lesson04.seq_len"),
                ylabel=plots.label("lesson04.fwd_bwd_ms"),
                title=plots.label("lesson04.attn_time_title", device=records[0].params["device"]))
    return fig


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


def overhead_rows(records: list) -> list[tuple]:
    """Table rows: mode, µs per call, compile seconds (— for eager)."""
    return [(r.params["mode"], r.median_s * 1e6, "—" if r.params["mode"] == "eager" else
             f"{r.metrics.get('compile_s', 0.0):.1f}") for r in records]


def overhead_headers() -> list[str]:
    return [t("lesson04.mode"), t("lesson04.us_per_call"), t("lesson04.compile_s")]


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
