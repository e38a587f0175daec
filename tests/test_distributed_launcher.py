"""The notebook launcher: results come back, failures reach the caller fast, nothing survives."""

import time

import pytest
from _processes import live_children

from fastrain_lib.distributed import WorkerError, launch
from fastrain_lib.distributed import launcher as L


def _assert_no_survivors():
    assert L.LAST_PIDS, "the launcher did not record its processes"
    assert L.pids_alive(L.LAST_PIDS) == []
    assert live_children() == []


def test_results_come_back_in_rank_order():
    results = launch(L.whoami, 3, timeout_s=60)
    assert [r["rank"] for r in results] == [0, 1, 2]
    assert all(r["sum_of_ranks"] == 3.0 and r["backend"] == "gloo" for r in results)
    assert len({r["pid"] for r in results}) == 3  # three real processes
    _assert_no_survivors()


def test_an_exception_names_the_rank_and_its_traceback():
    with pytest.raises(WorkerError) as info:
        launch(L.fail_on, 2, args=(1,), timeout_s=60)
    err = info.value
    assert err.kind == "error" and err.rank == 1
    assert "র‍্যাঙ্ক 1" in str(err) and "shape mismatch" in str(err) and "Traceback" in str(err)
    _assert_no_survivors()


def test_a_killed_rank_is_reported_within_the_timeout():
    timeout = 40.0
    start = time.monotonic()
    with pytest.raises(WorkerError) as info:
        launch(L.kill_self, 2, args=(1,), timeout_s=timeout)
    assert time.monotonic() - start < timeout + 6  # + the time to stop the others
    assert info.value.kind == "died" and info.value.rank == 1
    assert "SIGKILL" in str(info.value)
    _assert_no_survivors()


def test_a_hung_rank_never_hangs_the_caller():
    timeout = 8.0
    start = time.monotonic()
    with pytest.raises(WorkerError) as info:
        launch(L.hang, 2, args=(1,), timeout_s=timeout)
    elapsed = time.monotonic() - start
    assert timeout <= elapsed < timeout + 8
    assert info.value.kind == "timeout" and "1" in str(info.value)
    _assert_no_survivors()


def test_bad_arguments_fail_early_in_bengali():
    with pytest.raises(ValueError, match="world_size"):
        launch(L.whoami, 0)

    def local_fn(rank, world_size):
        return rank

    with pytest.raises(ValueError, match="মডিউলে"):
        launch(local_fn, 2)


def test_free_port_is_a_usable_port():
    port = L.free_port()
    assert 1024 <= port <= 65535
    assert L.default_backend(2) == "gloo"  # CPU-tensor workers: gloo on every machine


def test_backend_on_a_simulated_8_gpu_machine(monkeypatch):
    """CPU-tensor workers (whoami, ring, pipeline) got NCCL on multi-GPU machines and crashed:
    NCCL cannot reduce CPU tensors. Only CUDA-tensor workers with a GPU each may use it."""
    from fastrain_lib.measure import hardware

    eight = hardware.Facts("cuda", "NVIDIA H100 80GB HBM3", (9, 0), 8, 80 * 2**30, nccl=True)
    monkeypatch.setattr(hardware, "cuda_available", lambda: True)
    monkeypatch.setattr(hardware, "facts", lambda device=None: eight)
    assert L.default_backend(2) == "gloo"
    assert L.default_backend(2, tensors_on_cuda=True) == "nccl"
    assert L.default_backend(9, tensors_on_cuda=True) == "gloo"  # more processes than GPUs


def test_threads_per_rank_follows_the_hardware_policy():
    from fastrain_lib.measure import hardware

    assert L.threads_per_rank(2) == hardware.threads_for(2) >= 1


