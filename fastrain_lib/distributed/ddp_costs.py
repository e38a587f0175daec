"""What one DDP step costs: compute vs all-reduce, measured in the same processes.

DDP pays off only when the work each process saves (compute) is larger than the work it
adds (one all-reduce of every gradient per step). Lesson 05 measures both:

- compute: the median step of ONE process with the same per-process batch (nothing to
  talk to, so the step is forward + backward + optimizer only);
- all-reduce: after training, the same W processes time `dist.all_reduce` of a tensor as
  big as all the gradients together (DDP's buckets send the same bytes);
- the measured W-process step, which both of them (and any waiting) end up in.

`verdict` picks the sentence that explains the measured speed-up from these numbers
(a pure function, tested on tables of numbers in tests/test_lesson05_panels.py).
"""

from __future__ import annotations

import statistics
import time

import torch
import torch.distributed as dist

from fastrain_lib.distributed import ddp


def gradient_numel(hidden: int, inputs: int = 28 * 28, classes: int = 10) -> int:
    """Parameters (= gradient numbers) of SimpleNN(hidden): two Linear layers with biases."""
    return inputs * hidden + hidden + hidden * classes + classes


def worker(rank: int, world_size: int, cfg: dict, repeats: int = 7) -> dict:
    """lesson 05's DDP worker, then the all-reduce of one step's gradients, timed here.

    Every rank runs the same number of all-reduces (a rank that ran fewer would leave the
    others waiting forever); each one starts after a barrier, so all ranks start together."""
    result = ddp.train_worker(rank, world_size, cfg)
    grads = torch.randn(gradient_numel(cfg["hidden"]))
    times = []
    for _ in range(repeats + 1):  # the first one is a warm-up
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(grads)
        times.append(time.perf_counter() - start)
    result["allreduce_s"] = statistics.median(times[1:])
    result["grad_bytes"] = grads.numel() * grads.element_size()
    return result


# A speed-up below this (with W processes) is not "a win" worth the processes.
WIN_SPEEDUP = 1.2
# A step this much longer than compute + all-reduce has waited for something else.
CONTENTION = 1.15


def verdict(processes: int, cores: int, speedup: float, compute_s: float, allreduce_s: float,
            step_s: float) -> tuple[str, dict]:
    """(catalog key, values) for the sentence that explains W processes' measured speed-up.

    Checked in this order, because the first cause that holds explains the rest:
    more processes than cores > all-reduce as slow as compute > a real win > a step longer
    than its parts (contention) > an all-reduce close to the compute (communication)."""
    values = {"w": processes, "cores": cores, "speedup": speedup, "compute_ms": compute_s * 1e3,
              "allreduce_ms": allreduce_s * 1e3, "step_ms": step_s * 1e3,
              "expected_ms": (compute_s + allreduce_s) * 1e3}
    if processes > cores:
        return "lesson05.v_oversubscribed", values
    if allreduce_s >= compute_s:
        return "lesson05.v_comm_bound", values
    if speedup >= WIN_SPEEDUP:
        return "lesson05.v_wins", values
    if step_s > CONTENTION * (compute_s + allreduce_s):
        return "lesson05.v_contention", values  # slower than its own parts add up to: waiting
    return "lesson05.v_comm_bound", values  # the all-reduce is close to the compute it saves
