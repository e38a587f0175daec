"""Lesson 05's pictures of the all-reduce: bytes per worker (formula vs trace) and the ring,
step by step, from a real run's trace."""

from __future__ import annotations

import ipywidgets as widgets

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import ring
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import figure_png, set_outputs


def bytes_figure(numel: int, measured: list[dict], max_world: int = 16):
    """Bytes sent per process ÷ S as N grows: formulas as lines, traced runs as points."""
    ns = list(range(2, max_world + 1))
    size = numel * 4
    fig, ax = plots.new_figure()
    ax.plot(ns, [ring.bytes_per_worker(numel, n)["server"] / size for n in ns], "o-", label=plots.label("lesson05.server"))
    ax.plot(ns, [ring.bytes_per_worker(numel, n)["ring"] / size for n in ns], "s-", label=plots.label("lesson05.ring"))
    if measured:
        ax.plot([m["world"] for m in measured], [m["ring_bytes"] / size for m in measured], "k*", markersize=14,
                label=plots.label("lesson05.ring_measured"))
        ax.plot([m["world"] for m in measured], [m["server_bytes"] / size for m in measured], "rX", markersize=12,
                label=plots.label("lesson05.server_measured"))
    ax.set_xlabel(plots.label("lesson05.nprocs"))
    ax.set_ylabel(plots.label("lesson05.bytes_y"))
    ax.set_title(plots.label("lesson05.bytes_title", mb=size / 1e6))
    ax.legend()
    return fig


def draw_ring_state(ax, states, events: list[dict], world: int, k: int) -> None:
    """Ranks as rows, chunks as columns; each cell says whose numbers it holds after k steps."""
    from matplotlib import patches

    ax.clear()
    state = states[k]
    moved = []
    if k > 0:
        phase = "scatter-reduce" if k <= world - 1 else "all-gather"
        step = k - 1 if k <= world - 1 else k - world
        moved = [e for e in events if e["phase"] == phase and e["step"] == step]
    received = {(e["rank"], e["recv_chunk"]) for e in moved}
    for r in range(world):
        for c in range(world):
            have = state[r][c]
            full = len(have) == world
            color = "#55A868" if full else plt_blue(len(have) / world)
            edge = "black" if (r, c) in received else "white"
            ax.add_patch(patches.FancyBboxPatch((c + 0.05, r + 0.05), 0.9, 0.9, boxstyle="round,pad=0.02",
                                                facecolor=color, edgecolor=edge, linewidth=3 if edge == "black" else 1))
            ax.text(c + 0.5, r + 0.5, "+".join(f"a{x}" for x in sorted(have)), ha="center", va="center",
                    fontsize=10 if world <= 4 else 7)
    for e in moved:  # an arrow from the sender's chunk to the receiver's
        src_rank, dst_rank, chunk = e["from"], e["rank"], e["recv_chunk"]
        ax.annotate("", xy=(chunk + 0.5, dst_rank + 0.15), xytext=(chunk + 0.5, src_rank + 0.85),
                    arrowprops={"arrowstyle": "->", "color": "#C44E52", "lw": 2,
                                "connectionstyle": "arc3,rad=0.3" if dst_rank < src_rank else "arc3,rad=0"})
    ax.set_xlim(0, world)
    ax.set_ylim(world, 0)
    ax.set_xticks([c + 0.5 for c in range(world)], [plots.label("lesson05.chunk", c=c) for c in range(world)])
    ax.set_yticks([r + 0.5 for r in range(world)], [plots.label("lesson05.rank_n", r=r) for r in range(world)])
    ax.grid(False)
    total = 2 * (world - 1)
    phase_key = "lesson05.phase_start" if k == 0 else ("lesson05.phase_sr" if k <= world - 1 else "lesson05.phase_ag")
    ax.set_title(plots.label("lesson05.stepper_title", step=k, total=total, phase=plots.label(phase_key)))


def plt_blue(share: float) -> tuple:
    """A light-to-dark blue by how much of the sum a chunk holds."""
    light, dark = (0.85, 0.9, 0.97), (0.35, 0.55, 0.85)
    return tuple(a + (b - a) * share for a, b in zip(light, dark))


