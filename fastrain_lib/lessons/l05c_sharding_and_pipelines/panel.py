"""Lesson 05c's panel and pictures: ZeRO/FSDP memory per rank, tensor parallelism, GPipe vs 1F1B.

Every number comes from real processes started with fastrain_lib.distributed.launch: on
GPUs over NCCL when every process has a GPU of its own (hardware.gpu_per_process), otherwise
on the CPU over gloo.
"""

from __future__ import annotations

import ipywidgets as widgets

from fastrain_lib.measure import bench, hardware, noise, reference
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.distributed import launch, schedules, tensor_parallel, zero
from fastrain_lib.core.i18n import plain, t
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome
from fastrain_lib.lessons.l05_data_vs_model_parallel.panel import cores, gantt
from fastrain_lib.lessons.l05c_sharding_and_pipelines.verdicts import (  # noqa: F401 - the notebook calls them as lesson05c.*
    PART_KEYS, SHORT_KEYS, noise_word, row_noise, schedule_verdicts_noise, strategy_label, sweep_verdicts, times_noise,
    tp_verdict, zero_verdicts)

REFERENCE_FAMILIES = ("zero",)  # the suite's ZeRO runs (benchmarks/zero.py): the dashboard's tab shows them
STRATEGIES = zero.STRATEGIES + ("tp",) + schedules.SCHEDULES
PART_COLORS = {"params": "#4C72B0", "grads": "#DD8452", "optim": "#55A868", "activations": "#C44E52"}
KIND_KEYS = {"all_reduce": "lesson05c.kind_all_reduce", "all_gather": "lesson05c.kind_all_gather",
             "reduce_scatter": "lesson05c.kind_reduce_scatter", "broadcast": "lesson05c.kind_broadcast"}
KIND_COLORS = {"all_reduce": "#4C72B0", "all_gather": "#55A868", "reduce_scatter": "#DD8452", "broadcast": "#8172B3"}




# ---------------------------------------------------------------- running the workers


def on_gpus(processes: int) -> bool:
    """Whether the workers put their tensors on GPUs here (then launch picks NCCL)."""
    return hardware.gpu_per_process(processes, hardware.node_facts())


def where_ran(results: list) -> str:
    """Where the workers really ran, from their own reports (results per rank: a dict, or a list
    of dicts from one launch): the number of processes, the tensors' devices and the backend."""
    ranks = [r[0] if isinstance(r, list) else r for r in results]
    devices = ", ".join(sorted({r["device"] for r in ranks}))
    return t("lesson05c.where_ran", n=len(ranks), devices=devices, backend=ranks[0]["backend"])


def _launch_judged(worker, processes: int, args: tuple) -> list:
    """launch() inside a noise.Window: every rank's result(s) get "window", the machine's load
    while the processes ran (threads = processes: one thread each)."""
    with noise.Window() as window:
        results = launch(worker, processes, args=args, threads=1, timeout_s=300, tensors_on_cuda=on_gpus(processes))
    info = window.assess(threads=processes)
    for rank in results:
        for item in rank if isinstance(rank, list) else [rank]:
            item["window"] = info
    return results


def _window(results: list) -> dict:
    first = results[0][0] if isinstance(results[0], list) else results[0]
    return first.get("window") or {}


def _one_by_one(per_item: bool | None) -> bool:
    """Whether a run launches once per item (strategy, width, schedule) behind a progress bar: in
    lab/full mode, where the whole comparison takes a minute or more on a CPU (issue 27), and
    each item then also gets the machine's load of its own launch. In ci mode one launch (the bar
    is off there anyway, and every launch pays for starting the processes)."""
    return (not config.is_ci()) if per_item is None else bool(per_item)


def _launch_each(worker, processes: int, items: list, args_of, key: str) -> list[list[dict]]:
    """One _launch_judged per item behind a progress bar; the workers' per-rank lists joined in
    order, so the result looks like one launch's [rank][item] (each item keeps its own window)."""
    from fastrain_lib.ui.progress import progress

    joined: list[list[dict]] = []
    for item in progress(items, key, total=len(items)):
        part = _launch_judged(worker, processes, args_of(item))
        joined = [list(r) for r in part] if not joined else [mine + list(r) for mine, r in zip(joined, part)]
    return joined