def test_forkserver_start_method_gives_fresh_processes_and_the_same_guarantees():
    """The exercise checks' fast path (checks/ranks.py) goes through this same launcher."""
    try:
        first = launch(L.whoami, 2, timeout_s=60, start_method="forkserver", preload=("torch", "torch.distributed"))
        again = launch(L.whoami, 2, timeout_s=60, start_method="forkserver")
        assert [r["rank"] for r in first] == [0, 1] and all(r["sum_of_ranks"] == 1.0 for r in first)
        assert not {r["pid"] for r in first} & {r["pid"] for r in again}  # every call: new processes
        _assert_no_survivors_of_the_job()
        with pytest.raises(WorkerError) as info:
            launch(L.fail_on, 2, args=(1,), timeout_s=60, start_method="forkserver")
        assert info.value.kind == "error" and info.value.rank == 1 and "shape mismatch" in str(info.value)
        _assert_no_survivors_of_the_job()
    finally:
        L.stop_forkserver()
    assert live_children(forkserver=True) == []  # the helper itself is gone too
    with pytest.raises(ValueError, match="start_method"):
        launch(L.whoami, 2, start_method="fork")  # forking a kernel that runs threads can deadlock


@pytest.mark.parametrize("tensors_on_cuda, available, expected", [
    (False, ["fork", "spawn", "forkserver"], "forkserver"),   # Linux (Python 3.11-3.13)
    (False, ["spawn", "fork", "forkserver"], "forkserver"),   # macOS
    (False, ["spawn"], "spawn"),                             # Windows: no forkserver
    (True, ["fork", "spawn", "forkserver"], "spawn"),         # CUDA work: a fresh process, never a forked CUDA state
    (True, ["spawn"], "spawn"),
])
def test_the_start_method_is_forkserver_only_for_cpu_work_where_the_os_has_it(tensors_on_cuda, available, expected):
    assert L.start_method_for(tensors_on_cuda, available) == expected


def test_a_default_cpu_launch_forks_its_ranks_from_the_helper_with_the_callers_environment(monkeypatch):
    """Ranks start in a fraction of a second (forked from a helper that imported torch once), yet
    behave as spawned ones: a variable the caller sets after the helper started reaches every rank,
    and one the caller removed is gone."""
    import os

    from _processes import environment_of

    monkeypatch.setenv("FASTRAIN_TEST_GONE", "still here")
    try:
        launch(L.whoami, 2, timeout_s=120)  # starts the helper with this environment
        monkeypatch.setenv("FASTRAIN_LANG", "en")
        monkeypatch.setenv("FASTRAIN_TEST_MARK", "set after the helper started")
        monkeypatch.delenv("FASTRAIN_TEST_GONE")
        seen = launch(environment_of, 2, args=(["FASTRAIN_LANG", "FASTRAIN_TEST_MARK", "FASTRAIN_TEST_GONE"],),
                      timeout_s=120)
        helpers = live_children(forkserver=True)
        assert [s["env"] for s in seen] == [["en", "set after the helper started", None]] * 2
        assert all(s["parent"] != os.getpid() for s in seen)  # forked by the helper, not by us
        assert [h.pid for h in helpers if "multiprocessing.forkserver" in " ".join(h.cmdline())] == \
            [seen[0]["parent"]] == [seen[1]["parent"]]
        _assert_no_survivors_of_the_job()
    finally:
        L.stop_forkserver()
    assert live_children(forkserver=True) == []


def _assert_no_survivors_of_the_job():
    assert L.LAST_PIDS and L.pids_alive(L.LAST_PIDS) == []


def test_a_port_taken_between_free_port_and_rank_0_is_retried_once(monkeypatch):
    """A clean-clone suite run failed lesson 05b with EADDRINUSE: free_port() closes its socket before
    rank 0 binds the port, and a Jupyter kernel starting beside it took the port in between."""
    import socket

    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    ports = [taken.getsockname()[1]]
    real_free_port = L.free_port

    def first_taken_then_free():
        return ports.pop(0) if ports else real_free_port()

    monkeypatch.setattr(L, "free_port", first_taken_then_free)
    try:
        assert [r["rank"] for r in launch(L.whoami, 2, timeout_s=60)] == [0, 1]
    finally:
        taken.close()
    assert ports == []  # the taken port was tried first
    # any other failure is not retried: it is the student's or the course's error
    with pytest.raises(WorkerError) as err:
        launch(L.fail_on, 2, args=(1,), timeout_s=60)
    assert err.value.rank == 1
