"""Lesson 05b's measurements, pictures and panel: DataParallel vs DDP phase by phase, DDP's
buckets and overlap, no_sync(), and the α–β cost model fitted to this machine.

Every number comes from real processes (fastrain_lib.distributed.launch) or from the threads
of one process (the DataParallel re-implementation, labelled as such). Runs are cached per
setting, so the panel and the notebook's cells share one measurement.
"""

from __future__ import annotations


import ipywidgets as widgets
import numpy as np

from fastrain_lib.measure import bench, noise, reference
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.distributed import cost_model, dataparallel, measured
from fastrain_lib.core.i18n import t
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome
from fastrain_lib.lessons.l05b_ddp_in_depth.runs import (  # noqa: F401 - the notebook calls them as lesson05b.*
    _cached, _key, allreduce_noise, allreduce_points, allreduce_sizes, comm_run, compare_cfg,
    ddp_run, dp_run, fit_for, held_out_point, held_out_size, measured_once, noise_of, overlap_cfg, reference_fits,
    zero_noise, zero_rows)
from fastrain_lib.lessons.l05b_ddp_in_depth.verdicts import (  # noqa: F401 - the notebook calls them as lesson05b.*
    COMM_KEYS, KIND_KEYS, PHASE_KEYS, STRATEGY_KEYS, accumulation_verdict, alpha_verdict, bucket_count_verdict,
    comm_verdict, compare_verdicts, cores, held_out_verdict, most_buckets, noise_for, prediction_verdict, ps_gap_verdict,
    sweep_verdicts, zero_verdict)

REFERENCE_PANEL = "lesson05b"  # records saved from this panel carry params["panel"] == this
REFERENCE_FAMILIES = ("allreduce",)  # the suite's α–β runs (benchmarks/allreduce.py): the dashboard's tab shows them

PHASE_COLORS = {"scatter": "#8172B3", "replicate": "#C44E52", "forward": "#4C72B0", "gather_loss": "#937860",
                "backward": "#DD8452", "reduce_grads": "#DA8BC3", "optimizer": "#55A868",
                "backward_allreduce": "#CCB974"}


# ---------------------------------------------------------------- DataParallel vs DDP


def phase_table(dp: dict, ddp: list[dict]) -> tuple[list[str], list[tuple]]:
    """One row per phase: DataParallel's phases, then DDP's (the slowest rank's), in ms."""
    headers = [t("core.strategy"), t("lesson05b.col_phase"), t("core.time_ms"), t("lesson05b.col_where"),
               t("noise.verdict_col")]
    from fastrain_lib.distributed import measured

    dp_word, ddp_word = measured.word(dp.get("noise")), measured.word(noise_of(ddp))
    rows = []
    for name in dataparallel.PHASES:
        where = t("lesson05b.where_dev0") if name in dataparallel.SERIAL else t("lesson05b.where_threads")
        rows.append((t("lesson05b.dp_name"), t(PHASE_KEYS[name]), dp["phases"][name] * 1e3, where, dp_word))
    slowest = max(ddp, key=lambda r: r["step_s"])
    for name in dataparallel.DDP_PHASES:
        rows.append((t("core.ddp"), t(PHASE_KEYS[name]), slowest["phases"][name] * 1e3,
                     t("lesson05b.where_each"), ddp_word))
    return headers, rows


