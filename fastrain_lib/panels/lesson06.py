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


# ---------------------------------------------------------------- verdicts for the notebook
# Each returns [(catalog key, values)] computed from this run's results, for verdicts.say.


def modes_verdicts(results: dict) -> list[tuple[str, dict]]:
    """Simulated time of the four modes, and what SSP's bound cost here: where SSP's time
    lies between async (no waiting) and sync (waiting every step)."""
    sync, asyn, ssp = results["sync"], results["async"], results["ssp"]
    out = [("lesson06.v_modes_time", {
        "sync": sync.total_time, "backup": results["backup"].total_time if "backup" in results else float("nan"),
        "ssp": ssp.total_time, "asyn": asyn.total_time, "speedup": sync.total_time / asyn.total_time,
        "loss_sync": sync.final_loss, "loss_async": asyn.final_loss})]
    span = sync.total_time - asyn.total_time
    share = (ssp.total_time - asyn.total_time) / span if span > 0 else 0.0
    values = {"ssp": ssp.total_time, "sync": sync.total_time, "asyn": asyn.total_time, "share": share,
              "s": ssp.config["staleness_bound"], "ssp_max": max(ssp.staleness, default=0),
              "async_max": max(asyn.staleness, default=0)}
    key = ("lesson06.v_ssp_near_sync" if share >= 0.6 else
           "lesson06.v_ssp_between" if share >= 0.25 else "lesson06.v_ssp_near_async")
    out.append((key, values))
    return out


def lr_verdicts(runs: dict) -> list[tuple[str, dict]]:
    """One line per learning rate (1 worker vs 8 stale workers), then the conclusion."""
    by_lr: dict[float, dict[int, object]] = {}
    for r in runs.values():
        by_lr.setdefault(r.config["lr"], {})[r.config["workers"]] = r

    def shown(r):
        return t("async.diverged") if r.diverged else f"{r.final_loss:.3f}"

    out, diverged, worse = [], [], 0
    for lr, pair in sorted(by_lr.items()):
        one, many = pair[min(pair)], pair[max(pair)]
        out.append(("lesson06.v_lr_row", {"lr": lr, "w": max(pair), "one": shown(one), "many": shown(many)}))
        if many.diverged and not one.diverged:
            diverged.append(lr)
        if many.diverged or many.final_loss > one.final_loss:
            worse += 1
    if diverged:
        out.append(("lesson06.v_lr_diverged", {"lrs": ", ".join(str(x) for x in diverged)}))
    elif worse == len(by_lr):
        out.append(("lesson06.v_lr_worse", {}))
    else:
        out.append(("lesson06.v_lr_mixed", {"worse": worse, "total": len(by_lr)}))
    return out


def backup_verdicts(runs: dict) -> list[tuple[str, dict]]:
    """Mean time per update with b = 0, 1 and the largest b, and the gradients thrown away."""
    def per_update(r):
        return r.total_time / max(1, len(r.times) - 1)

    bmax = max(runs)
    t0, t1, tmax = per_update(runs[0]), per_update(runs[1]), per_update(runs[bmax])
    values = {"t0": t0, "t1": t1, "tmax": tmax, "bmax": bmax, "cut": 1 - t1 / t0 if t0 else 0.0,
              "d1": runs[1].dropped, "dmax": runs[bmax].dropped}
    return [("lesson06.v_backup" if t1 < t0 else "lesson06.v_backup_nohelp", values)]


def hogwild_verdicts(results: list) -> list[tuple[str, dict]]:
    """Who reached the common target loss first, and lock-free Hogwild vs one process."""
    from .. import hogwild

    target = hogwild.common_target(results)
    times = [(hogwild.time_to_loss(r, target), hogwild.label(r)) for r in results]
    fastest = min(times)
    out = [("lesson06.v_hogwild_fastest", {"target": target, "fastest": fastest[1], "seconds": fastest[0],
                                           "all": "; ".join(f"{name} {sec:.2f}" for sec, name in times)})]
    single = [r for r in results if r.workers == 1 and r.lock is False]
    free = [r for r in results if r.workers > 1 and r.lock is False]
    if single and free:
        speedup = hogwild.time_to_loss(single[0], target) / hogwild.time_to_loss(free[0], target)
        key = "lesson06.v_hogwild_faster" if speedup >= 1.1 else "lesson06.v_hogwild_not_faster"
        out.append((key, {"speedup": speedup, "w": free[0].workers}))
    return out
