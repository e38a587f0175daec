"""Tables and plots of simulator runs (simulator.py): timelines, loss curves, staleness."""

from __future__ import annotations

import math

from fastrain_lib.async_sgd.simulator import MODE_COLORS, MODES, SimResult
from fastrain_lib.core.i18n import t
from fastrain_lib.ui import plots

# One literal key per mode and per timeline bar (a test can enumerate them)
MODE_KEYS = {"sync": "async_sgd.mode_sync", "backup": "async_sgd.mode_backup", "async": "async_sgd.mode_async",
             "ssp": "async_sgd.mode_ssp"}
KIND_KEYS = {"compute": "core.compute", "straggle": "async_sgd.kind_straggle", "wait": "async_sgd.kind_wait",
             "dropped": "async_sgd.kind_dropped"}


def summary_rows(results: dict[str, SimResult], n_gradients: int | None = None) -> tuple[list, list]:
    """A table: mode, simulated time, updates, final loss, accuracy, mean/max staleness, dropped."""
    headers = [t("core.mode"), t("async_sgd.col_time"), t("async_sgd.col_updates"), t("core.final_loss"),
               t("async_sgd.col_acc"), t("async_sgd.col_stale_mean"), t("async_sgd.col_stale_max"), t("async_sgd.col_dropped")]
    rows = []
    for name, r in results.items():
        mean = sum(r.staleness) / max(1, len(r.staleness))
        loss = t("async_sgd.diverged") if r.diverged else round(r.final_loss, 4)
        rows.append((mode_name(name), round(r.total_time, 2), len(r.times) - 1, loss,
                     round(r.final_accuracy, 3), round(mean, 2), max(r.staleness, default=0), r.dropped))
    return headers, rows


def mode_name(mode: str) -> str:
    return t(MODE_KEYS[mode]) if mode in MODE_KEYS else str(mode)


KIND_STYLE = {  # timeline bar colours (colour-blind friendly) and hatches
    "compute": ("#3B75AF", ""),
    "straggle": ("#EF8636", ""),
    "wait": ("#DDDDDD", "//"),
    "dropped": ("#C53A32", "xx"),
}


def plot_timeline(ax, result: SimResult, *, until: float | None = None, title: str = "", legend: bool = True):
    """Workers (rows) and the server (top row): who computed, waited, straggled, when."""
    workers = result.config["workers"]
    until = until if until is not None else result.total_time
    for kind, (color, hatch) in KIND_STYLE.items():
        for w in range(workers):
            spans = [(e.start, e.end - e.start) for e in result.events
                     if e.worker == w and e.kind == kind and e.start < until and e.end > e.start]
            if spans:
                ax.broken_barh(spans, (w - 0.4, 0.8), facecolors=color, hatch=hatch,
                               edgecolor="white" if not hatch else "#777777", linewidth=1.0)
    updates = [e.start for e in result.events if e.worker == -1 and e.start <= until]
    ax.vlines(updates, workers - 0.4 + 0.6, workers + 0.4 + 0.6, color="black", linewidth=1.2)
    ax.set_yticks(list(range(workers)) + [workers + 0.6],
                  [plots.label("async_sgd.worker", i=w) for w in range(workers)] + [plots.label("async_sgd.server")])
    ax.set_xlim(0, until)
    ax.set_ylim(-0.6, workers + 1.2)
    ax.set_xlabel(plots.label("async_sgd.sim_time"))
    ax.grid(axis="y", visible=False)
    ax.set_title(title or plots.label("async_sgd.timeline_title", mode=mode_label(result.config["mode"])))
    if not legend:
        return
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=c, hatch=h, edgecolor="#777777", label=plots.label(KIND_KEYS[k]))
               for k, (c, h) in KIND_STYLE.items()]
    handles.append(Patch(facecolor="black", label=plots.label("async_sgd.kind_update")))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")


def mode_label(mode: str) -> str:
    return plots.label(MODE_KEYS[mode]) if mode in MODE_KEYS else str(mode)


def plot_losses(ax, results: dict[str, SimResult], *, x: str = "time", logy: bool | None = None, title: str = ""):
    """Loss curves of several runs against simulated time (x='time') or applied gradients.
    logy None: a log scale only when the losses span a wide range (e.g. a run diverged)."""
    for name, r in results.items():
        xs = r.times if x == "time" else r.grads
        color = MODE_COLORS.get(r.config["mode"]) if name in MODES else None
        label = mode_label(name) + (" ✗" if r.diverged else "")
        ax.plot(xs, r.losses, label=label, color=color)
        if r.diverged:
            ax.plot(xs[-1], r.losses[-1], marker="x", color=color, markersize=10)
    every = [v for r in results.values() for v in r.losses if math.isfinite(v) and v > 0]
    if logy is None:
        logy = bool(every) and max(every) / min(every) > 30
    if logy:
        from matplotlib.ticker import ScalarFormatter
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel(plots.label("async_sgd.sim_time" if x == "time" else "async_sgd.applied"))
    ax.set_ylabel(plots.label("async_sgd.eval_loss"))
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small")


def plot_staleness(ax, results: dict[str, SimResult], *, title: str = ""):
    """Histogram of the staleness of every applied gradient, one set of bars per run."""
    top = max((max(r.staleness, default=0) for r in results.values()), default=0)
    width = 0.8 / max(1, len(results))
    for i, (name, r) in enumerate(results.items()):
        counts = [0] * (top + 1)
        for s in r.staleness:
            counts[s] += 1
        total = max(1, len(r.staleness))
        color = MODE_COLORS.get(r.config["mode"]) if name in MODES else None
        ax.bar([k - 0.4 + width * (i + 0.5) for k in range(top + 1)], [c / total for c in counts],
               width=width, label=mode_label(name), color=color)
    ax.set_xlabel(plots.label("async_sgd.staleness"))
    ax.set_ylabel(plots.label("async_sgd.fraction"))
    ax.set_title(title or plots.label("async_sgd.staleness_title"))
    ax.set_xticks(range(0, top + 1, max(1, (top + 1) // 10)))
    ax.legend(fontsize="small")
