"""Lesson 06's verdict cells choose their sentence from this run's numbers."""

import math

import pytest

from fastrain_lib.async_sgd import hogwild as H
from fastrain_lib.async_sgd import problems
from fastrain_lib.async_sgd import simulator as A
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l06_sync_vs_async_sgd import panel as P
from fastrain_lib.lessons.l06_sync_vs_async_sgd import verdicts as V


@pytest.fixture(scope="module")
def problem():
    return problems.make_problem("blobs", 600, n_eval=200)


def test_ssp_cost_is_named_from_the_simulated_time(problem):
    # one worker 4x slower and a tight bound: SSP waits almost like sync (the 881 vs 918)
    slow = A.SimConfig(workers=4, speeds=A.one_slow_worker(4, 0.25), straggler_prob=0.1, straggler_delay=4,
                       gradients=120, staleness_bound=2)
    results = A.compare_modes(problem, slow)
    (_, times), (ssp_key, ssp) = V.modes_verdicts(results)
    assert times["sync"] == results["sync"].total_time and times["asyn"] == results["async"].total_time
    share = (results["ssp"].total_time - results["async"].total_time) / (results["sync"].total_time - results["async"].total_time)
    assert ssp["share"] == pytest.approx(share)
    assert ssp_key == "lesson06.v_ssp_near_sync" and share >= 0.6
    # equal workers and a loose bound: SSP costs almost nothing
    easy = A.compare_modes(problem, A.SimConfig(workers=4, straggler_prob=0.3, straggler_delay=4, gradients=120,
                                                staleness_bound=8))
    assert V.modes_verdicts(easy)[1][0] == "lesson06.v_ssp_near_async"


def _fake_run(lr, workers, loss, diverged=False):
    return A.SimResult(config={"lr": lr, "workers": workers}, times=[0, 1], grads=[0, 1], losses=[2.3, loss],
                       accuracies=[0.1, 0.5], staleness=[0], events=[], diverged=diverged)


def test_lr_verdicts():
    runs = {"a": _fake_run(0.1, 1, 0.5), "b": _fake_run(0.1, 8, 0.7), "c": _fake_run(0.6, 1, 0.4),
            "d": _fake_run(0.6, 8, 99.0, diverged=True)}
    out = V.lr_verdicts(runs)
    assert [k for k, _ in out] == ["lesson06.v_lr_row", "lesson06.v_lr_row", "lesson06.v_lr_diverged"]
    assert out[-1][1]["lrs"] == "0.6" and out[1][1]["many"] == t("async_sgd.diverged")
    runs["d"] = _fake_run(0.6, 8, 0.6)
    assert V.lr_verdicts(runs)[-1][0] == "lesson06.v_lr_worse"
    runs["b"] = _fake_run(0.1, 8, 0.4)
    assert V.lr_verdicts(runs)[-1] == ("lesson06.v_lr_mixed", {"worse": 1, "total": 2})


def test_backup_verdict(problem):
    runs = {b: A.simulate(problem, A.SimConfig(mode="backup", backup=b, workers=8, straggler_prob=0.1,
                                                 straggler_delay=5, gradients=160)) for b in (0, 1, 3)}
    key, values = V.backup_verdicts(runs)[0]
    per = {b: r.total_time / (len(r.times) - 1) for b, r in runs.items()}
    assert values["t0"] == pytest.approx(per[0]) and values["tmax"] == pytest.approx(per[3])
    assert key == ("lesson06.v_backup" if per[1] < per[0] else "lesson06.v_backup_nohelp")
    assert values["dmax"] == runs[3].dropped > values["d1"] == runs[1].dropped


def _hog(workers, lock, times, losses):
    return H.HogwildResult(workers=workers, lock=lock, total_steps=len(times), train_time_s=times[-1], startup_s=1.0,
                           accuracy=0.9, final_loss=losses[-1], batch_times=times, batch_losses=losses)


