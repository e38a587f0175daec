"""Lesson 03's panel: precision modes x batch size x model width -> time per step,
activation memory and loss curve, measured on the best device here."""

from __future__ import annotations

import ipywidgets as widgets
import torch

from fastrain_lib import train
from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.data import bengali_digits
from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.models import SimpleNN
from fastrain_lib.precision import amp as prec
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

# benchmarks/ families whose reference/ results the instructor dashboard shows beside this panel
REFERENCE_FAMILIES = ("amp",)


def digits_batches(batch_size: int, seed: int = 0):
    """The Bengali-digit training set as TensorBatches."""
    ds = bengali_digits(train=True, seed=seed)
    return train.TensorBatches(ds.images, ds.labels, batch_size, seed=seed)


def run_mode(mode: str, *, batch_size: int, width: int, steps: int, device, seed: int = 0):
    """Train a fresh SimpleNN(width) for `steps` steps in `mode`; returns (History, activation bytes,
    the noise information of the timed steps: load beside them and the spread of the step times)."""
    batches = digits_batches(batch_size, seed)
    torch.manual_seed(seed)
    model = SimpleNN(hidden=width)
    # CPU threads that fit the free cores (as bench.measure): a team larger than the free cores waits for
    # its descheduled member at every step; the verdict line says when fewer than torch's own were used
    wanted = torch.get_num_threads()
    threads = noise.free_threads(wanted)
    with bench.torch_threads(threads), noise.Window() as window:
        history = train.train(model, batches, steps=steps, device=device, precision=mode, seed=seed, progress=False)
    spread, repeats = noise.from_times(history.step_times_s[1:])  # the first step (warm-up) left out
    info = window.assess(threads=threads, spread=spread, repeats=repeats, threads_wanted=wanted)
    inputs, targets = next(iter(batches))
    saved = prec.saved_tensor_bytes(model, inputs, targets, device=device, mode=mode)
    return history, saved["bytes"], info


