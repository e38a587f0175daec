"""Lesson 05b's measurements, pictures and panel: DataParallel vs DDP phase by phase, DDP's
buckets and overlap, no_sync(), and the α–β cost model fitted to this machine.

Every number comes from real processes (fastrain_lib.distributed.launch) or from the threads
of one process (the DataParallel re-implementation, labelled as such). Runs are cached per
setting, so the panel and the notebook's cells share one measurement.
"""

from __future__ import annotations


import ipywidgets as widgets

from fastrain_lib.measure import bench, hardware, reference
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.distributed import WorkerError, cost_model, dataparallel, launch, overlap, ring
from fastrain_lib.core.i18n import t
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

REFERENCE_PANEL = "lesson05b"  # records saved from this panel carry params["panel"] == this

PHASE_COLORS = {"scatter": "#8172B3", "replicate": "#C44E52", "forward": "#4C72B0", "gather_loss": "#937860",
                "backward": "#DD8452", "reduce_grads": "#DA8BC3", "optimizer": "#55A868",
                "backward_allreduce": "#CCB974"}


cores = hardware.usable_cores


# ---------------------------------------------------------------- sizes by run mode


def compare_cfg(**overrides) -> dict:
    """The DataParallel-vs-DDP workload for this run mode (an MLP, one global batch)."""
    base = {"width": config.by_mode(ci=128, lab=512), "depth": 4, "batch": config.by_mode(ci=128, lab=512),
            "replicas": 2, "steps": config.by_mode(ci=8, lab=12), "warmup": 2}
    return dataparallel.make_cfg(**{**base, **overrides})


def overlap_cfg(**overrides) -> dict:
    base = {"width": config.by_mode(ci=256, lab=512), "depth": config.by_mode(ci=4, lab=8),
            "batch": config.by_mode(ci=32, lab=64), "steps": config.by_mode(ci=3, lab=8), "warmup": 1,
            "bucket_caps_mb": config.by_mode(ci=[0.1, 25.0], lab=[0.25, 1.0, 4.0, 25.0, 1000.0]),
            "micro_batches": 4}
    return overlap.make_cfg(**{**base, **overrides})


def allreduce_sizes() -> list[int]:
    """Message sizes for the α–β fit (bytes): 4 KB to 16 MB (ci: to 4 MB)."""
    return config.by_mode(ci=[4_096, 65_536, 1_048_576, 4_194_304],
                          lab=[4_096, 32_768, 262_144, 1_048_576, 4_194_304, 16_777_216])


def held_out_size() -> int:
    """A size between the measured ones, left out of the fit to test its prediction."""
    return config.by_mode(ci=262_144, lab=2_097_152)


# ---------------------------------------------------------------- cached runs

_CACHE: dict[tuple, object] = {}


def _cached(key: tuple, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _key(cfg: dict) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in cfg.items()))


def dp_run(cfg: dict) -> dict:
    """DataParallel (one process; real nn.DataParallel on >= 2 GPUs, threads otherwise) and the
    two one-device baselines, in a fresh process with one torch thread per op."""
    key = _key({k: v for k, v in cfg.items() if k != "bucket_cap_mb"})  # DataParallel has no buckets
    return _cached(("dp",) + key, lambda: launch(dataparallel.dp_worker, 1, args=(cfg,), threads=1,
                                                timeout_s=300)[0])


def ddp_run(cfg: dict) -> list[dict]:
    """DDP with cfg['replicas'] processes on the same model and global batch (one thread each)."""
    on_gpu = dataparallel.plan(cfg["replicas"], dataparallel.facts_here()).kind == "torch"
    return _cached(("ddp",) + _key(cfg), lambda: launch(dataparallel.ddp_worker, cfg["replicas"], args=(cfg,),
                                                       threads=1, timeout_s=300, tensors_on_cuda=on_gpu))


def sweep_run(cfg: dict, processes: int = 2) -> list[dict]:
    return _cached(("sweep", processes) + _key(cfg),
                   lambda: launch(overlap.bucket_sweep, processes, args=(cfg,), threads=1, timeout_s=300))


