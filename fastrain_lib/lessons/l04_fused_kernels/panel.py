"""Lesson 04's panel: one training step of a tiny GPT with each fused feature on or off.

Controls: optimizer implementation, LayerNorm implementation, precision, torch.compile on/off,
model size -> time per step, operator/kernel launches per step, and a chart that keeps every
setting run so far, so the effect of each switch is visible side by side.
"""

from __future__ import annotations

import warnings

import ipywidgets as widgets
import torch

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.fused import apex, optimizers
from fastrain_lib.gpt import GPT
from fastrain_lib.lessons.l04_fused_kernels import ablation
from fastrain_lib.lessons.l04_fused_kernels.tables import shown_name
from fastrain_lib.measure import bench, hardware, launches, noise
from fastrain_lib.precision import amp as prec
from fastrain_lib.train import train
from fastrain_lib.ui import plots
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
    with noise.Window() as window:  # what else ran on the machine while the steps were timed
        run = train(model, batches, steps=len(batches), device=device, precision=precision, optimizer=opt,
                    compile=compile, progress=False, skip_nonfinite=False)
    times = run.step_times_s[warmup:]
    median_ms = float(torch.tensor(times).median()) * 1e3
    spread, repeats = noise.from_times(times)  # the warm-up step left out
    info = window.assess(threads=torch.get_num_threads(), spread=spread, repeats=repeats)
    word = t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word")

    # Launches: one whole step (the one AMP step), and the optimizer step alone.
    stepper = torch.compile(model) if compile else model  # compiled already by train(): cache hit
    scaler = prec.make_scaler(device, precision)  # active only for fp16
    x, y = batches[0]
    whole = launches.count_launches(lambda: ablation.training_step(stepper, opt, x, y, precision=precision,
                                                                   scaler=scaler), warmup=1)
    # gradients for the optimizer to use (their precision does not change the optimizer's launches)
    ablation.gpt_loss(model(x), y).backward()
    only_opt = launches.count_launches(opt.step, warmup=0)
    opt.zero_grad(set_to_none=True)
    opt_launches = only_opt.launches
    model_launches = max(whole.launches - opt_launches, 0)

    label = (f"{shown_name(optimizer)}/{shown_name(norm)}/{precision}{'/compile' if compile else ''}"
             f"/{shown_name(size)}")  # the names a student reads (Bengali in Bengali mode)
    if history is not None:
        history[:] = [h for h in history if h[0] != label] + [(label, median_ms, word)]
        shown = history[-8:]
    else:
        shown = [(label, median_ms, word)]

    fig, (ax_time, ax_launch) = plots.new_figure(ncols=2)
    names = [name for name, _, _ in shown]
    values = [value for _, value, _ in shown]
    drawn = plots.bars(ax_time, list(range(1, len(names) + 1)), values, ylabel=plots.label("core.ms_per_step"),
                       title=plots.label("lesson04.time_title", device=device.type),
                       noisy=[w == t("noise.noisy_word") for _, _, w in shown])  # a noisy run is hatched
    for bar, name in zip(drawn, names):
        bar.set_alpha(1.0 if name == label else 0.45)
    ax_time.set_xlabel(plots.label("lesson04.run_number"))
    ax_launch.bar([0], [model_launches], label=plots.label("lesson04.model_part"))
    ax_launch.bar([0], [opt_launches], bottom=[model_launches], label=plots.label("lesson04.optimizer_part"))
    ax_launch.set_xticks([0], [label], rotation=0, fontsize=9)
    ax_launch.set_ylabel(plots.label("lesson04.launches_gpu" if whole.kernels is not None else "lesson04.launches_cpu"))
    ax_launch.set_title(plots.label("lesson04.launch_title", total=whole.launches))
    ax_launch.legend()

    headers = ["#", t("lesson04.setting"), t("core.ms_per_step"), t("noise.verdict_col")]
    rows = [(i + 1, name, value, w) for i, (name, value, w) in enumerate(shown)]
    rows.append(("", t("lesson04.launches_now"), f"{model_launches} + {opt_launches} = {whole.launches}", ""))
    record = bench.Record(name=f"lesson04_step:{label}", median_s=median_ms / 1e3, times_s=times,
                          params={"optimizer": optimizer, "norm": norm, "precision": precision, "compile": compile,
                                  "size": size, "device": str(device)},
                          metrics={"launches": whole.launches, "optimizer_launches": opt_launches,
                                   "compile_s": run.compile_s}, meta=bench.meta(), noise=info)
    notes = [noise.sentence(info)] if noise.is_noisy(info) else []  # no cause for a noisy speed: what was wrong
    if compile and run.compile_s:
        notes.append(t("lesson04.compile_note", seconds=run.compile_s))
    status = apex.apex_status()
    if (optimizer == "apex" and not (status.fused_adam and device.type == "cuda")) or (
            norm == "apex" and not status.fused_layer_norm):
        notes.append(t("lesson04.apex_note"))
    note = " ".join(notes)
    return Outcome(figure=fig, headers=headers, rows=rows, records=[record], note=note)


def _options(names) -> list[tuple[str, str]]:
    """A dropdown's (label, value) pairs: the shown name (Bengali in Bengali mode), the identifier as value."""
    return [(shown_name(name), name) for name in names]


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
            # option labels are the names a student reads; the values stay the code's identifiers
            "optimizer": widgets.Dropdown(options=_options(optimizers.OPTIMIZER_IMPLS), value="foreach",
                                          description=t("core.optimizer")),
            "norm": widgets.Dropdown(options=_options(NORMS), value="torch", description="LayerNorm"),
            "precision": widgets.Dropdown(options=_precisions(device), value="fp32",
                                          description=t("lesson04.precision")),
            # a short label, not indented: a long one was cut off with "…" in the panel's narrow column
            "compile": widgets.Checkbox(value=False, description=t("lesson04.compile"), indent=False,
                                        layout=widgets.Layout(width="auto")),
            "size": widgets.Dropdown(options=_options(SIZES), value="tiny", description=t("lesson04.model_size")),
        },
        experiment,
        name="lesson04_fused",
    )
