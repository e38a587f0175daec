"""Lesson 01 (GPU vs CPU): its measurements and its experiment panel.

The timing itself (time_matmul, time_add, batch_throughput) is written in the notebook's cells and
saved to saved.py (#@save); here: the sizes each section sweeps, the plot_* functions that draw the
Records, the reference/ overlays, and make(), the panel (size, dtype, devices, threads -> plot + table).
"""

from __future__ import annotations

import os

import ipywidgets as widgets
import torch

from fastrain_lib.core import config
from fastrain_lib.core.dtypes import STORAGE_DTYPES
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l01_gpu_vs_cpu.saved import time_matmul  # the lesson's cell (#@save)
from fastrain_lib.measure import bench, hardware, reference, roofline
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

# benchmarks/ families whose reference/ results the instructor dashboard shows beside this panel
REFERENCE_FAMILIES = ("matmul", "copy")

# ---------------------------------------------------------------- 1. threads on a CPU


def plain(value) -> str:
    """A number for a table, never in e-notation (issue 38): 49,910 not 4.991e+04; small ones with 4 digits."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"


def thread_counts(cores: int | None = None) -> list[int]:
    """1, 2, ... up to the core count (powers of two plus the count itself on big machines)."""
    cores = cores or os.cpu_count() or 1
    if cores <= 8:
        return list(range(1, cores + 1))
    counts = [1]
    while counts[-1] * 2 < cores:
        counts.append(counts[-1] * 2)
    return counts + [cores]


def plot_thread_scaling(records: list[bench.Record]):
    """Speed-up over one thread against the ideal straight line."""
    fig, ax = plots.new_figure()
    threads, measured = [r.params["threads"] for r in records], plots.label("core.measured_here")
    ax.plot(threads, threads, "--", color="gray", label=plots.label("lesson01.ideal"))
    plots.lines(ax, threads, {measured: [records[0].median_s / r.median_s for r in records]}, noisy={measured: records},
                xlabel=plots.label("lesson01.threads_axis"), ylabel=plots.label("lesson01.speedup_axis"),
                title=plots.label("lesson01.threads_title", size=records[0].params["size"]))
    ax.set_xticks(threads)
    ax.legend()
    return fig


# ---------------------------------------------------------------- 2. compute-bound vs memory-bound


def matmul_sizes(device: str = "cpu") -> list[int]:
    sizes = config.by_mode(ci=[32, 64, 128, 256], lab=[32, 64, 128, 256, 512, 1024, 2048],
                           full=[64, 128, 256, 512, 1024, 2048, 4096])
    if torch.device(device).type == "cuda" and not config.is_ci():
        sizes = sizes + [4096, 8192]  # a GPU needs big matrices before it is busy
    return sorted(set(sizes))


def add_lengths(device: str = "cpu") -> list[int]:
    top = config.by_mode(ci=20, lab=24, full=26) + (2 if torch.device(device).type == "cuda" else 0)
    return [2**k for k in range(10, top + 1, 2)]


def _curves(ax, records, x_key: str, metric: str, **style) -> None:
    """One curve per device; plots.lines rings the noisy points (their Records' noise verdicts)."""
    for device in dict.fromkeys(r.params["device"] for r in records):
        mine = [r for r in records if r.params["device"] == device]
        plots.lines(ax, [r.params[x_key] for r in mine], {device: [r.metrics[metric] for r in mine]},
                    noisy={device: mine}, **style)


def cache_bytes() -> int | None:
    """This machine's largest CPU cache in bytes (Linux /sys), or None when it cannot be read: the
    lesson then makes no claim about what fits in the cache."""
    import glob

    found = []
    for folder in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(os.path.join(folder, "size"), encoding="ascii") as f:
                text = f.read().strip().upper()
        except OSError:
            continue
        scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1:], 1)
        digits = text.rstrip("KMG")
        if digits.isdigit():
            found.append(int(digits) * scale)
    return max(found) if found else None


