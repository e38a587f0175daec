"""Lesson 04's tables and charts: the ablation waterfall, attention memory and time, the
overhead regime."""

from __future__ import annotations

import itertools

from fastrain_lib.core.i18n import t
from fastrain_lib.fused import ablation
from fastrain_lib.measure import bench
from fastrain_lib.ui import plots


STAGE_KEYS = {"fp32": "fused.stage.fp32", "tf32": "fused.stage.tf32", "amp": "fused.stage.amp",
              "fused_adamw": "fused.stage.fused_adamw", "apex_layernorm": "fused.stage.apex_layernorm",
              "compile": "fused.stage.compile"}


def stage_label(record: bench.Record) -> str:
    stage = record.params.get("stage", record.name.split(":")[-1])
    return plots.label(STAGE_KEYS[stage], precision=record.params.get("precision", ""))


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
    return [t("lesson04.stage"), t("core.ms_per_step"), t("core.tokens_per_s"), t("lesson04.speedup"),
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


def overhead_rows(records: list) -> list[tuple]:
    """Table rows: mode, µs per call, compile seconds (— for eager)."""
    return [(r.params["mode"], r.median_s * 1e6, "—" if r.params["mode"] == "eager" else
             f"{r.metrics.get('compile_s', 0.0):.1f}") for r in records]


def overhead_headers() -> list[str]:
    return [t("lesson04.mode"), t("lesson04.us_per_call"), t("lesson04.compile_s")]
