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

from fastrain_lib.distributed import pipeline, ring
from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, failed, not_done, passed, snapshot, unchanged

from fastrain_lib.distributed import ring_allreduce
from fastrain_lib.lessons.l05_data_vs_model_parallel.student_code import (  # noqa: F401
    _load_source, _number, _run_ranks, is_stub, source_of, spy_collectives)
from fastrain_lib.lessons.l05_data_vs_model_parallel.checks_ddp import (  # noqa: F401 - tasks 3 and 4
    check_average_gradients, check_train_ddp, reference_average_gradients, reference_train_ddp)

# ---------------------------------------------------------------------------------------
# Reference answers (what the solution notebook writes)
# ---------------------------------------------------------------------------------------


# the lesson's own cell (distributed/ring_allreduce.py) is the reference answer
reference_scatter_reduce = ring_allreduce.scatter_reduce


def reference_bubble_fraction(stages, micro_batches):
    return (stages - 1) / (micro_batches + stages - 1)


def reference_idle_share(events, stages):
    return pipeline.idle_share(events, stages)


# ---------------------------------------------------------------------------------------
# Task 1: the scatter-reduce phase of ring all-reduce
# ---------------------------------------------------------------------------------------

# (world size, numbers, dtype): every world size 2–4, sizes that do not divide evenly
RING_CASES = [(3, 7, torch.float64), (2, 5, torch.float32), (3, 10, torch.float32), (4, 13, torch.float64)]
RING_REAL = (3, [3, 10, 7])  # world size and tensor sizes of the real-process run
SEED = 20261202  # the generated cases are the same in every run (a failure can be reproduced)


def ring_cases(seed: int = SEED, count: int = 6) -> list[tuple]:
    """RING_CASES, then generated ones: world sizes 2–6, sizes that divide evenly, that do not, and
    smaller than the world size (empty chunks), float32 / float64 / int64."""
    rng = random.Random(seed)
    cases = list(RING_CASES)
    for i in range(count):
        world = rng.randint(2, 6)
        kind = i % 3
        numel = (world * rng.randint(1, 5) if kind == 0 else
                 world * rng.randint(1, 5) + rng.randint(1, world - 1) if kind == 1 else rng.randint(1, world - 1))
        cases.append((world, numel, rng.choice([torch.float32, torch.float64, torch.int64])))
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


def _run_sim(fn, case, timeout_s: float = SIM_TIMEOUT_S):
    world, numel, dtype = case
    g = torch.Generator().manual_seed(world * 100 + numel)
    tensors = [torch.randint(-50, 50, (numel,), generator=g).to(dtype) for _ in range(world)]  # exact sums
    results, events = ring.simulate_ring(tensors, fn, timeout_s=timeout_s)
    return tensors, results, events


@check
def check_scatter_reduce(fn, *, real_processes: bool = True, timeout_s: float = 60.0) -> CheckResult:
    """Simulation first (world sizes 2–4, sizes that do not divide evenly, two dtypes),
    then 3 real processes against dist.all_reduce."""
    if fn is None or is_stub(fn):
        return not_done()
    for case in ring_cases():
        world, numel, _ = case
        spy = spy_collectives(forbid=True)
        try:
            with spy:  # the ring is the technique: a torch collective inside it is not
                tensors, results, events = _run_sim(fn, case)
        except Exception as exc:  # noqa: BLE001 - sorted below
            if spy.calls:
                return failed("used_collective", "lesson05.check_ring_used_collective", name=spy.calls[0])
            if isinstance(exc, TimeoutError):
                return failed("deadlock", "lesson05.check_ring_deadlock")
            if isinstance(exc, ring.ChunkMismatch):
                return failed("off_by_one", "lesson05.check_ring_off_by_one")
            return not_done(exc)
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
                _, wrong_results, _ = _run_sim(wrong, case, timeout_s=0.5)  # ours: no slack needed
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
    worst = 0.0
    for numel in numels:
        data = torch.randn(numel, generator=torch.Generator().manual_seed(rank * 31 + numel))
        expected = data.clone()
        dist.all_reduce(expected)
        with spy_collectives() as spy:  # only our exchange's isend/recv may move the chunks
            ring.ring_all_reduce(data, scatter_reduce_fn=student)
        worst = max(worst, (data - expected).abs().max().item())
    return {"rank": rank, "error": worst, "collectives": spy.calls}


# ---------------------------------------------------------------------------------------
# Task 2: the bubble
# ---------------------------------------------------------------------------------------


def _call_for_number(fn, *args) -> tuple[float | None, CheckResult | None]:
    """Call the student's function and insist on a number: (value, None) or (None, failure)."""
    got, problem = call_student(fn, *args)
    if problem is not None:
        return None, problem
    value = _number(got)  # int, float, NumPy, a 0-d tensor, or an exact Fraction
    if value is None:
        return None, failed("not_a_number", "lesson05.check_not_a_number")
    return value, None


BUBBLE_CASES = [(3, 7), (2, 1), (2, 4), (4, 4), (4, 16), (5, 3), (7, 10)]


def bubble_cases(seed: int = SEED, count: int = 8) -> list[tuple[int, int]]:
    """BUBBLE_CASES, then generated (K, M): the boundaries K = 1 (no bubble), M = 1 (all but one
    stage idle), M = 4K (GPipe's "negligible"), and random pairs that do not divide."""
    rng = random.Random(seed + 1)
    cases = list(BUBBLE_CASES) + [(1, rng.randint(1, 9)), (rng.randint(2, 8), 1)]
    k = rng.randint(2, 6)
    cases.append((k, 4 * k))
    while len(cases) < len(BUBBLE_CASES) + count:
        k, m = rng.randint(2, 9), rng.randint(2, 40)
        if m % (k - 1):
            cases.append((k, m))
    return cases


