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

from ..distributed import pipeline, ring
from ..distributed.launcher import WorkerError, launch
from ..models import SimpleNN
from . import CheckResult, call_student, failed, not_done, passed

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


def _launch(worker, world_size, args) -> tuple[list | None, CheckResult | None]:
    try:
        return launch(worker, world_size, args=args, timeout_s=90.0), None
    except WorkerError as exc:
        return None, failed("worker_failed", "lesson05.check_worker_failed", error=str(exc)[-1500:])


# ---------------------------------------------------------------------------------------
# Task 1: the scatter-reduce phase of ring all-reduce
# ---------------------------------------------------------------------------------------

RING_CASES = [(2, 5), (3, 10), (3, 7), (4, 13)]


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


WRONG_RINGS = (("off_by_one", _wrong_off_by_one), ("overwrite", _wrong_overwrite), ("overwrite", _wrong_rebind),
               ("not_in_place", _wrong_not_in_place))


def _run_sim(fn, case):
    world, numel = case
    tensors = [torch.arange(numel, dtype=torch.float64) * 0 + (world + 1) ** r for r in range(world)]
    results, events = ring.simulate_ring(tensors, fn)
    return tensors, results, events


def check_scatter_reduce(fn, *, real_processes: bool = True) -> CheckResult:
    """Simulation first (world sizes 2-4, sizes that do not divide evenly), then 3 real processes."""
    if fn is None or is_stub(fn):
        return not_done()
    for case in RING_CASES:
        world = case[0]
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
                _, wrong_results, _ = _run_sim(wrong, case)
            except Exception:  # noqa: BLE001, S112 - a wrong variant may fail on its own
                continue
            if all(torch.equal(a, b) for a, b in zip(results, wrong_results)):
                return failed(code, f"lesson05.check_ring_{code}")
        return failed("wrong_sum", "lesson05.check_ring_wrong", world=world, numel=case[1])
    if not real_processes:
        return passed("lesson05.check_ring_ok_sim")
    source = source_of(fn)
    if source is None:
        return passed("lesson05.check_ring_ok_sim")
    results, problem = _launch(_ring_source_worker, 3, (source, fn.__name__, [3, 10, 7]))
    if problem is not None:
        return problem
    error = max(r["error"] for r in results)
    if error > 1e-4:
        return failed("real_mismatch", "lesson05.check_ring_real_mismatch", error=error)
    return passed("lesson05.check_ring_ok_real", world=3, error=error)


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


