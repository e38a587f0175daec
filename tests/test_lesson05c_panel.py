"""Lesson 05c's panel: a click runs real processes and shows what they measured — bytes per
rank equal to the formula, the tensor-parallel output equal to one process, the live
micro-batches of each pipeline schedule — and leaves no process behind."""

import pytest
from _processes import live_children

from fastrain_lib import dashboard
from fastrain_lib.distributed import launcher as L
from fastrain_lib.distributed import zero
from fastrain_lib.panels import lesson05c as P


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
    panel.run(strategy="zero2", processes=2, width=64, micro_batches=4)  # the same setting: from the cache
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
