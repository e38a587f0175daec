"""Lesson 04's tables and charts: the ablation waterfall, attention memory and time, the
overhead regime."""

from __future__ import annotations

import itertools

from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l04_fused_kernels import ablation
from fastrain_lib.measure import bench, noise
from fastrain_lib.ui import plots
from fastrain_lib.ui.tables import number

# Variant, backend and size names as the code spells them -> the name a student reads (Bengali in
# Bengali mode); every other name (foreach, fused, apex, torch, sdpa, flash, math, ...) is shown as it is.
NAME_KEYS = {"forloop": "lesson04.name.forloop", "naive": "lesson04.name.naive",
             "naive_compiled": "lesson04.name.naive_compiled", "efficient": "lesson04.name.efficient",
             "unknown": "lesson04.name.unknown", "tiny": "lesson04.name.tiny", "small": "lesson04.name.small",
             "medium": "lesson04.name.medium"}


def shown_name(name: str) -> str:
    """The name shown for a variant / backend / model size `name` (the code keeps its English identifier)."""
    return t(NAME_KEYS[name]) if name in NAME_KEYS else name


def noise_word(record) -> str:
    """The row's noise mark for a table: quiet or noisy (— when the record carries no verdict)."""
    info = getattr(record, "noise", None) or {}
    if "verdict" not in info:
        return "—"
    return t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word")


def stacked(records: list) -> list:
    """The ablation's cumulative stages (without the records of a switch measured alone)."""
    return [r for r in records if not r.params.get("alone")]


STAGE_KEYS = {"fp32": "fused.stage.fp32", "tf32": "fused.stage.tf32", "amp": "fused.stage.amp",
              "fused_adamw": "fused.stage.fused_adamw", "apex_layernorm": "fused.stage.apex_layernorm",
              "compile": "fused.stage.compile"}


def stage_label(record: bench.Record) -> str:
    stage = record.params.get("stage", record.name.split(":")[-1])
    return plots.label(STAGE_KEYS[stage], precision=record.params.get("precision", ""))


def plot_ablation(ax, records: list[bench.Record], title: str = "", claimed: float = ablation.CLAIMED_SPEEDUP,
                  show_mfu: bool = True):
    """Waterfall of the speed-up: each bar starts where the previous stage ended (relative to the
    first stage), green when the feature helped, red when it slowed training; the last bar is
    the total; a dashed line marks the claimed speed-up. show_mfu=False: speed-ups only (a reference
    machine's MFU divides by its own peak, so beside this run's it would compare two different things)."""
    records = stacked(records)
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
    drawn = ax.bar(positions, heights, bottom=bottoms, color=colors)
    for bar, record in zip(drawn, records):  # a noisy stage is hatched, as every lesson's bars are
        if getattr(record, "noisy", False):
            bar.set_hatch(plots.NOISY_HATCH)
            bar.set_edgecolor(plots.NOISY_COLOR)
    def text(value, record):
        mfu = record.metrics.get("mfu") if show_mfu else None
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
    ax.set_title(title, fontsize=10 if show_mfu else 9)


def ablation_rows(records: list[bench.Record]) -> list[tuple]:
    """Table rows: stage, ms/step, tokens/s, speed-up stacked (vs the first stage), the switch alone on
    the first stage (speed-up, or = where alone is the stacked setting), MFU (%), compile seconds, noise."""
    alone = {r.params.get("stage"): r for r in records if r.params.get("alone")}
    rows = []
    for r in stacked(records):
        mfu = r.metrics.get("mfu")
        compile_s = r.metrics.get("compile_s")
        solo = alone.get(r.params.get("stage"))
        by_itself = "—" if r is records[0] else ("=" if solo is None else
                                                f"{solo.metrics['speedup']:.3g} ({noise_word(solo)})")
        rows.append((stage_label(r), r.median_s * 1e3, r.metrics["tokens_per_s"], r.metrics["speedup"], by_itself,
                     "—" if mfu is None else f"{100 * mfu:.3g}%", "—" if compile_s is None else f"{compile_s:.1f}",
                     noise_word(r)))
    return rows


def ablation_headers(records: list | None = None) -> list[str]:
    """The ablation table's headers; the MFU column names the peak it divides by."""
    peak = records[0].metrics.get("peak_tflops") if records else None
    mfu = "MFU" if not peak else t("lesson04.mfu_col", peak=peak)
    return [t("lesson04.stage"), t("core.ms_per_step"), t("core.tokens_per_s"), t("lesson04.speedup"),
            t("lesson04.alone_col"), mfu, t("lesson04.compile_s"), t("noise.verdict_col")]


