"""Lesson 00's panel: matrix-multiply speed on every device here, by size and dtype."""

from __future__ import annotations

import ipywidgets as widgets

from fastrain_lib.core.dtypes import STORAGE_DTYPES
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

# benchmarks/ families whose reference/ results the instructor dashboard shows beside this panel
REFERENCE_FAMILIES = ("matmul", "copy")

SIZES = (64, 128, 256, 512, 1024, 2048)


def matmul_experiment(max_size: int, dtype: str) -> Outcome:
    """Time square matrix multiplies up to `max_size` on each available device."""
    sizes = [s for s in SIZES if s <= max_size]
    series, rows, records, noisy = {}, [], [], {}
    for device in hardware.available_devices():
        gflops, marks = [], []
        for size in sizes:
            record = bench.matmul(size, device=device, dtype=STORAGE_DTYPES[dtype])
            gflops.append(record.metrics["gflops"])
            marks.append(record)
            word = t("noise.noisy_word") if noise.is_noisy(record.noise) else t("noise.quiet_word")
            rows.append((device, size, record.median_s * 1e3, record.metrics["gflops"], word))
            records.append(record)
        series[device], noisy[device] = gflops, marks
    fig, ax = plots.new_figure()
    plots.lines(ax, sizes, series, logx=True, xlabel=plots.label("core.matrix_size"),
                ylabel="GFLOP/s", title=plots.label("lesson00.matmul_title", dtype=dtype), noisy=noisy)
    headers = [t("core.device"), t("core.size"), t("core.median_ms"), "GFLOP/s", t("noise.verdict_col")]
    # no note: the panel prints the noise warning of these records itself, once, above the table
    return Outcome(figure=fig, headers=headers, rows=rows, records=records)


def make() -> ExperimentPanel:
    return ExperimentPanel(
        t("lesson00.panel_title"),
        {
            "max_size": widgets.Dropdown(options=[256, 512, 1024, 2048], value=256,
                                         description=t("lesson00.max_size")),
            "dtype": widgets.ToggleButtons(options=["fp32", "bf16"], value="fp32", description=t("core.dtype")),
        },
        matmul_experiment,
        name="lesson00_matmul",
    )
