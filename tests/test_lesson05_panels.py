"""Lesson 05's measurements say what really happened: the pipeline chart is on one clock,
the DDP verdict is chosen from the measured compute and all-reduce times, reference
results are read per run with their hardware names."""

import time
import types

import pytest

from fastrain_lib.distributed import launch, pipeline
from fastrain_lib.distributed import launcher as L

CFG = {"micro_batches": 4, "steps": 2, "width": 32, "batch": 16, "layers_per_stage": 1}


def skewed_pipeline_worker(rank: int, world_size: int, cfg: dict, other_host: bool) -> dict:
    """The pipeline worker with rank 1 leaving every barrier 30 ms late; with other_host
    also its clock 1000 s ahead and another host name (as on a second machine)."""
    import socket

    import torch.distributed as dist

    if rank == 1:
        real_barrier, real_clock = dist.barrier, time.perf_counter

        def late_barrier(*args, **kwargs):
            real_barrier(*args, **kwargs)
            time.sleep(0.03)

        dist.barrier = late_barrier  # only in this child process
        if other_host:
            pipeline.time = types.SimpleNamespace(perf_counter=lambda: real_clock() + 1000.0)
            pipeline.socket = types.SimpleNamespace(gethostname=lambda: "second-machine")
    return pipeline.pipeline_worker(rank, world_size, cfg)


def _causal(results, tolerance_s):
    """Every micro-batch's forward reaches stage k+1 after stage k finished it, and its
    backward reaches stage k after stage k+1 finished it."""
    stages = results[0]["stages"]
    for step in range(len(results[0]["all_events"])):
        events = pipeline.gather_events(results, step)
        done = {(e["stage"], e["kind"], e["micro"]): e for e in events}
        for (k, kind, m), e in done.items():
            before = done.get((k - 1, "F", m)) if kind == "F" else done.get((k + 1, "B", m))
            if before is not None and k < stages:
                assert e["start"] >= before["end"] - tolerance_s, (step, k, kind, m, e, before)


def test_pipeline_timeline_is_causal_although_ranks_leave_the_barrier_apart():
    # one machine: one clock, so causality holds exactly (the old per-rank "time since the
    # barrier" put stage 1's forward ~30 ms before stage 0 had finished it)
    results = launch(skewed_pipeline_worker, 3, args=({**CFG, "steps": 3}, False), timeout_s=120)
    _causal(results, tolerance_s=0.0)
    assert L.pids_alive(L.LAST_PIDS) == []


def test_pipeline_timeline_corrects_another_machines_clock():
    # a 1000 s clock offset and 30 ms barrier skew: the ping-pong offset leaves only its own
    # error (half a round trip; generous here, where the CPU is shared by many processes)
    results = launch(skewed_pipeline_worker, 3, args=({**CFG, "steps": 3}, True), timeout_s=120)
    _causal(results, tolerance_s=0.02)
    span = max(e["end"] for e in pipeline.gather_events(results)) - min(e["start"] for e in pipeline.gather_events(results))
    assert span < 5.0  # not 1000 s apart
