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

from fastrain_lib.async_sgd import problems, sim_plots
from fastrain_lib.async_sgd import simulator as async_sgd
from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l06_sync_vs_async_sgd.verdicts import local_verdicts, ps_verdicts
from fastrain_lib.measure import bench
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

LRS = (0.02, 0.05, 0.1, 0.2, 0.4, 0.8)


@functools.lru_cache(maxsize=1)
def problem():
    """The Bengali digits with softmax regression (built once, then reused)."""
    try:
        return problems.make_problem("digits")
    except (ImportError, OSError, RuntimeError, ValueError):  # no digits here: a synthetic problem still teaches
        return problems.make_problem("blobs")


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
    sim_plots.plot_losses(axes[0], results, x="time", title=plots.label("lesson06.loss_time"))
    sim_plots.plot_losses(axes[1], results, x="grads", title=plots.label("lesson06.loss_grads"))
    sim_plots.plot_staleness(axes[2], results)
    headers, rows = sim_plots.summary_rows(results)
    data = {"digits": t("lesson06.problem_digits"), "blobs": t("lesson06.problem_blobs")}.get(problem().name, problem().name)
    note = t("lesson06.note", problem=data, gradients=gradients, batch=base.batch_size)
    return Outcome(figure=fig, headers=headers, rows=rows, records=records, note=note)


def make() -> ExperimentPanel:
    mode_options = [(t("lesson06.all_modes"), "all")] + [(sim_plots.mode_name(m), m) for m in async_sgd.MODES]
    return ExperimentPanel(
        t("lesson06.panel_title"),
        {
            "workers": widgets.IntSlider(value=4, min=1, max=8, description=t("lesson06.workers")),
            "straggler_prob": widgets.FloatSlider(value=0.1, min=0.0, max=0.5, step=0.05,
                                                  description=t("lesson06.straggler_prob")),
            "straggler_delay": widgets.FloatSlider(value=4.0, min=0.0, max=10.0, step=0.5,
                                                   description=t("lesson06.straggler_delay")),
            "mode": widgets.Dropdown(options=mode_options, value="all", description=t("core.mode")),
            "staleness_bound": widgets.IntSlider(value=2, min=0, max=8, description=t("lesson06.bound")),
            "lr": widgets.Dropdown(options=list(LRS), value=0.1, description=t("lesson06.lr")),
        },
        simulator_experiment,
        name="lesson06_async_sgd",
    )


# ---------------------------------------------------------------- real processes: RPC parameter server, local SGD

