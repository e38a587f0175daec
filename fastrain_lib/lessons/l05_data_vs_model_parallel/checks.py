"""Checks for lesson 05's exercises (data parallel vs model parallel).

    check_scatter_reduce(scatter_reduce)   # scatter_reduce(chunks, rank, world_size, exchange) -> chunks
    check_bubble_fraction(bubble_fraction) # bubble_fraction(stages, micro_batches) -> float
    check_idle_share(idle_share, events)   # idle_share(events, stages) -> float, on a measured timeline
    check_average_gradients(average_gradients)   # average_gradients(model, world_size) -> None
    check_train_ddp(train_ddp)             # train_ddp(rank, world_size, model, optimizer, dataset,
                                           #           epochs, batch_size, checkpoint_path) -> None

Where the student's code runs (said plainly, because it matters here):
- In one process: the ring simulation (threads pretending to be ranks) and the bubble checks.
- In real processes: a function typed into a notebook cannot be imported by a spawned
  process, so the check sends its SOURCE TEXT (inspect.getsource) to each rank, which
  runs it with exec() next to the library's reference, inside a real gloo process group.
  Write such a function self-contained (imports inside it, or use the names torch, nn,
  F, dist, DDP, DataLoader, DistributedSampler, which are provided).
"""

from __future__ import annotations

import random

import torch
import torch.distributed as dist

from fastrain_lib.distributed import ring, ring_allreduce
from fastrain_lib.lessons.checking import (
    CheckResult,
    Forbidden,
    check,
    failed,
    not_done,
    passed,
)
from fastrain_lib.lessons.l05_data_vs_model_parallel.checks_avg import (  # noqa: F401 - task 3
    avg_configs,
    check_average_gradients,
    reference_average_gradients,
)
from fastrain_lib.lessons.l05_data_vs_model_parallel.checks_ddp import (  # noqa: F401 - task 4
    check_train_ddp,
    ddp_configs,
    reference_train_ddp,
)
from fastrain_lib.lessons.l05_data_vs_model_parallel.checks_pipe import (  # noqa: F401 - task 2
    BUBBLE_CASES,
    IDLE_CASES,
    _judge_repeat,
    another_context,
    bubble_cases,
    check_bubble_fraction,
    check_idle_share,
    fresh_bubble_case,
    idle_cases,
    reference_bubble_fraction,
    reference_idle_share,
)
from fastrain_lib.lessons.l05_data_vs_model_parallel.student_code import (
    _load_source,
    _run_ranks,
    is_stub,
    source_of,
    spy_collectives,
)

# ---------------------------------------------------------------------------------------
# Reference answers (what the solution notebook writes)
# ---------------------------------------------------------------------------------------


# the lesson's own cell (distributed/ring_allreduce.py) is the reference answer
reference_scatter_reduce = ring_allreduce.scatter_reduce


# ---------------------------------------------------------------------------------------
# Task 1: the scatter-reduce phase of ring all-reduce
# ---------------------------------------------------------------------------------------

# (world size, numbers, dtype): every world size 1–4, sizes that do not divide evenly
RING_CASES = [(3, 7, torch.float64), (2, 5, torch.float32), (3, 10, torch.float32), (4, 13, torch.float64),
              (1, 5, torch.float32)]
RING_REAL = (3, [3, 10, 7])  # world size and tensor sizes of the real-process run
SEED = 20261202  # the generated cases are the same in every run (a failure can be reproduced)


def ring_cases(seed: int = SEED, count: int = 6) -> list[tuple]:
    """RING_CASES, then generated ones: world sizes 2–6, sizes that divide evenly, that do not, and
    smaller than the world size (empty chunks), float16 / float32 / float64 / int64 (the sums are
    whole numbers below 2048, exact in every one of them)."""
    rng = random.Random(seed)
    cases = list(RING_CASES)
    for i in range(count):
        world = rng.randint(2, 6)
        kind = i % 3
        numel = (world * rng.randint(1, 5) if kind == 0 else
                 world * rng.randint(1, 5) + rng.randint(1, world - 1) if kind == 1 else rng.randint(1, world - 1))
        cases.append((world, numel, rng.choice([torch.float16, torch.float32, torch.float64, torch.int64])))
    return cases
SIM_TIMEOUT_S = 2.0  # a pretend rank waiting this long for a chunk: nobody will send it


