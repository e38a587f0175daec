"""Lesson 05's panels and pictures: DDP scaling, the pipeline Gantt chart, the ring stepper,
bytes per worker, and the hybrid process-group layout.

Every number comes from real processes started with fastrain_lib.distributed.launch.
"""

from __future__ import annotations

import statistics

import ipywidgets as widgets

from fastrain_lib import data
from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import ddp, ddp_costs, launch, measured, pipeline
from fastrain_lib.lessons.l05_data_vs_model_parallel.ring_views import (  # noqa: F401 - the notebook calls them as lesson05.*
    allreduce_table,
    bytes_figure,
    bytes_table,
    draw_ring_state,
    ring_stepper,
)
from fastrain_lib.lessons.l05_data_vs_model_parallel.verdicts import (  # noqa: F401
    allreduce_verdicts,
    pipeline_verdict,
    verdicts_for,
)
from fastrain_lib.measure import bench, hardware, reference
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

# benchmarks/ families whose reference/ results the instructor dashboard shows beside this panel
REFERENCE_FAMILIES = ("ddp",)

COLORS = {"F": "#4C72B0", "B": "#DD8452", "A": "#55A868"}
LEGEND_KEYS = {"F": "core.forward", "B": "core.backward", "A": "lesson05.legend_a"}


cores = hardware.usable_cores


def backends() -> list[str]:
    """gloo always; NCCL when there are at least two GPUs."""
    options = ["gloo"]
    if hardware.gpu_count() >= 2:
        options.append("nccl")
    return options


# ---------------------------------------------------------------- DDP scaling

_DDP_CACHE: dict[tuple, dict[int, list[dict]]] = {}

# The default workload: big enough per step that one all-reduce of the gradients costs
# much less than the compute it saves (SimpleNN(512), 512 samples per process). With the
# seeds' small setting (hidden 128, batch 32) a step computes in under a millisecond and
# gloo's all-reduce takes about as long: then 2 processes are slower than one.
DEFAULT_HIDDEN = 512


def default_batch() -> int:
    """Samples per process: 512 (ci: 128, so that the tiny ci dataset holds whole batches)."""
    return config.by_mode(ci=128, lab=512)


def ddp_runs(processes: list[int], batch_size: int | None = None, hidden: int = DEFAULT_HIDDEN,
             backend: str = "gloo", steps: int | None = None, *, fresh: bool = False) -> dict[int, list[dict]]:
    """{W: [rank results]} of lesson 05's DDP worker (ddp.train_worker, the lesson's saved cell) for
    each process count W (cached per setting);
    each rank also reports its all-reduce time for one step's gradients (ddp_costs).

    One CPU thread per process: each process plays one GPU, so W processes use W cores.
    fresh: measure again even when the cache holds this setting (a rerun after a noisy run)."""
    steps = steps or config.by_mode(ci=8, lab=30, full=200)
    batch_size = batch_size or default_batch()
    from fastrain_lib.ui.progress import progress

    out = {}
    for w in progress(processes):  # a lab run of 1, 2 and 4 processes takes a while: show it
        key = (w, batch_size, hidden, backend, steps)
        if fresh or key not in _DDP_CACHE:
            if backend == "nccl" and hardware.gpu_count() < w:
                backend = "gloo"
            # every rank needs at least one full batch per epoch (an empty loader would never end an epoch)
            need = 2 * batch_size * w
            cfg = ddp.make_cfg(steps=steps, batch_size=batch_size, hidden=hidden,
                               warmup_steps=min(2, steps - 1),
                               data_size=need if need > data._default_size(train=True) else None)
            results, info = measured.launch(ddp_costs.worker, w, args=(cfg,), backend=backend, threads=1,
                                            timeout_s=300)
            for r in results:  # the run's noise verdict travels with its results
                r["noise"] = measured.row_noise(info, r.get("step_times", [])[cfg["warmup_steps"]:])
            _DDP_CACHE[key] = results
        out[w] = _DDP_CACHE[key]
    return out


