"""Ring all-reduce from scratch with send/recv, and the naive parameter-server way.

All-reduce: every rank has a tensor; afterwards every rank has the sum of all of them.
DDP does one after each backward (on the gradients); Horovod made the ring version famous.

Naive (a parameter server, rank 0): everyone sends its whole tensor (S bytes) to rank 0,
rank 0 adds them and sends the sum back. Rank 0 moves 2·(N−1)·S bytes: the server's link
is the bottleneck, and it grows with N.

Ring (lesson 05 writes it in a cell, saved to ring_allreduce.py; this module traces, times and
simulates it): the ranks sit in a circle; each only talks to its neighbours. The tensor is cut into
N chunks. Two phases of N−1 steps; in every step every rank sends one chunk to the right
and receives one from the left, all at once:

1. scatter-reduce: in step s, rank r sends chunk (r − s) mod N and adds the chunk it
   receives into chunk (r − s − 1) mod N. After N−1 steps rank r holds the complete sum
   of chunk (r + 1) mod N.
2. all-gather: in step s, rank r sends chunk (r + 1 − s) mod N (a finished one) and
   overwrites chunk (r − s) mod N with the finished chunk it receives.

Each rank sends 2·(N−1) chunks of S/N bytes: 2·(N−1)/N · S, almost 2·S however large N
grows (Patarasuk & Yuan 2009). Chunks need not be equal: 10 numbers on 3 ranks are cut
4 + 3 + 3 (torch.tensor_split), and every rank agrees on the cut.
"""

from __future__ import annotations

import queue
import statistics
import threading
import time

import torch
import torch.distributed as dist

from fastrain_lib.distributed import ring_allreduce as steps
from fastrain_lib.distributed.ring_allreduce import all_gather, scatter_reduce, send_recv

# ------------------------------------------------------------------ the schedule (pure)