def ablation_figure(records: list[bench.Record], references: dict | None = None):
    """This machine's ablation beside any reference/ results (one panel per machine, labelled)."""
    references = references or {}
    import textwrap

    fig, axes = plots.new_figure(ncols=1 + len(references))
    axes = list(axes) if references else [axes]
    here = ablation.hardware_label(records[0])
    width = max(24, 110 // (1 + len(references)))  # titles wrapped to their panel's width: none runs into the next
    wrap = lambda text: "\n".join(textwrap.fill(part, width) for part in text.split("\n"))
    plot_ablation(axes[0], records, wrap(plots.label("lesson04.ablation_here", hardware=here) + _peak_note(records)))
    for ax, (label, refs) in zip(axes[1:], references.items()):  # speed-ups only: MFU is this run's alone
        plot_ablation(ax, refs, wrap(plots.label("lesson04.ablation_reference", hardware=label)), show_mfu=False)
    # no fig.tight_layout(): new_figure's constrained layout already keeps the titles apart, and switching
    # layouts printed matplotlib's "layout has changed to tight" warning under the table (issue 38)
    plots.mark_noisy_figure(fig, stacked(records))
    return fig


def _peak_note(records: list) -> str:
    """'\nMFU ÷ <peak> TFLOP/s' under a waterfall's title: the peak its MFU labels divide by."""
    peak = records[0].metrics.get("peak_tflops") if records else None
    return "" if not peak else "\n" + plots.label("lesson04.mfu_peak_note", peak=peak)


def variant_label(record) -> str:
    """'sdpa (flash)' for SDPA's own choice (the backend it picked is not listed again), 'sdpa (math)' for
    SDPA forced to a backend (variant 'sdpa:math'): one way to write an SDPA backend (issue 38), else the variant."""
    backend, variant = record.params.get("backend"), record.params["variant"]
    if ":" in variant and not backend:
        variant, backend = variant.split(":", 1)
    variant = shown_name(variant)
    return f"{variant} ({shown_name(backend)})" if backend else variant


def attention_rows(records: list) -> list[tuple]:
    """Table rows: variant, T, forward+backward ms, saved for backward (MB), peak (MB or —), max diff, noise."""
    rows = []
    for r in records:
        peak = r.metrics.get("peak_bytes")
        rows.append((variant_label(r), r.params["seq"], r.median_s * 1e3, r.metrics["saved_bytes"] / 1e6,
                     "—" if peak is None else number(peak / 1e6, "{:.3g}"), number(r.metrics["max_diff"], "{:.1e}"),
                     noise_word(r)))
    return rows


def attention_headers() -> list[str]:
    return [t("lesson04.variant"), "T", t("lesson04.fwd_bwd_ms"), t("lesson04.saved_mb"), t("lesson04.peak_mb"),
            t("lesson04.max_diff"), t("noise.verdict_col")]


def attention_figure(records: list):
    """Saved-for-backward memory (left) and forward+backward time (right) against T, per variant."""
    variants = list(dict.fromkeys(variant_label(r) for r in records))
    seqs = sorted({r.params["seq"] for r in records})
    by = {(variant_label(r), r.params["seq"]): r for r in records}
    saved = {v: [by[(v, s)].metrics["saved_bytes"] / 1e6 for s in seqs] for v in variants}
    times = {v: [by[(v, s)].median_s * 1e3 for s in seqs] for v in variants}
    marks = {v: [by[(v, s)] for s in seqs] for v in variants}  # noisy timings get a ring
    fig, (ax_mem, ax_time) = plots.new_figure(ncols=2)
    plots.lines(ax_mem, seqs, saved, logx=True, logy=True, xlabel=plots.label("lesson04.seq_len"),
                ylabel=plots.label("lesson04.saved_mb"), title=plots.label("lesson04.attn_mem_title"))
    plots.lines(ax_time, seqs, times, logx=True, xlabel=plots.label("lesson04.seq_len"), noisy=marks,
                ylabel=plots.label("lesson04.fwd_bwd_ms"),
                title=plots.label("lesson04.attn_time_title", device=records[0].params["device"]))
    return fig


def overhead_rows(records: list) -> list[tuple]:
    """Table rows: mode, µs per call, compile seconds (— for eager), noise."""
    return [(r.params["mode"], r.median_s * 1e6, "—" if r.params["mode"] == "eager" else
             f"{r.metrics.get('compile_s', 0.0):.1f}", noise_word(r)) for r in records]


def overhead_headers() -> list[str]:
    return [t("lesson04.mode"), t("lesson04.us_per_call"), t("lesson04.compile_s"), t("noise.verdict_col")]