def accumulation_run(cfg: dict, processes: int = 2) -> list[dict]:
    return _cached(("accum", processes) + _key(cfg),
                   lambda: launch(overlap.accumulation, processes, args=(cfg,), threads=1, timeout_s=300))


def allreduce_points(processes: int) -> list[tuple[int, float]]:
    """Measured (bytes, seconds) of all-reduces on `processes` real processes: the fit's sizes
    and the held-out one, in one launch (cached)."""
    sizes = sorted(set(allreduce_sizes()) | {held_out_size()})
    return _cached(("allreduce", processes, tuple(sizes)),
                   lambda: cost_model.measure_allreduce(processes, sizes, repeats=config.by_mode(ci=5, lab=9)))


def fit_for(processes: int) -> cost_model.Fit:
    """α and β fitted on every measured size except the held-out one."""
    held = held_out_size()
    return cost_model.fit([pt for pt in allreduce_points(processes) if pt[0] != held], processes)


def held_out_point(processes: int) -> tuple[int, float]:
    held = held_out_size()
    return next(pt for pt in allreduce_points(processes) if pt[0] == held)


def zero_rows(cfg: dict) -> list[dict] | None:
    """ZeRO-1/2/3 and DDP measured by fastrain_lib.distributed.zero (lesson 05c) on the same MLP and
    global batch, or None where that module is not there (or its interface differs)."""
    try:
        from fastrain_lib.distributed import zero
    except ImportError:
        return None
    try:
        zcfg = {"width": cfg["width"], "depth": cfg["depth"], "batch": cfg["batch"], "steps": cfg["steps"] + 1,
                "seed": cfg["seed"], "lr": cfg["lr"]}
        strategies = ("ddp", "zero1", "zero2", "zero3")
        results = _cached(("zero",) + _key({**zcfg, "p": cfg["replicas"]}),
                          lambda: launch(zero.zero_worker, cfg["replicas"], args=(strategies, zcfg), threads=1,
                                         timeout_s=300,
                                         tensors_on_cuda=hardware.gpu_per_process(cfg["replicas"], hardware.node_facts())))
        return zero.table(results)
    except (AttributeError, TypeError, KeyError, WorkerError):  # lesson 05c's module, not ours: say "no measurement"
        return None


# ---------------------------------------------------------------- DataParallel vs DDP


def phase_table(dp: dict, ddp: list[dict]) -> tuple[list[str], list[tuple]]:
    """One row per phase: DataParallel's phases, then DDP's (the slowest rank's), in ms."""
    headers = [t("lesson05b.col_strategy"), t("lesson05b.col_phase"), t("lesson05b.col_ms"), t("lesson05b.col_where")]
    rows = []
    for name in dataparallel.PHASES:
        where = t("lesson05b.where_dev0") if name in dataparallel.SERIAL else t("lesson05b.where_threads")
        rows.append((t("lesson05b.dp_name"), t(f"lesson05b.phase_{name}"), dp["phases"][name] * 1e3, where))
    slowest = max(ddp, key=lambda r: r["step_s"])
    for name in dataparallel.DDP_PHASES:
        rows.append((t("lesson05b.ddp_name"), t(f"lesson05b.phase_{name}"), slowest["phases"][name] * 1e3,
                     t("lesson05b.where_each")))
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
                   label=None if name in seen else plots.label(f"lesson05b.phase_{name}"))
            seen.add(name)
            bottom += value
        ax.text(x, bottom, f"{bottom:.1f}", ha="center", va="bottom")
    ax.set_xticks(range(len(columns)), [c[0] for c in columns])
    ax.set_ylabel(plots.label("lesson05b.time_ms"))
    ax.set_title(plots.label("lesson05b.phases_title", kind=plots.label(f"lesson05b.kind_{dp['kind']}")))
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def compare_figure(dp: dict, ddp: list[dict]):
    fig, ax = plots.new_figure()
    phase_bars(ax, dp, ddp)
    return fig


