"""Run a check's worker in several real processes (gloo), quickly enough to check often.

distributed.launch starts every rank with "spawn": a fresh Python that imports torch
(2–4 s of CPU per rank, far more on a busy lab machine). A check runs several small jobs
(world sizes 2 and 3, the student's answer and the reference), so here the ranks come
from a "forkserver": one helper process imports torch once, then forks a fresh,
single-threaded child for every rank in a fraction of a second. Each job still gets new
processes (nothing the student's code changes survives into the next job), its own
process group on a free port, a timeout, and every child is terminated, then killed.

The forkserver lives as long as the notebook kernel (and dies with it); `shutdown()`
stops it at once (the tests do, so no child process outlives them).
"""

from __future__ import annotations

import datetime
import os
import pickle
import queue as queue_module
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from ..distributed.launcher import free_port

LAST_PIDS: list[int] = []  # the latest job's process ids (tests check that none survives)
# Imported once by the forkserver, so no rank pays for them: DDP's first forward imports
# torch._dynamo (and sympy with it), several seconds per rank otherwise.
_PRELOAD = ["torch", "torch.distributed", "torch.nn.parallel", "torch._dynamo", "fastrain_lib.checks.lesson05"]


class RanksFailed(RuntimeError):
    """A rank raised (`tracebacks` has its text), died, or the job ran past its timeout."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


def _context():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def _die_with_parent() -> None:
    """Linux: the child gets SIGKILL when its parent dies (no orphan outlives a killed kernel)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _stop(processes) -> None:
    """Terminate, then kill, then join every child."""
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=2.0)
        if p.is_alive():
            p.kill()
            p.join(timeout=5.0)


def _entry(fn, rank: int, world_size: int, port: int, args: tuple, results, timeout_s: float) -> None:
    _die_with_parent()
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world_size),
                      LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world_size))
    torch.set_num_threads(1)  # 2–3 ranks share the cores of a lab PC
    torch.manual_seed(0)
    try:
        dist.init_process_group("gloo", rank=rank, world_size=world_size,
                                timeout=datetime.timedelta(seconds=timeout_s))
        results.put(("ok", rank, pickle.dumps(fn(rank, world_size, *args))))  # by value
    except BaseException:  # noqa: BLE001 - every failure must reach the parent
        results.put(("error", rank, traceback.format_exc()[-3000:]))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def run(fn, world_size: int, args: tuple = (), *, timeout_s: float = 60.0) -> list:
    """fn(rank, world_size, *args) in `world_size` forked processes; [result of rank 0, 1, ...].

    Raises RanksFailed when a rank raises, dies, or the job passes timeout_s."""
    ctx = _context()
    results = ctx.Queue()
    port = free_port()
    processes, done, errors = [], {}, {}
    try:
        for rank in range(world_size):
            p = ctx.Process(target=_entry, args=(fn, rank, world_size, port, args, results, timeout_s), daemon=True)
            p.start()
            processes.append(p)
        LAST_PIDS[:] = [p.pid for p in processes]
        deadline = time.monotonic() + timeout_s
        while len(done) < world_size and not errors and time.monotonic() < deadline:
            try:
                status, rank, payload = results.get(timeout=0.05)
                (done if status == "ok" else errors)[rank] = payload
            except queue_module.Empty:
                if any(p.exitcode not in (None, 0) for p in processes):
                    time.sleep(0.2)  # a last chance for its traceback to arrive
                    if results.empty():
                        break
        if len(done) == world_size:
            return [pickle.loads(done[r]) for r in range(world_size)]
        if errors:
            rank = min(errors)
            raise RanksFailed("error", f"rank {rank}:\n{errors[rank]}")
        dead = [r for r, p in enumerate(processes) if p.exitcode not in (None, 0)]
        if dead:
            raise RanksFailed("died", f"rank {dead[0]} exit code {processes[dead[0]].exitcode}")
        raise RanksFailed("timeout", f"{timeout_s:g} s")
    finally:
        _stop(processes)
        results.close()
        results.join_thread()


def shutdown() -> None:
    """Stop the forkserver helper process now (it would otherwise live until the kernel ends)."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    if server is not None and hasattr(server, "_stop"):
        server._stop()