def zero_runs(processes: int, width: int, strategies=zero.STRATEGIES, depth: int = 4,
              per_item: bool | None = None) -> list[list[dict]]:
    """zero.zero_worker in `processes` real processes: [rank][strategy] results (per_item: one
    launch per strategy with a progress bar, see _one_by_one)."""
    cfg = {"width": width, "depth": depth, "batch": 16 * processes, "steps": config.by_mode(ci=6, lab=25)}
    if _one_by_one(per_item) and len(strategies) > 1:
        return _launch_each(zero.zero_worker, processes, list(strategies), lambda s: ((s,), cfg),
                            "lesson05c.progress_zero")
    return _launch_judged(zero.zero_worker, processes, (tuple(strategies), cfg))


def zero_table(results: list[list[dict]]) -> list[dict]:
    """zero.table with each row's noise (its launch's load, the spread of its step times)."""
    rows = zero.table(results)
    for i, r in enumerate(rows):
        r["noise"] = times_noise(results[0][i].get("window") or _window(results), r.get("times") or [])
    return rows


def reference_zero_rows(width: int, folder=None) -> list[tuple]:
    """Rows for the ZeRO table from reference/: the suite's zero family (benchmarks/zero.py), the same workers at
    the same width measured quietly on named hardware, in the table's columns (strategy with the run's label, the
    bytes in MB, step ms, difference from one process, noise verdict). On a busy PC, whose own step times are
    noisy, these are step times a student can still compare; none while reference/ has no run at this width."""
    mb = 2**20
    rows = []
    for run in reference.runs(folder, family="zero"):
        for r in run.records:
            if r.params.get("width") != width:
                continue
            m = r.metrics
            rows.append((t("reference.row", what=strategy_label(r.params.get("strategy", "?")),
                           run=run.label), m["params_bytes"] / mb, m["grads_bytes"] / mb, m["optim_bytes"] / mb,
                         (m["params_bytes"] + m["grads_bytes"] + m["optim_bytes"]) / mb, m["formula_bytes"] / mb,
                         m["payload_bytes"] / mb, r.median_s * 1e3, f"{m['max_error']:.1e}", noise_word(r.noise)))
    return rows


def tp_runs(processes: int, width: int, widths=None, per_item: bool | None = None) -> list[dict]:
    """tensor_parallel.tp_worker in `processes` real processes: one dict per rank (per_item: one
    launch per sweep width with a progress bar; the first also checks the MLP at `width`)."""
    cfg = {"width": width, "widths": tuple(widths or (width,)), "repeats": config.by_mode(ci=3, lab=24)}
    if not (_one_by_one(per_item) and len(cfg["widths"]) > 1):
        return _launch_judged(tensor_parallel.tp_worker, processes, (cfg,))
    from fastrain_lib.ui.progress import progress

    joined: list[dict] | None = None
    for w in progress(cfg["widths"], "lesson05c.progress_sweep", total=len(cfg["widths"])):
        part = _launch_judged(tensor_parallel.tp_worker, processes, ({**cfg, "widths": (w,)},))
        for rank in part:
            for point in rank["sweep"]:
                point["window"] = rank["window"]  # each width keeps the load of its own launch
        if joined is None:
            joined = part
        else:
            for mine, rank in zip(joined, part):
                mine["sweep"] += rank["sweep"]
    return joined


def sweep_table(results: list[dict]) -> list[dict]:
    """tensor_parallel.sweep_rows with each row's noise (its launch's load, its repeats' spread)."""
    rows = tensor_parallel.sweep_rows(results)
    for i, r in enumerate(rows):
        window = results[0]["sweep"][i].get("window") or _window(results)
        r["noise"] = row_noise(window, r.get("spread"), r.get("repeats", 0), r.get("block_steps", 1))
    return rows


def schedule_runs(processes: int, width: int, micro_list=(4,), which=schedules.SCHEDULES,
                  per_item: bool | None = None) -> list[list[dict]]:
    """schedules.schedules_worker in `processes` real processes: [rank][(M, schedule)] results
    (per_item: one launch per schedule with a progress bar)."""
    cfg = {"width": width, "batch": config.by_mode(ci=16, lab=64) * max(micro_list), "steps": config.by_mode(ci=3, lab=5)}
    items = [(m, s) for m in micro_list for s in which if not (s == "1f1b" and m < processes)]
    if _one_by_one(per_item) and len(items) > 1:
        return _launch_each(schedules.schedules_worker, processes, items, lambda ms: ((ms[0],), (ms[1],), cfg),
                            "lesson05c.progress_schedules")
    return _launch_judged(schedules.schedules_worker, processes, (tuple(micro_list), tuple(which), cfg))


