"""Run a function in several real processes, from a notebook or a script.

    from fastrain_lib.distributed import launch
    results = launch(worker, 2, args=(cfg,))   # [rank 0's result, rank 1's result]

Why this exists: `torchrun` is how a cluster starts training, but a notebook cannot
call it and get Python objects back. `launch` does the same job inside a notebook:

- it starts `world_size` new processes, never by fork() of the notebook kernel itself (a
  kernel already runs threads, and forking it can deadlock). CPU work uses the "forkserver"
  start method where the OS has it (Linux, macOS): one helper process, started the first time,
  imports torch once (PRELOAD), then forks a fresh child for every rank in a fraction of a
  second, where "spawn" (a fresh Python per rank) costs seconds of CPU each. Each job still
  gets new processes, so nothing one job changes reaches the next, and each rank gets the
  caller's current environment variables. Workers with CUDA tensors, and Windows, use "spawn"
  (hardware-free decision: start_method_for);
- each process gets torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT
  on a free port that we pick by binding to port 0). A small worker fn(rank, world_size, *args) finds
  the group joined for it (init_process_group with the backend hardware.backend_for chooses); a whole
  program such as lesson 05's ddp.main (join_group=False) runs as main(*args) and joins it itself,
  exactly as under torchrun. The launcher's backend rule: NCCL only when every
  process gets its own GPU *and* the worker's tensors live on CUDA (tensors_on_cuda=True),
  gloo otherwise — NCCL cannot reduce CPU tensors, and two processes cannot share a GPU in it;
- each rank's return value comes back through a queue; an exception comes back with its
  traceback, and the caller gets a WorkerError naming the rank, in Bengali;
- a rank that crashes, is killed, or hangs never hangs the caller: after `timeout_s`
  every child is terminated, then killed, then joined, in `finally`. No orphans.

The worker `fn(rank, world_size, *args)` must live in a module file (a new process, spawned or
forked from the helper, imports it by name); a function typed into a notebook cell cannot be found by them.
"""

from __future__ import annotations

import datetime
import os
import queue as queue_module
import re
import signal
import socket
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from fastrain_lib.core.i18n import t
from fastrain_lib.measure import hardware

GRACE_S = 1.0  # after the first failure, wait this long for the other ranks' news
LAST_PIDS: list[int] = []  # process ids of the latest launch (tests check that none survives)


class WorkerError(RuntimeError):
    """A worker process failed: `rank` is the rank to blame, `kind` is error/died/timeout,
    `tracebacks` maps every rank that reported an exception to its traceback text."""

    def __init__(self, message: str, rank: int | None, kind: str, tracebacks: dict[int, str] | None = None):
        super().__init__(message)
        self.rank = rank
        self.kind = kind
        self.tracebacks = tracebacks or {}


