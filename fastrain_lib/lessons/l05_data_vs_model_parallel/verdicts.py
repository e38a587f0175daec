"""Lesson 05's verdict rules: which sentence (catalog key + values) this run's numbers support."""

from __future__ import annotations

from fastrain_lib.core.verdicts import say
from fastrain_lib.distributed import ddp_costs
from fastrain_lib.measure import hardware

cores = hardware.usable_cores


def verdicts_for(rows: list[dict], cores_: int | None = None) -> list[tuple[str, dict, list]]:
    """(catalog key, values, the measurements it stands on) explaining each multi-process row.

    More processes than cores is a count (said whatever the noise, with no timing and no cause in it),
    and that row's measured speed-up is a second sentence standing on its rows; otherwise a row whose
    own run or the one-process run it is compared with was noisy gets the noisy-row sentence, standing
    on those rows (say() prints the warning naming them, never a cause)."""
    from fastrain_lib.measure import noise

    cores_ = cores_ or cores()
    base = next((r for r in rows if r["processes"] == 1), None)
    out = []
    for r in rows:
        if r["processes"] <= 1:
            continue
        key, values = ddp_costs.verdict(r["processes"], cores_, r["speedup"], r["compute_s"], r["allreduce_s"],
                                        r["step_s"])
        stands_on = [_named(r.get("noise"), f"DDP W={r['processes']}"),
                     _named((base or {}).get("noise"), "DDP W=1")]
        if key == "lesson05.v_oversubscribed":
            out.append((key, values, []))  # processes vs cores: a count, not a timing
            out.append(("lesson05.v_oversubscribed_speed", values, stands_on))
        elif any(noise.is_noisy(i) for i in stands_on):
            out.append(("lesson05.v_ddp_noisy", values, stands_on))
        else:
            out.append((key, values, stands_on))
    return out


def _named(info: dict | None, row: str) -> dict:
    """The noise information with the row it belongs to (the noisy line names it)."""
    info = dict(info or {})
    info.setdefault("row", row)
    return info


def pipeline_verdict(idle: float, formula: float, stages: int, cores_: int, margin: float = 0.03, *,
                     noisy: bool = False) -> tuple[str, dict]:
    """(catalog key, values): how the measured idle share compares with GPipe's formula, and why
    (no reason is given for a noisy run: it is named noisy)."""
    values = {"idle": idle, "formula": formula, "k": stages, "cores": cores_}
    if stages > cores_:
        return "lesson05.v_pipe_cores", values
    if noisy:
        return "lesson05.v_pipe_noisy", values
    if idle > formula + margin:
        return "lesson05.v_pipe_more", values
    if idle < formula - margin:
        return "lesson05.v_pipe_less", values
    return "lesson05.v_pipe_match", values


# A smaller message this much slower than a larger one on the same processes cannot be physics:
# on a quiet machine more bytes never take less time. Such a row is flagged, not explained.
OUT_OF_ORDER = 1.5


def allreduce_row_flags(rows: list[tuple], infos: list[dict] | None = None) -> list[dict]:
    """One noise-information dict per row of the all-reduce table (N, numbers, ring ms, server ms,
    dist.all_reduce ms, error): the run's own verdict, made noisy where the row is out of order
    (any method slower at fewer numbers than at more, on the same N, by more than OUT_OF_ORDER),
    each naming its row ("N=2, 1000")."""
    from fastrain_lib.distributed import measured

    infos = list(infos) if infos else [{"verdict": "quiet", "reasons": []} for _ in rows]
    flags = []
    for i, row in enumerate(rows):
        info = _named(infos[i] or {"verdict": "quiet", "reasons": []}, f"N={row[0]}, {row[1]:,}")
        larger = [r for r in rows if r[0] == row[0] and r[1] > row[1]]
        if any(row[c] > OUT_OF_ORDER * other[c] for other in larger for c in (2, 3, 4)):
            info = measured.mark_out_of_order(info)
        flags.append(info)
    return flags