def phase_bars(ax, dp: dict, ddp: list[dict]) -> None:
    """Stacked bars: one device (whole batch), DataParallel (its phases), DDP (each rank's phases)."""
    columns = [(plots.label("lesson05b.bar_single"), dp["single"], dataparallel.SINGLE_PHASES),
               (plots.label("lesson05b.bar_dp", n=dp["replicas"]), dp["phases"], dataparallel.PHASES)]
    columns += [(plots.label("lesson05b.bar_ddp_rank", r=r["rank"]), r["phases"], dataparallel.DDP_PHASES) for r in ddp]
    seen = set()
    for x, (_, phases, names) in enumerate(columns):
        bottom = 0.0
        for name in names:
            value = phases[name] * 1e3
            ax.bar(x, value, bottom=bottom, color=PHASE_COLORS[name], edgecolor="white",
                   label=None if name in seen else plots.label(PHASE_KEYS[name]))
            seen.add(name)
            bottom += value
        ax.text(x, bottom, f"{bottom:.1f}", ha="center", va="bottom")
    ax.set_xticks(range(len(columns)), [c[0] for c in columns])
    ax.set_ylabel(plots.label("core.time_ms"))
    ax.set_title(plots.label("lesson05b.phases_title", kind=plots.label(KIND_KEYS[dp['kind']])))
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def compare_figure(dp: dict, ddp: list[dict]):
    """The phase bars; a noisy run gets the course's warning across the figure."""
    fig, ax = plots.new_figure()
    phase_bars(ax, dp, ddp)
    records = [bench.Record(name="dp", median_s=dp["step_s"], noise=dp.get("noise") or {}),
               bench.Record(name="ddp", median_s=dataparallel.ddp_step_s(ddp), noise=noise_of(ddp))]
    plots.mark_noisy_figure(fig, records)
    return fig


def reference_runs(folder=None) -> list:
    """reference/ runs with records of this lesson's DataParallel-vs-DDP measurement on a GPU."""
    found = []
    for run in reference.runs(folder):
        mine = [r for r in run.records if r.params.get("panel") == REFERENCE_PANEL and reference.used_gpu(r)]
        if mine:
            found.append((run, mine))
    return found


def reference_sentence(folder=None) -> str:
    runs = reference_runs(folder)
    if not runs:
        return t("lesson05b.no_gpu_results")
    return t("lesson05b.gpu_results", runs=", ".join(run.label for run, _ in runs))


# ---------------------------------------------------------------- buckets, overlap, no_sync


def sweep_rows(results: list[dict], info: dict) -> list[dict]:
    """Per bucket cap: the slowest rank's median steps (DDP's and ours), rank 0's buckets and hidden share,
    the run's noise `info`, and, where the worker timed every setting in interleaved rounds, the slowest
    rank's time of each round (rounds_ddp, rounds_ours: round i of every row ran in the same round)."""
    rows, interleaved = [], all(r.get("interleaved") for r in results)
    for i, row in enumerate(results[0]["rows"]):
        ranks = [r["rows"][i] for r in results]
        rows.append({**{k: row[k] for k in ("bucket_cap_mb", "buckets", "ours_buckets", "hidden_share", "events",
                                            "compute_end_s", "backward_s")},
                     "step_s": max(r["step_s"] for r in ranks), "ours_s": max(r["ours_s"] for r in ranks),
                     "rounds_ddp": measured.slowest_per_round([r["times"] for r in ranks]) if interleaved else [],
                     "rounds_ours": measured.slowest_per_round([r["ours_times"] for r in ranks]) if interleaved else [],
                     "noise": info})
    return rows


def sweep_figure(rows: list[dict], timeline_cap: float | None = None):
    """Left: step time vs bucket cap; right: one step's timeline (gradients computed, buckets' all-reduces)."""
    fig, (left, right) = plots.new_figure(ncols=2)
    xs = [r["bucket_cap_mb"] for r in rows]
    left.plot(xs, [r["step_s"] * 1e3 for r in rows], "o-")
    noisy = [(r["bucket_cap_mb"], r["step_s"] * 1e3) for r in rows if noise.is_noisy(r.get("noise"))]
    if noisy:  # noisy points get the course's red ring (ui/plots.lines uses the same mark)
        left.plot(*zip(*noisy), linestyle="none", marker="o", markersize=14, markerfacecolor="none",
                  markeredgecolor=plots.NOISY_COLOR, markeredgewidth=2, label=plots.label("noise.marked_point"))
        left.legend(fontsize="small")
    for r in rows:
        left.annotate(plots.label("lesson05b.n_buckets", n=r["buckets"]), (r["bucket_cap_mb"], r["step_s"] * 1e3),
                      textcoords="offset points", xytext=(0, 8), ha="center", fontsize=9)
    left.set_xscale("log")
    left.set_xlabel(plots.label("lesson05b.bucket_mb"))
    left.set_ylabel(plots.label("core.median_step_ms"))
    left.set_title(plots.label("lesson05b.sweep_title"))
    chosen = (min(rows, key=lambda r: abs(r["bucket_cap_mb"] - timeline_cap)) if timeline_cap is not None
              else most_buckets(rows))
    timeline_axes(right, chosen)
    return fig


