"""Shared test set-up: tiny workloads and a non-interactive matplotlib."""

import os

os.environ.setdefault("FASTRAIN_MODE", "ci")
os.environ.setdefault("MPLBACKEND", "Agg")


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _no_forkserver_left_between_files():
    """Exercise checks run their ranks from a forkserver that lives as long as its process: in a
    pytest worker it would outlive the file that started it, and every later test that asserts
    'no child process left' would find it (5 such failures in one suite run)."""
    yield
    launcher = sys.modules.get("fastrain_lib.distributed.launcher")
    if launcher is not None:
        launcher.stop_forkserver()
