"""Lesson 05c's panel: a click runs real processes and shows what they measured — bytes per
rank equal to the formula, the tensor-parallel output equal to one process, the live
micro-batches of each pipeline schedule — and leaves no process behind."""

import pytest
from _processes import live_children

from fastrain_lib import dashboard
from fastrain_lib.measure import hardware
from fastrain_lib.distributed import launcher as L
from fastrain_lib.distributed import zero
from fastrain_lib.lessons.l05c_sharding_and_pipelines import panel as P
from fastrain_lib.lessons.l05c_sharding_and_pipelines import verdicts as V


@pytest.fixture(scope="module")
def panel():
    made = P.make()
    yield made
    assert L.pids_alive(L.LAST_PIDS) == []
    assert live_children() == []


def test_zero_run_shows_measured_bytes_equal_to_the_formula(panel):
    outcome = panel.run(strategy="zero2", processes=2, width=64, micro_batches=4)
    assert panel.last_error is None and outcome is not None
    record = outcome.records[0]
    n = 4 * (64 * 64 + 64) + 64 * 10 + 10
    assert record.metrics["formula_bytes"] == zero.formula_bytes(n, 2, 2)["total"]
    assert record.metrics["bytes_per_rank"] == record.metrics["formula_bytes"]
    assert record.metrics["payload_bytes"] == zero.payload_bytes("zero2", n)
    assert record.metrics["max_error"] < 1e-5
    assert [row[0] for row in outcome.rows] == [0, 1]  # one table row per rank
    assert panel.runs == 1
    # The same setting again comes from the cache, also after a noisy run that revealed the threads control
    # (its value is still 'auto': the same setting, not a new run that would print its lines again).
    panel.run(strategy="zero2", processes=2, width=64, micro_batches=4)
    assert panel.runs == 1


def test_tp_run_equals_one_process(panel):
    outcome = panel.run(strategy="tp", processes=2, width=64, micro_batches=4)
    assert panel.last_error is None
    assert outcome.records[0].metrics["max_error"] < 1e-5
    assert "all_reduce" in outcome.rows[0][3] and "1" in outcome.rows[0][3]


def test_1f1b_run_keeps_at_most_k_micro_batches(panel):
    outcome = panel.run(strategy="1f1b", processes=2, width=64, micro_batches=8)
    assert panel.last_error is None
    assert [(row[1], row[2]) for row in outcome.rows] == [(2, 2), (1, 1)]  # measured == rule, per stage
    assert outcome.records[0].metrics["peak_alive"] == 2
    assert 0.0 <= outcome.records[0].metrics["idle_share"] < 1.0


def test_1f1b_with_too_few_micro_batches_says_so(panel):
    outcome = panel.run(strategy="1f1b", processes=2, width=64, micro_batches=1)
    assert panel.last_error is None and "M = 2" in outcome.note


def test_the_dashboard_finds_the_panel():
    assert "lesson05c" in dashboard.panel_modules()
    assert not isinstance(dashboard.panel_modules()["lesson05c"], Exception)


def _zero_row(strategy, measured, formula, payload, step_s=0.01):
    return {"strategy": strategy, "params_bytes": measured, "grads_bytes": 0, "optim_bytes": 0,
            "formula": {"total": formula}, "payload": payload, "step_s": step_s}


def test_zero_verdicts_state_the_measured_numbers():
    rows = [_zero_row("ddp", 1000, 1000, 200), _zero_row("zero3", 260, 250, 300, 0.03)]
    (k1, v1, m1), (k2, v2, m2), (k3, v3, m3), (k4, v4, m4) = V.zero_verdicts(rows)
    # bytes (stored and communicated) are counts; only the step times stand on their rows' noise
    assert m1 == [] and m2 == [] and m3 == [] and len(m4) == 2
    assert (k1, v1["diff"]) == ("lesson05c.v_zero_bytes", 0.0)
    assert k2 == "lesson05c.v_zero_bytes" and v2["diff"] == pytest.approx(0.04)
    assert k3 == "lesson05c.v_zero_comm" and v3["ratio"] == 1.5 and "z3_ms" not in v3
    assert k4 == "lesson05c.v_zero_step" and v4["z3_ms"] == pytest.approx(30)