def _number(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _call_for_number(fn, *args) -> tuple[float | None, CheckResult | None]:
    """Call the student's function and insist on a number: (value, None) or (None, failure)."""
    got, problem = call_student(fn, *args)
    if problem is not None:
        return None, problem
    got = _number(got)
    if got is None:
        return None, failed("not_a_number", "lesson05.check_not_a_number")
    return got, None


def check_bubble_fraction(fn) -> CheckResult:
    """The formula against GPipe's for several (stages, micro-batches)."""
    cases = [(2, 1), (2, 4), (4, 4), (4, 16), (3, 7)]
    for k, m in cases:
        got, problem = _call_for_number(fn, k, m)
        if problem is not None:
            return problem
        want = reference_bubble_fraction(k, m)
        if abs(got - want) < 1e-9:
            continue
        if abs(float(got) - (k - 1) / (m + k)) < 1e-9:
            return failed("off_by_one", "lesson05.check_bubble_off_by_one")
        if abs(float(got) - (k - 1) / m) < 1e-9:
            return failed("wrong_denominator", "lesson05.check_bubble_denominator")
        return failed("wrong_value", "lesson05.check_bubble_wrong", k=k, m=m, got=float(got), want=want)
    return passed("lesson05.check_bubble_ok")


def check_idle_share(fn, events: list[dict] | None = None) -> CheckResult:
    """The measured idle share: on the paper schedule it must equal the formula; on the
    measured timeline `events` (all ranks' events) it must equal the library's."""
    for k, m in [(2, 4), (3, 2)]:
        paper = pipeline.ideal_schedule(k, m, forward=1.0, backward=1.0)
        got, problem = _call_for_number(fn, paper, k)
        if problem is not None:
            return problem
        want = reference_bubble_fraction(k, m)
        if abs(float(got) - want) > 1e-6:
            busy = sum(e["end"] - e["start"] for e in paper)
            span = max(e["end"] for e in paper) - min(e["start"] for e in paper)
            if abs(float(got) - (1 - busy / span)) < 1e-6:
                return failed("forgot_stages", "lesson05.check_idle_forgot_stages")
            if abs(float(got) - busy / (k * span)) < 1e-6:
                return failed("busy_not_idle", "lesson05.check_idle_busy")
            return failed("wrong_value", "lesson05.check_idle_wrong", got=float(got), want=want)
    if events:
        stages = 1 + max(e["stage"] for e in events)
        got, problem = _call_for_number(fn, events, stages)
        if problem is not None:
            return problem
        want = reference_idle_share(events, stages)
        if abs(float(got) - want) > 1e-6:
            return failed("wrong_measured", "lesson05.check_idle_wrong", got=float(got), want=want)
        return passed("lesson05.check_idle_ok", measured=want,
                      formula=reference_bubble_fraction(stages, 1 + max(e["micro"] for e in events)))
    return passed()


# ---------------------------------------------------------------------------------------
# Task 3: averaging gradients by hand (what DDP does for you)
# ---------------------------------------------------------------------------------------


def _grad_model(rank: int) -> nn.Module:
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    for i, p in enumerate(model.parameters()):
        p.grad = torch.full_like(p, float(rank + 1)) * (i + 1)
    return model


def _avg_source_worker(rank, world_size, source, name):
    student = _load_source(source, name)
    model = _grad_model(rank)
    student(model, world_size)
    return {"rank": rank, "grads": [p.grad.detach().clone().numpy() for p in model.parameters()]}


def check_average_gradients(fn) -> CheckResult:
    """Two real processes: each has different gradients; afterwards both must hold the mean."""
    if fn is None or is_stub(fn):
        return not_done()
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05.check_no_source")
    world = 2
    results, problem = _launch(_avg_source_worker, world, (source, fn.__name__))
    if problem is not None:
        return problem
    mean = [sum(_grad_model(r).weight.grad for r in range(world)) / world,
            sum(_grad_model(r).bias.grad for r in range(world)) / world]
    grads = [[torch.as_tensor(g) for g in r["grads"]] for r in results]
    if all(torch.allclose(g, m) for r in grads for g, m in zip(r, mean)):
        return passed("lesson05.check_avg_ok")
    if all(torch.allclose(g, m * world) for r in grads for g, m in zip(r, mean)):
        return failed("not_averaged", "lesson05.check_avg_not_averaged", world=world)
    if not all(torch.equal(a, b) for a, b in zip(grads[0], grads[1])):
        return failed("not_synced", "lesson05.check_avg_not_synced")
    return failed("wrong_result", "lesson05.check_avg_wrong")


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


def _fresh(lr: float = 0.1):
    torch.manual_seed(0)
    model = SimpleNN(hidden=16)
    return model, torch.optim.SGD(model.parameters(), lr=lr)


def _hash(model) -> str:
    h = hashlib.sha1()
    for p in model.parameters():
        h.update(p.detach().numpy().tobytes())
    return h.hexdigest()[:12]


def _ddp_source_worker(rank, world_size, source, name, checkpoint_path, epochs, batch_size):
    student = _load_source(source, name)
    saves = []
    real_save = torch.save

    def spy_save(obj, path, *args, **kwargs):  # remember who saved, then really save
        saves.append(str(path))
        return real_save(obj, path, *args, **kwargs)

    torch.save = spy_save
    try:
        dataset = LoggingDataset()
        model, optimizer = _fresh()
        student(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path)
    finally:
        torch.save = real_save
    dist.barrier()
    ref_model, ref_opt = _fresh()
    reference_train_ddp(rank, world_size, ref_model, ref_opt, LoggingDataset(), epochs, batch_size,
                        checkpoint_path + ".ref")
    params = [p.detach().numpy().copy() for p in model.parameters()]
    ref_params = [p.detach().numpy().copy() for p in ref_model.parameters()]
    return {"rank": rank, "seen": dataset.seen, "saves": saves, "hash": _hash(model), "params": params,
            "ref_params": ref_params, "n": len(dataset)}


def check_train_ddp(fn, checkpoint_dir: str | None = None, *, epochs: int = 2, batch_size: int = 8) -> CheckResult:
    """Two real processes run the student's loop; we look at which samples each rank read,
    in which order, who saved the checkpoint, and whether the weights agree."""
    import tempfile
    from pathlib import Path

    if fn is None or is_stub(fn):
        return not_done()
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05.check_no_source")
    world = 2
    with tempfile.TemporaryDirectory(dir=checkpoint_dir) as tmp:
        path = str(Path(tmp) / "checkpoint.pt")
        results, problem = _launch(_ddp_source_worker, world, (source, fn.__name__, path, epochs, batch_size))
        if problem is not None:
            return problem
        n = results[0]["n"]
        per_epoch = n // world
        for r in results:
            if len(r["seen"]) != epochs * per_epoch:
                return failed("no_sampler", "lesson05.check_ddp_no_sampler", seen=len(r["seen"]) // max(epochs, 1), n=n)
        first = [set(r["seen"][:per_epoch]) for r in results]
        if set.union(*first) != set(range(n)) or sum(map(len, first)) != n:
            return failed("no_sampler", "lesson05.check_ddp_no_sampler", seen=per_epoch, n=n)
        if epochs > 1 and all(r["seen"][:per_epoch] == r["seen"][per_epoch:2 * per_epoch] for r in results):
            return failed("no_set_epoch", "lesson05.check_ddp_no_set_epoch")
        if len({r["hash"] for r in results}) > 1:
            return failed("not_synced", "lesson05.check_ddp_not_synced")
        savers = [r["rank"] for r in results if path in r["saves"]]
        if any(rank != 0 for rank in savers):
            return failed("every_rank_saves", "lesson05.check_ddp_every_rank_saves",
                          ranks=", ".join(map(str, savers)))
        if not savers or not Path(path).exists():
            return failed("no_checkpoint", "lesson05.check_ddp_no_checkpoint")
        for got, want in zip(results[0]["params"], results[0]["ref_params"]):
            if not torch.allclose(torch.as_tensor(got), torch.as_tensor(want), atol=1e-5):
                return failed("wrong_result", "lesson05.check_ddp_wrong")
    return passed("lesson05.check_ddp_ok")
