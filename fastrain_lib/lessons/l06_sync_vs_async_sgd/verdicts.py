"""Lesson 06's verdict rules: what the notebook's # VERDICT cells (and the real-process panel)
say, computed from this run's results. Each *_verdicts returns [(catalog key, values)]; each say_*
prints them (verdicts.say), with what they stand on: the simulator's clock is no measurement
(noise=()), the real processes' runs carry their noise."""

from __future__ import annotations

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import noise


def _say(lines: list[tuple[str, dict]], stands_on) -> None:
    for key, values in lines:
        verdicts.say(key, noise=stands_on, **values)


def say_modes(results: dict) -> None:
    _say(modes_verdicts(results), ())  # simulated time: no measurement


def say_lr(runs: dict) -> None:
    _say(lr_verdicts(runs), ())


def say_backup(runs: dict) -> None:
    _say(backup_verdicts(runs), ())


def _named(info, row: str):
    """A run's noise information with its row's name, so that the noisy line names the row."""
    return {**info, "row": row} if info else info


def say_hogwild(results: list, *, offer_rerun: bool = True) -> None:
    """The real Hogwild runs' sentences; when one of the runs was noisy, the offer of the next cell's rerun."""
    from fastrain_lib.async_sgd import hogwild
    from fastrain_lib.measure import rerun

    _say(hogwild_verdicts(results) if results else [], [_named(r.noise, hogwild.label(r)) for r in results])
    if offer_rerun:
        rerun.offer(any(noisy(r) for r in results))


def say_ps(asyn, sync, twin, *, offer_rerun: bool = True) -> None:
    """The real parameter server's sentences (async and sync); when a run was noisy, the rerun's offer."""
    from fastrain_lib.async_sgd import ps_plots
    from fastrain_lib.measure import rerun

    if asyn is None:  # no RPC here (lesson06.real_runs said why): nothing measured, nothing to conclude
        verdicts.say("lesson06.v_ps_not_run", noise=())
        return
    _say(ps_verdicts(asyn, sync, twin), [_named(getattr(r, "noise", None), ps_plots.label(r)) for r in (asyn, sync)])
    if offer_rerun:
        rerun.offer(noisy(asyn) or noisy(sync), cores=asyn.config["workers"] + 1)  # the workers and the server


def say_local(runs: dict, period: int) -> None:
    counted, timed = local_verdicts(runs, period)
    _say([counted], ())  # all-reduces counted, losses of seeded synchronous averaging: no timing in them
    _say([timed], [_named(getattr(r, "noise", None), f"H = {h}") for h, r in runs.items()])


def noisy(result) -> bool:
    """A real-process run whose machine was not quiet while it ran (result.noise, measure.noise)."""
    return noise.is_noisy(getattr(result, "noise", None))


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
        return t("async_sgd.diverged") if r.diverged else f"{r.final_loss:.3f}"

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
        if noisy(single[0]) or noisy(free[0]):  # no cause from a noisy measurement
            key = "lesson06.v_hogwild_noisy"
        else:
            key = "lesson06.v_hogwild_faster" if speedup >= 1.1 else "lesson06.v_hogwild_not_faster"
        out.append((key, {"speedup": speedup, "w": free[0].workers}))
    return out



def ps_verdicts(asyn, sync, twin) -> list[tuple[str, dict]]:
    """Throughput and staleness of the two real servers; how close the simulator came."""
    slow = asyn.config["workers"] - 1
    out = [("lesson06.real_v_ps", {"delay": asyn.config["straggler_ms"], "a_tp": asyn.throughput, "s_tp": sync.throughput,
                             "ratio": asyn.throughput / sync.throughput if sync.throughput else float("nan"),
                             "stale": asyn.mean_staleness(), "slow": asyn.mean_staleness(slow),
                             "a_loss": asyn.final_loss, "s_loss": sync.final_loss})]
    sim = sum(twin.staleness) / max(1, len(twin.staleness))
    real = asyn.mean_staleness()
    close = abs(sim - real) <= max(0.25, 0.25 * max(sim, real))
    agree = ("lesson06.real_agree" if close else
             "lesson06.real_disagree_noisy" if noisy(asyn) or noisy(sync) else "lesson06.real_disagree")
    out.append(("lesson06.real_v_sim", {"sim": sim, "real": real, "agree": t(agree)}))
    return out


def local_verdicts(runs: dict, period: int) -> list[tuple[str, dict]]:
    """Local SGD with period H against H = 1: the communication saved and the loss reached (counted and
    computed: the same on a busy machine), then the wall times (measured)."""
    one, mine = runs[1], runs[period]
    return [("lesson06.real_v_local", {"h": period, "rounds": mine.rounds, "rounds1": one.rounds,
                                       "saved": 1 - mine.rounds / one.rounds, "loss": mine.final_loss,
                                       "loss1": one.final_loss, "diff": mine.final_loss - one.final_loss}),
            ("lesson06.real_v_local_time", {"h": period, "wall": mine.wall_s, "wall1": one.wall_s})]