def timeline_axes(ax, row: dict) -> None:
    ax.barh(0, row["compute_end_s"] * 1e3, left=0, color=PHASE_COLORS["backward"],
            label=plots.label("lesson05b.tl_compute"))
    for i, e in enumerate(sorted(row["events"], key=lambda e: e["ready"])):
        ax.barh(1 + i, (e["done"] - e["ready"]) * 1e3, left=e["ready"] * 1e3, color="#55A868",
                label=plots.label("lesson05b.tl_allreduce") if i == 0 else None)
        ax.text(e["done"] * 1e3, 1 + i, f" {e['bytes'] / 1e6:.2f} MB", va="center", fontsize=8)
    ax.axvline(row["compute_end_s"] * 1e3, color="gray", linestyle="--")
    ax.set_yticks(range(1 + len(row["events"])), [plots.label("core.backward")] +
                  [plots.label("lesson05b.tl_bucket", i=i) for i in range(len(row["events"]))])
    ax.invert_yaxis()
    ax.set_xlabel(plots.label("lesson05b.tl_x"))
    ax.set_title(plots.label("lesson05b.tl_title", cap=row["bucket_cap_mb"], hidden=row["hidden_share"]))
    ax.legend(fontsize="small", loc="lower right")


def accumulation_summary(results: list[dict]) -> dict:
    """The slowest rank's step for both ways, all-reduces per optimizer step, and the saving."""
    every = max(r["every"]["step_s"] for r in results)
    quiet = max(r["no_sync"]["step_s"] for r in results)
    return {"k": results[0]["micro_batches"], "every_ms": every * 1e3, "no_sync_ms": quiet * 1e3,
            "saving": 1 - quiet / every if every > 0 else 0.0,
            "every_allreduces": results[0]["every"]["allreduces_per_step"],
            "no_sync_allreduces": results[0]["no_sync"]["allreduces_per_step"],
            "every_mb": results[0]["every"]["bytes_per_step"] / 1e6,
            "no_sync_mb": results[0]["no_sync"]["bytes_per_step"] / 1e6,
            "ratios": round_ratios(results)}


def round_ratios(results: list[dict]) -> list[float]:
    """Where the worker timed both ways in interleaved rounds ("interleaved"): per round, the slowest
    rank's no_sync() step ÷ its every-backward step (a busy machine slows both alike); else []."""
    if not results or not all(r.get("interleaved") for r in results):
        return []
    return measured.ratio_per_round(measured.slowest_per_round([r["no_sync"]["times"] for r in results]),
                                    measured.slowest_per_round([r["every"]["times"] for r in results]))



# ---------------------------------------------------------------- the cost model


def fit_figure(points_by_p: dict[int, list], fits: dict[int, cost_model.Fit], held_out: dict[int, tuple] | None = None,
               noisy: dict[int, bool] | None = None):
    """Measured all-reduce times (points) and the fitted ring formula (lines), per process count;
    the points of a noisy run get the course's red ring."""
    fig, ax = plots.new_figure()
    colors = plots.accessible_colors()
    for i, (p, points) in enumerate(sorted(points_by_p.items())):
        color = colors[i % len(colors)]
        xs = [n for n, _ in points]
        ax.plot(xs, [s * 1e3 for _, s in points], "o", color=color, label=plots.label("lesson05b.fit_measured", p=p))
        if (noisy or {}).get(p):
            ax.plot(xs, [s * 1e3 for _, s in points], linestyle="none", marker="o", markersize=14,
                    markerfacecolor="none", markeredgecolor=plots.NOISY_COLOR, markeredgewidth=2,
                    label=plots.label("noise.marked_point") if p == min(q for q, v in noisy.items() if v) else None)
        grid = sorted(set(xs + [int(x) for x in np.geomspace(max(1, min(xs)), max(1, max(xs)), 30)]))
        ax.plot(grid, [fits[p].allreduce_s(n) * 1e3 for n in grid], "-", color=color,
                label=plots.label("lesson05b.fit_line", p=p, alpha=fits[p].alpha_s * 1e6,
                                  gbs=fits[p].bandwidth_bytes_per_s / 1e9))
        if held_out and p in held_out:
            n, s = held_out[p]
            ax.plot([n], [s * 1e3], "*", markersize=16, color=color, label=plots.label("lesson05b.fit_held_out", p=p))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(plots.label("lesson05b.fit_x"))
    ax.set_ylabel(plots.label("lesson05b.fit_y"))
    ax.set_title(plots.label("lesson05b.fit_title"))
    ax.legend(fontsize="small")
    return fig


