"""Lesson 07's panel: the capstone GPT with every switch of the course.

device, precision, optimizer implementation, LayerNorm implementation, torch.compile,
gradient accumulation and the number of DDP processes -> tokens/s, MFU against the
device's peak (datasheet for a known GPU, measured matmul peak for a CPU), the validation
loss curve, memory, and Bengali samples generated at each checkpoint. Every run of the
session is kept, so the right-hand chart compares settings (and reference/ results).
"""

from __future__ import annotations

import os
import textwrap

import ipywidgets as widgets

from fastrain_lib.lessons.l07_capstone import capstone
from fastrain_lib.core import config
from fastrain_lib.fused import optimizers, layernorm
from fastrain_lib.measure import hardware, reference
from fastrain_lib.ui import plots
from fastrain_lib.precision import amp as precision
from fastrain_lib.core.i18n import t
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

# benchmarks/ families whose reference/ results the instructor dashboard shows beside this panel
REFERENCE_FAMILIES = ("capstone",)

STEPS = {"ci": [6, 10], "lab": [40, 100, 200], "full": [200, 500, 1000]}
MEMORY_KEYS = {"cuda_peak": "lesson07.memory_cuda_peak", "cpu_rss": "lesson07.memory_cpu_rss"}
_RUNS: list[tuple[str, float, float]] = []  # (short label, tokens/s, MFU) of this session's runs


def short_label(s: dict) -> str:
    """'cpu bf16 fused torch' + '+compile' + '×2 acc' + '2 proc' — fits under a bar."""
    text = f"{s['device']} {s['precision']}\n{s['optimizer']} LN:{s['norm']}"
    if s["compile"]:
        text += " +compile"
    if s["grad_accum"] > 1:
        text += f" acc{s['grad_accum']}"
    if s["processes"] > 1:
        text += f" ×{s['processes']}"
    return text


def capstone_experiment(device: str, precision_mode: str, optimizer: str, norm: str, compile: bool,
                        grad_accum: int, processes: int, steps: int) -> Outcome:
    """Train the capstone GPT for `steps` steps with these switches and show what it measured."""
    result = capstone.run(device=device, precision=precision_mode, optimizer=optimizer, norm=norm, compile=compile,
                          grad_accum=grad_accum, processes=processes, steps=steps,
                          eval_every=max(2, steps // 3), progress=False)
    label = short_label(result.settings)
    _RUNS.append((label, result.tokens_per_s, result.mfu))

    fig, (ax_loss, ax_speed) = plots.new_figure(ncols=2)
    ax_loss.plot(range(1, len(result.losses) + 1), result.losses, alpha=0.5, label=plots.label("lesson07.train_loss"))
    if result.val_curve:
        xs, ys = zip(*result.val_curve)
        ax_loss.plot(xs, ys, marker="o", label=plots.label("lesson07.val_loss"))
    ax_loss.set_xlabel(plots.label("core.step"))
    ax_loss.set_ylabel(plots.label("core.loss"))
    ax_loss.set_title(plots.label("lesson07.loss_title", settings=label.replace("\n", " ")), fontsize=11)
    ax_loss.legend()

    names = [name for name, _, _ in _RUNS[-6:]]
    values = [tps for _, tps, _ in _RUNS[-6:]]
    # reference/ results of the same model size only (other hardware, clearly labelled)
    same_model = [r for r in reference.records("capstone") if r.params.get("model") == result.settings["model"]]
    for record in same_model[-3:]:
        hardware = textwrap.fill(reference.hardware_name(record.meta), 18)  # a tick is one bar wide
        names.append(t("lesson07.reference_bar", hardware=hardware, precision=record.params.get("precision", "?")))
        values.append(record.metrics.get("tokens_per_s", 0.0))
    plots.bars(ax_speed, names, values, ylabel=plots.label("core.tokens_per_s"),
               title=plots.label("lesson07.speed_title"), fmt="{:.0f}")
    ax_speed.tick_params(axis="x", labelsize=8)

    memory = "—" if result.memory_bytes is None else f"{result.memory_bytes / 2**20:.0f} MB"
    rows = [
        (t("core.tokens_per_s"), f"{result.tokens_per_s:,.0f}"),
        (t("lesson07.step_ms"), f"{result.median_step_s * 1e3:.1f}"),
        ("MFU", capstone.mfu_text(result.mfu)),  # above 100% (a wrong peak) is flagged, never shown
        (t("lesson07.peak"), _peak_text(result.peak)),
        (t(MEMORY_KEYS[result.memory_kind]), memory),
        (t("lesson07.val_loss"), f"{result.val_curve[-1][1]:.3f}" if result.val_curve else "—"),
        (t("lesson07.params"), f"{result.params:,}"),
    ]
    if result.compile_s is not None:
        rows.append((t("lesson07.compile_s"), f"{result.compile_s:.1f}"))
    for step, text, share in result.samples:
        rows.append((t("lesson07.sample_at", step=step, share=100 * share), text))
    notes = []
    if processes > (os.cpu_count() or 1) and hardware.best_device().type == "cpu":
        notes.append(t("lesson07.note_oversubscribed", n=processes, cores=os.cpu_count()))
    if result.peak.kind == "measured":
        notes.append(t("lesson07.note_measured_peak"))
    record = result.record()  # with the run's noise: the panel's warning names it, so a name without English words
    record.name = record.name.replace("capstone", "GPT", 1)
    return Outcome(figure=fig, headers=[t("hardware.item"), t("hardware.value")], rows=rows, records=[record],
                   note=" ".join(notes))


def _peak_text(peak) -> str:
    return f"{peak.flops / 1e12:.3g} TFLOP/s — {peak.label}" if peak.flops else peak.label


OPTION_KEYS = {"forloop": "lesson07.opt_forloop", "naive": "lesson07.norm_naive"}


def option_label(value: str) -> str:
    """A dropdown's label for an implementation's name: an English word in Bengali words, a code name as is."""
    return t(OPTION_KEYS[value]) if value in OPTION_KEYS else value


def make() -> ExperimentPanel:
    steps = config.by_mode(ci=STEPS["ci"], lab=STEPS["lab"], full=STEPS["full"])
    devices = hardware.available_devices()
    return ExperimentPanel(
        t("lesson07.panel_title"),
        {
            "device": widgets.Dropdown(options=devices, value=devices[0], description=t("core.device")),
            "precision_mode": widgets.Dropdown(options=list(precision.PRECISIONS), value="fp32",
                                               description=t("lesson07.precision")),
            "optimizer": widgets.Dropdown(options=[(option_label(o), o) for o in optimizers.OPTIMIZER_IMPLS], value="foreach",
                                          description=t("core.optimizer")),
            "norm": widgets.Dropdown(options=[(option_label(o), o) for o in layernorm.NORM_IMPLS], value="torch",
                                     description="LayerNorm"),
            "compile": widgets.Checkbox(value=False, description="torch.compile"),
            "grad_accum": widgets.Dropdown(options=[1, 2, 4], value=1, description=t("lesson07.grad_accum")),
            "processes": widgets.Dropdown(options=[1, 2, 4], value=1, description=t("core.ddp_processes")),
            "steps": widgets.Dropdown(options=steps, value=steps[0], description=t("lesson07.steps")),
        },
        capstone_experiment,
        name="lesson07_capstone",
    )