def free_port() -> int:
    """A TCP port that nobody uses right now: the OS picks one when we bind to port 0."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_backend(world_size: int, tensors_on_cuda: bool = False) -> str:
    """hardware.backend_for on this machine: NCCL only for CUDA tensors with a GPU per rank."""
    facts = hardware.node_facts()
    return hardware.backend_for(world_size, tensors_on_cuda, facts)


def group_device() -> torch.device:
    """Where this rank's tensors go in the group it has joined: its own GPU when the group is
    NCCL (launch or torchrun chose NCCL because every local process has a GPU and the worker
    asked for CUDA tensors), the CPU under gloo. Workers that run on either device (lesson 05c's)
    call this instead of hard-coding "cpu", so the same code trains on GPUs over NCCL."""
    on_cuda = dist.is_initialized() and dist.get_backend() == "nccl"
    facts = hardware.node_facts()
    local = int(os.environ.get("LOCAL_RANK", dist.get_rank() if dist.is_initialized() else 0))
    device = torch.device(hardware.device_for_rank(local, on_cuda, facts))
    if device.type == "cuda":
        hardware.use_gpu(device.index)
    return device


def threads_per_rank(world_size: int) -> int:
    """Share the physical cores between the ranks (hardware.threads_for), so they do not fight."""
    return hardware.threads_for(world_size)


def die_with_parent() -> None:
    # Linux: if the notebook kernel itself is killed, the kernel sends us SIGKILL.
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


def _entry(fn, rank: int, world_size: int, port: int, backend: str, args: tuple, results, pg_timeout_s: float,
           threads: int, environ: dict, join_group: bool = True) -> None:
    """What each child process runs: torchrun's environment, then fn; the group is left in `finally`.
    join_group: the launcher joins the group and calls fn(rank, world_size, *args) (the small workers);
    False: fn(*args) calls init_process_group itself from this environment, exactly as under torchrun."""
    die_with_parent()
    take_environment(environ)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world_size), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world_size))
    torch.set_num_threads(threads)
    try:
        if not join_group:
            results.put(("ok", rank, fn(*args)))
            return
        if backend == "nccl":
            hardware.use_gpu(rank)  # NCCL: one GPU per rank, chosen before the group forms
        dist.init_process_group(backend, rank=rank, world_size=world_size,
                                timeout=datetime.timedelta(seconds=pg_timeout_s))
        result = fn(rank, world_size, *args)
        results.put(("ok", rank, result))
    except BaseException:  # noqa: BLE001 - every failure must reach the parent
        results.put(("error", rank, traceback.format_exc()))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "?"
    if code < 0:
        try:
            return f"{signal.Signals(-code).name} ({code})"
        except ValueError:
            return str(code)
    return str(code)


def _stop(processes) -> None:
    """Terminate, then kill, then join every child: nothing survives this."""
    for p in processes:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + 3.0
    for p in processes:
        p.join(timeout=max(0.0, deadline - time.monotonic()))
    for p in processes:
        if p.is_alive():
            p.kill()
            p.join(timeout=5.0)
    for p in processes:
        if hasattr(p, "close") and not p.is_alive():
            p.close()


START_METHODS = ("spawn", "forkserver")  # never "fork": forking a kernel that runs threads can deadlock
# What the forkserver helper imports once, before it forks any rank: torch, and what DDP's first
# forward imports (torch._dynamo, with sympy: seconds per rank otherwise). None of it touches CUDA.
PRELOAD = ("torch", "torch.distributed", "torch.nn.parallel", "torch._dynamo", "fastrain_lib.distributed.launcher")


def start_method_for(tensors_on_cuda: bool, available: tuple[str, ...] | list[str]) -> str:
    """How launch starts its ranks when the caller does not say. "forkserver" for CPU work where
    the OS offers it: ranks start in a fraction of a second instead of seconds each. "spawn" for
    CUDA work (a fresh process can never inherit a CUDA state; the GPU work outweighs the start)
    and where forkserver does not exist (Windows)."""
    return "forkserver" if not tensors_on_cuda and "forkserver" in available else "spawn"


_MAIN_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]""")