def summarise(runs: dict[int, list[dict]]) -> list[dict]:
    """One row per process count: the slowest rank sets the pace (everyone waits in all-reduce).
    compute_s is the one-process step (no partner to wait for), allreduce_s this W's all-reduce."""
    rows, base, compute = [], None, None
    for w, results in sorted(runs.items()):
        step = max(r["median_step_s"] for r in results)
        sps = w * results[0]["batch_per_rank"] / step
        base = base or sps / w
        compute = compute or step
        allreduce = max(r.get("allreduce_s", 0.0) for r in results) if w > 1 else 0.0
        rows.append({"processes": w, "global_batch": results[0]["global_batch"], "step_s": step,
                     "samples_per_s": sps, "speedup": sps / base, "efficiency": sps / (base * w),
                     "compute_s": compute, "allreduce_s": allreduce,
                     "identical": all(r["param_hashes"] == results[0]["param_hashes"] for r in results),
                     "times": results[0]["step_times"], "backend": results[0]["backend"],
                     "noise": _worst_noise([r.get("noise") for r in results])})
    return rows


def _worst_noise(infos: list) -> dict:
    """The noisiest rank's noise information (the slowest rank sets the pace; any noisy rank spoils the row)."""
    infos = [i for i in infos if i]
    noisy = [i for i in infos if i.get("verdict") == "noisy"]
    return (noisy or infos or [{}])[0]


def process_counts(processes: int) -> list[int]:
    """The process counts a panel run measures: 1, 2, 4, 8 up to `processes`."""
    return [w for w in (1, 2, 4, 8) if w <= processes]


def panel_rows(settings: dict) -> list[dict]:
    """The summary rows of the DDP panel's run for `settings` (from the cache: no new run)."""
    return summarise(ddp_runs(process_counts(settings["processes"]), settings["batch_size"], settings["hidden"],
                              settings["backend"]))


def cost_bars(ax, rows: list[dict]) -> None:
    """Per process count: compute (one process), all-reduce (W processes) and the measured step."""
    multi = [r for r in rows if r["processes"] > 1]
    xs = range(len(multi))
    width = 0.27
    for i, (key, field, color) in enumerate((("lesson05.cost_compute", "compute_s", "#4C72B0"),
                                              ("core.allreduce_ms", "allreduce_s", "#55A868"),
                                              ("core.measured_step_ms", "step_s", "#DD8452"))):
        ax.bar([x + (i - 1) * width for x in xs], [r[field] * 1e3 for r in multi], width,
               color=color, label=plots.label(key))
    ax.set_xticks(list(xs), [str(r["processes"]) for r in multi])
    ax.set_xlabel(plots.label("lesson05.nprocs"))
    ax.set_ylabel(plots.label("core.time_ms"))
    ax.set_title(plots.label("lesson05.cost_title"), fontsize="medium")


