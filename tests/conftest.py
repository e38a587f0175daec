"""Shared test set-up: tiny workloads and a non-interactive matplotlib."""

import os

os.environ.setdefault("FASTRAIN_MODE", "ci")
os.environ.setdefault("MPLBACKEND", "Agg")
# PyTorch's OpenMP threads spin after each parallel region while they wait for work (libgomp's
# default). make test runs more workers than cores, so a spinning thread mostly burns the core a
# descheduled sibling or another worker needs: lesson 04 beside two busy processes took 55 CPU-s
# by default, 32 with PASSIVE, and 65 s -> 43 s (issue 29). Tests check what lessons say, not
# how fast the threads hand over; kernels, servers and gloo workers inherit this.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Inductor compiles in a pool of worker processes (one per core), each importing torch: on 2 cores that
# make test keeps busy the pool only adds work. Lesson 04 with a cold cache took 69.5 CPU-s with the pool
# and 61.7 with compiling in the kernel itself (2026-12-07); the code it generates is the same.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")


import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

# tests/ on the path for the shared helpers (_processes, _nbrun) however pytest was started
# (gpu-check runs it from a bare Python with its own rootdir and import mode)
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True, scope="module")
def _each_file_cleans_up_its_processes(request):
    """Exercise checks run their ranks from a forkserver that lives as long as its process: in a
    pytest worker it would outlive the file that started it. Stop it when the file ends, and name
    any other child process the file left behind (a leak to fix), without failing later files."""
    import time

    try:
        import _processes
    except ImportError:  # a partial copy of tests/ (gpu-check's end-to-end test copies a few files)
        _processes = None
    if _processes is not None:
        _processes.FILE_STARTED = time.time()
    yield
    launcher = sys.modules.get("fastrain_lib.distributed.launcher")
    if launcher is not None:
        launcher.stop_forkserver()
    if _processes is None:
        return
    time.sleep(0.2)
    left = []
    for child in _processes.live_children():
        try:
            left.append(" ".join(child.cmdline())[:200])
        except Exception:  # noqa: BLE001 - it ended meanwhile
            pass
    if left:
        request.node.warn(pytest.PytestWarning(f"{request.node.nodeid} left {len(left)} process(es): {left}"))


def _schedule_module():
    try:
        import _schedule
    except ImportError:  # a partial copy of tests/ (gpu-check's end-to-end test): pytest's own order
        return None
    return _schedule


def pytest_collection_modifyitems(config, items):
    """The slowest files first (_schedule.RUN_FIRST); the rest keep their order (a stable sort)."""
    schedule = _schedule_module()
    if schedule is not None:
        items.sort(key=lambda item: schedule.order_key(item.nodeid))


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: no error where it is not installed
def pytest_xdist_make_scheduler(config, log):
    """-n 2 --dist loadfile with the slowest files first and the notebook-per-test files split."""
    schedule = _schedule_module()
    return None if schedule is None else schedule.make_scheduler(config, log)