def test_schedule_verdicts_follow_the_measurement():
    def row(name, idle, alive, rule):
        return {"schedule": name, "micro_batches": 4, "idle": idle, "formula": 0.2, "alive": alive,
                "alive_rule": rule, "activation_bytes": [2048, 1024], "stages": 2}

    near = V.schedule_verdicts_noise([row("gpipe", 0.25, [4, 4], [4, 4]), row("1f1b", 0.22, [2, 1], [2, 1])])
    assert [k for k, _, _ in near] == ["lesson05c.v_sched_alive", "lesson05c.v_sched_alive",
                                    "lesson05c.v_sched_idle"]
    far = V.schedule_verdicts_noise([row("gpipe", 0.7, [4, 4], [4, 4]), row("1f1b", 0.6, [3, 1], [2, 1])])
    assert [k for k, _, _ in far] == ["lesson05c.v_sched_alive", "lesson05c.v_sched_alive_off",
                                   "lesson05c.v_sched_idle_overhead"]


@pytest.mark.parametrize("g, o, key, lower", [
    (0.29, 0.19, "lesson05c.v_sched_idle_differ", "1F1B"),  # measured here (lab, M = 8, formula 11%)
    (0.15, 0.24, "lesson05c.v_sched_idle_differ", "GPipe"),
    (0.20, 0.22, "lesson05c.v_sched_idle", None),           # within 5 points: the same, as the formula says
])
def test_an_idle_difference_is_never_called_the_same_bubble(g, o, key, lower, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")

    def row(name, idle):
        return {"schedule": name, "micro_batches": 8, "idle": idle, "formula": 0.11, "alive": [1], "alive_rule": [1],
                "activation_bytes": [1024], "stages": 2}

    found, values, _ = V.schedule_verdicts_noise([row("gpipe", g), row("1f1b", o)])[-1]
    assert found == key
    text = P.t(found, **values)
    assert f"GPipe {g:.0%}, 1F1B {o:.0%}" in text
    if lower:
        assert f"here {lower} idled less" in text and "does not shrink the bubble" not in text


def test_cost_and_sweep_verdicts():
    assert V.cost_verdict([])[0] == "lesson05c.v_cost_missing"
    assert V.cost_verdict([("ddp", 1, 2, 2.5, 1.25), ("zero3", 1, 3, 4.5, 1.5)])[0] == "lesson05c.v_cost_close"
    key, values = V.cost_verdict([("ddp", 1, 2, 2.5, 1.25), ("zero3", 1, 3, 30, 10.0)])
    assert (key, values["name"], values["high"]) == ("lesson05c.v_cost_far", "zero3", 10.0)


QUIET_WINDOW = {"verdict": "quiet", "reasons": [], "cores": 2, "threads": 2, "other_cores": 0.05, "steal_cores": 0.0,
                "cores_free": 1.95}


def _sweep(allreduce_ms, compute_ms, tp_ms, widths=(64, 256, 1024, 2048), batch=32, spread=0.05):
    rows = []
    for w, a, c, tp in zip(widths, allreduce_ms, compute_ms, tp_ms):
        rows.append({"width": w, "allreduce_s": a / 1e3, "compute_s": c / 1e3, "tp_s": tp / 1e3, "single_s": 2 * c / 1e3,
                     "allreduce_bytes": batch * w * 4, "comm_share": a / (a + c),
                     "noise": V.row_noise(QUIET_WINDOW, spread, 7)})
    return rows


def test_issue27_flat_jumping_allreduce_is_noise_not_growth_with_width():
    """Issue 27: 4.7/1.3/3.6/2.0 ms over d = 64 -> 2048 was read as "the all-reduce grows only with
    the width"; it follows nothing, so it is said as noise (no cause), and the TP forward at d = 2048
    (45.7 ms) below its own slice's compute (48.7 ms) is flagged, not explained."""
    rows = _sweep([4.7, 1.3, 3.6, 2.0], [0.3, 2.5, 12.0, 48.7], [5.5, 4.0, 16.0, 45.7])
    assert V.allreduce_trend(rows) == "irregular"
    out = V.sweep_verdicts(rows)
    keys = [k for k, _, _ in out]
    assert keys == ["lesson05c.v_sweep_impossible", "lesson05c.v_sweep_ar_irregular"]
    assert all(m == [] for _, _, m in out)  # flags, not causes: nothing to hide behind a noise verdict
    assert out[0][1] == {"w": 2048, "tp": pytest.approx(45.7), "compute": pytest.approx(48.7)}
    en = P.t(out[1][0], lang="en", **out[1][1])
    assert "4.7, 1.3, 3.6, 2.0 ms" in en and "noise" in en and "grows" not in en
    assert "impossible" in P.t(out[0][0], lang="en", **out[0][1])


def test_flat_allreduce_is_latency_bound_and_growing_one_grows():
    flat = _sweep([1.1, 1.3, 1.2, 1.6], [0.3, 2.5, 12.0, 48.7], [1.5, 4.0, 13.5, 51.0])
    assert V.allreduce_trend(flat) == "flat"
    keys = [k for k, _, _ in V.sweep_verdicts(flat)]
    assert keys == ["lesson05c.v_sweep_ar_flat", "lesson05c.v_sweep_falls_compute"]
    assert "latency" in P.t(keys[0], lang="en", **V.sweep_verdicts(flat)[0][1])
    grows = _sweep([0.2, 0.7, 2.6, 5.5], [0.3, 2.5, 12.0, 48.7], [0.6, 3.3, 15.0, 55.0])
    assert V.allreduce_trend(grows) == "grows"
    assert [k for k, _, _ in V.sweep_verdicts(grows)] == ["lesson05c.v_sweep_ar_grows", "lesson05c.v_sweep_falls"]
    # a dip of more than 10 % on the way is not "grows"
    assert V.allreduce_trend(_sweep([0.2, 0.7, 0.5, 5.5], [1, 1, 1, 1], [2, 2, 2, 7])) == "irregular"
    assert V.sweep_verdicts(grows)[-1][0] == "lesson05c.v_sweep_falls"
    assert V.sweep_verdicts(grows[:1]) == []  # one width (the panel's run): no trend is read
    assert [k for k, _, _ in V.sweep_verdicts(_sweep([1.0], [5.0], [4.0], widths=(512,)))] == ["lesson05c.v_sweep_impossible"]
    rising_share = _sweep([1.0, 1.1, 1.2, 1.3], [2.0, 1.9, 1.5, 1.0], [3.1, 3.1, 2.8, 2.4])
    assert V.sweep_verdicts(rising_share)[-1][0] == "lesson05c.v_sweep_flat"


def test_a_noisy_sweep_row_turns_the_explanation_into_the_noisy_sentence(capsys):
    from fastrain_lib.core import verdicts
    from fastrain_lib.measure import rerun

    rows = _sweep([1.1, 1.3, 1.2, 1.6], [0.3, 2.5, 12.0, 48.7], [1.5, 4.0, 13.5, 51.0])
    rows[2]["noise"] = V.row_noise({**QUIET_WINDOW, "other_cores": 1.6}, 0.05, 7)  # a hog during the run
    assert rows[2]["noise"]["verdict"] == "noisy" and rows[0]["noise"]["verdict"] == "quiet"
    assert V.row_noise(QUIET_WINDOW, 0.6, 7)["reasons"] == ["spread"]  # the row's own repeats disagree
    V.say_sweep(rows)  # what the notebook's # VERDICT cell calls
    *said, offer = capsys.readouterr().out.splitlines()
    assert len(said) == 2 and all(line.startswith(verdicts.PREFIX + verdicts.NOISY_MARK) for line in said)
    assert offer == verdicts.PREFIX + P.t("rerun.offer", wait_s=rerun.wait_s())  # the next cell's one rerun
    assert [V.noise_word(r["noise"]) for r in rows][2] == P.t("noise.noisy_word")
    assert V.noise_word({}) == "—"


# --- where the workers' tensors live: GPUs over NCCL only with a GPU per process (issue 17) ---

H100_NODE = hardware.Facts("cuda", "NVIDIA H100 80GB HBM3", (9, 0), 8, 80 * 2**30, nccl=True)
COLAB_T4 = hardware.Facts("cuda", "Tesla T4", (7, 5), 1, 15 * 2**30, nccl=True)
RUNS = [(P.zero_runs, (2, 64)), (P.tp_runs, (2, 64)), (P.schedule_runs, (2, 64))]


@pytest.mark.parametrize("facts,processes,on_gpu", [(H100_NODE, 2, True), (H100_NODE, 8, True), (COLAB_T4, 2, False),
                                                    (COLAB_T4, 1, True), (hardware.Facts("cpu", "x"), 2, False)])
def test_each_run_asks_launch_for_gpu_tensors_exactly_when_every_process_has_a_gpu(monkeypatch, facts, processes,
                                                                                  on_gpu):
    """The panel's three runs pass tensors_on_cuda to launch from the machine's facts (launch then
    picks NCCL); they used to keep every tensor on the CPU over gloo, even on an 8-GPU node."""
    asked = []
    monkeypatch.setattr(hardware, "node_facts", lambda: facts)
    monkeypatch.setattr(P, "launch", lambda fn, n, **kw: asked.append((fn.__name__, n, kw["tensors_on_cuda"])) or [])
    for run, (_, width) in RUNS:
        run(processes, width)
    assert [a[2] for a in asked] == [on_gpu] * 3 and {a[1] for a in asked} == {processes}
    assert L.default_backend(processes, on_gpu) == ("nccl" if on_gpu else "gloo")


@pytest.mark.parametrize("processes", [1, 2])
def test_the_workers_report_the_device_and_backend_they_really_used(processes):
    """On this CPU-only machine every rank trains on the CPU over gloo, and one process alone (the
    path `make gpu-check` runs on a single GPU over NCCL) works for each worker too."""
    results = P.zero_runs(processes, 32, ("ddp", "zero2", "zero3"), depth=2)
    assert P.where_ran(results) == hardware.t("lesson05c.where_ran", n=processes, devices="cpu", backend="gloo")
    zero_rows = zero.table(results)
    assert {(r["device"], r["backend"]) for r in zero_rows} == {("cpu", "gloo")}
    assert all(r["max_error"] < 1e-5 for r in zero_rows)
    assert all(r["params_bytes"] + r["grads_bytes"] + r["optim_bytes"] == r["formula"]["total"] for r in zero_rows)
    tp = P.tp_runs(processes, 32)
    assert {(r["device"], r["backend"]) for r in tp} == {("cpu", "gloo")} and max(r["error"] for r in tp) < 1e-5
    sched = P.schedule_runs(processes, 32, (2,), ("gpipe",))
    assert {(r[0]["device"], r[0]["backend"]) for r in sched} == {("cpu", "gloo")}
    assert [r[0]["stage"] for r in sched] == list(range(processes))
    assert L.pids_alive(L.LAST_PIDS) == []


def test_every_strategy_shown_has_a_full_catalog_key():
    from fastrain_lib.core.i18n import CATALOG

    assert set(P.STRATEGIES) <= set(V.STRATEGY_KEYS) and set(zero.STRATEGIES) <= set(V.SHORT_KEYS)
    for table in (V.STRATEGY_KEYS, V.SHORT_KEYS, V.PART_KEYS):
        assert all(key in CATALOG for key in table.values())


def fake_launch(calls):
    """launch() as a stand-in: records the items asked for, answers per rank like the real workers."""
    def launch(fn, n, *, args, **kw):
        calls.append((fn.__name__, args))
        if fn.__name__ == "zero_worker":
            return [[{"strategy": s, "rank": r} for s in args[0]] for r in range(n)]
        if fn.__name__ == "schedules_worker":
            return [[{"schedule": s, "micro_batches": m, "rank": r} for m in args[0] for s in args[1]] for r in range(n)]
        return [{"rank": r, "sweep": [{"width": w} for w in args[0]["widths"]]} for r in range(n)]
    return launch


def test_a_lab_run_launches_once_per_item_and_joins_them_like_one_launch(monkeypatch):
    """Issue 27: in lab mode each strategy, width and schedule is its own launch behind a progress
    bar; the joined result has one launch's shape, and each item keeps the load of its own launch."""
    calls, windows = [], iter(range(100))
    monkeypatch.setattr(P, "launch", fake_launch(calls))
    monkeypatch.setattr(P.noise.Window, "assess", lambda self, **kw: {"verdict": "quiet", "id": next(windows)})
    zero_results = P.zero_runs(2, 64, ("ddp", "zero1", "zero3"), per_item=True)
    assert [c[1][0] for c in calls] == [("ddp",), ("zero1",), ("zero3",)]
    assert [[x["strategy"] for x in rank] for rank in zero_results] == [["ddp", "zero1", "zero3"]] * 2
    assert [x["window"]["id"] for x in zero_results[1]] == [0, 1, 2]
    calls.clear()
    tp = P.tp_runs(2, 64, widths=(64, 256, 1024), per_item=True)
    assert [c[1][0]["widths"] for c in calls] == [(64,), (256,), (1024,)]
    assert [[p["width"] for p in r["sweep"]] for r in tp] == [[64, 256, 1024]] * 2
    assert [p["window"]["id"] for p in tp[0]["sweep"]] == [3, 4, 5]
    calls.clear()
    sched = P.schedule_runs(2, 64, (1, 4), ("gpipe", "1f1b"), per_item=True)
    assert [c[1][:2] for c in calls] == [((1,), ("gpipe",)), ((4,), ("gpipe",)), ((4,), ("1f1b",))]  # 1F1B needs M ≥ K
    assert [(x["micro_batches"], x["schedule"]) for x in sched[0]] == [(1, "gpipe"), (4, "gpipe"), (4, "1f1b")]
    calls.clear()
    P.zero_runs(2, 64, ("ddp", "zero3"))  # ci mode (the tests' mode): one launch for the whole comparison
    assert len(calls) == 1


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_the_zero_table_gets_the_suites_quiet_rows_at_its_width(tmp_path, monkeypatch, lang):
    """A busy PC's ZeRO step times are noisy; the suite's zero family (benchmarks/zero.py) runs the same workers
    at the lesson's width quietly on named hardware, and its rows join the table, labelled with that hardware.
    A run at another width (the other run mode's) adds nothing: its steps are not comparable."""
    from fastrain_lib.core.i18n import t
    from fastrain_lib.lessons.l05c_sharding_and_pipelines import panel as P
    from fastrain_lib.measure import bench, reference

    monkeypatch.setenv("FASTRAIN_LANG", lang)
    meta = {"cpu_name": "AMD EPYC", "cpu_cores": 2, "cpu_bf16": True, "date": "2026-12-07T19:45:00+00:00",
            "mode": "lab"}
    quiet = {"verdict": "quiet", "reasons": []}
    metrics = {"params_bytes": 2**20, "grads_bytes": 2**19, "optim_bytes": 2**21, "formula_bytes": 3.5 * 2**20,
               "payload_bytes": 2**20, "max_error": 6e-7}

    def record(strategy, width, step_s):
        return bench.Record(f"zero {strategy}", step_s, times_s=[step_s] * 3, meta=meta, noise=quiet, metrics=metrics,
                            params={"family": "zero", "strategy": strategy, "processes": 2, "width": width})

    assert P.reference_zero_rows(256, tmp_path) == []
    bench.save_records([record("zero3", 256, 0.0296), record("zero3", 128, 0.01)],
                       tmp_path / "cpu-amd-epyc-2c_20261207-1945_lab.json")
    (row,) = P.reference_zero_rows(256, tmp_path)
    label = t("reference.row", what=P.strategy_label("zero3"), run=reference.runs(tmp_path)[0].label)
    assert row == (label, 1.0, 0.5, 2.0, 3.5, 3.5, 1.0, pytest.approx(29.6), "6.0e-07", t("noise.quiet_word"))
    assert "AMD EPYC" in row[0] and ("রেফারেন্স" if lang == "bn" else "reference") in row[0]
