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

import ast
import hashlib
import inspect
import textwrap

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from fastrain_lib.distributed import pipeline, ring
from fastrain_lib.models import SimpleNN
from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, failed, not_done, passed, snapshot, unchanged
from fastrain_lib.lessons import check_ranks as ranks

# ---------------------------------------------------------------------------------------
# Reference answers (what the solution notebook writes)
# ---------------------------------------------------------------------------------------


def reference_scatter_reduce(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send = (rank - step) % world_size
        recv = (rank - step - 1) % world_size
        received = exchange(chunks[send], chunks[recv])
        chunks[recv] += received
    return chunks


def reference_bubble_fraction(stages, micro_batches):
    return (stages - 1) / (micro_batches + stages - 1)


def reference_idle_share(events, stages):
    return pipeline.idle_share(events, stages)


def reference_average_gradients(model, world_size):
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= world_size


def reference_train_ddp(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


# ---------------------------------------------------------------------------------------
# Helpers: is it still a stub? can we ship its source to another process?
# ---------------------------------------------------------------------------------------


def is_stub(fn) -> bool:
    """True when the function body is only a docstring/pass/`return None`/`raise NotImplementedError`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # docstring
        if isinstance(node, ast.Pass):
            continue
        if isinstance(node, ast.Return) and (node.value is None or
                                             (isinstance(node.value, ast.Constant) and node.value.value is None)):
            continue
        if isinstance(node, ast.Raise):
            continue
        return False
    return True


def source_of(fn) -> str | None:
    """The function's source text (works for functions typed into Jupyter cells), or None."""
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _load_source(source: str, name: str):
    """exec() the student's source in a namespace with the usual names; returns the function."""
    namespace = {"torch": torch, "nn": nn, "F": F, "dist": dist, "DDP": DDP, "DataLoader": DataLoader,
                 "DistributedSampler": DistributedSampler, "__name__": "student"}
    exec(compile(source, "<student>", "exec"), namespace)  # noqa: S102 - the student's own code
    return namespace[name]


def _run_ranks(worker, world_size, args, timeout_s) -> tuple[list | None, CheckResult | None]:
    """The worker in `world_size` real processes; (results, None) or (None, a failure naming why)."""
    try:
        return ranks.run(worker, world_size, args, timeout_s=timeout_s), None
    except ranks.RanksFailed as exc:
        if exc.kind == "timeout":
            return None, failed("timeout", "checks.l05.timeout", world=world_size, seconds=f"{timeout_s:g}")
        return None, failed("worker_failed", "lesson05.check_worker_failed", error=exc.detail[-1500:])


# ---------------------------------------------------------------------------------------
# Task 1: the scatter-reduce phase of ring all-reduce
# ---------------------------------------------------------------------------------------

# (world size, numbers, dtype): every world size 2–4, sizes that do not divide evenly
RING_CASES = [(3, 7, torch.float64), (2, 5, torch.float32), (3, 10, torch.float32), (4, 13, torch.float64)]
RING_REAL = (3, [3, 10, 7])  # world size and tensor sizes of the real-process run
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
    for case in RING_CASES:
        world, numel, _ = case
        try:
            tensors, results, events = _run_sim(fn, case)
        except TimeoutError:
            return failed("deadlock", "lesson05.check_ring_deadlock")
        except ring.ChunkMismatch:
            return failed("off_by_one", "lesson05.check_ring_off_by_one")
        except Exception as exc:  # noqa: BLE001 - the student's code
            return not_done(exc)
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
                return failed(code, f"lesson05.check_ring_{code}")
        return failed("wrong_sum", "lesson05.check_ring_wrong", world=world, numel=numel)
    source = source_of(fn)
    if not real_processes or source is None:
        return passed("lesson05.check_ring_ok_sim")
    world, numels = RING_REAL
    results, problem = _run_ranks(_ring_source_worker, world, (source, fn.__name__, numels), timeout_s)
    if problem is not None:
        return problem
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
        ring.ring_all_reduce(data, scatter_reduce_fn=student)
        worst = max(worst, (data - expected).abs().max().item())
    return {"rank": rank, "error": worst}


# ---------------------------------------------------------------------------------------
# Task 2: the bubble
# ---------------------------------------------------------------------------------------


def _call_for_number(fn, *args) -> tuple[float | None, CheckResult | None]:
    """Call the student's function and insist on a number: (value, None) or (None, failure)."""
    got, problem = call_student(fn, *args)
    if problem is not None:
        return None, problem
    value = as_number(got)
    if value is None:
        return None, failed("not_a_number", "lesson05.check_not_a_number")
    return value, None


BUBBLE_CASES = [(3, 7), (2, 1), (2, 4), (4, 4), (4, 16), (5, 3), (7, 10)]


@check
def check_bubble_fraction(fn) -> CheckResult:
    """The formula against GPipe's for several (stages, micro-batches), none of them round."""
    for k, m in BUBBLE_CASES:
        got, problem = _call_for_number(fn, k, m)
        if problem is not None:
            return problem
        want = reference_bubble_fraction(k, m)
        if abs(got - want) < 1e-9:
            continue
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


def _idle_variants(events, k):
    work = [e for e in events if e["kind"] in ("F", "B")]
    busy = sum(e["end"] - e["start"] for e in work)
    span = max(e["end"] for e in work) - min(e["start"] for e in work)
    every = sum(e["end"] - e["start"] for e in events)
    every_span = max(e["end"] for e in events) - min(e["start"] for e in events)
    return [("forgot_stages", "lesson05.check_idle_forgot_stages", 1 - busy / span),
            ("busy_not_idle", "lesson05.check_idle_busy", busy / (k * span)),
            ("not_only_work", "checks.l05.idle_not_only_work", 1 - every / (k * every_span)),
            ("span_from_zero", "checks.l05.idle_span_from_zero", 1 - busy / (k * max(e["end"] for e in work)))]


def _judge_idle(fn, events, k, want, wrong_code) -> CheckResult | None:
    before = snapshot(events)
    got, problem = _call_for_number(fn, events, k)
    if problem is not None:
        return problem
    if not unchanged(events, before):
        return failed("mutated_input", "checks.l05.idle_mutated")
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
    for k, m, forward, backward, offset, extra in IDLE_CASES:
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


# ---------------------------------------------------------------------------------------
# Task 3: averaging gradients by hand (what DDP does for you)
# ---------------------------------------------------------------------------------------

AVG_CONFIGS = [(3, torch.float64), (2, torch.float32)]  # (world size, dtype): 3 first, the usual slip


def _grad_model(rank: int, dtype=torch.float32) -> nn.Module:
    """The same weights on every rank, different gradients (as after each rank's backward)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 3), nn.ReLU(), nn.Linear(3, 2)).to(dtype)
    g = torch.Generator().manual_seed(100 + rank)
    for p in model.parameters():
        p.grad = torch.randn(p.shape, generator=g, dtype=dtype)
    return model


def _avg_source_worker(rank, world_size, source, name, dtype):
    student = _load_source(source, name)
    model = _grad_model(rank, dtype)
    student(model, world_size)
    return {"rank": rank,
            "grads": [None if p.grad is None else p.grad.detach().clone() for p in model.parameters()],
            "weights": [p.detach().clone() for p in model.parameters()]}


def _judge_average(results, world, dtype) -> CheckResult | None:
    models = [_grad_model(r, dtype) for r in range(world)]
    mean = [sum(m_params) / world for m_params in zip(*[[p.grad for p in m.parameters()] for m in models])]
    weights = [p.detach() for p in models[0].parameters()]
    for r in results:
        if any(g is None or g.shape != m.shape for g, m in zip(r["grads"], mean)):
            return failed("grad_lost", "checks.l05.avg_grad_lost")
        if any(g.dtype != dtype for g in r["grads"]):
            return failed("dtype_changed", "checks.l05.avg_dtype", got=str(r["grads"][0].dtype), want=str(dtype))
        if not all(torch.equal(w, v) for w, v in zip(r["weights"], weights)):
            return failed("weights_changed", "checks.l05.avg_weights_changed")
    grads = [r["grads"] for r in results]
    if all(torch.allclose(g, m, atol=1e-6) for rg in grads for g, m in zip(rg, mean)):
        return None
    if not all(torch.equal(a, b) for rg in grads[1:] for a, b in zip(rg, grads[0])):
        return failed("not_synced", "lesson05.check_avg_not_synced")
    # the same on every rank: how far from the mean? (ratio of the summed gradients)
    got = torch.cat([g.flatten() for g in grads[0]])
    want = torch.cat([m.flatten() for m in mean])
    factor = float((got @ want) / (want @ want))
    if torch.allclose(got, factor * want, atol=1e-6):
        if abs(factor - world) < 1e-6:
            return failed("not_averaged", "lesson05.check_avg_not_averaged", world=world)
        return failed("off_by_factor", "checks.l05.avg_factor", world=world, factor=f"{factor:.3g}")
    return failed("wrong_result", "lesson05.check_avg_wrong")


@check
def check_average_gradients(fn, *, timeout_s: float = 60.0) -> CheckResult:
    """Real processes, world sizes 3 and 2 (float64 and float32 gradients): afterwards every
    rank must hold the mean of all ranks' gradients, and the weights must be untouched."""
    if fn is None or is_stub(fn):
        return not_done()
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05.check_no_source")
    for world, dtype in AVG_CONFIGS:
        results, problem = _run_ranks(_avg_source_worker, world, (source, fn.__name__, dtype), timeout_s)
        if problem is not None:
            return problem
        problem = _judge_average(results, world, dtype)
        if problem is not None:
            return problem
    return passed("checks.l05.avg_ok", worlds=", ".join(str(w) for w, _ in AVG_CONFIGS))


# ---------------------------------------------------------------------------------------
# Task 4: a DDP training loop done right
# ---------------------------------------------------------------------------------------


class LoggingDataset(Dataset):
    """A small labelled dataset that remembers which indices this process read, in order."""

    def __init__(self, n: int = 64, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.rand(n, 1, 28, 28, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)
        self.seen: list[int] = []

    def __len__(self):
        return len(self.y)

    def __getitem__(self, index):
        self.seen.append(int(index))
        return self.x[index], self.y[index]


# (world size, samples, epochs, batch size, SGD momentum): the first one divides nothing evenly
DDP_CONFIGS = [(3, 50, 2, 5, 0.9), (2, 64, 2, 8, 0.0)]
_DDP_REFERENCE: dict = {}  # config -> the reference loop's trained state dict (computed once per session)


def _fresh(lr: float = 0.1, momentum: float = 0.0):
    torch.manual_seed(0)
    model = SimpleNN(hidden=16)
    return model, torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)


def _hash(model) -> str:
    h = hashlib.sha1()
    for p in model.parameters():
        h.update(p.detach().numpy().tobytes())
    return h.hexdigest()[:12]


def _ddp_source_worker(rank, world_size, source, name, checkpoint_path, n, epochs, batch_size, momentum,
                       with_reference=True):
    student = _load_source(source, name)
    saves = []
    real_save = torch.save

    def spy_save(obj, path, *args, **kwargs):  # remember who saved where, then really save
        saves.append(str(path))
        return real_save(obj, path, *args, **kwargs)

    torch.save = spy_save
    try:
        dataset = LoggingDataset(n)
        model, optimizer = _fresh(momentum=momentum)
        start = snapshot(model.state_dict())
        student(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path)
    finally:
        torch.save = real_save
    dist.barrier()  # rank 0 has written its checkpoint before anyone looks at it
    ref_state = None
    if with_reference:  # the library's loop, same seeds: the weights the student's loop must reach
        ref_model, ref_opt = _fresh(momentum=momentum)
        reference_train_ddp(rank, world_size, ref_model, ref_opt, LoggingDataset(n), epochs, batch_size,
                            checkpoint_path + f".ref{rank}")
        ref_state = snapshot(ref_model.state_dict())
    return {"rank": rank, "seen": dataset.seen, "saves": saves, "hash": _hash(model),
            "state": snapshot(model.state_dict()), "ref_state": ref_state, "start": start}


def _judge_checkpoint(path, results) -> CheckResult | None:
    from pathlib import Path

    savers = [r["rank"] for r in results if path in r["saves"]]
    if any(rank != 0 for rank in savers):
        return failed("every_rank_saves", "lesson05.check_ddp_every_rank_saves", ranks=", ".join(map(str, savers)))
    if not savers or not Path(path).exists():
        return failed("no_checkpoint", "lesson05.check_ddp_no_checkpoint")
    try:
        saved = torch.load(path, weights_only=True)
    except Exception as exc:  # noqa: BLE001 - not a state dict of tensors
        return failed("bad_checkpoint", "checks.l05.ddp_bad_checkpoint", error=str(exc)[:200])
    ref, start = results[0]["ref_state"], results[0]["start"]
    if not isinstance(saved, dict):
        return failed("bad_checkpoint", "checks.l05.ddp_bad_checkpoint", error=type(saved).__name__)
    if set(saved) == {f"module.{k}" for k in ref}:
        return failed("module_prefix", "checks.l05.ddp_module_prefix")
    if set(saved) != set(ref):
        return failed("bad_checkpoint", "checks.l05.ddp_bad_checkpoint", error=", ".join(sorted(map(str, saved)))[:200])
    if all(torch.equal(saved[k], start[k]) for k in ref):
        return failed("saved_untrained", "checks.l05.ddp_saved_untrained")
    if not all(torch.allclose(saved[k], ref[k], atol=1e-5) for k in ref):
        return failed("checkpoint_stale", "checks.l05.ddp_checkpoint_stale")
    return None


def _judge_ddp(results, path, world, n, epochs) -> CheckResult | None:
    per_epoch = -(-n // world)  # DistributedSampler pads to a multiple of world: ceil(n / world)
    for r in results:
        if len(r["seen"]) != epochs * per_epoch:
            return failed("no_sampler", "checks.l05.ddp_sampler_count", world=world, got=len(r["seen"]) // max(epochs, 1),
                          want=per_epoch, n=n)
    first = [set(r["seen"][:per_epoch]) for r in results]
    if set.union(*first) != set(range(n)):
        return failed("no_sampler", "checks.l05.ddp_sampler_count", world=world, got=per_epoch, want=per_epoch, n=n)
    if epochs > 1 and all(r["seen"][:per_epoch] == r["seen"][per_epoch:2 * per_epoch] for r in results):
        return failed("no_set_epoch", "lesson05.check_ddp_no_set_epoch")
    if len({r["hash"] for r in results}) > 1:
        return failed("not_synced", "lesson05.check_ddp_not_synced")
    for r in results:
        if not all(torch.allclose(r["state"][k], r["ref_state"][k], atol=1e-5) for k in r["ref_state"]):
            return failed("wrong_result", "lesson05.check_ddp_wrong")
    return _judge_checkpoint(path, results)


@check
def check_train_ddp(fn, checkpoint_dir: str | None = None, *, timeout_s: float = 90.0) -> CheckResult:
    """Real processes (3 ranks on 50 samples in batches of 5, then 2 ranks on 64 in batches
    of 8): which samples each rank read, in which order, whether all ranks end with the
    reference's weights, and what the checkpoint holds (only rank 0 writes it, after
    training, without DDP's "module." prefix)."""
    import tempfile
    from pathlib import Path

    if fn is None or is_stub(fn):
        return not_done()
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05.check_no_source")
    for world, n, epochs, batch_size, momentum in DDP_CONFIGS:
        with tempfile.TemporaryDirectory(dir=checkpoint_dir) as tmp:
            path = str(Path(tmp) / "checkpoint.pt")
            config = (world, n, epochs, batch_size, momentum)
            args = (source, fn.__name__, path, n, epochs, batch_size, momentum, config not in _DDP_REFERENCE)
            results, problem = _run_ranks(_ddp_source_worker, world, args, timeout_s)
            if problem is None:
                _DDP_REFERENCE.setdefault(config, results[0]["ref_state"])  # the same on every rank
                for r in results:
                    r["ref_state"] = _DDP_REFERENCE[config]
                problem = _judge_ddp(results, path, world, n, epochs)
        if problem is not None:
            return problem
    return passed("checks.l05.ddp_ok", worlds=", ".join(str(c[0]) for c in DDP_CONFIGS))