def schedule_table(results: list[list[dict]]) -> list[dict]:
    """schedules.summary with each row's noise (its launch's load)."""
    rows = schedules.summary(results)
    for i, r in enumerate(rows):
        r["noise"] = row_noise(results[0][i].get("window") or _window(results))
    return rows


# ---------------------------------------------------------------- the one rerun (issue 38, measure/rerun.py)


def _rerun(rows: list[dict], found, remeasure, say_, processes: int):
    from fastrain_lib.lessons.l05c_sharding_and_pipelines.verdicts import stood_on_noise
    from fastrain_lib.measure import rerun

    return rerun.once(stood_on_noise(found(rows)), remeasure, lambda new: say_(new, offer_rerun=False),
                      lambda new: stood_on_noise(found(new)), cores=processes)


def rerun_zero(rows: list[dict], processes: int, width: int):
    """The cell below say_zero: ZeRO's strategies measured once more when its verdict stood on a noisy row."""
    from fastrain_lib.lessons.l05c_sharding_and_pipelines.verdicts import say_zero

    return _rerun(rows, zero_verdicts, lambda: zero_table(zero_runs(processes, width)), say_zero, processes)


def rerun_sweep(rows: list[dict], processes: int, width: int, widths) -> list[dict] | None:
    """The cell below say_sweep: the tensor-parallel sweep measured once more when it stood on a noisy row."""
    from fastrain_lib.lessons.l05c_sharding_and_pipelines.verdicts import say_sweep

    return _rerun(rows, sweep_verdicts, lambda: sweep_table(tp_runs(processes, width, widths=widths)), say_sweep,
                  processes)


def rerun_schedules(rows: list[dict], processes: int, width: int, micro_batches: int) -> list[dict] | None:
    """The cell below say_schedules: GPipe and 1F1B measured once more when their verdict stood on a noisy row."""
    from fastrain_lib.lessons.l05c_sharding_and_pipelines.verdicts import say_schedules

    return _rerun(rows, schedule_verdicts_noise,
                  lambda: schedule_table(schedule_runs(processes, width, micro_list=(micro_batches,))),
                  say_schedules, processes)


# ---------------------------------------------------------------- pictures


def memory_bars(ax, rows: list[dict]) -> None:
    """Stacked bars per strategy: params, grads, optimizer state per rank (measured), with the
    formula's total as a black tick."""
    xs = range(len(rows))
    bottom = [0.0] * len(rows)
    for part in ("params", "grads", "optim"):
        values = [r[f"{part}_bytes"] / 2**20 for r in rows]
        ax.bar(xs, values, bottom=bottom, color=PART_COLORS[part], label=plots.label(PART_KEYS[part]))
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.scatter(list(xs), [r["formula"]["total"] / 2**20 for r in rows], marker="_", s=900, color="black",
               zorder=3, label=plots.label("lesson05c.formula"))
    ax.set_xticks(list(xs), [plots.label(SHORT_KEYS[r['strategy']]) for r in rows])
    ax.set_ylabel(plots.label("lesson05c.mb_per_rank"))
    ax.set_title(plots.label("lesson05c.memory_title", w=rows[0]["world_size"]))
    ax.legend(fontsize="small")


def comm_bars(ax, rows: list[dict]) -> None:
    """Payload per step by collective kind, with the formula (2Ψ or 3Ψ) as a black tick."""
    xs = range(len(rows))
    bottom = [0.0] * len(rows)
    for kind, color in KIND_COLORS.items():
        values = [r["comm"].get(kind, {}).get("payload", 0) / 2**20 for r in rows]
        if any(values):
            ax.bar(xs, values, bottom=bottom, color=color, label=plots.label(KIND_KEYS[kind]))
            bottom = [b + v for b, v in zip(bottom, values)]
    ax.scatter(list(xs), [r["payload_formula"] / 2**20 for r in rows], marker="_", s=900, color="black", zorder=3,
               label=plots.label("lesson05c.formula"))
    ax.set_xticks(list(xs), [plots.label(SHORT_KEYS[r['strategy']]) for r in rows])
    ax.set_ylabel(plots.label("lesson05c.payload_mb"))
    ax.set_title(plots.label("lesson05c.comm_title"))
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the bars, not over them


def zero_figure(rows: list[dict]):
    fig, (left, right) = plots.new_figure(ncols=2)
    memory_bars(left, rows)
    comm_bars(right, rows)
    return fig