def compare_verdicts(dp: dict, ddp: list[dict]) -> list[tuple[str, dict]]:
    """(catalog key, values) for what this DataParallel-vs-DDP run measured."""
    dp_s, ddp_s = dp["step_s"], dataparallel.ddp_step_s(ddp)
    n = dp["replicas"]
    values = {"n": n, "dp_ms": dp_s * 1e3, "ddp_ms": ddp_s * 1e3, "single_ms": dp["single_s"] * 1e3,
              "piece_ms": dp.get("piece_s", 0.0) * 1e3, "cores": cores(),
              "share": dataparallel.serial_share(dp["phases"]),
              "ratio": dp_s / ddp_s if ddp_s > 0 else float("inf")}
    if ddp_s < dp_s:
        key = "lesson05b.v_ddp_faster"
    else:  # "the rest of DDP's step is the all-reduce" only when there is a rest (noise can hide it)
        key = "lesson05b.v_dp_faster" if values["piece_ms"] < values["ddp_ms"] else "lesson05b.v_dp_faster_no_rest"
    out = [(key, values)]
    speedup = dataparallel.thread_speedup(dp)
    if speedup is not None:
        if speedup < 0.9:
            key = "lesson05b.v_threads_slower"
        elif speedup >= 0.8 * min(n, cores()):
            key = "lesson05b.v_threads_overlap"
        else:
            key = "lesson05b.v_threads_gil"
        out.append((key, {"n": n, "speedup": speedup, "cores": cores(), "slower": 1 / speedup if speedup > 0 else 0.0}))
    if n > cores():
        out.append(("lesson05b.v_oversubscribed", {"n": n, "cores": cores()}))
    return out


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


def sweep_rows(results: list[dict]) -> list[dict]:
    """Per bucket cap: the slowest rank's median step, and rank 0's buckets and hidden share."""
    rows = []
    for i, row in enumerate(results[0]["rows"]):
        rows.append({"bucket_cap_mb": row["bucket_cap_mb"], "step_s": max(r["rows"][i]["step_s"] for r in results),
                     "buckets": row["buckets"], "hidden_share": row["hidden_share"], "events": row["events"],
                     "compute_end_s": row["compute_end_s"], "backward_s": row["backward_s"]})
    return rows


def sweep_figure(rows: list[dict], timeline_cap: float | None = None):
    """Left: step time vs bucket cap; right: one step's timeline (gradients computed, buckets' all-reduces)."""
    fig, (left, right) = plots.new_figure(ncols=2)
    xs = [r["bucket_cap_mb"] for r in rows]
    left.plot(xs, [r["step_s"] * 1e3 for r in rows], "o-")
    for r in rows:
        left.annotate(plots.label("lesson05b.n_buckets", n=r["buckets"]), (r["bucket_cap_mb"], r["step_s"] * 1e3),
                      textcoords="offset points", xytext=(0, 8), ha="center", fontsize=9)
    left.set_xscale("log")
    left.set_xlabel(plots.label("lesson05b.bucket_mb"))
    left.set_ylabel(plots.label("lesson05b.step_ms"))
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
    ax.set_yticks(range(1 + len(row["events"])), [plots.label("lesson05b.tl_backward")] +
                  [plots.label("lesson05b.tl_bucket", i=i) for i in range(len(row["events"]))])
    ax.invert_yaxis()
    ax.set_xlabel(plots.label("lesson05b.tl_x"))
    ax.set_title(plots.label("lesson05b.tl_title", cap=row["bucket_cap_mb"], hidden=row["hidden_share"]))
    ax.legend(fontsize="small", loc="lower right")


def most_buckets(rows: list[dict]) -> dict:
    """The sweep row with the most buckets (the smallest cap): where overlap can show."""
    return max(rows, key=lambda r: (r["buckets"], -r["bucket_cap_mb"]))


