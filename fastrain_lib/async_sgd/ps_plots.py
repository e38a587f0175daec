"""Tables and plots of real parameter-server runs (param_server.py)."""

from __future__ import annotations

from fastrain_lib.async_sgd.ps_run import PSResult
from fastrain_lib.core.i18n import t
from fastrain_lib.ui import plots

MODE_KEYS = {"async": "param_server.mode_async", "sync": "param_server.mode_sync"}


def label(result: PSResult) -> str:
    cfg = result.config
    return t(MODE_KEYS[cfg["mode"]]) + f" ({cfg['workers']}, {cfg['straggler_ms']:g} ms)"


def table(results: list[PSResult]) -> tuple[list, list]:
    """One row per run: gradients/s, training time, updates, mean and max staleness (overall and
    of the straggler), final loss and accuracy, start-up."""
    headers = [t("param_server.col_run"), t("param_server.col_grads"), t("param_server.col_time"), t("param_server.col_throughput"), t("async_sgd.col_updates"),
               t("async_sgd.col_stale_mean"), t("async_sgd.col_stale_max"), t("param_server.col_stale_slow"), t("core.final_loss"),
               t("async_sgd.col_acc"), t("param_server.col_startup")]
    rows = []
    for r in results:
        slow = r.config["workers"] - 1
        rows.append((label(r), r.gradients, round(r.train_time_s, 3), round(r.throughput, 1), r.updates,
                     round(r.mean_staleness(), 2), max(r.staleness, default=0), round(r.mean_staleness(slow), 2),
                     round(r.final_loss, 4), round(r.final_accuracy, 3), round(r.startup_s, 2)))
    return headers, rows


def time_table(results: list[PSResult]) -> tuple[list, list]:
    """Where each worker's time went: pull, compute, straggling, push (includes waiting in sync)."""
    headers = [t("param_server.col_run"), t("param_server.col_worker"), t("param_server.col_pull"), t("param_server.col_compute"), t("param_server.col_delay"),
               t("param_server.col_push")]
    rows = []
    for r in results:
        for p in r.per_worker:
            n = max(1, p["pushes"])
            rows.append((label(r), p["worker"], round(1000 * p["pull_s"] / n, 2), round(1000 * p["compute_s"] / n, 2),
                         round(1000 * p["delay_s"] / n, 2), round(1000 * p["push_s"] / n, 2)))
    return headers, rows


def plot_staleness(ax, real: PSResult, simulated=None, *, title: str = "") -> None:
    """Share of gradients with each staleness: the real server (bars) and, if given, the
    simulator with the same measured speeds (outlined bars)."""
    series = [(plots.label("param_server.real"), real.staleness, "#EF8636", None)]
    if simulated is not None:
        series.append((plots.label("param_server.simulated"), simulated.staleness, "none", "#3B75AF"))
    top = max(max(s, default=0) for _, s, _, _ in series)
    for i, (name, values, face, edge) in enumerate(series):
        counts = [0] * (top + 1)
        for s in values:
            counts[s] += 1
        total = max(1, len(values))
        ax.bar([k - 0.2 + 0.4 * i for k in range(top + 1)], [c / total for c in counts], width=0.4, label=name,
               color=face, edgecolor=edge or face, linewidth=1.5)
    ax.set_xlabel(plots.label("async_sgd.staleness"))
    ax.set_ylabel(plots.label("async_sgd.fraction"))
    ax.set_title(title or plots.label("param_server.staleness_title"))
    ax.legend(fontsize="small")


def plot_losses(ax, results: list[PSResult]) -> None:
    """Evaluation loss of the server's weights against wall-clock time since the first pull."""
    for r in results:
        ax.plot(r.snapshot_s, r.losses, marker=".", label=label(r))
    ax.set_xlabel(plots.label("hogwild.wall_time"))
    ax.set_ylabel(plots.label("async_sgd.eval_loss"))
    ax.set_title(plots.label("param_server.loss_title"))
    ax.legend(fontsize="small")