def sweep_figure(rows: list[dict]):
    fig, (left, right) = plots.new_figure(ncols=2)
    xs = [r["width"] for r in rows]
    left.plot(xs, [r["compute_s"] * 1e3 for r in rows], "o-", label=plots.label("lesson05c.tp_compute"))
    left.plot(xs, [r["allreduce_s"] * 1e3 for r in rows], "s-", label=plots.label("core.allreduce_ms"))
    left.plot(xs, [r["single_s"] * 1e3 for r in rows], "^--", color="gray", label=plots.label("lesson05c.tp_single"))
    noisy = [r for r in rows if noise.is_noisy(r.get("noise"))]
    if noisy:  # a red ring around every point measured while the machine was busy
        for key in ("compute_s", "allreduce_s", "single_s"):
            left.plot([r["width"] for r in noisy], [r[key] * 1e3 for r in noisy], linestyle="none", marker="o",
                      markersize=14, markerfacecolor="none", markeredgecolor=plots.NOISY_COLOR, markeredgewidth=2,
                      label=plots.label("noise.marked_point") if key == "compute_s" else None)
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel(plots.label("core.model_width"))
    left.set_ylabel(plots.label("core.time_ms"))
    left.set_title(plots.label("lesson05c.tp_time_title"))
    left.legend(fontsize="small")
    drawn = right.bar([str(x) for x in xs], [100 * r["comm_share"] for r in rows], color="#55A868")
    for bar, r in zip(drawn, rows):
        if noise.is_noisy(r.get("noise")):  # hatched: measured while the machine was busy
            bar.set_hatch(plots.NOISY_HATCH)
            bar.set_edgecolor(plots.NOISY_COLOR)
    right.set_xlabel(plots.label("core.model_width"))
    right.set_ylabel(plots.label("lesson05c.comm_share"))
    right.set_title(plots.label("lesson05c.tp_share_title"))
    return fig


def schedule_figure(rows: list[dict]):
    """One Gantt chart per schedule (measured), titled with idle share and live micro-batches."""
    fig, axes = plots.new_figure(nrows=len(rows), ncols=1, figsize=(9, 2.6 * len(rows)))
    axes = axes if len(rows) > 1 else [axes]
    for ax, r in zip(axes, rows):
        gantt(ax, r["events"], r["stages"], title=plots.label(
            "lesson05c.gantt_title", name=strategy_label(r["schedule"]), m=r["micro_batches"], idle=r["idle"],
            formula=r["formula"], alive=", ".join(map(str, r["alive"]))))
    return fig


# ---------------------------------------------------------------- the panel


def _note(key: str, values: dict, measured: list) -> str:
    """A verdict for the panel's note: the noisy-measurement sentence when what it stands on was noisy."""
    from fastrain_lib.core import verdicts

    infos = [i for i in measured if i and "verdict" in i]
    if any(noise.is_noisy(i) for i in infos):
        return verdicts.noisy_line(infos).removeprefix(verdicts.PREFIX)
    return t(key, **values)


def kind_label(kind: str) -> str:
    """A collective's kind as the glossary names it ('all_reduce' -> 'অল-রিডিউস'); an unknown kind as is."""
    return t(KIND_KEYS[kind]) if kind in KIND_KEYS else kind


def _comms(counts: dict) -> str:
    """{'all_reduce': 1} -> 'all_reduce: 1' (a table cell, not a dict's repr)."""
    return ", ".join(f"{k}: {v}" for k, v in counts.items()) or "—"