@check
def check_bubble_fraction(fn) -> CheckResult:
    """The formula against GPipe's for several (stages, micro-batches), none of them round."""
    for k, m in bubble_cases():
        got, problem = _call_for_number(fn, k, m)
        if problem is not None:
            return problem
        want = reference_bubble_fraction(k, m)
        if abs(got - want) <= 1e-6 * max(1.0, abs(want)):  # float32 answers are right to ~1e-7
            continue
        if want > 0 and abs(got - (k - 1) // (m + k - 1)) < 1e-9:
            return failed("integer_division", "lesson05.check_bubble_integer_division", k=k, m=m, want=want)
        if abs(got - (k - 1) / (m + k)) < 1e-9:
            return failed("off_by_one", "lesson05.check_bubble_off_by_one")
        if abs(got - (k - 1) / m) < 1e-9:
            return failed("wrong_denominator", "lesson05.check_bubble_denominator")
        return failed("wrong_value", "lesson05.check_bubble_wrong", k=k, m=m, got=got, want=want)
    return passed("lesson05.check_bubble_ok")


def _paper_timeline(k: int, m: int, *, forward: float, backward: float, offset: float, extra: bool, seed: int):
    """A GPipe schedule on paper, shifted to start at `offset` (measured clocks never start at 0),
    listed in a shuffled order, optionally with a gradient all-reduce event (kind "A") that is
    not pipeline work — as in the measured timelines."""
    events = pipeline.ideal_schedule(k, m, forward=forward, backward=backward)
    events = [{**e, "start": e["start"] + offset, "end": e["end"] + offset} for e in events]
    if extra:
        end = max(e["end"] for e in events)
        events += [{"stage": s, "kind": "A", "micro": -1, "start": end, "end": end + 3.0} for s in range(k)]
    order = torch.randperm(len(events), generator=torch.Generator().manual_seed(seed)).tolist()
    return [events[i] for i in order]


IDLE_CASES = [  # (stages, micro-batches, forward, backward, clock offset, with "A" events)
    (4, 5, 0.5, 1.25, 17.0, True),
    (3, 2, 1.0, 2.5, 1234.5, False),
    (2, 4, 1.0, 1.0, 0.0, False),
]


def idle_cases(seed: int = SEED, count: int = 4) -> list[tuple]:
    """IDLE_CASES, then generated schedules: stages 2–5, micro-batches 1–8 (M = 1 included),
    backward/forward ratios that are not 2, clocks that start anywhere, with or without "A" events."""
    rng = random.Random(seed + 2)
    cases = list(IDLE_CASES)
    for i in range(count):
        k, m = rng.randint(2, 5), 1 if i == 0 else rng.randint(2, 8)
        forward = round(rng.uniform(0.2, 2.0), 3)
        cases.append((k, m, forward, round(forward * rng.uniform(1.1, 3.3), 3), round(rng.uniform(0, 5000), 2),
                      rng.random() < 0.5))
    return cases


def _idle_variants(events, k):
    work = [e for e in events if e["kind"] in ("F", "B")]
    busy = sum(e["end"] - e["start"] for e in work)
    span = max(e["end"] for e in work) - min(e["start"] for e in work)
    every = sum(e["end"] - e["start"] for e in events)
    every_span = max(e["end"] for e in events) - min(e["start"] for e in events)
    return [("forgot_stages", "lesson05.check_idle_forgot_stages", 1 - busy / span),
            ("busy_not_idle", "lesson05.check_idle_busy", busy / (k * span)),
            ("not_only_work", "checking.l05.idle_not_only_work", 1 - every / (k * every_span)),
            ("span_from_zero", "checking.l05.idle_span_from_zero", 1 - busy / (k * max(e["end"] for e in work)))]


def _judge_idle(fn, events, k, want, wrong_code) -> CheckResult | None:
    before = snapshot(events)
    got, problem = _call_for_number(fn, events, k)
    if problem is not None:
        return problem
    if not unchanged(events, before):
        return failed("mutated_input", "checking.l05.idle_mutated")
    if abs(got - want) <= 1e-6:
        return None
    for code, key, value in _idle_variants(events, k):
        if abs(got - value) <= 1e-6:
            return failed(code, key)
    return failed(wrong_code, "lesson05.check_idle_wrong", got=got, want=want)


@check
def check_idle_share(fn, events: list[dict] | None = None) -> CheckResult:
    """The measured idle share: on paper schedules (shifted clocks, shuffled order, an extra
    all-reduce event) it must equal GPipe's formula; on the measured timeline `events`
    (all ranks' events) it must equal the library's. The events must come back unchanged."""
    for k, m, forward, backward, offset, extra in idle_cases():
        paper = _paper_timeline(k, m, forward=forward, backward=backward, offset=offset, extra=extra, seed=k * m)
        problem = _judge_idle(fn, paper, k, reference_bubble_fraction(k, m), "wrong_value")
        if problem is not None:
            return problem
    if not events:
        return passed()
    stages = 1 + max(e["stage"] for e in events)
    want = reference_idle_share(events, stages)
    problem = _judge_idle(fn, events, stages, want, "wrong_measured")
    if problem is not None:
        return problem
    return passed("lesson05.check_idle_ok", measured=want,
                  formula=reference_bubble_fraction(stages, 1 + max(e["micro"] for e in events)))