def scaling_experiment(processes: int, batch_size: int, backend: str, hidden: int) -> Outcome:
    """Train with 1, 2, 4 … processes (up to `processes`); plot samples/s, efficiency, and
    what one step costs (compute vs all-reduce); explain the result from those numbers."""
    rows = summarise(ddp_runs(process_counts(processes), batch_size, hidden, backend))
    fig, (left, middle, right) = plots.new_figure(ncols=3)
    xs = [r["processes"] for r in rows]
    left.plot(xs, [r["samples_per_s"] for r in rows], "o-", label=plots.label("lesson05.measured_here"))
    left.plot(xs, [rows[0]["samples_per_s"] * x for x in xs], "--", color="gray", label=plots.label("lesson05.ideal"))
    left.set_xticks(xs)
    left.set_xlabel(plots.label("lesson05.nprocs"))
    left.set_ylabel(plots.label("core.samples_per_s"))
    left.set_title(plots.label("lesson05.scaling_title", cores=cores()), fontsize="medium")
    middle.plot(xs, [100 * r["efficiency"] for r in rows], "o-", label=plots.label("lesson05.measured_here"))
    middle.axhline(100, color="gray", linestyle="--")
    _plot_reference(middle)
    middle.set_xticks(xs)
    middle.set_xlabel(plots.label("lesson05.nprocs"))
    middle.set_ylabel(plots.label("lesson05.efficiency"))
    middle.set_title(plots.label("lesson05.efficiency_title"), fontsize="medium")
    cost_bars(right, rows)
    plots.figure_legend(fig, (left, middle, right), ncol=3)  # the W = 1 point sits where the ideal line starts
    headers = [t("lesson05.nprocs"), t("lesson05.col_global_batch"), t("core.median_step_ms"),
               t("lesson05.cost_compute"), t("core.allreduce_ms"), t("core.samples_per_s"),
               t("core.speedup"), t("lesson05.efficiency"), t("lesson05.col_identical"), t("noise.verdict_col")]
    table = [(r["processes"], r["global_batch"], r["step_s"] * 1e3, r["compute_s"] * 1e3, r["allreduce_s"] * 1e3,
              f"{r['samples_per_s']:,.0f}", r["speedup"], 100 * r["efficiency"],
              t("core.yes") if r["identical"] else t("core.no"), measured.word(r["noise"])) for r in rows]
    records = [bench.Record(name=f"DDP W={r['processes']}", median_s=r["step_s"], times_s=r["times"],
                            params={"panel": "lesson05_ddp", "processes": r["processes"], "batch_size": batch_size,
                                    "hidden": hidden, "backend": r["backend"]},
                            metrics={"samples_per_s": r["samples_per_s"], "efficiency": r["efficiency"],
                                     "compute_s": r["compute_s"], "allreduce_s": r["allreduce_s"]},
                            meta=bench.meta(), noise=r["noise"] or {}) for r in rows]
    notes = []  # the verdict sentences: said once, by the # VERDICT cell below the panel (verdicts.say_ddp)
    if not any(run["on_gpu"] for run in reference_runs()):
        notes.append(t("lesson05.no_gpu_reference"))  # say so, rather than promise GPU results
    if backend == "nccl" and rows and rows[-1]["backend"] != "nccl":
        notes.append(t("lesson05.no_nccl"))
    return Outcome(figure=fig, headers=headers, rows=table, records=records, note=" ".join(notes))


def reference_runs(folder=None) -> list[dict]:
    """One entry per reference/ run (fastrain_lib.measure.reference: one file = one series) with DDP
    records: {"label": hardware, date, mode and workload, "points": [(processes, efficiency)], "hardware", "date", "workload"}.
    Runs are never merged, even on the same hardware and date."""
    found = []
    for run in reference.runs(folder):
        points, workload, one_process_threads = [], "", None
        for r in run.records:
            efficiency = r.metrics.get("efficiency", r.metrics.get("scaling_efficiency"))
            is_ddp = r.params.get("panel") == "lesson05_ddp" or r.params.get("family") == "ddp"
            if is_ddp and efficiency is not None and "processes" in r.params:
                points.append((r.params["processes"], efficiency))
                workload = "SimpleNN" if r.params.get("panel") == "lesson05_ddp" else "GPT"
                if r.params["processes"] == 1:
                    one_process_threads = r.params.get("threads_per_process")
        if points:
            found.append({"label": plots.label("core.reference", hardware=f"{run.hardware}, "
                                               + _workload_label(workload, one_process_threads),
                                               date=f"{run.date}, {run.mode}" if run.mode else run.date),
                          "points": sorted(points), "file": run.path.name, "hardware": run.hardware, "date": run.date,
                          "workload": workload,
                          "on_gpu": any(reference.used_gpu(r) for r in run.records
                                        if r.params.get("panel") == "lesson05_ddp" or r.params.get("family") == "ddp")})
    return found


def _workload_label(workload: str, one_process_threads) -> str:
    """The suite's GPT runs differ from this panel's SimpleNN in more than the model: their one process ran
    one thread per core (this panel's runs one thread per process), so the legend says so beside their line."""
    if workload == "GPT" and one_process_threads:
        return plots.label("lesson05.ref_workload_gpt", threads=one_process_threads)
    return workload


def _plot_reference(ax) -> int:
    """Dotted lines: scaling efficiency of DDP runs in reference/ (other runs and hardware),
    one line per run, labelled with its hardware, date and workload."""
    runs = reference_runs()
    for run in runs:
        xs, ys = zip(*run["points"])
        ax.plot(xs, [100 * y for y in ys], ":", marker=".", label=run["label"])
    return len(runs)