def test_time_to_loss_and_the_hogwild_verdict():
    steps = 100
    one = _hog(1, False, [0.02 * i for i in range(1, steps + 1)], [2.0 - 0.015 * i for i in range(steps)])
    two = _hog(2, False, [0.01 * i for i in range(1, steps + 1)], [2.0 - 0.015 * i for i in range(steps)])
    target = H.common_target([one, two])
    assert all(H.time_to_loss(r, target) < math.inf for r in (one, two))  # everyone reaches it
    assert H.time_to_loss(one, target) == pytest.approx(2 * H.time_to_loss(two, target))
    assert H.time_to_loss(one, 0.0) == math.inf
    out = V.hogwild_verdicts([one, two])
    assert out[0][0] == "lesson06.v_hogwild_fastest" and out[0][1]["fastest"] == H.label(two)
    assert out[1][0] == "lesson06.v_hogwild_faster" and out[1][1]["speedup"] == pytest.approx(2.0)
    slow_two = _hog(2, False, [0.03 * i for i in range(1, steps + 1)], [2.0 - 0.015 * i for i in range(steps)])
    assert V.hogwild_verdicts([one, slow_two])[1][0] == "lesson06.v_hogwild_not_faster"
    _, rows = H.table([one, two])
    assert rows[0][5] == pytest.approx(H.time_to_loss(one, target), abs=1e-3)


# ---- real processes (issue 17): the sentences are computed from the measured runs

def _ps(mode, gradients, seconds, staleness, workers_of, loss):
    from fastrain_lib.async_sgd import ps_run as PS
    return PS.PSResult(config={"mode": mode, "workers": 2, "straggler_ms": 10.0}, staleness=staleness,
                       workers_of=workers_of, arrival_s=[], train_time_s=seconds, startup_s=1.0, per_worker=[],
                       snapshot_s=[0.0], snapshot_versions=[0], losses=[2.0, loss], accuracies=[0.1, 0.5],
                       theta=None, updates=gradients)


def test_ps_verdicts_follow_the_measurement():
    asyn = _ps("async", 6, 0.01, [0, 0, 1, 0, 0, 5], [0, 0, 0, 0, 0, 1], 1.5)
    sync = _ps("sync", 6, 0.04, [0] * 6, [0, 1] * 3, 1.4)
    twin = A.SimResult(config={}, times=[0], grads=[0], losses=[2.0], accuracies=[0.1], staleness=[0, 0, 1, 1, 0, 4],
                       events=[])
    (key, v), (_key2, v2) = V.ps_verdicts(asyn, sync, twin)
    assert key == "lesson06.real_v_ps" and v["a_tp"] == pytest.approx(600) and v["s_tp"] == pytest.approx(150)
    assert v["ratio"] == pytest.approx(4.0) and v["slow"] == pytest.approx(5.0) and v["stale"] == pytest.approx(1.0)
    assert v2["sim"] == pytest.approx(1.0) and v2["agree"] == t("lesson06.real_agree")
    far = A.SimResult(config={}, times=[0], grads=[0], losses=[2.0], accuracies=[0.1], staleness=[3] * 6, events=[])
    assert V.ps_verdicts(asyn, sync, far)[1][1]["agree"] == t("lesson06.real_disagree")


def test_local_verdict_follows_the_measurement():
    from fastrain_lib.async_sgd.local_sgd import LocalSGDRun
    runs = {h: LocalSGDRun(period=h, config={"steps": 24}, rounds=r, bytes_per_round=4, wall_s=w, compute_s=0.0,
                           comm_s=0.0, losses=[2.0, loss]) for h, r, w, loss in ((1, 24, 0.08, 1.10), (8, 3, 0.02, 1.15))}
    (key, v), (time_key, times) = V.local_verdicts(runs, 8)
    assert key == "lesson06.real_v_local" and v["saved"] == pytest.approx(1 - 3 / 24) and v["diff"] == pytest.approx(0.05)
    assert time_key == "lesson06.real_v_local_time" and (times["wall"], times["wall1"]) == (0.02, 0.08)
    assert "wall" not in v  # the counted sentence quotes no time: a busy machine cannot make it noisy