PREDICTED = ("ddp", "zero1", "zero2", "zero3", "ps")  # prediction_rows' order


def prediction_rows(compute_s: float, param_bytes: int, fit: cost_model.Fit, measured: dict[str, float] | None = None,
                    counts: dict[str, dict] | None = None) -> list[tuple]:
    """(strategy, predicted ms, measured ms or '—', bytes sent per rank) for every strategy.

    counts: {strategy: collectives counted in one step} where a measurement counted them (lesson
    05c's zero module): then every call pays its own α (cost_model.collectives_s)."""
    measured, counts = measured or {}, counts or {}
    rows = []
    for s in PREDICTED:
        pred = (compute_s + cost_model.collectives_s(counts[s], fit) if isinstance(counts.get(s), dict)
                else cost_model.predict_step_s(s, compute_s, param_bytes, fit))
        got = measured.get(s)
        rows.append((t(STRATEGY_KEYS[s]), pred * 1e3, got * 1e3 if got else "—",
                     f"{cost_model.bytes_sent_per_rank(s, param_bytes, fit.world_size) / 1e6:.2f} MB"))
    return rows


def comm_values(results: list[dict], fit: cost_model.Fit) -> dict:
    """Predicted and measured ms (the slowest rank) of the three ways of summing gradients, and ("rounds")
    each way's slowest-rank time per interleaved round, for the ratio a busy run can still read."""
    rows = [r["sizes"][0] for r in results]
    p, nbytes = len(results), rows[0]["numel"] * cost_model.FLOAT_BYTES
    predicted = {"gloo": fit.allreduce_s(nbytes, p), "ring": fit.allreduce_s(nbytes, p),
                 "ps": cost_model.comm_s("ps", nbytes, fit, world_size=p)}
    measured_s = {"gloo": max(r["torch_s"] for r in rows), "ring": max(r["ring_s"] for r in rows),
                  "ps": max(r["naive_s"] for r in rows)}
    values = {"p": p, "kb": nbytes / 1e3}
    for k, seconds in predicted.items():
        values[f"{k}_pred"], values[f"{k}_meas"] = seconds * 1e3, measured_s[k] * 1e3
    if all(r.get("interleaved") for r in results):  # timed in the same rounds: per round, the slowest rank
        values["rounds"] = {way: measured.slowest_per_round([r[f"{key}_times"] for r in rows])
                            for way, key in (("gloo", "torch"), ("ring", "ring"), ("ps", "naive"))}
    return values


def comm_table(values: dict, info: dict | None = None) -> tuple[list[str], list[tuple]]:
    from fastrain_lib.distributed import measured

    headers = [t("lesson05b.col_method"), t("lesson05b.col_predicted_ms"), t("lesson05b.col_measured_ms"),
               t("noise.verdict_col")]
    rows = [(t(COMM_KEYS[k]), values[f"{k}_pred"], values[f"{k}_meas"], measured.word(info)) for k in ("gloo", "ring", "ps")]
    return headers, rows