def precision_experiment(modes: tuple, batch_size: int, width: int) -> Outcome:
    """Each chosen mode on the same data and seed: time/step, activation memory, loss curve."""
    if not modes:
        raise ValueError(t("lesson03.pick_a_mode"))
    device = hardware.best_device()
    runnable = [m for m in modes if m in prec.supported(device)]
    skipped = [m for m in modes if m not in runnable]
    steps = config.by_mode(ci=6, lab=40, full=200)
    # warm-up: the first run in a process pays one-off costs (kernel selection, allocations)
    run_mode(runnable[0], batch_size=batch_size, width=width, steps=2, device=device)
    results = {mode: run_mode(mode, batch_size=batch_size, width=width, steps=steps, device=device)
               for mode in runnable}

    fig, axes = plots.new_figure(ncols=3)
    names = list(results)
    times = [results[m][0].median_step_s() * 1e3 for m in names]
    plots.bars(axes[0], names, times, ylabel=plots.label("lesson03.time_per_step"),
               title=plots.label("lesson03.time_per_step"), noisy=[noise.is_noisy(results[m][2]) for m in names])
    plots.bars(axes[1], names, [results[m][1] / 1024 for m in names], ylabel=plots.label("lesson03.activation_kib"),
               title=plots.label("lesson03.activation_kib"))
    plots.lines(axes[2], list(range(1, steps + 1)), {m: results[m][0].losses for m in names}, marker="",
                xlabel=plots.label("core.step"), ylabel=plots.label("core.loss"),
                title=plots.label("lesson03.loss_curve"))
    for ax in axes[:2]:
        ax.margins(y=0.15)  # room for the numbers on the bars
    fig.suptitle(plots.label("lesson03.panel_fig_title", device=device.type, batch=batch_size, width=width))

    headers = [t("core.mode"), t("lesson03.time_per_step"), t("lesson03.activation_kib"),
               t("core.final_loss"), t("lesson03.skipped"), t("noise.verdict_col")]
    rows, records = [], []
    for mode in names:
        history, saved_bytes, info = results[mode]
        row = (mode, history.median_step_s() * 1e3, saved_bytes / 1024, history.losses[-1], sum(history.skipped),
               t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word"))
        if history.peak_memory_bytes is not None:
            row += (history.peak_memory_bytes / 2**20,)
        rows.append(row)
        record = history.to_record(f"lesson03 {mode}", {"batch_size": batch_size, "width": width, "steps": steps})
        record.metrics["activation_bytes"] = saved_bytes
        record.noise = info
        records.append(record)
    if any(h.peak_memory_bytes is not None for h, _, _ in results.values()):
        headers.append(t("lesson03.peak_mib"))
    note = t("lesson03.panel_note")
    if noise.summary(records):
        note += " " + t("lesson03.panel_noisy_rows", summary=noise.summary(records))
    if skipped:
        note += " " + t("lesson03.unsupported_here", modes=", ".join(skipped))
    return Outcome(figure=fig, headers=headers, rows=rows, records=records, note=note)


def make() -> ExperimentPanel:
    return ExperimentPanel(
        t("lesson03.panel_title"),
        {
            "modes": widgets.SelectMultiple(options=list(prec.PRECISIONS), value=("fp32", "bf16"), rows=4,
                                            description=t("lesson03.modes")),
            "batch_size": widgets.Dropdown(options=[16, 32, 64, 128, 256], value=64,
                                           description=t("core.batch_size")),
            "width": widgets.Dropdown(options=[64, 128, 256, 512, 1024], value=128, description=t("lesson03.width")),
        },
        precision_experiment,
        name="lesson03_precision",
    )


# ----------------------------------------------------------------- section 6: one rerun at a quieter setting

RERUN_THREADS = 1  # the quieter setting: one thread cannot wait for a descheduled team member


def remeasure_noisy(records: list, mm_records: dict, make_step, matmul_size: int, device) -> tuple[list, dict, list[str]]:
    """Section 6's one rerun before giving up, at a quieter setting: RERUN_THREADS thread and twice the
    measuring time. A ratio compares rows measured alike, so the quiet rows are kept only when they were
    measured with that many threads already (a busy PC: bench.measure fitted them to the free core);
    otherwise every row is measured again. make_step(mode) -> the step function. Returns (records,
    mm_records, names of the rows remeasured: [] when nothing was noisy, and then nothing is measured)."""
    rows = [*records, *mm_records.values()]
    if not any(noise.is_noisy(r.noise) for r in rows):
        return records, mm_records, []
    quiet_threads = {(r.noise or {}).get("threads") for r in rows if not noise.is_noisy(r.noise)}
    keep_quiet = quiet_threads <= {RERUN_THREADS}

    def again(record) -> bool:
        return noise.is_noisy(record.noise) or not keep_quiet

    longer = 2 * config.by_mode(ci=0.05, lab=0.3, full=1.0)
    new_records, names = [], []
    for r in records:
        if not again(r):
            new_records.append(r)
            continue
        with prec.tf32(r.name == "tf32"):  # fp32 = TF32 off (the strict baseline), as in the lesson's loop
            new_records.append(bench.measure(make_step(r.name), r.name, params=r.params, threads=RERUN_THREADS,
                                             min_run_time=longer))
        names.append(f"{r.name} ({t('lesson03.v.row_step')})")
    new_mm = {}
    for mode, r in mm_records.items():
        if not again(r):
            new_mm[mode] = r
            continue
        new_mm[mode] = bench.matmul(matmul_size, device=str(device), dtype=prec.STORAGE_DTYPES[mode],
                                    threads=RERUN_THREADS, min_run_time=longer)
        names.append(f"{mode} ({t('lesson03.v.row_matmul')})")
    return new_records, new_mm, names


# ----------------------------------------------------------------- reference/ results, one row per run

AMP_MODES = ("fp32", "tf32", "fp16", "bf16")


def reference_amp_rows(directory=None) -> tuple[list[tuple], bool]:
    """Rows (hardware, run, ms/step in fp32, tf32, fp16, bf16) — one row per reference run, never
    runs merged (fastrain_lib.measure.reference) — and whether reference/ holds any GPU results."""
    from fastrain_lib.measure import reference

    rows = []
    for run in reference.runs(directory, family="amp"):
        times = {r.params.get("precision", r.name.split()[-1]): r.median_s * 1e3 for r in run.records}
        when = str(run.meta.get("date") or "")[:16].replace("T", " ")  # with the time: two runs of a day differ
        rows.append((run.hardware, " · ".join(p for p in (when, run.mode) if p),
                     *[times.get(m, "—") for m in AMP_MODES]))
    return rows, reference.has_gpu_results(directory)