def sweep_verdicts(rows: list[dict]) -> list[tuple[str, dict]]:
    """Smallest vs largest bucket cap: which step was faster; and how much of the all-reduce hid
    behind backward with the most buckets."""
    small = min(rows, key=lambda r: r["bucket_cap_mb"])
    large = max(rows, key=lambda r: r["bucket_cap_mb"])
    values = {"small_mb": small["bucket_cap_mb"], "small_ms": small["step_s"] * 1e3, "small_n": small["buckets"],
              "large_mb": large["bucket_cap_mb"], "large_ms": large["step_s"] * 1e3, "large_n": large["buckets"]}
    out = [("lesson05b.v_buckets_small" if small["step_s"] < large["step_s"] else "lesson05b.v_buckets_large", values)]
    many = most_buckets(rows)
    out.append(("lesson05b.v_overlap", {"cap": many["bucket_cap_mb"], "hidden": many["hidden_share"],
                                        "n": many["buckets"]}))
    return out


def accumulation_summary(results: list[dict]) -> dict:
    """The slowest rank's step for both ways, all-reduces per optimizer step, and the saving."""
    every = max(r["every"]["step_s"] for r in results)
    quiet = max(r["no_sync"]["step_s"] for r in results)
    return {"k": results[0]["micro_batches"], "every_ms": every * 1e3, "no_sync_ms": quiet * 1e3,
            "saving": 1 - quiet / every if every > 0 else 0.0,
            "every_allreduces": results[0]["every"]["allreduces_per_step"],
            "no_sync_allreduces": results[0]["no_sync"]["allreduces_per_step"],
            "every_mb": results[0]["every"]["bytes_per_step"] / 1e6,
            "no_sync_mb": results[0]["no_sync"]["bytes_per_step"] / 1e6}


def accumulation_verdict(summary: dict) -> tuple[str, dict]:
    key = "lesson05b.v_no_sync_saves" if summary["saving"] > 0.02 else "lesson05b.v_no_sync_none"
    return key, summary


# ---------------------------------------------------------------- the cost model


def fit_figure(points_by_p: dict[int, list], fits: dict[int, cost_model.Fit], held_out: dict[int, tuple] | None = None):
    """Measured all-reduce times (points) and the fitted ring formula (lines), per process count."""
    fig, ax = plots.new_figure()
    colors = plots.accessible_colors()
    for i, (p, points) in enumerate(sorted(points_by_p.items())):
        color = colors[i % len(colors)]
        xs = [n for n, _ in points]
        ax.plot(xs, [s * 1e3 for _, s in points], "o", color=color, label=plots.label("lesson05b.fit_measured", p=p))
        grid = sorted(set(xs + [int(x) for x in _logspace(min(xs), max(xs), 30)]))
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


