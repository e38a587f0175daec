"""Hogwild in real processes: it trains, the lock variant works, it starts through the course's one
launcher, and nothing is left behind."""

import pytest
import torch
import torch.distributed as dist
from _processes import live_children

from fastrain_lib.async_sgd import problems
from fastrain_lib.async_sgd import hogwild as H
from fastrain_lib.distributed.launcher import WorkerError


@pytest.fixture(scope="module")
def problem():
    return problems.make_problem("blobs", 600, n_eval=200)


def test_lock_free_hogwild_trains_and_leaves_no_process(problem):
    before = problem.initial_theta()
    r = H.train(2, lock=False, total_steps=121, problem=problem, lr=0.1, timeout_s=120)
    assert r.steps_per_worker == [61, 60] and len(r.batch_losses) == 121
    assert r.final_loss < r.initial_loss and r.accuracy > 0.4
    assert r.train_time_s > 0 and r.batch_times == sorted(r.batch_times) and r.batch_times[0] >= 0
    assert 0 < r.grad_density <= 1
    assert torch.equal(problem.initial_theta(), before)  # the caller's model is not touched
    assert H.pids_alive(H.LAST_PIDS) == [] and live_children() == []


def test_locked_hogwild_in_real_processes(problem):
    r = H.train(2, lock="update", total_steps=60, problem=problem, lr=0.1, timeout_s=120)
    assert r.lock == "update" and r.final_loss < r.initial_loss
    assert H.pids_alive(H.LAST_PIDS) == [] and live_children() == []


@pytest.fixture
def one_rank_group():
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    yield
    dist.destroy_process_group()


def test_lesson_cell_worker_with_and_without_a_lock_in_this_process(problem, one_rank_group):
    # lesson 06's saved cell called directly (no processes): the same seed gives the same batches,
    # so with one process the locked and the lock-free worker take the same steps
    import copy
    import threading

    from fastrain_lib.async_sgd.hogwild_worker import hogwild_worker

    outs = []
    for lock in (None, threading.Lock()):
        model = copy.deepcopy(problem.model)
        before = [p.detach().clone() for p in model.parameters()]
        out = hogwild_worker(0, 1, model, problem.x, problem.y, 20, 16, 0.1, 0, lock)
        assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))  # it wrote the weights
        assert len(out["losses"]) == 20 and out["times"] == sorted(out["times"]) and out["start"] <= out["times"][0]
        outs.append((out, model))
    (free, free_model), (locked, locked_model) = outs
    assert free["losses"][-1] < free["losses"][0] and locked["losses"] == pytest.approx(free["losses"])
    assert all(torch.allclose(a, b) for a, b in zip(free_model.parameters(), locked_model.parameters()))


def test_the_runner_starts_the_saved_cell_with_the_one_launcher():
    from fastrain_lib.async_sgd import hogwild_worker
    from fastrain_lib.distributed import launcher

    assert H.start_hogwild is hogwild_worker.start_hogwild  # the copy `make sync` saved from lesson 06
    assert hogwild_worker.launch is launcher.launch  # Hogwild starts its processes with the one launcher
    assert not hasattr(H, "_entry") and not hasattr(H, "_stop")  # and keeps no process loop of its own


def test_a_run_past_its_timeout_is_stopped_and_leaves_no_process(problem):
    with pytest.raises(WorkerError) as info:
        H.train(2, total_steps=10**8, problem=problem, timeout_s=3)
    assert info.value.kind == "timeout"
    assert H.pids_alive(H.LAST_PIDS) == [] and live_children() == []


def test_bad_settings(problem):
    with pytest.raises(ValueError):
        H.train(0, problem=problem)
    with pytest.raises(ValueError):
        H.train(2, lock="step", problem=problem)


def test_gradient_density_sees_sparsity(problem):
    dense = H.gradient_density(problem)
    assert dense > 0.9  # every feature of a Gaussian blob is non-zero
    sparse = H.sparse_problem(n=200, features=5000, active=5)
    assert H.gradient_density(sparse) < 0.1