def plot_sweeps(matmul_records: list[bench.Record], add_records: list[bench.Record]):
    """Left: matmul GFLOP/s vs n. Right: addition GB/s vs length. One line per device."""
    fig, (left, right) = plots.new_figure(ncols=2)
    _curves(left, matmul_records, "size", "gflops", logx=True, xlabel=plots.label("core.matrix_size"),
            ylabel="GFLOP/s", title=plots.label("lesson01.matmul_title"))
    _curves(right, add_records, "numel", "gbs", marker="s", xlabel=plots.label("lesson01.numel_axis"),
            ylabel="GB/s", title=plots.label("lesson01.add_title"))
    right.set_xscale("log", base=2)  # no tick per length: 16777216 does not fit under its neighbour
    plot_reference(left, "matmul", "size", "gflops")
    plot_reference(right, "add", "numel", "gbs")
    plots.figure_legend(fig, (left, right))
    return fig


def roof_points(matmul_records: list[bench.Record], add_records: list[bench.Record],
                device: str = "cpu") -> tuple[list[tuple[str, float, float]], list[bench.Record]]:
    """The measured operations of one device as roofline points (name, FLOP/byte, GFLOP/s), with
    their records: every matmul size and the biggest addition."""
    points, records = [], []
    for r in matmul_records:
        if r.params["device"] == device:
            n = r.params["size"]
            points.append((f"{n}²", roofline.matmul_intensity(n), r.metrics["gflops"]))
            records.append(r)
    adds = [r for r in add_records if r.params["device"] == device]
    if adds:
        biggest = max(adds, key=lambda r: r.params["numel"])
        points.append(("a+b", roofline.add_intensity(), biggest.metrics["gflops"]))
        records.append(biggest)
    return points, records


def roofline_figure(roofs: list[roofline.Roof], matmul_records: list[bench.Record],
                    add_records: list[bench.Record], device: str = "cpu"):
    """The roofline with the measured operations of one device as points; a noisy point, or one
    above the first (measured) roof, is ringed in red."""
    fig, ax = plots.new_figure(figsize=(12, 6))
    points, records = roof_points(matmul_records, add_records, device)
    marked = [r.noisy for r in records]
    if roofs:
        roof = roofs[0]
        marked = [m or g > 1.05 * roof.attainable(i) for m, (_, i, g) in zip(marked, points)]
    roofline.plot(ax, roofs, points, marked=marked)
    return fig


# ---------------------------------------------------------------- 3. batch size and throughput


def batch_sizes() -> list[int]:
    return config.by_mode(ci=[1, 16, 256], lab=[1, 4, 16, 64, 256, 1024, 4096],
                          full=[1, 4, 16, 64, 256, 1024, 4096, 16384])


def plot_batch(records: list[bench.Record]):
    fig, ax = plots.new_figure()
    _curves(ax, records, "batch_size", "samples_per_s", logx=True, logy=True, xlabel=plots.label("core.batch_size"),
            ylabel=plots.label("core.samples_per_s"), title=plots.label("lesson01.batch_title"))
    plot_reference(ax, "SimpleNN step", "batch_size", "samples_per_s")
    plots.figure_legend(fig, (ax,))
    return fig


# ---------------------------------------------------------------- results from other hardware


def _fp32(record) -> bool:
    return (record.params.get("format") or record.params.get("dtype") or "float32") in ("fp32", "float32")


def reference_series(kind: str, x_key: str, metric: str, folder=None) -> dict[str, list[tuple]]:
    """{run label: [(x, y), ...]} for records named `kind…` ('matmul', 'add', 'SimpleNN step'),
    one series per reference/ run file (two runs on one machine stay two series), fp32 only."""
    series = {}
    for run in reference.runs(folder):
        points = sorted((r.params[x_key], r.metrics[metric]) for r in run.records
                        if r.name.startswith(kind) and x_key in r.params and metric in r.metrics and _fp32(r))
        if points:
            label = plots.label("lesson01.reference_run", run=run.label)
            while label in series:  # two runs with the same hardware, date and mode
                label += "′"
            series[label] = points
    return series


