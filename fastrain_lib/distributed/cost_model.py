"""A cost model of communication, fitted to THIS machine: α (latency) and β (seconds per byte).

Every message costs a fixed start-up time α plus β seconds per byte it carries. On a ring of
p processes (Patarasuk & Yuan 2009; Thakur, Rabenseifner & Gropp 2005) the collectives a
data-parallel step needs then cost, for a tensor of n bytes:

    all-reduce      2(p−1)·α + 2(p−1)/p · n·β     (reduce-scatter, then all-gather)
    reduce-scatter   (p−1)·α +  (p−1)/p · n·β
    all-gather       (p−1)·α +  (p−1)/p · n·β     (n = the bytes of the whole, gathered tensor)

Small messages pay mostly α (latency), large ones mostly n·β (bandwidth 1/β bytes per second).

    points = measure_allreduce(2, [4_000, 40_000, 400_000, 4_000_000])   # real processes
    f = fit(points, world_size=2)           # least squares on the ring formula
    f.alpha_s, 1 / f.beta_s_per_byte        # latency (s), bandwidth (bytes/s)
    f.allreduce_s(8_000_000)                # a prediction for a size we did not measure
    predict_step_s("ddp", compute_s=0.020, param_bytes=8_000_000, fit=f)

The fit is least squares on relative errors (every point counts alike, the 4 KB one as much
as the 4 MB one), with α, β ≥ 0. gloo does not always run the textbook ring (it picks an
algorithm by size), so α and β are *effective* values: what the ring formula needs to match
this machine's measurements. Whether they predict what we did not measure is for the tests
and the lesson to check, not to assume.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from fastrain_lib.distributed.alpha_beta import fit_alpha_beta
from fastrain_lib.distributed.launcher import launch

STRATEGIES = ("ddp", "ring", "zero1", "zero2", "zero3", "ps")
FLOAT_BYTES = 4  # measure_allreduce sends float32 tensors


@dataclass(frozen=True)
class Fit:
    """α and β fitted for `world_size` processes; the methods are the ring formulas above."""

    alpha_s: float  # seconds per message (latency)
    beta_s_per_byte: float  # seconds per byte over one link (1/bandwidth)
    world_size: int
    points: tuple = field(default=(), compare=False)  # the (bytes, seconds) it was fitted to

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return math.inf if self.beta_s_per_byte == 0 else 1.0 / self.beta_s_per_byte

    def _p(self, world_size: int | None) -> int:
        return self.world_size if world_size is None else int(world_size)

    def allreduce_s(self, nbytes: float, world_size: int | None = None) -> float:
        """Ring all-reduce of an n-byte tensor: 2(p−1) messages, each rank sends 2(p−1)/p · n bytes."""
        p = self._p(world_size)
        return 2 * (p - 1) * self.alpha_s + 2 * (p - 1) / p * nbytes * self.beta_s_per_byte

    def allgather_s(self, nbytes: float, world_size: int | None = None) -> float:
        """Ring all-gather into an n-byte tensor (each rank starts with n/p bytes); a reduce-scatter of
        n bytes (each rank ends with its n/p-byte sum) costs the same."""
        p = self._p(world_size)
        return (p - 1) * self.alpha_s + (p - 1) / p * nbytes * self.beta_s_per_byte

    reduce_scatter_s = allgather_s

    def send_s(self, nbytes: float) -> float:
        """One point-to-point message of n bytes (what a parameter server sends or receives)."""
        return self.alpha_s + nbytes * self.beta_s_per_byte

    def relative_errors(self, points=None) -> list[float]:
        """|predicted − measured| ÷ measured for each (bytes, seconds) point (default: its own)."""
        return [abs(self.allreduce_s(n) - s) / s for n, s in (self.points if points is None else points) if s > 0]


def _clean(points) -> list[tuple[float, float]]:
    rows = [(float(n), float(s)) for n, s in points]
    if any(not (math.isfinite(n) and math.isfinite(s)) or n < 0 or s <= 0 for n, s in rows):
        raise ValueError("every point needs bytes >= 0 and seconds > 0")
    if len({n for n, _ in rows}) < 2:
        raise ValueError("fit needs measurements at two message sizes at least")
    return rows


def fit(points: list[tuple[int, float]], world_size: int) -> Fit:
    """α and β for `world_size` processes from measured (nbytes, seconds) all-reduces: lesson 05b's cell
    (alpha_beta.fit_alpha_beta: least squares on relative errors, α, β ≥ 0) on the checked points."""
    p = int(world_size)
    if p < 2:
        raise ValueError("an all-reduce on one process sends nothing: fit needs world_size >= 2")
    rows = _clean(points)
    alpha, beta = fit_alpha_beta(rows, p)
    return Fit(alpha_s=alpha, beta_s_per_byte=beta, world_size=p, points=tuple((int(n), s) for n, s in rows))


# ------------------------------------------------------------------ measuring (real processes)


def calls_per_repeat(nbytes: int, budget_bytes: int = 2_000_000, most: int = 16) -> int:
    """Back-to-back all-reduces timed together, so a rank leaving the barrier late is amortised.
    The same number on every rank (a rank that calls all_reduce fewer times would hang the others)."""
    return max(1, min(most, budget_bytes // max(1, nbytes)))


def allreduce_worker(rank: int, world_size: int, sizes_bytes: list[int], repeats: int, warmup: int = 2) -> dict:
    """`warmup` all-reduces of every size, then `repeats` rounds; in each round every size once
    (after a barrier, a few back-to-back all-reduces of a float32 tensor, timed together), so a
    burst of other load hits all sizes alike instead of one. Seconds per all-reduce."""
    tensors = [torch.randn(max(1, int(n) // FLOAT_BYTES), generator=torch.Generator().manual_seed(rank))
               for n in sizes_bytes]
    calls = [calls_per_repeat(x.numel() * FLOAT_BYTES) for x in tensors]
    for x in tensors:
        for _ in range(warmup):
            dist.all_reduce(x)
    times: list[list[float]] = [[] for _ in tensors]
    for _ in range(repeats):
        for i, x in enumerate(tensors):
            dist.barrier()
            start = time.perf_counter()
            for _ in range(calls[i]):
                dist.all_reduce(x)
            times[i].append((time.perf_counter() - start) / calls[i])
    return {"rank": rank, "times": times}


def combine(results: list[dict], sizes_bytes: list[int], statistic: str = "median") -> list[tuple[int, float]]:
    """(bytes, seconds) per size: in each round the slowest rank (the collective ends when the
    last rank has its sum), then over the rounds the median (what a run typically costs) or the
    minimum ("min": the cost when nothing else got in the way — steadier on a shared machine)."""
    pick = {"median": statistics.median, "min": min}[statistic]
    points = []
    for i, nbytes in enumerate(sizes_bytes):
        per_round = [max(r["times"][i][k] for r in results) for k in range(len(results[0]["times"][i]))]
        points.append((max(1, int(nbytes) // FLOAT_BYTES) * FLOAT_BYTES, pick(per_round)))
    return points


def measure_allreduce(world_size: int, sizes_bytes: list[int], *, repeats: int = 7, warmup: int = 2,
                      backend: str | None = None, timeout_s: float = 120.0, threads: int = 1,
                      statistic: str = "median") -> list[tuple[int, float]]:
    """Time dist.all_reduce of float32 tensors of each size in `world_size` real processes.

    Returns [(nbytes, seconds)], one point per size (nbytes rounded down to whole float32s);
    statistic: "median" (default) or "min" over the rounds (see combine)."""
    sizes = [int(s) for s in sizes_bytes]
    results = launch(allreduce_worker, world_size, args=(sizes, int(repeats), int(warmup)), backend=backend,
                     timeout_s=timeout_s, threads=threads)
    return combine(results, sizes, statistic)


# ------------------------------------------------------------------ predictions


def comm_s(strategy: str, param_bytes: float, fit: Fit, *, world_size: int | None = None, messages: int = 1) -> float:
    """Seconds of communication one training step needs with `strategy` (none of it overlapped).

    param_bytes: bytes of all parameters (= of all gradients). messages: how many pieces each
    collective is cut into (DDP's buckets, ZeRO-3's layers): each piece pays its own α.
    - ddp, ring: one all-reduce of the gradients;
    - zero1, zero2: reduce-scatter the gradients, all-gather the updated parameters (the same
      bytes as an all-reduce: ZeRO-1/2 save memory, not communication);
    - zero3: all-gather the parameters in forward AND in backward, reduce-scatter the gradients
      (1.5 × the bytes of an all-reduce);
    - ps: one central parameter server receives the gradients of p−1 workers and sends the
      new values back to each: 2(p−1) messages of the full size, one after another on its link.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    p = fit.world_size if world_size is None else int(world_size)
    m = max(1, int(messages))
    piece = param_bytes / m
    if p < 2:
        return 0.0
    if strategy in ("ddp", "ring"):
        return m * fit.allreduce_s(piece, p)
    if strategy in ("zero1", "zero2"):
        return m * (fit.reduce_scatter_s(piece, p) + fit.allgather_s(piece, p))
    if strategy == "zero3":
        return m * (2 * fit.allgather_s(piece, p) + fit.reduce_scatter_s(piece, p))
    return 2 * (p - 1) * m * fit.send_s(piece)  # ps


