"""Ring all-reduce from scratch with send/recv, and the naive parameter-server way.

All-reduce: every rank has a tensor; afterwards every rank has the sum of all of them.
DDP does one after each backward (on the gradients); Horovod made the ring version famous.

Naive (a parameter server, rank 0): everyone sends its whole tensor (S bytes) to rank 0,
rank 0 adds them and sends the sum back. Rank 0 moves 2·(N−1)·S bytes: the server's link
is the bottleneck, and it grows with N.

Ring: the ranks sit in a circle; each only talks to its neighbours. The tensor is cut into
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


def scatter_reduce(chunks: list[torch.Tensor], rank: int, world_size: int, exchange) -> list[torch.Tensor]:
    """Phase 1. `exchange(send, like)` sends `send` to the right neighbour and returns the
    tensor received from the left one (shaped like `like`)."""
    for step in range(world_size - 1):
        send, recv = scatter_reduce_indices(rank, world_size, step)
        received = exchange(chunks[send], chunks[recv])
        chunks[recv] += received  # add the neighbour's partial sum into ours
    return chunks


def all_gather(chunks: list[torch.Tensor], rank: int, world_size: int, exchange) -> list[torch.Tensor]:
    """Phase 2: pass the finished chunks around the ring until everyone has all of them."""
    for step in range(world_size - 1):
        send, recv = all_gather_indices(rank, world_size, step)
        chunks[recv].copy_(exchange(chunks[send], chunks[recv]))
    return chunks


# ------------------------------------------------------------------ real processes


def make_exchange(rank: int, world_size: int, trace: list | None = None, phase: str = ""):
    """exchange(send, like) over torch.distributed: isend right, recv left, wait.

    The send is non-blocking (isend): if every rank did a blocking send first, all of them
    could wait forever for a receiver (a classic ring deadlock)."""
    right, left = (rank + 1) % world_size, (rank - 1) % world_size
    counter = {"step": 0}

    def exchange(send: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        received = torch.empty_like(like)
        request = dist.isend(send.contiguous(), dst=right)
        dist.recv(received, src=left)
        request.wait()
        if trace is not None:
            trace.append({"phase": phase, "step": counter["step"], "rank": rank, "to": right, "from": left,
                          "bytes": send.numel() * send.element_size()})
        counter["step"] += 1
        return received

    return exchange


def ring_all_reduce(tensor: torch.Tensor, *, average: bool = False, trace: list | None = None,
                    scatter_reduce_fn=None) -> torch.Tensor:
    """Sum (or average) `tensor` over all ranks, in place, with the ring algorithm.

    trace, when given, collects one entry per send: phase, step, chunks, bytes.
    scatter_reduce_fn replaces phase 1 (the exercise plugs the student's version in here)."""
    rank, world = dist.get_rank(), dist.get_world_size()
    if world == 1:
        return tensor
    flat = tensor.view(-1)  # a view: the chunks below write straight into `tensor`
    chunks = list(flat.tensor_split(world))
    phase1 = scatter_reduce_fn or scatter_reduce
    phase1(chunks, rank, world, _traced(make_exchange(rank, world, trace, "scatter-reduce"), rank, world, trace,
                                        scatter_reduce_indices))
    all_gather(chunks, rank, world, _traced(make_exchange(rank, world, trace, "all-gather"), rank, world, trace,
                                            all_gather_indices))
    if average:
        tensor /= world
    return tensor


def _traced(exchange, rank, world, trace, indices):
    """Add the chunk numbers (by the schedule) to each trace entry."""
    if trace is None:
        return exchange
    state = {"step": 0}

    def wrapped(send, like):
        out = exchange(send, like)
        trace[-1]["send_chunk"], trace[-1]["recv_chunk"] = indices(rank, world, state["step"])
        state["step"] += 1
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
    and time the three (median of `repeats`, each after a barrier).

    Not bench.measure: its auto-chosen repeat count could differ between ranks, and a rank
    that calls all_reduce fewer times than the others leaves them waiting forever."""
    out = {"rank": rank, "world_size": world_size, "sizes": []}
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
        for name, fn in (("ring", ring_all_reduce), ("naive", naive_all_reduce), ("torch", dist.all_reduce)):
            times = []
            for _ in range(repeats):
                x = data.clone()
                dist.barrier()
                start = time.perf_counter()
                fn(x)
                times.append(time.perf_counter() - start)
            row[f"{name}_s"] = statistics.median(times)
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


def simulate_ring(tensors: list[torch.Tensor], scatter_reduce_fn=None, *, timeout_s: float = 10.0):
    """Ring all-reduce of `tensors` (one per pretend rank) with THREADS in this process.

    Not parallel training — a model of the message passing, so that a function typed into
    a notebook can be tried quickly. Returns (results, events)."""
    world = len(tensors)
    mailboxes = [queue.Queue() for _ in range(world)]
    events, errors = [], []
    lock = threading.Lock()
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
