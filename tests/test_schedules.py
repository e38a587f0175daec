"""GPipe vs 1F1B with torch.distributed.pipelining: the schedules on paper, and measured on
real processes (same weights as one process; live micro-batches and activation bytes per
stage as each schedule's rule says; measured idle never below the bubble formula)."""

import itertools

import numpy as np
import pytest
from _processes import live_children

from fastrain_lib.distributed import launch, pipeline, schedules
from fastrain_lib.distributed import launcher as L

CFG = {"width": 32, "batch": 32, "steps": 3, "layers_per_stage": 1}
# a whole launch's limit: CI runs this on 2 cores beside another test worker and the loaded-lesson
# test's background hog, where starting and importing torch in each rank alone can take a minute
LOADED_TIMEOUT_S = 300


@pytest.mark.parametrize("k, m", [(2, 2), (2, 4), (3, 3), (3, 8), (4, 4), (4, 7)])
def test_1f1b_on_paper(k, m):
    events = schedules.ideal_1f1b(k, m)
    assert sorted((e["stage"], e["kind"], e["micro"]) for e in events) == sorted(
        (s, kind, mb) for s in range(k) for kind in "FB" for mb in range(m))
    done = {(e["stage"], e["kind"], e["micro"]): e for e in events}
    for (s, kind, mb), e in done.items():  # causal: input ready before the work starts
        before = done.get((s - 1, "F", mb)) if kind == "F" else done.get((s + 1, "B", mb), done[(s, "F", mb)])
        if before is not None and before is not e:
            assert e["start"] >= before["end"]
    for s in range(k):  # one stage does one thing at a time
        mine = sorted((e for e in events if e["stage"] == s), key=lambda e: e["start"])
        assert all(a["end"] <= b["start"] for a, b in itertools.pairwise(mine))
    # the same bubble as GPipe, (K−1)/(M+K−1), but at most K−k micro-batches alive on stage k
    gpipe = pipeline.ideal_schedule(k, m)
    assert pipeline.idle_share(events, k) == pytest.approx(pipeline.bubble_fraction(k, m))
    assert pipeline.idle_share(gpipe, k) == pytest.approx(pipeline.bubble_fraction(k, m))
    assert [schedules.alive_over_time(events, s) for s in range(k)] == [min(m, k - s) for s in range(k)]
    assert [schedules.alive_over_time(gpipe, s) for s in range(k)] == [m] * k


def test_peak_rule():
    assert schedules.peak_alive("gpipe", 4, 16, 0) == 16
    assert [schedules.peak_alive("1f1b", 4, 16, s) for s in range(4)] == [4, 3, 2, 1]
    assert schedules.peak_alive("1f1b", 4, 2, 0) == 2


@pytest.fixture(scope="module")
def measured():
    results = launch(schedules.schedules_worker, 2, args=((1, 4), schedules.SCHEDULES, CFG), threads=1,
                     timeout_s=LOADED_TIMEOUT_S)
    yield results
    assert L.pids_alive(L.LAST_PIDS) == []
    assert live_children() == []


def _rows(measured):
    return {(r["schedule"], r["micro_batches"]): r for r in schedules.summary(measured)}


def test_both_schedules_train_like_one_process(measured):
    for i, first in enumerate(measured[0]):
        cfg = {**schedules.DEFAULTS, **CFG, "micro_batches": first["micro_batches"]}
        reference = pipeline.reference_step(2, cfg)
        for rank in measured:
            for got, want in zip(rank[i]["params"], reference[rank[i]["stage"]]):
                np.testing.assert_allclose(got, want, atol=1e-5)


def test_live_micro_batches_and_activation_bytes(measured):
    rows = _rows(measured)
    assert set(rows) == {("gpipe", 1), ("gpipe", 4), ("1f1b", 4)}  # 1F1B needs M ≥ K
    gpipe, one_f = rows[("gpipe", 4)], rows[("1f1b", 4)]
    assert gpipe["alive"] == gpipe["alive_rule"] == [4, 4]
    assert one_f["alive"] == one_f["alive_rule"] == [2, 1]
    # activation bytes: GPipe keeps all 4 micro-batches, 1F1B 2 on stage 0 and 1 on stage 1
    g, o = gpipe["activation_bytes"], one_f["activation_bytes"]
    assert o[0] == pytest.approx(g[0] / 2, rel=0.05)
    assert o[1] == pytest.approx(g[1] / 4, rel=0.05)
    one = rows[("gpipe", 1)]["activation_bytes"]
    assert g[0] == pytest.approx(one[0], rel=0.05)  # the same batch: 4 small pieces alive = 1 whole one


def test_measured_idle_never_beats_the_bubble(measured):
    # The formula's bubble falls with M: (K−1)/(M+K−1) = 0.5 for M=1, 0.2 for M=4. Measured on
    # gloo between CPU processes it does not fall here (GPipe idle 0.67-0.80 at M=4 against
    # 0.67-0.69 at M=1, width 32; 0.52 against 0.53 at width 512): each micro-batch costs its
    # own send/recv round trips, which the formula leaves out, and the lesson says so. What
    # must hold on any machine, busy or not: no schedule idles less than its bubble.
    rows = _rows(measured)
    m1, m4 = rows[("gpipe", 1)], rows[("gpipe", 4)]
    assert m1["formula"] == 0.5 and m4["formula"] == 0.2
    for (schedule, micro), row in rows.items():
        assert row["idle"] >= row["formula"] - 0.05, (schedule, micro, row["idle"], row["formula"])
    assert m1["idle"] >= 0.4  # with one micro-batch a stage can never overlap another




def test_the_measured_timeline_is_causal_on_one_clock(measured):
    """What lesson 05c's Gantt chart draws must be possible: stage 1 starts a micro-batch's forward
    only after stage 0 finished it, and stage 0 starts its backward only after stage 1's backward of
    it. (On one quiet machine the ranks' clocks agree to well under 1 ms after the barrier, so this
    guards the timing wrappers and labels; the clock shift itself matters under load or across nodes.)"""
    for i, first in enumerate(measured[0]):
        for step in range(len(first["all_events"])):
            ev = {(e["stage"], e["kind"], e["micro"]): e for rank in measured for e in rank[i]["all_events"][step]}
            for m in range(first["micro_batches"]):
                assert ev[(1, "F", m)]["start"] >= ev[(0, "F", m)]["end"] - 1e-3, (first["schedule"], step, m)
                assert ev[(0, "B", m)]["start"] >= ev[(1, "B", m)]["end"] - 1e-3, (first["schedule"], step, m)
