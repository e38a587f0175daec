"""Shared test set-up: tiny workloads and a non-interactive matplotlib."""

import os

os.environ.setdefault("FASTRAIN_MODE", "ci")
os.environ.setdefault("MPLBACKEND", "Agg")


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _each_file_cleans_up_its_processes(request):
    """Exercise checks run their ranks from a forkserver that lives as long as its process: in a
    pytest worker it would outlive the file that started it. Stop it when the file ends, and name
    any other child process the file left behind (a leak to fix), without failing later files."""
    import time

    import _processes

    _processes.FILE_STARTED = time.time()
    yield
    launcher = sys.modules.get("fastrain_lib.distributed.launcher")
    if launcher is not None:
        launcher.stop_forkserver()
    time.sleep(0.2)
    left = []
    for child in _processes.live_children():
        try:
            left.append(" ".join(child.cmdline())[:200])
        except Exception:  # noqa: BLE001 - it ended meanwhile
            pass
    if left:
        request.node.warn(pytest.PytestWarning(f"{request.node.nodeid} left {len(left)} process(es): {left}"))