def main_guard_problem(main_module=None) -> str | None:
    """Why starting processes from the running script would fail, or None. Under spawn and forkserver every
    child imports the parent's script again (multiprocessing's "safe importing of main module"); a script
    with no `if __name__ == "__main__":` guard would start the processes again inside each child, which
    multiprocessing stops with an error the parent only sees as a rank dying with exit code 1. A notebook
    or the REPL has no script file: nothing to check."""
    main = sys.modules.get("__main__") if main_module is None else main_module
    path = getattr(main, "__file__", None)
    if not path or not str(path).endswith(".py") or not os.path.isfile(path):
        return None
    name = getattr(getattr(main, "__spec__", None), "name", None) or ""
    if name == "__main__" or name.endswith(".__main__") or os.path.basename(path) == "__main__.py":
        return None  # `python -m package`: multiprocessing does not import a package's __main__ again
    with open(path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    return None if _MAIN_GUARD.search(source) else t("distributed.no_main_guard", script=os.path.basename(path))


def launch(fn, world_size: int, *, args: tuple = (), backend: str | None = None, timeout_s: float = 60.0,
           threads: int | None = None, tensors_on_cuda: bool = False, start_method: str | None = None,
           preload: tuple[str, ...] | list[str] = PRELOAD, join_group: bool = True) -> list:
    """Run fn(rank, world_size, *args) in `world_size` processes; returns [result of rank 0, 1, ...].

    join_group=False: every process gets only torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK,
    MASTER_ADDR, MASTER_PORT) and runs fn(*args), which calls init_process_group itself — lesson 05's
    ddp.main, the same code that `torchrun --nproc_per_node=W script.py` runs.

    tensors_on_cuda: the worker keeps its tensors on a GPU (e.g. DDP training on CUDA); only
    then may the backend be NCCL. Workers with CPU tensors (the default) always get gloo.

    start_method: "spawn" (a fresh Python per rank) or "forkserver" (ranks forked from one helper
    process that imported the modules named in `preload` once, when the first call started it;
    it lives as long as this process, see stop_forkserver); None picks start_method_for. Either
    way every call gets new processes.

    Raises WorkerError (message in Bengali, with the failing rank's traceback) when a rank
    raises, dies, or the whole run passes `timeout_s` seconds. Results must be picklable."""
    if not isinstance(world_size, int) or world_size < 1:
        raise ValueError(t("distributed.bad_world_size", value=world_size))
    qualname = getattr(fn, "__qualname__", "")
    if getattr(fn, "__module__", None) == "__main__" or "<locals>" in qualname or "<lambda>" in qualname:
        raise ValueError(t("distributed.not_importable", name=getattr(fn, "__name__", repr(fn))))
    guard = main_guard_problem()
    if guard:
        raise RuntimeError(guard)
    ctx = context(start_method, tensors_on_cuda=tensors_on_cuda, preload=preload)
    backend = backend or default_backend(world_size, tensors_on_cuda)
    threads = threads or threads_per_rank(world_size)
    try:
        return _launch_once(ctx, fn, world_size, args, backend, timeout_s, threads, free_port(), join_group)
    except WorkerError as err:
        if not _port_taken(err):
            raise
    # free_port() closes its socket before rank 0 binds the port again: on a busy machine (Jupyter
    # kernels open five ports each) another process can take it in between. Once more, new port.
    return _launch_once(ctx, fn, world_size, args, backend, timeout_s, threads, free_port(), join_group)


def context(start_method: str | None = None, *, tensors_on_cuda: bool = False,
            preload: tuple[str, ...] | list[str] = PRELOAD):
    """The multiprocessing context that starts ranks (launch's, and Hogwild's shared-memory
    workers'): start_method, or start_method_for when None. A forkserver's preload takes effect
    when its helper starts (the first call); a child calls take_environment first."""
    if start_method is None:
        start_method = start_method_for(tensors_on_cuda, mp.get_all_start_methods())
    if start_method not in START_METHODS:
        raise ValueError(f"start_method must be one of {START_METHODS}, not {start_method!r}")
    ctx = mp.get_context(start_method)
    if start_method == "forkserver" and preload:
        ctx.set_forkserver_preload(list(preload))
    return ctx


def take_environment(environ: dict) -> None:
    """In a new rank: the caller's environment variables as they were at launch. A forkserver child
    would otherwise have its helper's, from when the helper started (FASTRAIN_LANG changed since...)."""
    os.environ.clear()
    os.environ.update(environ)


def _port_taken(err: WorkerError) -> bool:
    return any("EADDRINUSE" in text or "address already in use" in text for text in err.tracebacks.values())


def _launch_once(ctx, fn, world_size: int, args: tuple, backend: str, timeout_s: float, threads: int,
                 port: int, join_group: bool = True) -> list:
    results = ctx.Queue()
    # gloo's own timeout (the default is 30 minutes!): a rank stuck waiting for a peer
    # gives up by itself shortly after we would have terminated it anyway.
    pg_timeout_s = timeout_s + 5.0
    processes = []
    done: dict[int, object] = {}
    errors: dict[int, str] = {}
    try:
        for rank in range(world_size):
            p = ctx.Process(target=_entry, args=(fn, rank, world_size, port, backend, args, results, pg_timeout_s,
                                                 threads, dict(os.environ), join_group), daemon=True, name=f"fastrain-rank{rank}")
            p.start()
            processes.append(p)
        LAST_PIDS[:] = [p.pid for p in processes]
        deadline = time.monotonic() + timeout_s
        failed_at = None
        while len(done) < world_size:
            now = time.monotonic()
            if failed_at is not None and now - failed_at > GRACE_S:
                break
            if now > deadline:
                break
            try:
                status, rank, payload = results.get(timeout=0.05)
                if status == "ok":
                    done[rank] = payload
                else:
                    errors[rank] = payload
                    failed_at = failed_at or time.monotonic()
            except queue_module.Empty:
                pass
            # a rank that died without a word (killed, segfault, os._exit)
            for rank, p in enumerate(processes):
                if rank not in done and rank not in errors and p.exitcode not in (None, 0):
                    failed_at = failed_at or time.monotonic()
        if len(done) == world_size:
            return [done[r] for r in range(world_size)]
        raise _failure(processes, done, errors, timeout_s)
    finally:
        _stop(processes)
        results.close()
        results.join_thread()


def stop_forkserver() -> None:
    """Stop the forkserver helper process now (otherwise it lives until this process ends).
    Every rank it forked is already gone: launch stops them before it returns."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    if server is not None and hasattr(server, "_stop"):
        server._stop()


def _failure(processes, done: dict, errors: dict, timeout_s: float) -> WorkerError:
    """Pick the rank to blame: one that died by itself first, then the first that raised, else a timeout."""
    died = [r for r, p in enumerate(processes)
            if r not in done and r not in errors and p.exitcode not in (None, 0)]
    if died:
        rank = died[0]
        message = t("distributed.worker_died", rank=rank, code=_describe_exit(processes[rank].exitcode))
        if errors:
            message += "\n" + t("distributed.others_failed", ranks=", ".join(map(str, sorted(errors))))
        return WorkerError(message, rank, "died", errors)
    if errors:
        rank = min(errors, key=lambda r: (_is_peer_error(errors[r]), r))
        message = t("distributed.worker_raised", rank=rank, traceback=errors[rank].rstrip())
        others = sorted(set(errors) - {rank})
        if others:
            message += "\n" + t("distributed.others_failed", ranks=", ".join(map(str, others)))
        return WorkerError(message, rank, "error", errors)
    waiting = [r for r in range(len(processes)) if r not in done]
    return WorkerError(t("distributed.timeout", seconds=timeout_s, ranks=", ".join(map(str, waiting))),
                       waiting[0] if waiting else None, "timeout", errors)


def _is_peer_error(text: str) -> bool:
    """True for errors that only say "another rank went away" (not the root cause)."""
    hints = ("Connection closed by peer", "Connection reset", "Timed out waiting", "timed out", "Broken pipe",
             "DistBackendError", "DistNetworkError")
    return any(h in text for h in hints)


# --- small workers for the lesson and the tests (they must live in a module, see above) ---

def whoami(rank: int, world_size: int) -> dict:
    """Each rank reports itself, its process id, and the sum of all ranks (one all_reduce)."""
    x = torch.tensor([float(rank)])
    dist.all_reduce(x)
    return {"rank": rank, "world_size": world_size, "pid": os.getpid(), "backend": dist.get_backend(),
            "sum_of_ranks": x.item(), "threads": torch.get_num_threads()}


def fail_on(rank: int, world_size: int, bad_rank: int = 1) -> int:
    """Rank `bad_rank` raises (a bug in one process); the others wait at a barrier."""
    if rank == bad_rank:
        raise ValueError(f"rank {rank}: shape mismatch (a deliberate bug for the lesson)")
    dist.barrier()
    return rank


def kill_self(rank: int, world_size: int, bad_rank: int = 1) -> int:
    """Rank `bad_rank` is killed mid-run (SIGKILL: no exception, no goodbye)."""
    dist.barrier()
    if rank == bad_rank:  # Windows has no SIGKILL: there os.kill with SIGTERM is TerminateProcess, as abrupt
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
    dist.barrier()
    return rank


def hang(rank: int, world_size: int, bad_rank: int = 1) -> int:
    """Rank `bad_rank` never returns (an endless loop); the others wait for it forever."""
    if rank == bad_rank:
        while True:
            time.sleep(0.1)
    dist.barrier()
    return rank


def pids_alive(pids) -> list[int]:
    """The process ids from `pids` that still exist (os.kill(pid, 0) only asks, sends nothing)."""
    alive = []
    for pid in pids:
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
        except PermissionError:
            alive.append(pid)
    return alive
