"""Shared by the multi-process tests: which of our child processes are still alive?"""

import psutil


def live_children() -> list[psutil.Process]:
    """Child processes of this test process, except multiprocessing's resource tracker
    (a helper Python starts once for Locks/queues and keeps until exit)."""
    kids = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(child.cmdline()):
                kids.append(child)
        except psutil.NoSuchProcess:
            pass
    return kids
