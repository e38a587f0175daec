"""Hogwild! for real: several processes train ONE model in shared memory, without locks.

Niu et al. (NIPS 2011, arXiv:1106.5730): when each update touches only a few weights
(sparse updates), processes can read and write the shared weights with no lock at all;
the rare collisions cost little, and you save all the waiting. PyTorch's own example
(pytorch/examples, mnist_hogwild) does exactly this, and so does lesson 06's cell (saved by
`make sync` as hogwild_worker.py): `model.share_memory()`, then W processes started by the
course's one launcher (distributed.launch) each run `hogwild_worker`, whose own SGD optimizer
writes the shared weights in place. For comparison the same worker takes a multiprocessing
Lock around its write (lock="update").

This module measures such runs (time, loss, noise) and compares them with lesson 05's DDP.

    result = train(workers=2, lock=False, total_steps=400)
    result.batch_times, result.batch_losses, result.accuracy, result.train_time_s
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from fastrain_lib.async_sgd.hogwild_worker import start_hogwild
from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import launcher
from fastrain_lib.distributed.launcher import pids_alive  # noqa: F401 — re-exported: the lesson asks hogwild.pids_alive

LAST_PIDS: list[int] = []  # process ids of the latest run (tests check that none survives)


@dataclass
class HogwildResult:
    workers: int
    lock: bool | str  # False, "update", or "ddp" (lesson 05's synchronous baseline)
    total_steps: int
    train_time_s: float  # from the common start (a barrier) until the last worker finished
    startup_s: float  # the rest of the wall time: starting the processes, joining, stopping
    accuracy: float  # of the shared model at the end, on the evaluation set
    final_loss: float
    initial_loss: float = float("nan")  # of the same model before training
    batch_times: list[float] = field(default_factory=list)  # every worker's batch losses, merged
    batch_losses: list[float] = field(default_factory=list)
    grad_density: float = 0.0  # mean fraction of gradient entries that are non-zero (sparsity)
    steps_per_worker: list[int] = field(default_factory=list)
    noise: dict = field(default_factory=dict)  # measure.noise: was the machine quiet while it trained?
    batch_size: int = 32

    @property
    def samples_per_s(self) -> float:
        return self.total_steps * self.batch_size / self.train_time_s if self.train_time_s else 0.0


@torch.no_grad()
def evaluate(model, x, y) -> tuple[float, float]:
    logits = model(x)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def train(workers: int = 2, *, lock: bool | str = False, total_steps: int = 400, batch_size: int = 32,
          lr: float = 0.05, hidden: int = 0, problem=None, seed: int = 0, timeout_s: float = 180.0) -> HogwildResult:
    """Lesson 06's start_hogwild, measured: `workers` processes take `total_steps` SGD steps IN
    TOTAL (split evenly), so that runs with different worker counts do the same work.

    lock: False (Hogwild) or "update" (True): the write of every step under one Lock.
    problem: a problems.Problem (model + data); default: the Bengali digits, softmax
    regression (hidden=0) or the seeds' SimpleNN (hidden>0)."""
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(t("hogwild.bad_workers", workers=workers))
    lock = "update" if lock is True else lock
    if lock not in (False, "update"):
        raise ValueError(t("hogwild.bad_lock", lock=lock))
    if problem is None:
        from fastrain_lib.async_sgd.problems import make_problem
        problem = make_problem("digits", hidden=hidden, seed=seed)
    density = gradient_density(problem, batch_size, seed)  # how sparse one update is (Hogwild's condition)
    model = copy.deepcopy(problem.model)  # every run starts from the same initial weights
    initial_loss, _ = evaluate(model, problem.x_eval, problem.y_eval)
    from fastrain_lib.measure import noise

    the_lock = launcher.context().Lock() if lock else None
    start = time.perf_counter()
    try:
        with noise.Window() as window:  # the workers are our children: their load counts as our own
            reports = start_hogwild(workers, model, problem.x, problem.y, total_steps, batch_size, lr, seed,
                                    the_lock, timeout_s)
    finally:
        LAST_PIDS[:] = list(launcher.LAST_PIDS)
    wall = time.perf_counter() - start
    t0 = min(r["start"] for r in reports)
    merged = sorted((tm - t0, ls) for r in reports for tm, ls in zip(r["times"], r["losses"]))
    finish = merged[-1][0] if merged else 0.0
    loss, accuracy = evaluate(model, problem.x_eval, problem.y_eval)
    return HogwildResult(
        workers=workers, lock=lock, total_steps=total_steps, train_time_s=finish, startup_s=max(0.0, wall - finish),
        accuracy=accuracy, final_loss=loss, initial_loss=initial_loss,
        batch_times=[m[0] for m in merged], batch_losses=[m[1] for m in merged],
        grad_density=density, steps_per_worker=[len(r["times"]) for r in reports], batch_size=batch_size,
        noise=window.assess(threads=workers))


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
    spread, blocks, per_block = noise.from_steps(rank0["step_times"][1:])  # the warm-up step left out
    times, clock = [], 0.0
    for step_time in rank0["step_times"]:
        clock += step_time
        times.append(clock)
    return HogwildResult(
        workers=workers, lock="ddp", total_steps=cfg["steps"] * workers, train_time_s=clock,
        startup_s=wall - clock, accuracy=accuracy, final_loss=loss, batch_times=times,
        batch_losses=rank0["losses"], steps_per_worker=[cfg["steps"]] * workers, batch_size=batch_size,
        noise={**window.assess(threads=workers, spread=spread, repeats=blocks), "block_steps": per_block})


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
        key = {False: "hogwild.lock_free", "update": "hogwild.locked"}[result.lock]
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