def make() -> ExperimentPanel:
    """The DDP panel: processes, batch per process, backend, model size → samples/s, efficiency."""
    return ExperimentPanel(
        t("lesson05.panel_title"),
        {
            "processes": widgets.Dropdown(options=[1, 2, 4], value=config.by_mode(ci=2, lab=4),
                                          description=t("lesson05.processes")),
            "batch_size": widgets.Dropdown(options=[8, 16, 32, 64, 128, 256, 512], value=default_batch(),
                                           description=t("lesson05.batch")),
            "backend": widgets.Dropdown(options=backends(), value="gloo", description=t("lesson05.backend")),
            "hidden": widgets.Dropdown(options=[32, 128, 512, 1024, 2048], value=DEFAULT_HIDDEN,
                                       description=t("lesson05.hidden")),
        },
        scaling_experiment,
        name="lesson05_ddp",
        threads_control=False,  # every process runs one thread (launch(threads=1)): torch's setting here is not used
    )


# ---------------------------------------------------------------- pipeline timeline


def gantt(ax, events: list[dict], stages: int, *, title: str = "", scale: float = 1e3, xlabel: str | None = None):
    """One row per stage; forward (blue), backward (orange), all-reduce (green) with micro-batch numbers."""
    for e in events:
        row = e["stage"] + (e.get("replica", 0) * stages if e.get("replica") else 0)
        start, width = e["start"] * scale, (e["end"] - e["start"]) * scale
        ax.barh(row, width, left=start, color=COLORS[e["kind"]], edgecolor="white", height=0.8)
        if e["kind"] in "FB" and e["micro"] >= 0 and width > 0:
            ax.text(start + width / 2, row, str(e["micro"]), ha="center", va="center", color="white", fontsize=9)
    rows = sorted({e["stage"] + (e.get("replica", 0) * stages if e.get("replica") else 0) for e in events})
    ax.set_yticks(rows, [plots.label("lesson05.stage_n", k=r % stages) if stages else str(r) for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel or plots.label("core.time_ms"))
    ax.set_title(title)
    from matplotlib.patches import Patch

    kinds = sorted({e["kind"] for e in events}, key="FBA".index)
    ax.legend(handles=[Patch(color=COLORS[k], label=plots.label(LEGEND_KEYS[k])) for k in kinds],
              loc="lower right", fontsize=9)


def pipeline_runs(stages: int, micro_batches: int, width: int = 256, replicas: int = 1, *,
                  timed: bool = True) -> list[dict]:
    """The pipeline worker in stages × replicas processes (one thread each). timed=False: the layout
    and weights only (the hybrid picture), so no noise window and no noise verdict."""
    cfg = {"micro_batches": micro_batches, "width": width, "replicas": replicas,
           "batch": config.by_mode(ci=32, lab=128, full=512), "steps": config.by_mode(ci=3, lab=5)}
    if not timed:
        return launch(pipeline.pipeline_worker, stages * replicas, args=(cfg,), threads=1, timeout_s=300)
    results, info = measured.launch(pipeline.pipeline_worker, stages * replicas, args=(cfg,), threads=1,
                                    timeout_s=300)
    for r in results:
        r["noise"] = info
    return results


def measured_idle(results: list[dict]) -> float:
    """The median idle share over the steps after the first (warm-up)."""
    steps = len(results[0]["all_events"])
    shares = [pipeline.idle_share(pipeline.gather_events(results, s), results[0]["stages"]) for s in range(1, steps)]
    return statistics.median(shares) if shares else pipeline.idle_share(pipeline.gather_events(results), 1)


def pipeline_experiment(stages: int, micro_batches: int, width: int) -> Outcome:
    """Run the GPipe pipeline in `stages` processes and compare its timeline with the formula."""
    results = pipeline_runs(stages, micro_batches, width)
    events = pipeline.gather_events(results)
    idle = measured_idle(results)
    formula = pipeline.bubble_fraction(stages, micro_batches)
    fig, (top, bottom) = plots.new_figure(nrows=2, ncols=1)
    gantt(top, events, stages, title=plots.label("lesson05.gantt_measured", k=stages, m=micro_batches,
                                                  idle=idle, formula=formula))
    gantt(bottom, pipeline.ideal_schedule(stages, micro_batches), stages, scale=1.0,
          title=plots.label("lesson05.gantt_ideal", idle=pipeline.idle_share(pipeline.ideal_schedule(
              stages, micro_batches), stages)), xlabel=plots.label("lesson05.time_units"))
    span = max(e["end"] for e in events) - min(e["start"] for e in events)
    headers = ["K", "M", t("core.idle_share"), t("core.bubble_formula"), t("lesson05.col_step"), t("noise.verdict_col")]
    rows = [(stages, micro_batches, f"{idle:.0%}", f"{formula:.0%}", span * 1e3, measured.word(results[0].get("noise")))]
    record = bench.Record(name=f"pipeline K={stages} M={micro_batches}", median_s=span,
                          params={"panel": "lesson05_pipeline", "stages": stages, "micro_batches": micro_batches,
                                  "width": width},
                          metrics={"idle_share": idle, "formula": formula}, meta=bench.meta(),
                          noise=results[0].get("noise") or {})
    # its sentence is said once, by the # VERDICT cell below the panel (verdicts.say_pipeline)
    return Outcome(figure=fig, headers=headers, rows=rows, records=[record])


def make_pipeline() -> ExperimentPanel:
    """The pipeline panel: stages × micro-batches → measured Gantt chart vs GPipe's bubble."""
    return ExperimentPanel(
        t("lesson05.pipe_title"),
        {
            "stages": widgets.Dropdown(options=[2, 3, 4], value=2, description=t("lesson05.stages")),
            "micro_batches": widgets.Dropdown(options=[1, 2, 4, 8], value=4, description=t("core.micro_batches")),
            "width": widgets.Dropdown(options=[128, 256, 512, 1024], value=config.by_mode(ci=256, lab=512),
                                      description=t("lesson05.width")),
        },
        pipeline_experiment,
        name="lesson05_pipeline",
        threads_control=False,  # one thread per stage process
    )


# ---------------------------------------------------------------- hybrid layout


def layout_figure(results: list[dict]):
    """Boxes for the ranks (rows: replicas, columns: stages), arrows for activations,
    brackets for each stage's all-reduce group."""
    from matplotlib import patches

    stages, replicas = results[0]["stages"], results[0]["replicas"]
    fig, ax = plots.new_figure()
    for r in results:
        x, y = r["stage"] * 3.0, r["replica"] * 2.0
        ax.add_patch(patches.FancyBboxPatch((x, y), 2.0, 1.2, boxstyle="round,pad=0.05", facecolor="#DCE6F5",
                                            edgecolor="#4C72B0", linewidth=2))
        ax.text(x + 1.0, y + 0.6, plots.label("lesson05.layout_box", rank=r["rank"], stage=r["stage"],
                                              replica=r["replica"]), ha="center", va="center", fontsize=11)
        if r["stage"] < stages - 1:
            ax.annotate("", xy=(x + 3.0, y + 0.6), xytext=(x + 2.05, y + 0.6),
                        arrowprops={"arrowstyle": "<->", "color": "#DD8452", "lw": 2})
            ax.text(x + 2.5, y + 1.0, plots.label("lesson05.layout_act"), ha="center", va="bottom", fontsize=8)
    for k, ranks in enumerate(results[0]["groups"]):
        x = k * 3.0 + 1.0
        ax.plot([x, x], [1.25, 2.0 * (replicas - 1) - 0.05], color="#55A868", lw=4)
        ax.text(x + 0.15, 1.6, plots.label("lesson05.layout_ar", ranks=ranks), color="#2E7D32",
                fontsize=9, va="center")
    ax.set_xlim(-0.3, stages * 3.0)
    ax.set_ylim(2.0 * replicas - 0.6, -0.3)
    ax.axis("off")
    ax.set_title(plots.label("lesson05.layout_title", k=stages, r=replicas, w=stages * replicas))
    return fig