def ps_pair(problem, workers: int, straggler_ms: float, steps: int, lr: float = 0.05):
    """The same straggler under an asynchronous and a synchronous RPC parameter server (real
    processes), and the simulator's twin of the asynchronous run (same measured speeds)."""
    from fastrain_lib.async_sgd import ps_run as PS

    runs = [PS.run(PS.PSConfig(mode=mode, workers=workers, steps=steps, straggler_ms=straggler_ms, lr=lr,
                               snapshot_every=max(1, steps * workers // 20)), problem)
            for mode in ("async", "sync")]
    twin = async_sgd.simulate(problem, PS.simulator_config(runs[0]))
    return runs[0], runs[1], twin


REAL_STEPS = {"ci": 15, "lab": 60, "full": 300}  # gradients per worker (async: workers * steps in total)
LOCAL_STEPS = {"ci": 24, "lab": 120, "full": 600}  # local SGD steps per worker
_REAL_CACHE: dict = {}


def real_runs(workers: int = 2, straggler_ms: float = 10.0, periods=(1, 8), *, fresh: bool = False):
    """(async PS, sync PS, simulator twin, {H: local SGD run}) for these settings, measured once per
    session (fresh: measured anew, the rerun's): the notebook's cells and the panel's first run (same
    defaults) share one measurement. Where torch has no RPC (Windows) the first three are None, after saying why."""
    from fastrain_lib.async_sgd import local_sgd as L

    key = (config.mode(), workers, float(straggler_ms), tuple(sorted(set(periods))))
    if key not in _REAL_CACHE or fresh:
        steps, local_steps = config.by_mode(**REAL_STEPS), config.by_mode(**LOCAL_STEPS)
        from fastrain_lib.measure import hardware, noise

        asyn = sync = twin = ps_noise = None
        if hardware.rpc_problem():  # no RPC (Windows): the server is not run, and the reason is said; local SGD is
            print("⚠️ " + hardware.rpc_problem())
        else:
            with noise.Window() as ps_window:  # real processes: was the machine quiet while they ran?
                asyn, sync, twin = ps_pair(problem(), workers, straggler_ms, steps)
            ps_noise = ps_window.assess(threads=workers + 1)  # the server and the workers
        with noise.Window() as local_window:
            local = L.run(L.LocalSGDConfig(workers=workers, steps=local_steps, periods=key[3]), problem())
        local_noise = local_window.assess(threads=workers)
        for result, info in [(r, ps_noise) for r in (asyn, sync) if r is not None] + [(r, local_noise) for r in local.values()]:
            try:
                result.noise = info
            except AttributeError:  # a result type that takes no new attribute: it stays without one
                pass
        _REAL_CACHE[key] = (asyn, sync, twin, local)
    return _REAL_CACHE[key]


def rerun_hogwild(real: list, variants: list, problem, total_steps: int, lr: float = 0.05):
    """The cell below say_hogwild (measure/rerun.py): the Hogwild variants trained once more when a run its
    verdict stood on was noisy; the DDP baseline after them, if any, is kept as it was."""
    from fastrain_lib.async_sgd import hogwild
    from fastrain_lib.lessons.l06_sync_vs_async_sgd import verdicts as v
    from fastrain_lib.measure import rerun

    def again():
        return [hogwild.train(w, lock=lock, total_steps=total_steps, problem=problem, lr=lr)
                for w, lock in variants] + list(real[len(variants):])

    def any_noisy(runs):
        return any(v.noisy(r) for r in runs)

    return rerun.once(any_noisy(real), again, lambda new: v.say_hogwild(new, offer_rerun=False), any_noisy,
                      cores=max(w for w, _ in variants))


def rerun_ps(asyn, sync, workers: int = 2, straggler_ms: float = 10.0, periods=(1, 8)):
    """The cell below say_ps: the real parameter server measured once more when its async or sync run was
    noisy. Nothing (not even a line) where it never ran: the cell above said why (no RPC here)."""
    from fastrain_lib.lessons.l06_sync_vs_async_sgd import verdicts as v
    from fastrain_lib.measure import rerun

    if asyn is None:
        return None

    def any_noisy(runs):
        return v.noisy(runs[0]) or v.noisy(runs[1])

    return rerun.once(any_noisy((asyn, sync)), lambda: real_runs(workers, straggler_ms, periods, fresh=True),
                      lambda new: v.say_ps(*new[:3], offer_rerun=False), any_noisy, cores=workers + 1)  # and the server


def real_experiment(workers: int, straggler_ms: float, period: int) -> Outcome:
    """Panel 2: the RPC parameter server (async vs sync, one straggler) and local SGD (H vs 1)."""
    from fastrain_lib.async_sgd import ps_plots

    steps, local_steps = config.by_mode(**REAL_STEPS), config.by_mode(**LOCAL_STEPS)
    asyn, sync, twin, local = real_runs(workers, straggler_ms, (1, 8, period))
    fig, axes = plots.new_figure(ncols=3)
    servers = [r for r in (asyn, sync) if r is not None]  # none where torch has no RPC (Windows)
    if servers:
        ps_plots.plot_staleness(axes[0], asyn, twin)
        ps_plots.plot_losses(axes[1], servers)
    for ax in axes[:2] if not servers else ():
        ax.axis("off")
        ax.text(0.5, 0.5, plots.label("lesson06.ps_not_run_short"), ha="center", va="center", wrap=True)
    for h, r in sorted(local.items()):
        axes[2].plot([max(c, 0.8) for c in r.comms], r.losses, marker=".", label=f"H = {h}")
    axes[2].set_xscale("log")
    axes[2].set_xlabel(plots.label("local_sgd.allreduces"))
    axes[2].set_ylabel(plots.label("async_sgd.eval_loss"))
    axes[2].set_title(plots.label("local_sgd.title_comm"))
    axes[2].legend(fontsize="small")
    headers, rows = ps_plots.table(servers)
    records = [bench.Record(name=f"param_server/{r.config['mode']}", median_s=r.train_time_s / max(1, r.gradients),
                            params={"workers": workers, "straggler_ms": straggler_ms, "steps": steps},
                            metrics={"throughput": r.throughput, "mean_staleness": r.mean_staleness(),
                                     "final_loss": r.final_loss}, meta=bench.meta()) for r in servers]
    records += [bench.Record(name="local_sgd", median_s=r.wall_s, params={"workers": workers, "period": h,
                                                                         "steps": local_steps},
                             metrics={"rounds": r.rounds, "final_loss": r.final_loss, "comm_s": r.comm_s},
                             meta=bench.meta()) for h, r in local.items() if h in (1, period)]
    from fastrain_lib.measure import noise

    for record, result in zip(records, servers + [r for h, r in local.items() if h in (1, period)]):
        record.noise = dict(getattr(result, "noise", None) or {})
    headers = headers + [t("noise.verdict_col")]
    rows = [tuple(row) + (t("noise.noisy_word") if noise.is_noisy(getattr(r, "noise", None)) else t("noise.quiet_word"),)
            for row, r in zip(rows, servers)]
    local = {h: r for h, r in local.items() if h in (1, period)}
    said = (ps_verdicts(asyn, sync, twin) if servers else [("lesson06.v_ps_not_run", {})]) + local_verdicts(local, period)
    lines = [t(k, **v) for k, v in said]
    note = t("lesson06.real_note", workers=workers, steps=steps, local_steps=local_steps) + " " + " ".join(lines)
    if noise.summary(records):
        note += " " + noise.summary(records)
    return Outcome(figure=fig, headers=headers, rows=rows, records=records, note=note)


def make_real() -> ExperimentPanel:
    return ExperimentPanel(
        t("lesson06.real_panel_title"),
        {
            "workers": widgets.IntSlider(value=2, min=1, max=4, description=t("lesson06.workers")),
            "straggler_ms": widgets.FloatSlider(value=10.0, min=0.0, max=50.0, step=5.0,
                                                description=t("lesson06.real_delay")),
            "period": widgets.Dropdown(options=[1, 2, 4, 8, 16, 32], value=8, description=t("lesson06.real_period")),
        },
        real_experiment,
        name="lesson06_real_processes",
    )