def test_real_panel_runs_once_and_shares_the_notebooks_measurement(monkeypatch):
    # ci sizes; the notebook's cells and the panel's first run (same defaults) share one measurement
    from _processes import live_children

    from fastrain_lib.distributed import launcher
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.setattr(P, "problem", lambda: problems.make_problem("blobs", 400, n_eval=100))
    P._REAL_CACHE.clear()
    asyn, sync, _twin, local = P.real_runs(2, 10.0, (1, 8))
    calls = []
    monkeypatch.setattr(P, "ps_pair", lambda *a, **k: calls.append(a))
    panel = P.make_real()
    outcome = panel.run()
    assert calls == [] and panel.last_error is None  # served from the shared measurement, no new processes
    names = [r.name for r in outcome.records]
    assert names == ["param_server/async", "param_server/sync", "local_sgd", "local_sgd"]
    assert outcome.records[0].metrics["throughput"] == asyn.throughput
    assert [r.params["period"] for r in outcome.records[2:]] == [1, 8]
    assert outcome.rows[0][1] == asyn.gradients == 2 * P.REAL_STEPS["ci"]
    assert local[8].rounds == -(-P.LOCAL_STEPS["ci"] // 8) and sync.staleness == [0] * sync.gradients
    assert launcher.pids_alive(launcher.LAST_PIDS) == [] and live_children() == []


# ---- issue 27: no cause from a noisy real-process measurement

NOISY = {"verdict": "noisy", "reasons": ["load"], "other_cores": 1.5, "cores": 2, "threads": 2}
QUIET = {"verdict": "quiet", "reasons": [], "other_cores": 0.0, "cores": 2, "threads": 2}


@pytest.mark.parametrize("noisy_one, noisy_two", [(True, False), (False, True), (True, True)])
def test_a_noisy_hogwild_row_gets_no_cause(noisy_one, noisy_two):
    """A table of two runs where one is noisy: slower or faster, the rule gives no cause."""
    steps = 100
    losses = [2.0 - 0.015 * i for i in range(steps)]
    for factor in (0.01, 0.03):  # Hogwild twice as fast, and slower
        one = _hog(1, False, [0.02 * i for i in range(1, steps + 1)], losses)
        two = _hog(2, False, [factor * i for i in range(1, steps + 1)], losses)
        one.noise, two.noise = (NOISY if noisy_one else QUIET), (NOISY if noisy_two else QUIET)
        keys = [k for k, _ in V.hogwild_verdicts([one, two])]
        assert keys[1] == "lesson06.v_hogwild_noisy"
        for lang in ("bn", "en"):
            text = t("lesson06.v_hogwild_noisy", lang, speedup=2.0, w=2)
            assert "2.00" in text and t("lesson06.v_hogwild_not_faster", lang, speedup=2.0, w=2) != text
    quiet_two = _hog(2, False, [0.03 * i for i in range(1, steps + 1)], losses)
    quiet_two.noise = QUIET
    one.noise = QUIET
    assert V.hogwild_verdicts([one, quiet_two])[1][0] == "lesson06.v_hogwild_not_faster"  # quiet: the cause stays
    two.noise = NOISY
    _, rows = H.table([one, two])
    assert rows[1][-1] == t("noise.noisy_word") and rows[0][-1] == t("noise.quiet_word")


def test_a_noisy_parameter_server_disagreement_is_not_explained():
    asyn = _ps("async", 6, 0.01, [0, 0, 1, 0, 0, 5], [0, 0, 0, 0, 0, 1], 1.5)
    sync = _ps("sync", 6, 0.04, [0] * 6, [0, 1] * 3, 1.4)
    far = A.SimResult(config={}, times=[0], grads=[0], losses=[2.0], accuracies=[0.1], staleness=[3] * 6, events=[])
    asyn.noise = NOISY
    assert V.ps_verdicts(asyn, sync, far)[1][1]["agree"] == t("lesson06.real_disagree_noisy")
    asyn.noise = QUIET
    sync.noise = QUIET
    assert V.ps_verdicts(asyn, sync, far)[1][1]["agree"] == t("lesson06.real_disagree")
