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

from fastrain_lib.async_sgd import simulator as async_sgd
from fastrain_lib.measure import bench
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.core.i18n import t
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

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
    from fastrain_lib.async_sgd import hogwild

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


# ---------------------------------------------------------------- real processes: RPC parameter server, local SGD

def ps_pair(problem, workers: int, straggler_ms: float, steps: int, lr: float = 0.05):
    """The same straggler under an asynchronous and a synchronous RPC parameter server (real
    processes), and the simulator's twin of the asynchronous run (same measured speeds)."""
    from fastrain_lib.async_sgd import param_server as PS

    runs = [PS.run(PS.PSConfig(mode=mode, workers=workers, steps=steps, straggler_ms=straggler_ms, lr=lr,
                               snapshot_every=max(1, steps * workers // 20)), problem)
            for mode in ("async", "sync")]
    twin = async_sgd.simulate(problem, PS.simulator_config(runs[0]))
    return runs[0], runs[1], twin


def ps_verdicts(asyn, sync, twin) -> list[tuple[str, dict]]:
    """Throughput and staleness of the two real servers; how close the simulator came."""
    slow = asyn.config["workers"] - 1
    out = [("l06real.v_ps", {"delay": asyn.config["straggler_ms"], "a_tp": asyn.throughput, "s_tp": sync.throughput,
                             "ratio": asyn.throughput / sync.throughput if sync.throughput else float("nan"),
                             "stale": asyn.mean_staleness(), "slow": asyn.mean_staleness(slow),
                             "a_loss": asyn.final_loss, "s_loss": sync.final_loss})]
    sim = sum(twin.staleness) / max(1, len(twin.staleness))
    real = asyn.mean_staleness()
    close = abs(sim - real) <= max(0.25, 0.25 * max(sim, real))
    out.append(("l06real.v_sim", {"sim": sim, "real": real,
                                  "agree": t("l06real.agree" if close else "l06real.disagree")}))
    return out


def local_verdicts(runs: dict, period: int) -> list[tuple[str, dict]]:
    """Local SGD with period H against H = 1: communication saved, loss reached, time."""
    one, mine = runs[1], runs[period]
    return [("l06real.v_local", {"h": period, "rounds": mine.rounds, "rounds1": one.rounds,
                                 "saved": 1 - mine.rounds / one.rounds, "loss": mine.final_loss,
                                 "loss1": one.final_loss, "diff": mine.final_loss - one.final_loss,
                                 "wall": mine.wall_s, "wall1": one.wall_s})]


REAL_STEPS = {"ci": 15, "lab": 60, "full": 300}  # gradients per worker (async: workers * steps in total)
LOCAL_STEPS = {"ci": 24, "lab": 120, "full": 600}  # local SGD steps per worker
_REAL_CACHE: dict = {}


def real_runs(workers: int = 2, straggler_ms: float = 10.0, periods=(1, 8)):
    """(async PS, sync PS, simulator twin, {H: local SGD run}) for these settings, measured once per
    session: the notebook's cells and the panel's first run (same defaults) share one measurement."""
    from fastrain_lib.async_sgd import local_sgd as L

    key = (config.mode(), workers, float(straggler_ms), tuple(sorted(set(periods))))
    if key not in _REAL_CACHE:
        steps, local_steps = config.by_mode(**REAL_STEPS), config.by_mode(**LOCAL_STEPS)
        asyn, sync, twin = ps_pair(problem(), workers, straggler_ms, steps)
        local = L.run(L.LocalSGDConfig(workers=workers, steps=local_steps, periods=key[3]), problem())
        _REAL_CACHE[key] = (asyn, sync, twin, local)
    return _REAL_CACHE[key]


def real_experiment(workers: int, straggler_ms: float, period: int) -> Outcome:
    """Panel 2: the RPC parameter server (async vs sync, one straggler) and local SGD (H vs 1)."""
    from fastrain_lib.async_sgd import param_server as PS

    steps, local_steps = config.by_mode(**REAL_STEPS), config.by_mode(**LOCAL_STEPS)
    asyn, sync, twin, local = real_runs(workers, straggler_ms, (1, 8, period))
    fig, axes = plots.new_figure(ncols=3)
    PS.plot_staleness(axes[0], asyn, twin)
    PS.plot_losses(axes[1], [asyn, sync])
    for h, r in sorted(local.items()):
        axes[2].plot([max(c, 0.8) for c in r.comms], r.losses, marker=".", label=f"H = {h}")
    axes[2].set_xscale("log")
    axes[2].set_xlabel(plots.label("localsgd.allreduces"))
    axes[2].set_ylabel(plots.label("async.eval_loss"))
    axes[2].set_title(plots.label("localsgd.title_comm"))
    axes[2].legend(fontsize="small")
    headers, rows = PS.table([asyn, sync])
    records = [bench.Record(name=f"param_server/{r.config['mode']}", median_s=r.train_time_s / max(1, r.gradients),
                            params={"workers": workers, "straggler_ms": straggler_ms, "steps": steps},
                            metrics={"throughput": r.throughput, "mean_staleness": r.mean_staleness(),
                                     "final_loss": r.final_loss}, meta=bench.meta()) for r in (asyn, sync)]
    records += [bench.Record(name="local_sgd", median_s=r.wall_s, params={"workers": workers, "period": h,
                                                                         "steps": local_steps},
                             metrics={"rounds": r.rounds, "final_loss": r.final_loss, "comm_s": r.comm_s},
                             meta=bench.meta()) for h, r in local.items() if h in (1, period)]
    local = {h: r for h, r in local.items() if h in (1, period)}
    lines = [t(k, **v) for k, v in ps_verdicts(asyn, sync, twin) + local_verdicts(local, period)]
    note = t("l06real.note", workers=workers, steps=steps, local_steps=local_steps) + " " + " ".join(lines)
    return Outcome(figure=fig, headers=headers, rows=rows, records=records, note=note)


def make_real() -> ExperimentPanel:
    return ExperimentPanel(
        t("l06real.panel_title"),
        {
            "workers": widgets.IntSlider(value=2, min=1, max=4, description=t("l06real.workers")),
            "straggler_ms": widgets.FloatSlider(value=10.0, min=0.0, max=50.0, step=5.0,
                                                description=t("l06real.delay")),
            "period": widgets.Dropdown(options=[1, 2, 4, 8, 16, 32], value=8, description=t("l06real.period")),
        },
        real_experiment,
        name="lesson06_real_processes",
    )