def allreduce_verdicts(rows: list[tuple], cores_: int | None = None,
                       infos: list[dict] | None = None) -> list[tuple[str, dict, list]]:
    """(catalog key, values, the measurements the sentence stands on) from the all-reduce table.

    More processes than cores: the processes take turns on the cores, and that (a count, not a
    timing) is said first, with no time in it; the times at that N beside the same size at the
    largest N that fits stand on both rows (a cause, "waiting for a core", only when both methods
    are slower there and the rows are quiet). The causes (latency, one machine's memory) are
    explained only at the largest N that fits the cores and only for rows whose noise verdict is
    quiet and that are in order; a noisy row stands on its measurement (say() prints the warning
    naming it), never a cause."""
    from fastrain_lib.measure import noise

    cores_ = cores_ or cores()
    flags = allreduce_row_flags(rows, infos)
    out = []
    worlds = sorted({r[0] for r in rows})
    over = [n for n in worlds if n > cores_]
    fit = [w for w in worlds if w <= cores_]
    if over:
        n = max(over)
        mine = [i for i, r in enumerate(rows) if r[0] == n]
        small = min(mine, key=lambda i: rows[i][1])
        out.append(("lesson05.v_ar_oversubscribed", {"n": n, "cores": cores_}, []))
        base = next((i for i, r in enumerate(rows) if fit and r[0] == max(fit) and r[1] == rows[small][1]), None)
        if base is not None:  # the same size on processes that fit the cores, for comparison
            r, b = rows[small], rows[base]
            values = {"n": n, "cores": cores_, "numel": r[1], "ring_ms": r[2], "naive_ms": r[3], "m": b[0],
                      "m_ring_ms": b[2], "m_naive_ms": b[3]}
            both_slower = r[2] > b[2] and r[3] > b[3]
            out.append(("lesson05.v_ar_oversubscribed_vs" if both_slower else "lesson05.v_ar_oversubscribed_mixed",
                        values, [flags[small], flags[base]]))
    if not fit:
        return out
    world = max(fit)
    index = [i for i, r in enumerate(rows) if r[0] == world]
    index.sort(key=lambda i: rows[i][1])
    chosen = (index[0], index[-1]) if len(index) > 1 else (index[0],)
    for i in chosen:
        n, numel, ring_ms, naive_ms, torch_ms, _ = rows[i]
        info = flags[i]
        if noise.is_noisy(info):
            values = {"n": n, "numel": numel, "ring_ms": ring_ms, "naive_ms": naive_ms}
            if info.get("out_of_order"):  # quiet by the clock, but impossible: flagged by its own sentence
                out.append(("lesson05.v_ar_out_of_order", values, []))
            else:  # a busy run whose interleaved rounds agree still reads ring ÷ server
                out.append(_busy_ratio(info, "ring", "naive", n, numel) or ("lesson05.v_ar_noisy", values, [info]))
            continue
        if ring_ms < naive_ms:
            key = "lesson05.v_ar_ring"
        else:  # small: the messages' latency; large: one machine has no separate links for the ring to use
            key = "lesson05.v_ar_server_big" if i == index[-1] and len(index) > 1 else "lesson05.v_ar_server"
        out.append((key, {"n": n, "numel": numel, "ring_ms": ring_ms, "naive_ms": naive_ms, "steps": 2 * (n - 1)},
                    [info]))
    i = index[-1]
    n, numel, ring_ms, _, torch_ms, _ = rows[i]
    busy = _busy_ratio(flags[i], "ring", "torch", n, numel) if noise.is_noisy(flags[i]) else None
    out.append(busy or ("lesson05.v_ar_torch", {"n": n, "numel": numel, "ring_ms": ring_ms, "torch_ms": torch_ms},
                        [flags[i]]))
    return out


BUSY_NAMES = {"ring": "lesson05.busy_ring", "naive": "lesson05.busy_naive", "torch": "lesson05.busy_torch"}