def reference_table(folder=None) -> tuple[list[str], list[tuple]]:
    """Rows of this lesson's GPU measurements in reference/ (none today): run, strategy, devices, ms."""
    headers = [t("core.run"), t("core.strategy"), t("lesson05b.processes"), t("core.measured_step_ms")]
    rows = [(run.label, r.params.get("strategy", "?"), r.params.get("processes", "?"), r.median_s * 1e3)
            for run, records in reference_runs(folder) for r in records]
    return headers, rows


# ---------------------------------------------------------------- the panel


def _memory_mb(rows: list[dict]) -> list[float]:
    return [sum(v for k, v in r.items()) / 1e6 for r in rows]


def experiment(strategy: str, processes: int, width: int, bucket_mb: float) -> Outcome:
    """Measure `strategy` ('dp' or 'ddp') with `processes` devices/processes at this width and
    bucket size; show its phases, memory per rank and bytes moved, with the cost model's
    predictions for every strategy beside it."""
    cfg = compare_cfg(width=width, replicas=processes, bucket_cap_mb=bucket_mb)
    dp = dp_run(cfg)
    ddp = ddp_run(cfg)
    fit = fit_for(processes)
    pb = dp["param_bytes"]
    run_noise = noise_of([dp] + list(ddp))
    fig, (left, right) = plots.new_figure(ncols=2)
    phase_bars(left, dp, ddp)
    if strategy == "dp":
        memory, moved = _memory_mb(dp["memory"]), sum(dp["bytes"].values()) / 1e6
        step = dp["step_s"]
    else:
        memory = _memory_mb([r["memory"] for r in ddp])
        moved = cost_model.bytes_sent_per_rank("ddp", ddp[0]["allreduce_bytes_per_step"], processes) / 1e6
        step = dataparallel.ddp_step_s(ddp)
    right.bar(range(len(memory)), memory, color="#4C72B0")
    right.set_xticks(range(len(memory)), [str(i) for i in range(len(memory))])
    right.set_xlabel(plots.label("core.device" if strategy == "dp" else "core.rank"))
    right.set_ylabel(plots.label("lesson05b.mem_y"))
    right.set_title(plots.label("lesson05b.mem_title"))
    predicted = cost_model.predict_step_s("ddp", dp["piece_s"], pb, fit)
    headers = [t("core.strategy"), t("core.measured_step_ms"), t("lesson05b.col_predicted_ms"),
               t("lesson05b.col_mem_mb"), t("lesson05b.col_moved_mb")]
    rows = [(t(STRATEGY_KEYS[strategy]), step * 1e3, predicted * 1e3 if strategy == "ddp" else "—",
             max(memory), moved)]
    zero_measured = {r["strategy"]: r for r in zero_rows(cfg)[0]}
    # where lesson 05c's module measured a stage (same MLP and global batch), its counted collectives each pay α
    predicted_ms = dict(zip(PREDICTED, (row[1] for row in prediction_rows(
        dp["piece_s"], pb, fit, counts={s: z.get("comm") for s, z in zero_measured.items()}))))
    for s in ("zero1", "zero2", "zero3", "ps"):
        z = zero_measured.get(s)
        if z is not None:
            rows.append((t(STRATEGY_KEYS[s]), z["step_s"] * 1e3, predicted_ms[s],
                         (z["params_bytes"] + z["grads_bytes"] + z["optim_bytes"]) / 1e6,
                         z["payload"] * (processes - 1) / processes / 1e6))
        else:
            rows.append((t(STRATEGY_KEYS[s]) + " " + t("lesson05b.prediction_only"), "—", predicted_ms[s], "—",
                         cost_model.bytes_sent_per_rank(s, pb, processes) / 1e6))
    record = bench.Record(name=f"{strategy} x{processes} width {width}", median_s=step,
                          params={"panel": REFERENCE_PANEL, "strategy": strategy, "processes": processes,
                                  "width": width, "bucket_cap_mb": bucket_mb, "kind": dp["kind"],
                                  "device": dp["devices"][0] if strategy == "dp" else ddp[0]["backend"]},
                          metrics={"memory_mb_max": max(memory), "moved_mb": moved, "predicted_s": predicted,
                                   "alpha_s": fit.alpha_s, "beta_s_per_byte": fit.beta_s_per_byte},
                          meta=bench.meta(), noise=run_noise)
    notes = [t(k, **v) for k, v in compare_verdicts(dp, ddp, noisy=noise.is_noisy(run_noise))]
    notes.append(reference_sentence())
    return Outcome(figure=fig, headers=headers, rows=rows, records=[record], note=" ".join(notes))


