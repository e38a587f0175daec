"""Shared by the multi-process tests: which of our child processes are still alive, and a command run
as a process group that is never left behind."""

import os
import signal
import subprocess

import psutil

# When the current test file started (conftest sets it): a process left by an earlier file in the
# same pytest-xdist worker is that file's leak, reported there, not a failure of every later file.
FILE_STARTED = 0.0


def live_children(since: float | None = None, forkserver: bool = False) -> list[psutil.Process]:
    """Child processes of this test process started since this test file began, except
    multiprocessing's resource tracker (a helper Python starts once for Locks/queues and keeps)
    and, unless forkserver=True, the launcher's forkserver helper (it lives until stop_forkserver
    or until this process ends, by design). The ranks it forked are its children: they count."""
    since = FILE_STARTED if since is None else since
    helpers = ("resource_tracker",) if forkserver else ("resource_tracker", "multiprocessing.forkserver")
    kids = []
    for child in psutil.Process().children(recursive=True):
        try:
            command = " ".join(child.cmdline())
            if not any(helper in command for helper in helpers) and child.create_time() >= since - 1.0:
                kids.append(child)
        except psutil.NoSuchProcess:
            pass
    return kids


def environment_of(rank: int, world_size: int, names: list[str]) -> dict:
    """A launch() worker: the rank's values of some environment variables, and its parent's pid."""
    return {"env": [os.environ.get(name) for name in names], "parent": os.getppid()}


def run_group(cmd: list[str], *, env: dict, cwd, timeout_s: float) -> tuple[int, str]:
    """Run `cmd` (torchrun and its workers) in a session of its own; on a timeout the whole group is
    killed, never left behind. (exit code, stdout and stderr together)"""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True, cwd=cwd)
    try:
        output, _ = proc.communicate(timeout=timeout_s)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, output