def _busy_ratio(info: dict, top: str, bottom: str, n: int, numel: int) -> tuple[str, dict, list] | None:
    """The ratio of two ways a noisy row timed in the same interleaved rounds, when those rounds agree
    (measured.busy_ratio; never for an out-of-order row); None otherwise."""
    from fastrain_lib.core.i18n import t
    from fastrain_lib.distributed import measured

    rounds = info.get("per_round") or {}
    if info.get("out_of_order") or not rounds:
        return None
    said = measured.busy_ratio(rounds[top], t(BUSY_NAMES[top], n=n, numel=numel), rounds[bottom],
                               t(BUSY_NAMES[bottom], n=n, numel=numel), info)
    return (said[0], said[1], [said[2]]) if said else None


def _say(key: str, stands_on: list, warned: set | None = None, **values) -> None:
    """say() with the quiet mark on the line of a sentence that stands on quiet measurements (a finding
    beside noisy rows in the same cell says which kind it is); a noisy one prints say()'s warning, once
    for the same noisy rows (warned: the rows already warned about by this verdict)."""
    from fastrain_lib.core.i18n import t
    from fastrain_lib.measure import noise

    if key == "noise.ratio_busy":  # says on its line that it was a busy machine: no quiet mark
        say(key, noise=stands_on, **values)
        return
    if stands_on and not any(noise.is_noisy(getattr(i, "noise", i)) for i in stands_on):  # a Record or its info
        say(t(key, **values) + t("lesson05.quiet_mark"), noise=stands_on)
        return
    rows = frozenset(str(getattr(i, "name", None) or (i or {}).get("row")) for i in stands_on
                     if noise.is_noisy(getattr(i, "noise", i)))
    if warned is not None and rows and rows in warned:
        return  # its warning already stands above, naming the same rows
    if warned is not None:
        warned.add(rows)
    say(key, noise=stands_on, **values)


def any_noisy(infos) -> bool:
    from fastrain_lib.measure import noise

    return any(noise.is_noisy(getattr(i, "noise", i)) for i in infos if i)


# --- what a # VERDICT cell calls: one line in the notebook, the sentences printed here -----------------

def say_ddp(rows: list[dict], *, offer_rerun: bool = True) -> None:
    """The DDP panel's rows (panel_rows): each multi-process row's sentence, standing on its
    measurements; when any stood on a noisy row, one line offering the rerun (rerun_ddp, next cell)."""
    noisy, warned = False, set()
    for key, values, stands_on in verdicts_for(rows):
        _say(key, stands_on, warned, **values)
        noisy = noisy or any_noisy(stands_on)
    if noisy and offer_rerun:
        from fastrain_lib.core.i18n import t

        say("lesson05.rerun_offer", noise=(), how=t("lesson05.rerun_how_ddp"))


def say_allreduce(rows: list[tuple], infos: list[dict] | None = None, *, offer_rerun: bool = True) -> None:
    """The all-reduce table's sentences (allreduce_verdicts), each with the rows it stands on; when any
    stood on a noisy row, one line offering the rerun (rerun_allreduce, next cell)."""
    noisy, warned = False, set()
    for key, values, stands_on in allreduce_verdicts(rows, cores(), infos):
        _say(key, stands_on, warned, **values)
        noisy = noisy or any_noisy(stands_on)
    if noisy and offer_rerun:
        from fastrain_lib.core.i18n import t

        from fastrain_lib.measure import rerun

        say("lesson05.rerun_offer", noise=(), how=t("lesson05.rerun_how_ar", wait_s=rerun.wait_s()))


def say_pipeline(record, *, offer_rerun: bool = True) -> None:
    """The pipeline panel's measured run (a bench.Record): idle share vs GPipe's formula; the
    stages-vs-cores sentence is a count (noise=()), every other one stands on the run; a noisy run
    is offered one rerun (rerun_pipeline, next cell)."""
    from fastrain_lib.core.i18n import t

    key, values = pipeline_verdict(record.metrics["idle_share"], record.metrics["formula"],
                                   record.params["stages"], cores(), noisy=record.noisy)
    if key == "lesson05.v_pipe_cores":
        say(key, noise=(), **values)
    else:
        _say(key, [record], **values)
    if record.noisy and offer_rerun:
        say("lesson05.rerun_offer", noise=(), how=t("lesson05.rerun_how_pipe"))
