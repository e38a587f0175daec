"""Shared by the multi-process tests: which of our child processes are still alive?"""

import psutil

# When the current test file started (conftest sets it): a process left by an earlier file in the
# same pytest-xdist worker is that file's leak, reported there, not a failure of every later file.
FILE_STARTED = 0.0


def live_children(since: float | None = None) -> list[psutil.Process]:
    """Child processes of this test process started since this test file began, except
    multiprocessing's resource tracker (a helper Python starts once for Locks/queues and keeps)."""
    since = FILE_STARTED if since is None else since
    kids = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(child.cmdline()) and child.create_time() >= since - 1.0:
                kids.append(child)
        except psutil.NoSuchProcess:
            pass
    return kids