def collectives_s(counts: dict, fit: Fit, *, world_size: int | None = None) -> float:
    """Seconds for the collectives one step really called, as counted (e.g. by lesson 05c's
    zero.CommCounter): {kind: {"count": calls, "payload": bytes}} with kinds all_reduce,
    all_gather, reduce_scatter, broadcast, send, recv (other keys are ignored).

    Every call pays its start-up: an all-reduce 2(p−1)·α, an all-gather / reduce-scatter /
    broadcast (p−1)·α, a send/recv α. Bytes: payload (an all-reduce's counted twice, as the
    Playbook counts it) × (p−1)/p × β on a ring; a send/recv moves its bytes once."""
    p = fit.world_size if world_size is None else int(world_size)
    if p < 2:
        return 0.0
    total = 0.0
    for kind, info in counts.items():
        if not isinstance(info, dict) or "count" not in info:
            continue
        calls, payload = float(info["count"]), float(info.get("payload", 0.0))
        if kind in ("send", "recv"):
            total += calls * fit.alpha_s + payload * fit.beta_s_per_byte
            continue
        messages = 2 * (p - 1) if kind == "all_reduce" else (p - 1)
        total += calls * messages * fit.alpha_s + (p - 1) / p * payload * fit.beta_s_per_byte
    return total


def predict_step_s(strategy: str, compute_s: float, param_bytes: float, fit: Fit, *, world_size: int | None = None,
                   messages: int = 1) -> float:
    """Predicted seconds per training step: compute (one process's forward + backward + optimizer for its
    share of the batch, measured) + the communication `strategy` needs, none of it hidden (an upper bound:
    DDP's buckets hide some, which lesson 05b measures rather than guesses)."""
    return compute_s + comm_s(strategy, param_bytes, fit, world_size=world_size, messages=messages)


def bytes_sent_per_rank(strategy: str, param_bytes: float, world_size: int) -> float:
    """Bytes the busiest rank sends in one step (the formulas behind comm_s, without α and β)."""
    p = int(world_size)
    if p < 2:
        return 0.0
    ring_share = (p - 1) / p * param_bytes
    return {"ddp": 2 * ring_share, "ring": 2 * ring_share, "zero1": 2 * ring_share, "zero2": 2 * ring_share,
            "zero3": 3 * ring_share, "ps": (p - 1) * param_bytes}[strategy]