def _logspace(lo: float, hi: float, n: int) -> list[float]:
    import math

    a, b = math.log10(max(1, lo)), math.log10(max(1, hi))
    return [10 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def prediction_rows(compute_s: float, param_bytes: int, fit: cost_model.Fit, measured: dict[str, float] | None = None,
                    messages: int = 1, counts: dict[str, dict] | None = None) -> list[tuple]:
    """(strategy, predicted ms, measured ms or '—', bytes sent per rank) for every strategy.

    counts: {strategy: collectives counted in one step} where a measurement counted them (lesson
    05c's zero module): then every call pays its own α (cost_model.collectives_s)."""
    measured, counts = measured or {}, counts or {}
    rows = []
    for s in ("ddp", "zero1", "zero2", "zero3", "ps"):
        pred = cost_model.predict_step_s(s, compute_s, param_bytes, fit, messages=messages if s != "ps" else 1)
        if isinstance(counts.get(s), dict):
            pred = compute_s + cost_model.collectives_s(counts[s], fit)
        got = measured.get(s)
        rows.append((t(f"lesson05b.strategy_{s}"), pred * 1e3, got * 1e3 if got else "—",
                     f"{cost_model.bytes_sent_per_rank(s, param_bytes, fit.world_size) / 1e6:.2f} MB"))
    return rows


def prediction_verdict(predicted_s: float, measured_s: float, compute_s: float, comm_s: float) -> tuple[str, dict]:
    error = (predicted_s - measured_s) / measured_s
    values = {"pred_ms": predicted_s * 1e3, "meas_ms": measured_s * 1e3, "compute_ms": compute_s * 1e3,
              "comm_ms": comm_s * 1e3, "error": abs(error)}
    if measured_s < compute_s:  # overlap brings a step down to its compute, never below it
        return "lesson05b.v_predict_below_compute", {**values, "gap": compute_s / measured_s - 1}
    if abs(error) <= 0.25:
        return "lesson05b.v_predict_close", values
    return ("lesson05b.v_predict_over" if error > 0 else "lesson05b.v_predict_under"), values


def zero_verdict(measured_s: dict[str, float], predicted_s: dict[str, float]) -> tuple[str, dict] | None:
    """(catalog key, values) for the ZeRO stage whose measurement is furthest from the model, or None."""
    common = [s for s in ("zero1", "zero2", "zero3") if s in measured_s and s in predicted_s and predicted_s[s] > 0]
    if not common:
        return None
    worst = max(common, key=lambda s: max(measured_s[s] / predicted_s[s], predicted_s[s] / measured_s[s]))
    ratio = measured_s[worst] / predicted_s[worst]
    values = {"stage": t(f"lesson05b.strategy_{worst}"), "meas_ms": measured_s[worst] * 1e3,
              "pred_ms": predicted_s[worst] * 1e3, "ratio": ratio}
    if ratio > 1.5:
        return "lesson05b.v_zero_under", values
    if ratio < 1 / 1.5:
        return "lesson05b.v_zero_over", values
    return "lesson05b.v_zero_close", values


def held_out_verdict(fit: cost_model.Fit, nbytes: int, measured_s: float) -> tuple[str, dict]:
    predicted = fit.allreduce_s(nbytes)
    error = abs(predicted - measured_s) / measured_s
    return ("lesson05b.v_held_out_ok" if error <= 0.5 else "lesson05b.v_held_out_off",
            {"kb": nbytes / 1e3, "pred_ms": predicted * 1e3, "meas_ms": measured_s * 1e3, "error": error,
             "p": fit.world_size, "alpha_us": fit.alpha_s * 1e6, "gbs": fit.bandwidth_bytes_per_s / 1e9})


def comm_run(processes: int, nbytes: int) -> list[dict]:
    """gloo's all-reduce, lesson 05's Python ring and its central parameter server (ring.compare_worker),
    each timed on a tensor of `nbytes` in `processes` real processes (cached)."""
    numel = max(1, int(nbytes) // cost_model.FLOAT_BYTES)
    return _cached(("ring", processes, numel),
                   lambda: launch(ring.compare_worker, processes, args=([numel], config.by_mode(ci=5, lab=9)),
                                  threads=1, timeout_s=300))


def comm_values(results: list[dict], fit: cost_model.Fit) -> dict:
    """Predicted and measured ms (the slowest rank) of the three ways of summing gradients."""
    rows = [r["sizes"][0] for r in results]
    p, nbytes = len(results), rows[0]["numel"] * cost_model.FLOAT_BYTES
    predicted = {"gloo": fit.allreduce_s(nbytes, p), "ring": fit.allreduce_s(nbytes, p),
                 "ps": cost_model.comm_s("ps", nbytes, fit, world_size=p)}
    measured = {"gloo": max(r["torch_s"] for r in rows), "ring": max(r["ring_s"] for r in rows),
                "ps": max(r["naive_s"] for r in rows)}
    values = {"p": p, "kb": nbytes / 1e3}
    for k, seconds in predicted.items():
        values[f"{k}_pred"], values[f"{k}_meas"] = seconds * 1e3, measured[k] * 1e3
    return values


def comm_verdict(values: dict) -> tuple[str, dict]:
    """Whether our Python ring was slower than gloo's own all-reduce in this run (and so what to say)."""
    key = "lesson05b.v_comm_ring_slower" if values["ring_meas"] > values["gloo_meas"] else "lesson05b.v_comm_ring_not_slower"
    return key, values


def comm_table(values: dict) -> tuple[list[str], list[tuple]]:
    headers = [t("lesson05b.col_method"), t("lesson05b.col_predicted_ms"), t("lesson05b.col_measured_ms")]
    rows = [(t(f"lesson05b.comm_{k}"), values[f"{k}_pred"], values[f"{k}_meas"]) for k in ("gloo", "ring", "ps")]
    return headers, rows


def reference_table(folder=None) -> tuple[list[str], list[tuple]]:
    """Rows of this lesson's GPU measurements in reference/ (none today): run, strategy, devices, ms."""
    headers = [t("lesson05b.col_run"), t("lesson05b.col_strategy"), t("lesson05b.processes"), t("lesson05b.col_step_ms")]
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
    right.set_xlabel(plots.label("lesson05b.mem_x_dp" if strategy == "dp" else "lesson05b.mem_x_ddp"))
    right.set_ylabel(plots.label("lesson05b.mem_y"))
    right.set_title(plots.label("lesson05b.mem_title"))
    predicted = cost_model.predict_step_s("ddp", dp["piece_s"], pb, fit)
    headers = [t("lesson05b.col_strategy"), t("lesson05b.col_step_ms"), t("lesson05b.col_predicted_ms"),
               t("lesson05b.col_mem_mb"), t("lesson05b.col_moved_mb")]
    rows = [(t(f"lesson05b.strategy_{strategy}"), step * 1e3, predicted * 1e3 if strategy == "ddp" else "—",
             max(memory), moved)]
    zero_measured = {r["strategy"]: r for r in (zero_rows(cfg) or [])}
    for s in ("zero1", "zero2", "zero3", "ps"):
        predicted_ms = cost_model.predict_step_s(s, dp["piece_s"], pb, fit) * 1e3
        z = zero_measured.get(s)
        if z is not None:  # measured by lesson 05c's module on the same MLP and global batch
            if isinstance(z.get("comm"), dict):  # its collectives as counted: each call pays its α
                predicted_ms = (dp["piece_s"] + cost_model.collectives_s(z["comm"], fit)) * 1e3
            rows.append((t(f"lesson05b.strategy_{s}"), z["step_s"] * 1e3, predicted_ms,
                         (z["params_bytes"] + z["grads_bytes"] + z["optim_bytes"]) / 1e6,
                         z["payload"] * (processes - 1) / processes / 1e6))
        else:
            rows.append((t(f"lesson05b.strategy_{s}") + " " + t("lesson05b.prediction_only"), "—", predicted_ms, "—",
                         cost_model.bytes_sent_per_rank(s, pb, processes) / 1e6))
    record = bench.Record(name=f"{strategy} x{processes} width {width}", median_s=step,
                          params={"panel": REFERENCE_PANEL, "strategy": strategy, "processes": processes,
                                  "width": width, "bucket_cap_mb": bucket_mb, "kind": dp["kind"],
                                  "device": dp["devices"][0] if strategy == "dp" else ddp[0]["backend"]},
                          metrics={"memory_mb_max": max(memory), "moved_mb": moved, "predicted_s": predicted,
                                   "alpha_s": fit.alpha_s, "beta_s_per_byte": fit.beta_s_per_byte},
                          meta=bench.meta())
    notes = [t(k, **v) for k, v in compare_verdicts(dp, ddp)]
    notes.append(reference_sentence())
    return Outcome(figure=fig, headers=headers, rows=rows, records=[record], note=" ".join(notes))


def make() -> ExperimentPanel:
    return ExperimentPanel(
        t("lesson05b.panel_title"),
        {
            "strategy": widgets.Dropdown(options=[(t("lesson05b.strategy_dp"), "dp"), (t("lesson05b.strategy_ddp"), "ddp")],
                                         value="ddp", description=t("lesson05b.strategy")),
            "processes": widgets.Dropdown(options=[2, 3, 4], value=2, description=t("lesson05b.processes")),
            "width": widgets.Dropdown(options=[128, 256, 512, 1024], value=config.by_mode(ci=128, lab=512),
                                      description=t("lesson05b.width")),
            "bucket_mb": widgets.Dropdown(options=[0.25, 1.0, 4.0, 25.0], value=25.0,
                                          description=t("lesson05b.bucket_mb_control")),
        },
        experiment,
        name="lesson05b",
    )