def ring_stepper(events: list[dict], world: int):
    """A slider (and a play button) that steps through a real ring all-reduce's trace."""
    import matplotlib.pyplot as plt
    from IPython.display import Image

    states = ring.contributions(events, world)
    total = len(states) - 1
    slider = widgets.IntSlider(value=0, min=0, max=total, description=t("core.step"))
    play = widgets.Play(value=0, min=0, max=total, interval=1200)
    widgets.jslink((play, "value"), (slider, "value"))
    out = widgets.Output()

    def show(k):
        # set_outputs, not `with out:` — the capture context stalls nbclient runs (see widgets.set_outputs)
        fig, ax = plots.new_figure()
        draw_ring_state(ax, states, events, world, k)
        set_outputs(out, Image(figure_png(fig)))
        plt.close(fig)

    slider.observe(lambda change: show(change["new"]), names="value")
    show(0)
    box = widgets.VBox([widgets.HBox([play, slider]), out])
    box.show_step = show  # for tests and for driving it from code
    return box


def bytes_table(numel: int, world_size: int, element_size: int = 4) -> tuple[list[str], list[tuple]]:
    """ring.bytes_per_worker as a small table (headers, rows) in GB, for the notebook's cell."""
    from fastrain_lib.core.i18n import t
    from fastrain_lib.distributed import ring

    sent = ring.bytes_per_worker(numel, world_size, element_size)
    headers = [t("lesson05.bytes_col_way"), t("lesson05.bytes_col_who"), t("lesson05.bytes_col_gb")]
    rows = [(t("lesson05.bytes_ring"), t("lesson05.bytes_each_rank"), f"{sent['ring'] / 1e9:.3f}"),
            (t("lesson05.bytes_server"), t("lesson05.bytes_the_server"), f"{sent['server'] / 1e9:.3f}"),
            (t("lesson05.bytes_worker"), t("lesson05.bytes_the_worker"), f"{sent['worker'] / 1e9:.3f}")]
    return headers, rows


def allreduce_table(runs: dict) -> tuple[list[tuple], list[dict], list[dict]]:
    """From {N: (rank results of ring.compare_worker, the run's noise information)}: the table rows
    (N, numbers, ring ms, server ms, dist.all_reduce ms, max error) with the slowest rank's times,
    each row's noise information (the run's window, this row's spread, out-of-order rows marked
    noisy; "per_round": each way's slowest-rank time per interleaved round, for the ratios a busy
    run can still read), and the bytes counted from the largest tensor's traces."""
    from fastrain_lib.distributed import measured as measured_run
    from fastrain_lib.lessons.l05_data_vs_model_parallel.verdicts import allreduce_row_flags

    rows, infos, counted = [], [], []
    for n, (results, info) in sorted(runs.items()):
        for i, numel in enumerate(s["numel"] for s in results[0]["sizes"]):
            per_rank = [r["sizes"][i] for r in results]
            # the slowest rank decides when the all-reduce is over
            rows.append((n, numel, max(p["ring_s"] for p in per_rank) * 1e3, max(p["naive_s"] for p in per_rank) * 1e3,
                         max(p["torch_s"] for p in per_rank) * 1e3, max(p["ring_error"] for p in per_rank)))
            slowest = max(per_rank, key=lambda p: p["ring_s"])
            row_info = measured_run.row_noise(info, slowest.get("ring_times"))
            if all(r.get("interleaved") for r in results):  # the three timed in the same rounds: per round, the slowest rank
                row_info["per_round"] = {way: measured_run.slowest_per_round([p[f"{way}_times"] for p in per_rank])
                                         for way in ("ring", "naive", "torch")}
            infos.append(row_info)
        counted.append({"world": n, "ring_bytes": results[1 % len(results)]["sizes"][-1]["ring_bytes"],
                        "server_bytes": results[0]["sizes"][-1]["naive_bytes"]})
    return rows, allreduce_row_flags(rows, infos), counted