def chunk_bounds(numel: int, world_size: int) -> list[tuple[int, int]]:
    """[(start, end)] of the N chunks, as torch.tensor_split cuts them (the first ones 1 longer)."""
    base, extra = divmod(numel, world_size)
    bounds, start = [], 0
    for i in range(world_size):
        end = start + base + (1 if i < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def scatter_reduce_indices(rank: int, world_size: int, step: int) -> tuple[int, int]:
    """(chunk rank sends, chunk it adds the received one into) in scatter-reduce step `step`."""
    return (rank - step) % world_size, (rank - step - 1) % world_size


def all_gather_indices(rank: int, world_size: int, step: int) -> tuple[int, int]:
    """(chunk rank sends, chunk it overwrites) in all-gather step `step`."""
    return (rank + 1 - step) % world_size, (rank - step) % world_size


# ------------------------------------------------------------------ real processes


def ring_all_reduce(tensor: torch.Tensor, *, average: bool = False, trace: list | None = None,
                    scatter_reduce_fn=None) -> torch.Tensor:
    """Lesson 05's ring all-reduce (ring_allreduce.py), measured: sum (or average) `tensor` over all
    ranks, in place.

    trace, when given, collects one entry per send: phase, step, chunks, bytes.
    scatter_reduce_fn replaces phase 1 (the exercise plugs the student's version in here)."""
    rank, world = dist.get_rank(), dist.get_world_size()
    if world == 1:
        return tensor
    exchange = _traced(send_recv(rank, world), rank, world, trace)
    if scatter_reduce_fn is None:
        steps.ring_all_reduce(tensor, exchange)
    else:  # the student's phase 1, then the lesson's phase 2
        chunks = list(tensor.view(-1).tensor_split(world))
        scatter_reduce_fn(chunks, rank, world, exchange)
        all_gather(chunks, rank, world, exchange)
    if average:
        tensor /= world
    return tensor


def _traced(exchange, rank, world, trace):
    """exchange that also appends one trace entry per send: the first N−1 calls are scatter-reduce,
    the next N−1 all-gather (the order ring_all_reduce makes them), chunk numbers by the schedule."""
    if trace is None:
        return exchange
    right, left = (rank + 1) % world, (rank - 1) % world
    state = {"call": 0}

    def wrapped(send, like):
        out = exchange(send, like)
        call = state["call"]
        phase, step = ("scatter-reduce", call) if call < world - 1 else ("all-gather", call - (world - 1))
        indices = scatter_reduce_indices if phase == "scatter-reduce" else all_gather_indices
        send_chunk, recv_chunk = indices(rank, world, step)
        trace.append({"phase": phase, "step": step, "rank": rank, "to": right, "from": left,
                      "bytes": send.numel() * send.element_size(), "send_chunk": send_chunk, "recv_chunk": recv_chunk})
        state["call"] += 1
        return out

    return wrapped


def naive_all_reduce(tensor: torch.Tensor, *, average: bool = False, trace: list | None = None) -> torch.Tensor:
    """The parameter-server way: everyone sends everything to rank 0, rank 0 sends the sum back."""
    rank, world = dist.get_rank(), dist.get_world_size()
    nbytes = tensor.numel() * tensor.element_size()
    if rank == 0:
        buffer = torch.empty_like(tensor)
        for src in range(1, world):
            dist.recv(buffer, src=src)
            tensor += buffer
        requests = [dist.isend(tensor, dst=dst) for dst in range(1, world)]
        for request in requests:
            request.wait()
        sent = nbytes * (world - 1)
    else:
        dist.send(tensor, dst=0)
        dist.recv(tensor, src=0)
        sent = nbytes
    if trace is not None:
        trace.append({"phase": "naive", "rank": rank, "bytes": sent})
    if average:
        tensor /= world
    return tensor


def bytes_per_worker(numel: int, world_size: int, element_size: int = 4) -> dict[str, float]:
    """Bytes SENT by each kind of rank in one all-reduce of `numel` numbers (the formulas;
    the traces of ring_all_reduce / naive_all_reduce count the same thing as it happens).
    Received bytes are the same amounts (ring: each rank; server: N−1 tensors in)."""
    size = numel * element_size
    return {"ring": 2 * (world_size - 1) / world_size * size,  # 2(N−1) chunks of S/N
            "server": (world_size - 1) * size,  # the parameter server sends the sum to N−1 workers
            "worker": size}  # a parameter-server worker sends its whole tensor once


# ------------------------------------------------------------------ worker for the lesson


def compare_worker(rank: int, world_size: int, numels: list[int], repeats: int = 5,
                   trace_numel: int | None = None) -> dict:
    """For each size: check ring == naive == dist.all_reduce, count bytes this rank sent,
    and time the three (median of `repeats`, each after a barrier) in interleaved rounds: each
    repeat times all three once, the order reversed every other repeat, so other load on the
    machine falls on the three alike and their per-round ratios stay readable on a busy PC.

    Not bench.measure: its auto-chosen repeat count could differ between ranks, and a rank
    that calls all_reduce fewer times than the others leaves them waiting forever."""
    out = {"rank": rank, "world_size": world_size, "sizes": [], "interleaved": True}
    for numel in numels:
        g = torch.Generator().manual_seed(1000 + rank)
        data = torch.randn(numel, generator=g)
        expected = data.clone()
        dist.all_reduce(expected)
        ring_trace, naive_trace = [], []
        ring_out = ring_all_reduce(data.clone(), trace=ring_trace)
        naive_out = naive_all_reduce(data.clone(), trace=naive_trace)
        row = {"numel": numel,
               "ring_error": (ring_out - expected).abs().max().item(),
               "naive_error": (naive_out - expected).abs().max().item(),
               "ring_bytes": sum(e["bytes"] for e in ring_trace),
               "naive_bytes": sum(e["bytes"] for e in naive_trace)}
        ways = [("ring", ring_all_reduce), ("naive", naive_all_reduce), ("torch", dist.all_reduce)]
        times = {name: [] for name, _ in ways}
        for repeat in range(repeats):
            for name, fn in (ways if repeat % 2 == 0 else ways[::-1]):
                x = data.clone()
                dist.barrier()
                start = time.perf_counter()
                fn(x)
                times[name].append(time.perf_counter() - start)
        for name, timed in times.items():
            row[f"{name}_s"] = statistics.median(timed)
            row[f"{name}_times"] = timed  # every repeat: the row's spread for its noise verdict
        out["sizes"].append(row)
    if trace_numel:
        out["trace"] = trace_run(rank, world_size, trace_numel)
    return out


def trace_run(rank: int, world_size: int, numel: int) -> dict:
    """One ring all-reduce of a small, readable tensor (rank r holds r+1, r+1, ...), traced."""
    data = torch.full((numel,), float(rank + 1))
    before = data.clone()
    trace: list = []
    ring_all_reduce(data, trace=trace)
    return {"before": before.tolist(), "after": data.tolist(), "events": trace}


# ------------------------------------------------------------------ one-process simulation


class ChunkMismatch(ValueError):
    """A rank received a chunk of another size than the one it meant to fill (wrong index)."""


def simulate_ring(tensors: list[torch.Tensor], scatter_reduce_fn=None, *, timeout_s: float = 10.0,
                  strided: bool = False):
    """Ring all-reduce of `tensors` (one per pretend rank) with THREADS in this process.

    Not parallel training — a model of the message passing, so that a function typed into
    a notebook can be tried quickly. Returns (results, events). strided: each rank's tensor is
    every other element of a larger buffer, so its chunks are non-contiguous views."""
    world = len(tensors)
    mailboxes = [queue.Queue() for _ in range(world)]
    events, errors = [], []
    lock = threading.Lock()
    if strided:
        results = []
        for t in tensors:
            buffer = torch.zeros(2 * t.numel(), dtype=t.dtype)
            buffer[::2] = t.reshape(-1)
            results.append(buffer[::2])
    else:
        results = [t.clone().view(-1) for t in tensors]

    def run(rank):
        step = {"n": 0}

        def exchange(send, like):
            mailboxes[(rank + 1) % world].put(send.detach().clone())
            received = mailboxes[rank].get(timeout=timeout_s)
            with lock:
                events.append({"rank": rank, "call": step["n"], "bytes": send.numel() * send.element_size()})
            step["n"] += 1
            if received.shape != like.shape:
                raise ChunkMismatch(f"rank {rank}: received a chunk of shape {tuple(received.shape)}, "
                                 f"expected {tuple(like.shape)} (wrong chunk index?)")
            return received

        try:
            chunks = list(results[rank].tensor_split(world))
            (scatter_reduce_fn or scatter_reduce)(chunks, rank, world, exchange)
            all_gather(chunks, rank, world, exchange)
        except Exception as exc:  # noqa: BLE001 - reported to the caller below
            errors.append((rank, exc))

    threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in range(world)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout_s * 3)
    if errors:
        raise errors[0][1]
    if any(th.is_alive() for th in threads):
        raise TimeoutError("ring simulation did not finish (a rank waits for a chunk nobody sends)")
    return [r.view_as(t) for r, t in zip(results, tensors)], events


def contributions(events: list[dict], world_size: int) -> list[list[list[set]]]:
    """For the stepper, from a real trace (all ranks' events): after k steps (k = 0: before),
    which ranks' numbers are summed in each chunk of each rank.

    states[k][rank][chunk] = a set of ranks."""
    by_key = {(e["phase"], e["step"], e["rank"]): e for e in events}
    state = [[{r} for _ in range(world_size)] for r in range(world_size)]
    states = [[[set(c) for c in row] for row in state]]
    for phase in ("scatter-reduce", "all-gather"):
        for step in range(world_size - 1):
            new = [[set(c) for c in row] for row in state]
            for rank in range(world_size):
                mine = by_key[(phase, step, rank)]
                theirs = by_key[(phase, step, mine["from"])]
                got = state[mine["from"]][theirs["send_chunk"]]
                if phase == "scatter-reduce":
                    new[rank][mine["recv_chunk"]] = state[rank][mine["recv_chunk"]] | got
                else:
                    new[rank][mine["recv_chunk"]] = set(got)
            state = new
            states.append([[set(c) for c in row] for row in state])
    return states
