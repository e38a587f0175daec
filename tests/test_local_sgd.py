"""Local SGD in real gloo processes: H = 1 is synchronous averaging, the all-reduces counted in
the worker are ceil(steps / H), every rank ends on the same weights, DiLoCo's outer step with
lr 1 and no momentum is plain averaging, and no process survives."""

import math

import pytest
import torch
from _processes import live_children

from fastrain_lib.async_sgd import problems
from fastrain_lib.distributed import launcher
from fastrain_lib.async_sgd import local_sgd as L


@pytest.fixture(scope="module")
def problem():
    return problems.make_problem("blobs", 600, n_eval=200)


@pytest.fixture(scope="module")
def runs(problem):
    return L.run(L.LocalSGDConfig(workers=2, steps=30, periods=(1, 4, 7), lr=0.1, seed=1), problem)


def test_h1_equals_synchronous_data_parallel_sgd(problem, runs):
    reference = L.synchronous_reference(problem, workers=2, steps=30, batch_size=32, lr=0.1, seed=1)
    assert torch.allclose(runs[1].theta, reference, atol=1e-5)
    assert not torch.allclose(runs[7].theta, reference, atol=1e-5)  # H = 7 is really different


def test_measured_communication_is_steps_over_h(runs):
    for period, r in runs.items():
        assert r.rounds == math.ceil(30 / period) == L.rounds(30, period)
        assert r.all_rounds == [r.rounds, r.rounds]
        assert r.total_bytes == r.rounds * r.theta.numel() * 4
    assert runs[1].rounds == 30 and runs[4].rounds == 8 and runs[7].rounds == 5  # 30 = 4*7 + 2: one more


def test_every_rank_ends_on_the_same_average(runs):
    for r in runs.values():
        assert torch.equal(r.all_thetas[0], r.all_thetas[1])
        assert r.comms[-1] == r.rounds and r.steps[-1] == 30
        assert r.final_loss < r.losses[0]
    assert runs[1].drift and max(runs[7].drift) > max(runs[1].drift)  # longer alone, further apart


def test_diloco_outer_step(problem, runs):
    plain = L.run(L.LocalSGDConfig(workers=2, steps=30, periods=(7,), lr=0.1, seed=1, outer_lr=1.0,
                                   outer_momentum=0.0), problem)
    assert torch.equal(plain[7].theta, runs[7].theta)
    nesterov = L.run(L.LocalSGDConfig(workers=2, steps=30, periods=(7,), lr=0.1, seed=1, outer_lr=0.7,
                                      outer_momentum=0.9), problem)
    assert not torch.allclose(nesterov[7].theta, runs[7].theta)
    assert nesterov[7].rounds == 5
    assert launcher.pids_alive(launcher.LAST_PIDS) == [] and live_children() == []


def test_schedule_and_bad_settings():
    assert [s for s in range(10) if L.averages_after(s, 10, 4)] == [3, 7, 9]
    assert sum(L.averages_after(s, 10, 4) for s in range(10)) == L.rounds(10, 4) == 3
    with pytest.raises(ValueError):
        L.LocalSGDConfig(periods=(0,)).check()
    with pytest.raises(ValueError):
        L.LocalSGDConfig(outer_momentum=1.0).check()


def test_table(runs):
    headers, rows = L.table(runs)
    assert [row[0] for row in rows] == [1, 4, 7] and [row[1] for row in rows] == [30, 8, 5]
    assert rows[0][2] == "0%" and rows[1][2] == f"{1 - 8 / 30:.0%}"
