"""Lesson 06's panel: the parameter-server simulator with its knobs.

workers, straggler probability and delay, mode (or all modes side by side), staleness
bound (SSP) and learning rate -> loss vs simulated time, loss vs gradients applied,
and a histogram of the staleness of every applied gradient. The model and data are real
(softmax regression on the Bengali digits); only the clock is simulated.
"""

from __future__ import annotations

import functools
import time

import ipywidgets as widgets

from .. import async_sgd, bench, config, plots
from ..i18n import t
from ..widgets import ExperimentPanel, Outcome

LRS = (0.02, 0.05, 0.1, 0.2, 0.4, 0.8)


@functools.lru_cache(maxsize=1)
def problem():
    """The Bengali digits with softmax regression (built once, then reused)."""
    try:
        return async_sgd.make_problem("digits")
    except (ImportError, OSError, RuntimeError, ValueError):  # no digits here: a synthetic problem still teaches
        return async_sgd.make_problem("blobs")


def simulator_experiment(workers: int, straggler_prob: float, straggler_delay: float, mode: str,
                         staleness_bound: int, lr: float) -> Outcome:
    """Run the chosen mode(s) on the same data, workers and stragglers; plot and tabulate."""
    gradients = config.by_mode(ci=120, lab=600, full=2000)
    base = async_sgd.SimConfig(workers=workers, straggler_prob=straggler_prob, straggler_delay=straggler_delay,
                               staleness_bound=staleness_bound, lr=lr, gradients=gradients, backup=1,
                               batch_size=32, seed=0)
    modes = async_sgd.MODES if mode == "all" else (mode,)
    results, records = {}, []
    for name in modes:
        if name == "backup" and workers < 2:
            continue  # one worker cannot have a backup
        start = time.perf_counter()
        results[name] = async_sgd.compare_modes(problem(), base, modes=(name,))[name]
        wall = time.perf_counter() - start
        r = results[name]
        # what is measured here is the simulator's own run time; the rest are its outputs
        records.append(bench.Record(
            name=f"async_sim/{name}", median_s=wall, params={**base.__dict__, "mode": name},
            metrics={"simulated_time": r.total_time, "final_loss": r.final_loss, "accuracy": r.final_accuracy,
                     "mean_staleness": sum(r.staleness) / max(1, len(r.staleness)), "diverged": r.diverged},
            meta=bench.meta()))
    fig, axes = plots.new_figure(ncols=3)
    async_sgd.plot_losses(axes[0], results, x="time", title=plots.label("lesson06.loss_time"))
    async_sgd.plot_losses(axes[1], results, x="grads", title=plots.label("lesson06.loss_grads"))
    async_sgd.plot_staleness(axes[2], results)
    headers, rows = async_sgd.summary_rows(results)
    note = t("lesson06.note", problem=problem().name, gradients=gradients, batch=base.batch_size)
    return Outcome(figure=fig, headers=headers, rows=rows, records=records, note=note)


def make() -> ExperimentPanel:
    mode_options = [(t("lesson06.all_modes"), "all")] + [(async_sgd.mode_name(m), m) for m in async_sgd.MODES]
    return ExperimentPanel(
        t("lesson06.panel_title"),
        {
            "workers": widgets.IntSlider(value=4, min=1, max=8, description=t("lesson06.workers")),
            "straggler_prob": widgets.FloatSlider(value=0.1, min=0.0, max=0.5, step=0.05,
                                                  description=t("lesson06.straggler_prob")),
            "straggler_delay": widgets.FloatSlider(value=4.0, min=0.0, max=10.0, step=0.5,
                                                   description=t("lesson06.straggler_delay")),
            "mode": widgets.Dropdown(options=mode_options, value="all", description=t("lesson06.mode")),
            "staleness_bound": widgets.IntSlider(value=2, min=0, max=8, description=t("lesson06.bound")),
            "lr": widgets.Dropdown(options=list(LRS), value=0.1, description=t("lesson06.lr")),
        },
        simulator_experiment,
        name="lesson06_async_sgd",
    )
