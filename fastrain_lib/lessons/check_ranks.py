"""Run a check's worker in several real processes (gloo), quickly enough to check often.

The processes come from the course's one launcher (distributed.launch), with its
"forkserver" start method where the OS has one (Windows has only "spawn", which the launcher
then picks: slower, each rank a fresh Python, but the same check): spawning a fresh Python per rank costs 2–4 s of CPU each (far
more on a busy lab machine), and a check runs several small jobs (world sizes 2 and 3, the
student's answer and the reference). A forkserver imports torch once, then forks a fresh,
single-threaded child for every rank in a fraction of a second. The launcher gives each job
new processes (nothing the student's code changes survives into the next job), its own
process group on a free port, a timeout, each rank's traceback, and stops every child.

What this module adds for checks: the preloaded modules, one thread and seed 0 per rank, a
result sent back as pickled bytes (tensors by value, never through shared memory that a
stopped rank would take with it), and RanksFailed (kind "error", "died" or "timeout").

The forkserver lives as long as the notebook kernel (and dies with it); `shutdown()`
stops it at once (the tests do, so no child process outlives them).
"""

from __future__ import annotations

import pickle

import torch

from fastrain_lib.distributed import launcher

LAST_PIDS: list[int] = []  # the latest job's process ids (tests check that none survives)
# Imported once by the forkserver, so no rank pays for them (when a check starts the helper first):
# the launcher's own preload, and lesson 05's checks that the ranks run.
_PRELOAD = launcher.PRELOAD + ("fastrain_lib.lessons.l05_data_vs_model_parallel.checks",)


class RanksFailed(RuntimeError):
    """A rank raised (`detail` has its traceback), died, or the job ran past its timeout."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


def _call(rank: int, world_size: int, fn, args: tuple) -> bytes:
    """What each rank runs (inside the launcher's process group): seed 0, fn, its result pickled."""
    torch.manual_seed(0)
    return pickle.dumps(fn(rank, world_size, *args))  # by value


def run(fn, world_size: int, args: tuple = (), *, timeout_s: float = 60.0) -> list:
    """fn(rank, world_size, *args) in `world_size` processes (forked from the forkserver, or spawned where
    there is none: Windows); [result of rank 0, 1, ...].

    Raises RanksFailed when a rank raises, dies, or the job passes timeout_s."""
    try:
        results = launcher.launch(_call, world_size, args=(fn, tuple(args)), backend="gloo", timeout_s=timeout_s,
                                  threads=1,  # 2–3 ranks share the cores of a lab PC
                                  # forkserver where the OS has it; spawn on Windows (a fresh Python per rank)
                                  start_method=None, preload=_PRELOAD)
    except launcher.WorkerError as exc:
        if exc.kind == "error":
            text = exc.tracebacks.get(exc.rank, str(exc))
            raise RanksFailed("error", f"rank {exc.rank}:\n{text[-3000:]}") from None
        if exc.kind == "died":
            raise RanksFailed("died", str(exc)) from None
        raise RanksFailed("timeout", f"{timeout_s:g} s") from None
    finally:
        LAST_PIDS[:] = launcher.LAST_PIDS
    return [pickle.loads(r) for r in results]


def shutdown() -> None:
    """Stop the forkserver helper process now (it would otherwise live until the kernel ends)."""
    launcher.stop_forkserver()
