"""Panels of lessons 00 and 02 report what they measured (not only that they build)."""

import math

import pytest

from fastrain_lib.lessons.l00_setup import panel as lesson00
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l02_to_device import panel as lesson02
from fastrain_lib.measure import noise


def test_lesson00_gflops_are_2n3_over_the_measured_median():
    outcome = lesson00.matmul_experiment(128, "fp32")
    assert [row[1] for row in outcome.rows] == [64, 128] * (len(outcome.rows) // 2)
    for (device, n, ms, gflops, mark), record in zip(outcome.rows, outcome.records):
        assert record.params["size"] == n and ms == pytest.approx(record.median_s * 1e3)
        assert mark == t("noise.noisy_word" if record.noisy else "noise.quiet_word")  # each row's noise verdict
        assert gflops == pytest.approx(2 * n**3 / record.median_s / 1e9, rel=1e-6)
    bf16 = lesson00.matmul_experiment(64, "bf16")
    assert all(r.params["dtype"] == "bfloat16" for r in bf16.records)


@pytest.mark.parametrize("batch_size, steps", [(16, 4), (32, 2), (64, 1)])
def test_lesson02_runs_see_the_same_samples_whatever_the_batch(batch_size, steps):
    """A fair comparison: every batch size trains on the same 64 samples, in fewer, bigger steps."""
    result = lesson02.training_run("cpu", batch_size, num_workers=0, pin_memory=False, samples=64)
    assert len(result["losses"]) == steps and result["samples"] == 64
    assert result["x"] == [batch_size * (i + 1) for i in range(steps)]
    assert all(math.isfinite(v) for v in result["losses"])
    assert 0 < result["startup_s"] <= result["seconds"]


def test_lesson02_panel_row_matches_its_record():
    outcome = lesson02.speed_experiment("cpu", 64, 0, False)
    (row,), (record,) = outcome.rows, outcome.records
    assert row[0] == "cpu" and row[1] == 64 and row[4] == record.metrics["samples_per_s"] > 0
    assert row[6] == record.metrics["final_loss"] and record.params["samples"] % 64 == 0
    # every run carries its noise verdict: in the row, in the history bars, and in the note when noisy
    assert record.noise["verdict"] in ("quiet", "noisy")
    assert row[7] == t("noise.noisy_word" if record.noisy else "noise.quiet_word")
    assert lesson02.HISTORY[-1][2] == record.noisy
    assert (noise.sentence(record.noise) in outcome.note) == record.noisy


def test_lesson02_panel_marks_a_run_beside_a_real_load_noisy():
    with noise.hog(2, max_seconds=60):
        outcome = lesson02.speed_experiment("cpu", 64, 0, False)
    (record,) = outcome.records
    assert record.noisy and noise.sentence(record.noise) in outcome.note
    assert outcome.rows[0][7] == t("noise.noisy_word")