def make() -> ExperimentPanel:
    return ExperimentPanel(
        t("lesson05b.panel_title"),
        {
            "strategy": widgets.Dropdown(options=[(t("lesson05b.strategy_dp"), "dp"), (t("core.ddp"), "ddp")],
                                         value="ddp", description=t("core.strategy")),
            "processes": widgets.Dropdown(options=[2, 3, 4], value=2, description=t("lesson05b.processes")),
            "width": widgets.Dropdown(options=[128, 256, 512, 1024], value=config.by_mode(ci=128, lab=512),
                                      description=t("core.model_width")),
            "bucket_mb": widgets.Dropdown(options=[0.25, 1.0, 4.0, 25.0], value=25.0,
                                          description=t("lesson05b.bucket_mb_control")),
        },
        experiment,
        name="lesson05b",
    )


# ---------------------------------------------------------------- small tables the notebook shows


def _first_line(text: str, limit: int = 160) -> str:
    """The first line of an error, shortened at a space, never inside a word or an address."""
    line = text.splitlines()[0] if text else ""
    if len(line) <= limit:
        return line
    words, out = line.split(" "), ""
    for word in words:
        if out and len(out) + 1 + len(word) > limit and not word.startswith(("http://", "https://")):
            return out + " …"
        out = f"{out} {word}" if out else word
    return out


def pieces_table(found: dict[str, str]) -> tuple[list[str], list[tuple]]:
    """dataparallel.torch_pieces_on_cpu() as a table: the piece, and 'works' or PyTorch's own error."""
    headers = [t("lesson05b.pieces_col_piece"), t("lesson05b.pieces_col_result")]
    return headers, [(f"{piece}()", t("lesson05b.pieces_works") if result == "works" else _first_line(result))
                     for piece, result in found.items()]


def bytes_rows(dp: dict, ddp: list[dict]) -> tuple[list[str], list[tuple]]:
    """Bytes per step: DataParallel's through device 0 (by phase), DDP's all-reduce and what a ring sends."""
    mb = 1e6
    names = {**PHASE_KEYS, "gather": PHASE_KEYS["gather_loss"]}
    rows = [(t("lesson05b.bytes_dp", phase=t(names[k]) if k in names else k), f"{v / mb:.3f}")
            for k, v in dp["bytes"].items()]
    per_step = ddp[0]["allreduce_bytes_per_step"]
    rows.append((t("lesson05b.bytes_ddp_allreduce"), f"{per_step / mb:.3f}"))
    rows.append((t("lesson05b.bytes_ddp_ring"), f"{cost_model.bytes_sent_per_rank('ddp', per_step, len(ddp)) / mb:.3f}"))
    return [t("lesson05b.bytes_col_what"), t("lesson05b.bytes_col_mb")], rows


def memory_rows(dp: dict, ddp: list[dict]) -> tuple[list[str], list[tuple]]:
    """Parameters, gradients and optimizer state (MB) per DataParallel device and per DDP rank."""
    mb = 1e6

    def row(name, m):
        return (name, f"{m.get('params', 0) / mb:.3f}", f"{m.get('grads', 0) / mb:.3f}",
                f"{m.get('optimizer', 0) / mb:.3f}")

    rows = [row(t("lesson05b.mem_dp_device", i=i), m) for i, m in enumerate(dp["memory"])]
    rows += [row(t("lesson05b.mem_ddp_rank", i=i), r["memory"]) for i, r in enumerate(ddp)]
    return [t("lesson05b.mem_col_who"), t("lesson05b.mem_col_params"), t("lesson05b.mem_col_grads"),
            t("lesson05b.mem_col_optim")], rows
