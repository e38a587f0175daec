"""Hogwild in real processes: it trains, the lock variants work, nothing is left behind."""

import os

import pytest
import torch
from _processes import live_children

from fastrain_lib.async_sgd import problems
from fastrain_lib.async_sgd import hogwild as H


@pytest.fixture(scope="module")
def problem():
    return problems.make_problem("blobs", 600, n_eval=200)


def test_lock_free_hogwild_trains_and_leaves_no_process(problem):
    before = problem.initial_theta()
    r = H.train(2, lock=False, total_steps=120, problem=problem, lr=0.1, timeout_s=120)
    assert r.steps_per_worker == [60, 60] and len(r.batch_losses) == 120
    assert r.final_loss < r.eval_losses[0] and r.accuracy > 0.4
    assert r.train_time_s > 0 and r.eval_times == sorted(r.eval_times)
    assert 0 < r.grad_density <= 1
    assert torch.equal(problem.initial_theta(), before)  # the caller's model is not touched
    assert H.pids_alive(H.LAST_PIDS) == [] and live_children() == []


def test_locked_hogwild_in_real_processes(problem):
    r = H.train(2, lock="step", total_steps=60, problem=problem, lr=0.1, timeout_s=120)
    assert r.lock == "step" and r.final_loss < r.eval_losses[0]
    assert H.pids_alive(H.LAST_PIDS) == [] and live_children() == []


def _run_in_this_process(worker, problem, *extra):
    import copy
    import queue
    import threading

    model = copy.deepcopy(problem.model)
    before = [p.detach().clone() for p in model.parameters()]
    go, reports = threading.Event(), queue.Queue()
    go.set()
    worker(0, 1, model, problem.x, problem.y, 20, 16, 0.1, 0, go, reports, *extra)
    assert reports.get_nowait()[0] == "ready"
    kind, rank, payload = reports.get_nowait()
    assert kind == "done" and rank == 0 and len(payload["losses"]) == 20
    return before, model, payload


def test_lesson_cell_worker_and_locked_worker_in_this_process(problem):
    # lesson 06's saved cell (lock-free) and the library's locked copy, called directly (no spawn):
    # the same seed gives the same batches, so with one process every variant takes the same steps
    import threading

    before, free, free_out = _run_in_this_process(H.hogwild_worker, problem)
    assert any(not torch.equal(a, b) for a, b in zip(before, free.parameters()))  # it wrote the weights
    assert free_out["losses"][-1] < free_out["losses"][0] and free_out["times"] == sorted(free_out["times"])
    for scope in ("update", "step"):
        _, locked, out = _run_in_this_process(H.locked_worker, problem, threading.Lock(), scope)
        assert out["losses"] == pytest.approx(free_out["losses"])
        assert all(torch.allclose(a, b) for a, b in zip(free.parameters(), locked.parameters()))


def test_the_runner_starts_the_saved_cell_with_the_launchers_helper():
    from fastrain_lib.async_sgd import hogwild_worker
    from fastrain_lib.distributed import launcher

    assert H.hogwild_worker is hogwild_worker.hogwild_worker  # the copy `make sync` saved from lesson 06
    assert H.die_with_parent is launcher.die_with_parent  # one "dies with its parent" helper


def test_a_failing_worker_is_reported_with_its_traceback(monkeypatch):
    import queue

    monkeypatch.setattr(H, "die_with_parent", lambda: None)  # not for the test process itself
    threads = torch.get_num_threads()
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)

    def broken(rank, reports):
        raise ValueError("shape mismatch in worker")

    reports = queue.Queue()
    H._entry(broken, reports, 3, (reports,), dict(os.environ))
    kind, rank, text = reports.get_nowait()
    assert (kind, rank) == ("error", 3) and "ValueError: shape mismatch in worker" in text
    assert torch.get_num_threads() == threads


def test_bad_settings(problem):
    with pytest.raises(ValueError):
        H.train(0, problem=problem)
    with pytest.raises(ValueError):
        H.train(2, lock="sometimes", problem=problem)


def test_gradient_density_sees_sparsity(problem):
    dense = H.gradient_density(problem)
    assert dense > 0.9  # every feature of a Gaussian blob is non-zero
    sparse = H.sparse_problem(n=200, features=5000, active=5)
    assert H.gradient_density(sparse) < 0.1


def test_parent_evaluates_with_one_thread(problem, monkeypatch):
    # beside busy workers a 2-thread OpenMP team in the parent waits for a descheduled thread
    # (measured here at load ~6.5: Hogwild's training time 1.81 s with one thread, 3.17 s with two)
    seen = []
    real_loop = H._collect_loop

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real_loop(*args, **kwargs)

    monkeypatch.setattr(H, "_collect_loop", spy)
    before = torch.get_num_threads()
    H.train(2, lock=False, total_steps=40, problem=problem, lr=0.1, timeout_s=120)
    assert seen == [1] and torch.get_num_threads() == before
    assert H.pids_alive(H.LAST_PIDS) == [] and live_children() == []