def plot_reference(ax, kind: str, x_key: str, metric: str, folder=None) -> int:
    """Dashed lines for reference/ results, one per run, labelled with the hardware, date and
    mode. Returns how many lines were drawn (0 when reference/ is empty)."""
    series = reference_series(kind, x_key, metric, folder)
    for label, points in series.items():
        xs, ys = zip(*points)
        ax.plot(xs, ys, "--", marker=".", label=label)
    return len(series)


def reference_roofs(folder=None) -> list[roofline.Roof]:
    """One roof per reference/ run: its best fp32 matmul GFLOP/s and its best copy GB/s
    (reference.roof); runs without both are left out, never filled in from other records."""
    roofs = []
    for run in reference.runs(folder):
        found = reference.roof(run)
        if found:
            roofs.append(roofline.Roof(plots.label("lesson01.reference_run", run=run.label), found[0], found[1],
                                       "reference"))
    return roofs


# ---------------------------------------------------------------- 4. the experiment panel


def panel_experiment(size: int, dtype: str, devices: tuple, threads: int) -> Outcome:
    """Matmul time and GFLOP/s for sizes up to `size`, per chosen device, with `threads` CPU threads."""
    devices = [d for d in devices if d in hardware.available_devices()] or ["cpu"]
    sizes = [s for s in (64, 128, 256, 512, 1024, 2048, 4096) if s <= size]
    records = [time_matmul(n, device, STORAGE_DTYPES[dtype], threads) for device in devices for n in sizes]
    rows = [(r.params["device"], r.params["size"], threads, r.median_s * 1e3, r.iqr_s * 1e3, r.metrics["gflops"],
             t("noise.noisy_word") if r.noisy else t("noise.quiet_word")) for r in records]
    fig, (left, right) = plots.new_figure(ncols=2)
    for device in devices:
        mine = [r for r in records if r.params["device"] == device]
        left.errorbar(sizes, [r.median_s * 1e3 for r in mine], yerr=[r.iqr_s * 1e3 for r in mine], fmt="o-", capsize=3,
                      label=device)
    _curves(right, records, "size", "gflops", logx=True, xlabel=plots.label("core.matrix_size"), ylabel="GFLOP/s")
    right.set_ylim(bottom=0)  # from zero: small differences should look small
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel(plots.label("core.matrix_size"))
    left.set_ylabel(plots.label("core.median_ms"))
    fig.suptitle(plots.label("lesson01.panel_plot_title", dtype=dtype, threads=threads))
    left.legend()
    right.legend()
    headers = [t("core.device"), t("core.size"), t("core.threads"), t("core.median_ms"),
               t("lesson01.iqr_ms"), "GFLOP/s", t("noise.verdict_col")]
    return Outcome(figure=fig, headers=headers, rows=rows, records=records)


def make() -> ExperimentPanel:
    cores = os.cpu_count() or 1
    devices = hardware.available_devices()
    return ExperimentPanel(
        t("lesson01.panel_title"),
        {
            "size": widgets.Dropdown(options=[128, 256, 512, 1024, 2048, 4096],
                                     value=config.by_mode(ci=128, lab=512), description=t("lesson01.max_size")),
            "dtype": widgets.ToggleButtons(options=["fp32", "bf16", "fp16"], value="fp32", description=t("core.dtype")),
            "devices": widgets.SelectMultiple(options=devices, value=tuple(devices), rows=min(3, len(devices)),
                                              description=t("lesson01.devices")),
            "threads": widgets.IntSlider(value=torch.get_num_threads(), min=1, max=cores,
                                         description=t("core.threads")),
        },
        panel_experiment,
        name="lesson01_gpu_vs_cpu",
    )
