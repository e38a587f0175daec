"""Hogwild! for real: several processes train ONE model in shared memory, without locks.

Niu et al. (NIPS 2011, arXiv:1106.5730): when each update touches only a few weights
(sparse updates), processes can read and write the shared weights with no lock at all;
the rare collisions cost little, and you save all the waiting. PyTorch's own example
(pytorch/examples, mnist_hogwild) does exactly this:

1. the model's parameters are moved to shared memory (`model.share_memory()`);
2. W processes (torch.multiprocessing, started as the launcher starts ranks) get the SAME model
   object: every `p.data.add_(...)` in any process changes the one shared copy;
3. each process computes gradients into its own private `.grad` and its own SGD optimizer
   updates the shared weights in place -- lock-free (lesson 06's cell, saved by `make sync` as
   hogwild_worker.py), or for comparison inside a multiprocessing Lock (locked_worker here).

Meanwhile the parent process evaluates the shared model every few milliseconds, which
gives a loss-vs-wall-clock curve. Every child dies with the notebook (the launcher's
die_with_parent) and is joined, then terminated, then killed (in `finally`), so none
survives a crash, a timeout or Ctrl-C.

New processes (forked from the launcher's helper, or spawned) import their worker by name, so
the lesson's cell is saved into a module file (a function typed into a notebook cell cannot be
found by them).

    result = train(workers=2, lock=False, total_steps=400)
    result.eval_times, result.eval_losses, result.accuracy, result.train_time_s
"""

from __future__ import annotations

import contextlib
import copy
import os
import queue as queue_module
import time
import traceback
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from fastrain_lib.async_sgd.hogwild_worker import hogwild_worker
from fastrain_lib.core.i18n import t
from fastrain_lib.distributed.launcher import (
    context,
    die_with_parent,
    pids_alive,  # noqa: F401 — re-exported: tests ask hogwild.pids_alive
    take_environment,
)

LAST_PIDS: list[int] = []  # process ids of the latest run (tests check that none survives)


@dataclass
class HogwildResult:
    workers: int
    lock: bool | str  # False, "update" or "step"
    total_steps: int
    train_time_s: float  # from "go" until the last worker finished (start-up not counted)
    startup_s: float  # starting the processes until every worker is ready
    accuracy: float  # of the shared model at the end, on the evaluation set
    final_loss: float
    eval_times: list[float] = field(default_factory=list)  # parent's evaluations of the shared model
    eval_losses: list[float] = field(default_factory=list)
    batch_times: list[float] = field(default_factory=list)  # every worker's batch losses, merged
    batch_losses: list[float] = field(default_factory=list)
    grad_density: float = 0.0  # mean fraction of gradient entries that are non-zero (sparsity)
    steps_per_worker: list[int] = field(default_factory=list)
    noise: dict = field(default_factory=dict)  # measure.noise: was the machine quiet while it trained?

    @property
    def samples_per_s(self) -> float:
        return self.total_steps * self.batch_size / self.train_time_s if self.train_time_s else 0.0

    batch_size: int = 32


def _entry(target, reports, rank: int, args: tuple, environ: dict) -> None:
    """What each worker process runs: die with the notebook (the launcher's helper), the caller's
    environment, one thread, then the worker; every failure reaches the parent as a report, with
    its traceback."""
    die_with_parent()
    take_environment(environ)
    torch.set_num_threads(1)  # one core per process: W processes on W cores, no fighting
    try:
        target(rank, *args)
    except BaseException:  # noqa: BLE001 - the parent must hear about every failure
        reports.put(("error", rank, traceback.format_exc()))