def experiment(strategy: str, processes: int, width: int, micro_batches: int) -> Outcome:
    """Run one strategy in `processes` real processes; memory per rank, communication, time."""
    mb = 2**20
    if strategy in zero.STRATEGIES:
        results = zero_runs(processes, width, (strategy,))
        rows = zero_table(results)
        headers = [t("core.rank"), t("lesson05c.part_params"), t("lesson05c.part_grads"),
                   t("lesson05c.part_optim"), t("lesson05c.formula"), t("lesson05c.payload_mb"),
                   t("lesson05c.col_step_ms"), t("lesson05c.col_error")]
        table = [(r[0]["rank"], r[0]["params_bytes"] / mb, r[0]["grads_bytes"] / mb, r[0]["optim_bytes"] / mb,
                  rows[0]["formula"]["total"] / mb, r[0]["comm"]["total_payload"] / mb, r[0]["step_s"] * 1e3,
                  plain("{:.1e}", r[0]["max_error"])) for r in results]
        fig = zero_figure(rows)
        row = rows[0]
        record = bench.Record(name=f"{strategy} W={processes} width={width}", median_s=row["step_s"],
                              times_s=results[0][0]["times"],
                              params={"panel": "lesson05c", "strategy": strategy, "processes": processes,
                                      "width": width},
                              metrics={"bytes_per_rank": row["params_bytes"] + row["grads_bytes"] + row["optim_bytes"],
                                       "formula_bytes": row["formula"]["total"], "payload_bytes": row["payload"],
                                       "max_error": row["max_error"]}, meta=bench.meta(), noise=dict(row["noise"]))
        notes = [_note(k, v, m) for k, v, m in zero_verdicts(rows)]
    elif strategy == "tp":
        results = tp_runs(processes, width)
        rows = sweep_table(results)
        headers = [t("core.rank"), t("lesson05c.col_up_shape"), t("lesson05c.col_down_shape"),
                   t("lesson05c.col_fwd_comm"), t("lesson05c.col_bwd_comm"), t("lesson05c.col_error"),
                   t("lesson05c.tp_compute"), t("core.allreduce_ms")]
        table = [(r["rank"], " × ".join(map(str, r["up_local_shape"])),
                  " × ".join(map(str, r["down_local_shape"])), _comms(r["forward_comms"]),
                  _comms(r["backward_comms"]), plain("{:.1e}", r["error"]), r["sweep"][0]["compute_s"] * 1e3,
                  r["sweep"][0]["allreduce_s"] * 1e3) for r in results]
        fig = sweep_figure(rows)
        record = bench.Record(name=f"tp W={processes} width={width}", median_s=rows[0]["tp_s"],
                              params={"panel": "lesson05c", "strategy": "tp", "processes": processes, "width": width},
                              metrics={"compute_s": rows[0]["compute_s"], "allreduce_s": rows[0]["allreduce_s"],
                                       "comm_share": rows[0]["comm_share"],
                                       "max_error": max(r["error"] for r in results)}, meta=bench.meta(), noise=dict(rows[0]["noise"]))
        key, values = tp_verdict(results)
        notes = [t(key, **values)] + [_note(k, v, m) for k, v, m in sweep_verdicts(rows)]
    elif strategy in schedules.SCHEDULES:
        if strategy == "1f1b" and micro_batches < processes:
            micro_batches = processes  # 1F1B needs M ≥ K; said in the note
            notes = [t("lesson05c.m_raised", m=micro_batches)]
        else:
            notes = []
        results = schedule_runs(processes, width, (micro_batches,), (strategy,))
        rows = schedule_table(results)
        r = rows[0]
        headers = [t("lesson05c.col_stage"), t("lesson05c.col_alive"), t("lesson05c.col_alive_rule"),
                   t("lesson05c.col_act_kb"), t("core.idle_share"), t("core.bubble_formula")]
        table = [(k, r["alive"][k], r["alive_rule"][k], r["activation_bytes"][k] / 1024, f"{r['idle']:.0%}",
                  f"{r['formula']:.0%}") for k in range(processes)]
        fig = schedule_figure(rows)
        record = bench.Record(name=f"{strategy} K={processes} M={micro_batches}", median_s=r["span_s"],
                              params={"panel": "lesson05c", "strategy": strategy, "processes": processes,
                                      "width": width, "micro_batches": micro_batches},
                              metrics={"idle_share": r["idle"], "formula": r["formula"],
                                       "peak_alive": max(r["alive"]),
                                       "activation_peak_bytes": max(r["activation_bytes"])}, meta=bench.meta(), noise=dict(r["noise"]))
        notes += [_note(k, v, m) for k, v, m in schedule_verdicts_noise(rows)]
    else:
        raise ValueError(t("lesson05c.unknown_strategy", name=strategy))
    if processes > cores():
        notes.append(t("lesson05.oversubscribed", procs=processes, cores=cores()))
    return Outcome(figure=fig, headers=headers, rows=table, records=[record], note=" ".join(notes))


def make() -> ExperimentPanel:
    """Strategy, processes, model width, micro-batches → memory per rank, communication, time."""
    return ExperimentPanel(
        t("lesson05c.panel_title"),
        {
            "strategy": widgets.Dropdown(options=[(strategy_label(s), s) for s in STRATEGIES], value="zero3",
                                         description=t("core.strategy")),
            "processes": widgets.Dropdown(options=[2, 3, 4], value=2, description=t("lesson05c.processes")),
            "width": widgets.Dropdown(options=[64, 128, 256, 512, 1024], value=config.by_mode(ci=128, lab=256),
                                      description=t("core.model_width")),
            "micro_batches": widgets.Dropdown(options=[1, 2, 4, 8], value=4, description=t("core.micro_batches")),
        },
        experiment,
        name="lesson05c",
    )