def _wrong_off_by_one(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send = (rank - step) % world_size
        recv = (rank - step) % world_size
        chunks[recv] += exchange(chunks[send], chunks[recv])
    return chunks


def _wrong_overwrite(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv].copy_(exchange(chunks[send], chunks[recv]))
    return chunks


def _wrong_rebind(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] = exchange(chunks[send], chunks[recv])
    return chunks


def _wrong_not_in_place(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] = chunks[recv] + exchange(chunks[send], chunks[recv])
    return chunks


WRONG_RINGS = (("overwrite", _wrong_overwrite), ("overwrite", _wrong_rebind), ("not_in_place", _wrong_not_in_place),
               ("off_by_one", _wrong_off_by_one))  # last: it fails by waiting for a timeout
RING_KEYS = {"overwrite": "lesson05.check_ring_overwrite", "not_in_place": "lesson05.check_ring_not_in_place",
             "off_by_one": "lesson05.check_ring_off_by_one"}


def _run_sim(fn, case, timeout_s: float = SIM_TIMEOUT_S, *, sign: int = 1, strided: bool = False):
    world, numel, dtype = case
    g = torch.Generator().manual_seed(world * 100 + numel)
    tensors = [sign * torch.randint(-50, 50, (numel,), generator=g).to(dtype) for _ in range(world)]  # exact sums
    results, events = ring.simulate_ring(tensors, fn, timeout_s=timeout_s, strided=strided)
    return tensors, results, events


def _forbidden_ring() -> list:
    """The library's answers to task 1: the lesson's own scatter_reduce and ring (the task says so)."""
    return [ring_allreduce.scatter_reduce, ring_allreduce.ring_all_reduce, reference_scatter_reduce]


def ring_runs() -> list[tuple[tuple, dict]]:
    """Every (case, how) the simulation runs: the cases, then two of them again in another context —
    chunks that are non-contiguous views of a larger buffer, and the first case with other values
    (an answer that remembers an earlier call's chunks fails there)."""
    cases = ring_cases()
    return [(c, {}) for c in cases] + [(cases[2], {"strided": True}), (cases[0], {"sign": -1})]


@check
def check_scatter_reduce(fn, *, real_processes: bool = True, timeout_s: float = 60.0) -> CheckResult:
    """Simulation first (world sizes 2–4, sizes that do not divide evenly, two dtypes),
    then 3 real processes against dist.all_reduce."""
    if fn is None or is_stub(fn):
        return not_done()
    for case, how in ring_runs():
        world, numel, _ = case
        spy = spy_collectives(forbid=True)
        try:  # the ring is the technique: a torch collective inside it is not, nor the lesson's own ring
            with spy, Forbidden(_forbidden_ring()) as watch:  # Forbidden follows the rank threads
                tensors, results, events = _run_sim(fn, case, **how)
        except Exception as exc:  # noqa: BLE001 - sorted below
            if watch.calls:
                return watch.failure()
            if spy.calls:
                return failed("used_collective", "lesson05.check_ring_used_collective", name=spy.calls[0])
            if isinstance(exc, TimeoutError):
                return failed("deadlock", "lesson05.check_ring_deadlock")
            if isinstance(exc, ring.ChunkMismatch):
                return failed("off_by_one", "lesson05.check_ring_off_by_one")
            return not_done(exc)
        if watch.calls:
            return watch.failure()
        if spy.calls:
            return failed("used_collective", "lesson05.check_ring_used_collective", name=spy.calls[0])
        calls = sum(1 for e in events if e["rank"] == 0)
        if calls != 2 * (world - 1):  # our all-gather makes world−1 of them
            return failed("step_count", "lesson05.check_ring_steps", calls=calls - (world - 1), want=world - 1)
        total = sum(tensors)
        if all(torch.equal(r, total) for r in results):
            continue
        for code, wrong in WRONG_RINGS:
            try:
                _, wrong_results, _ = _run_sim(wrong, case, timeout_s=0.5, **how)  # ours: no slack needed
            except Exception:  # noqa: BLE001, S112 - a wrong variant may fail on its own
                continue
            if all(torch.equal(a, b) for a, b in zip(results, wrong_results)):
                return failed(code, RING_KEYS[code])
        return failed("wrong_sum", "lesson05.check_ring_wrong", world=world, numel=numel)
    source = source_of(fn)
    if not real_processes or source is None:
        return passed("lesson05.check_ring_ok_sim")
    world, numels = RING_REAL
    results, problem = _run_ranks(_ring_source_worker, world, (source, fn.__name__, numels), timeout_s)
    if problem is not None:
        return problem
    forbidden = [name for r in results for name in r.get("forbidden", [])]
    if forbidden:
        return failed("forbidden_call", "checking.forbidden_call", name=forbidden[0])
    used = [name for r in results for name in r["collectives"]]
    if used:
        return failed("used_collective", "lesson05.check_ring_used_collective", name=used[0])
    error = max(r["error"] for r in results)
    if error > 1e-4:
        return failed("real_mismatch", "lesson05.check_ring_real_mismatch", error=error)
    return passed("lesson05.check_ring_ok_real", world=world, error=error)


def _ring_source_worker(rank, world_size, source, name, numels):
    """In each real process: the student's scatter-reduce inside our ring, vs dist.all_reduce."""
    student = _load_source(source, name)
    worst, used, forbidden = 0.0, [], []
    for numel in numels:
        data = torch.randn(numel, generator=torch.Generator().manual_seed(rank * 31 + numel))
        expected = data.clone()
        dist.all_reduce(expected)
        with spy_collectives() as spy, Forbidden(_forbidden_ring()[:1]) as watch:  # only our exchange moves chunks
            ring.ring_all_reduce(data, scatter_reduce_fn=student)   # (the check's own ring_all_reduce runs here)
        used += spy.calls
        forbidden += watch.calls
        worst = max(worst, (data - expected).abs().max().item())
    return {"rank": rank, "error": worst, "collectives": used, "forbidden": forbidden}