def locked_worker(rank: int, workers: int, model, x, y, steps: int, batch_size: int, lr: float, seed: int, go,
                  reports, lock, scope: str) -> None:
    """Lesson 06's Hogwild worker with a lock, for comparison. scope "update": only the write is
    locked (no two writes interleave, but reads may see half-written weights). scope "step":
    read + compute + write under the lock: every step sees consistent weights, one process works."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    shard = torch.arange(rank, len(x), workers)
    generator = torch.Generator().manual_seed(seed + rank)
    reports.put(("ready", rank, None))
    go.wait()
    times, losses = [], []
    for _ in range(steps):
        index = shard[torch.randint(len(shard), (batch_size,), generator=generator)]
        with lock if scope == "step" else contextlib.nullcontext():
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            with lock if scope == "update" else contextlib.nullcontext():
                optimizer.step()
        times.append(time.perf_counter())
        losses.append(loss.item())
    reports.put(("done", rank, {"times": times, "losses": losses}))


@torch.no_grad()
def evaluate(model, x, y) -> tuple[float, float]:
    logits = model(x)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def _stop(processes) -> None:
    """Join briefly, then terminate, then kill: nothing survives this. (By the time we get
    here every worker has already sent its report, so terminating loses nothing.)"""
    deadline = time.monotonic() + 0.5
    for p in processes:
        p.join(timeout=max(0.0, deadline - time.monotonic()))
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=3.0)
        if p.is_alive():
            p.kill()
            p.join(timeout=5.0)


LOCKS = (False, "update", "step")


def train(workers: int = 2, *, lock: bool | str = False, total_steps: int = 400, batch_size: int = 32,
          lr: float = 0.05, hidden: int = 0, problem=None, seed: int = 0, timeout_s: float = 60.0,
          eval_every_s: float = 0.02) -> HogwildResult:
    """Train with `workers` processes for `total_steps` SGD steps IN TOTAL (split evenly), so
    that runs with different worker counts do the same amount of work.

    problem: a problems.Problem (model + data); default: the Bengali digits, softmax
    regression (hidden=0) or the seeds' SimpleNN (hidden>0)."""
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(t("hogwild.bad_workers", workers=workers))
    lock = "update" if lock is True else lock
    if lock not in LOCKS:
        raise ValueError(t("hogwild.bad_lock", lock=lock))
    if problem is None:
        from fastrain_lib.async_sgd.problems import make_problem
        problem = make_problem("digits", hidden=hidden, seed=seed)
    density = gradient_density(problem, batch_size, seed)  # how sparse one update is (Hogwild's condition)
    model = copy.deepcopy(problem.model)  # every run starts from the same initial weights
    model.share_memory()  # the parameters now live in shared memory
    x, y = problem.x.share_memory_(), problem.y.share_memory_()  # sent to children as handles, not copies
    steps = [total_steps // workers + (1 if r < total_steps % workers else 0) for r in range(workers)]

    from fastrain_lib.measure import noise

    ctx = context()  # forkserver on Linux/macOS: W workers start in a fraction of a second
    go, reports = ctx.Event(), ctx.Queue()
    the_lock = ctx.Lock() if lock else None
    processes = []
    start = time.perf_counter()
    try:
        for rank in range(workers):
            args = (workers, model, x, y, steps[rank], batch_size, lr, seed, go, reports)
            target = hogwild_worker if not lock else locked_worker  # lock-free: lesson 06's own cell
            p = ctx.Process(target=_entry, daemon=True,
                            args=(target, reports, rank, args + ((the_lock, lock) if lock else ()), dict(os.environ)))
            p.start()
            processes.append(p)
        LAST_PIDS[:] = [p.pid for p in processes]
        with noise.Window() as window:  # the workers are our children: their load counts as our own
            done = _collect(processes, reports, go, model, problem, timeout_s, eval_every_s, start)
    finally:
        go.set()  # a worker still waiting for the signal would otherwise wait 120 s
        _stop(processes)
    t0, eval_times, eval_losses, startup = done["t0"], done["eval_times"], done["eval_losses"], done["startup"]
    loss, accuracy = evaluate(model, problem.x_eval, problem.y_eval)
    merged = sorted((tm - t0, ls) for r in done["reports"].values() for tm, ls in zip(r["times"], r["losses"]))
    finish = max(merged)[0] if merged else 0.0
    eval_times.append(max([finish] + eval_times))  # the final state, after every worker stopped
    eval_losses.append(loss)
    return HogwildResult(
        workers=workers, lock=lock, total_steps=total_steps, train_time_s=finish, startup_s=startup,
        accuracy=accuracy, final_loss=loss, eval_times=eval_times, eval_losses=eval_losses,
        batch_times=[m[0] for m in merged], batch_losses=[m[1] for m in merged],
        grad_density=density, steps_per_worker=steps, batch_size=batch_size,
        noise=window.assess(threads=workers))


def _collect(processes, reports, go, model, problem, timeout_s, eval_every_s, start) -> dict:
    """Wait until every worker is ready, say "go", evaluate the shared model while they
    train, and gather their reports. Raises (in Bengali) on a worker error or a timeout."""
    # The parent's evaluations run beside the workers: one thread, or on a busy 2-core machine an
    # OpenMP team waits for a descheduled thread (async_sgd.one_thread; hardware.threads_for)
    from fastrain_lib.async_sgd.simulator import one_thread

    with one_thread():
        return _collect_loop(processes, reports, go, model, problem, timeout_s, eval_every_s, start)


def _collect_loop(processes, reports, go, model, problem, timeout_s, eval_every_s, start) -> dict:
    deadline = start + timeout_s
    ready, finished = set(), {}
    t0 = None
    eval_times, eval_losses = [], []
    next_eval = 0.0
    while len(finished) < len(processes):
        now = time.perf_counter()
        if now > deadline:
            raise TimeoutError(t("hogwild.timeout", seconds=timeout_s))
        if t0 is None and len(ready) == len(processes):
            t0 = time.perf_counter()
            go.set()  # everybody starts at the same moment
        if t0 is not None and now >= next_eval:
            # Hogwild from the outside: read the shared weights while the workers write them
            with torch.no_grad():
                loss, _ = evaluate(model, problem.x_eval, problem.y_eval)
            eval_times.append(time.perf_counter() - t0)
            eval_losses.append(loss)
            next_eval = time.perf_counter() + eval_every_s
        try:
            kind, rank, payload = reports.get(timeout=0.005 if t0 is not None else 0.05)
        except queue_module.Empty:
            dead = [p for p in processes if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(t("hogwild.worker_failed", rank="?", error=f"exit code {dead[0].exitcode}"))
            continue
        if kind == "ready":
            ready.add(rank)
        elif kind == "done":
            finished[rank] = payload
        else:
            raise RuntimeError(t("hogwild.worker_failed", rank=rank, error=payload))
    return {"t0": t0, "startup": t0 - start, "eval_times": eval_times, "eval_losses": eval_losses,
            "reports": finished}


def gradient_density(problem, batch_size: int = 32, seed: int = 0) -> float:
    """The fraction of gradient entries that are non-zero for one batch: how sparse an update
    is. Hogwild's guarantee needs this to be small (few collisions between processes)."""
    generator = torch.Generator().manual_seed(seed)
    index = torch.randint(len(problem.x), (batch_size,), generator=generator)
    model = problem.model
    model.zero_grad(set_to_none=True)
    F.cross_entropy(model(problem.x[index]), problem.y[index]).backward()
    nonzero = sum((p.grad != 0).sum().item() for p in model.parameters())
    model.zero_grad(set_to_none=True)
    return nonzero / sum(p.numel() for p in model.parameters())


def sparse_problem(n: int = 2000, features: int = 5000, active: int = 10, seed: int = 0):
    """A problem with SPARSE updates, the setting Hogwild was made for (think bag of words):
    each sample switches on only `active` of `features` inputs, so a softmax-regression
    gradient touches only those columns of the weight matrix."""
    from torch import nn

    from fastrain_lib.async_sgd.problems import Problem

    g = torch.Generator().manual_seed(seed)
    n_eval = max(200, n // 5)
    x = torch.zeros(n + n_eval, features)
    rows = torch.arange(n + n_eval).repeat_interleave(active)
    x[rows, torch.randint(features, (len(rows),), generator=g)] = 1.0
    teacher = torch.randn(features, 10, generator=g)
    y = (x @ teacher).argmax(1)
    torch.manual_seed(seed)
    return Problem(nn.Sequential(nn.Flatten(), nn.Linear(features, 10)), x[:n], y[:n], x[n:], y[n:], name="sparse")


def ddp_baseline(problem, *, hidden: int, workers: int = 2, total_steps: int = 400, batch_size: int = 32,
                 lr: float = 0.05, seed: int = 0, timeout_s: float = 120.0) -> HogwildResult | None:
    """The synchronous baseline on the same data: lesson 05's DDP worker in `workers` real
    processes (fastrain_lib.distributed), total_steps SGD steps in total like train().

    DDP averages the gradients of the ranks; with scale_lr (lr * workers) that is the same
    step as summing them -- the convention of our simulator and of Hogwild's per-gradient lr.
    Returns None when fastrain_lib.distributed is not available."""
    try:
        from fastrain_lib.distributed import launch
        from fastrain_lib.distributed.ddp import train_worker
    except ImportError:
        return None
    import tempfile
    from pathlib import Path

    from fastrain_lib.models import SimpleNN

    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "ddp.pt")
        cfg = {"steps": max(1, total_steps // workers), "batch_size": batch_size, "lr": lr, "scale_lr": True,
               "hidden": hidden, "data_size": len(problem.x), "seed": seed, "save_path": path}
        from fastrain_lib.measure import noise

        start = time.perf_counter()
        with noise.Window() as window:
            results = launch(train_worker, workers, args=(cfg,), timeout_s=timeout_s)
        wall = time.perf_counter() - start
        model = SimpleNN(hidden=hidden)
        model.load_state_dict(torch.load(path, weights_only=True))
    loss, accuracy = evaluate(model, problem.x_eval, problem.y_eval)
    rank0 = results[0]
    times, clock = [], 0.0
    for step_time in rank0["step_times"]:
        clock += step_time
        times.append(clock)
    return HogwildResult(
        workers=workers, lock="ddp", total_steps=cfg["steps"] * workers, train_time_s=clock,
        startup_s=wall - clock, accuracy=accuracy, final_loss=loss, batch_times=times,
        batch_losses=rank0["losses"], steps_per_worker=[cfg["steps"]] * workers, batch_size=batch_size,
        noise=window.assess(threads=workers, spread=noise.from_times(rank0["step_times"][1:])[0],
                            repeats=len(rank0["step_times"]) - 1))


def smooth(values: list[float], window: int = 20) -> list[float]:
    """Running mean (batch losses are noisy)."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def time_to_loss(result: HogwildResult, target: float, window: int = 20) -> float:
    """Seconds (on the run's own clock) until the smoothed batch loss first reached `target`;
    inf if it never did. Final accuracies of short, easy runs are often all the same: the
    time to a common target still tells the methods apart."""
    for when, loss in zip(result.batch_times, smooth(result.batch_losses, window)):
        if loss <= target:
            return when
    return float("inf")


def common_target(results: list[HogwildResult], margin: float = 1.05, window: int = 20) -> float:
    """A loss every run reached: just above the worst run's final smoothed batch loss."""
    return margin * max(smooth(r.batch_losses, window)[-1] for r in results if r.batch_losses)


def label(result: HogwildResult) -> str:
    """A name for a run (in the course language): Hogwild lock-free / lock / one process / DDP."""
    if result.lock == "ddp":
        key = "hogwild.ddp"
    elif result.workers == 1:
        key = "hogwild.single"
    else:
        key = {False: "hogwild.lock_free", "update": "hogwild.locked", "step": "hogwild.locked_step"}[result.lock]
    return t(key) + f" ({result.workers})"


def plot_real(ax, results: list[HogwildResult]) -> None:
    """Smoothed batch loss against wall-clock time since the start signal."""
    from fastrain_lib.ui import plots

    for r in results:
        ax.plot(r.batch_times, smooth(r.batch_losses), label=label(r))
    ax.set_xlabel(plots.label("hogwild.wall_time"))
    ax.set_ylabel(plots.label("hogwild.batch_loss"))
    ax.set_title(plots.label("hogwild.loss_title"))
    ax.legend(fontsize="small")


def table(results: list[HogwildResult], target: float | None = None) -> tuple[list, list]:
    """One row per run; the column "time to the target loss" uses `target` (default: common_target)."""
    target = common_target(results) if target is None else target
    from fastrain_lib.measure import noise

    headers = [t("core.run"), t("hogwild.col_steps"), t("param_server.col_time"), t("hogwild.col_startup"),
               t("core.samples_per_s"), t("hogwild.col_time_to", target=target), t("hogwild.col_acc"),
               t("noise.verdict_col")]
    rows = [(label(r), r.total_steps, round(r.train_time_s, 3), round(r.startup_s, 2), round(r.samples_per_s),
             round(time_to_loss(r, target), 3), round(r.accuracy, 3),
             t("noise.noisy_word") if noise.is_noisy(r.noise) else t("noise.quiet_word")) for r in results]
    return headers, rows
