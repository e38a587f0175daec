"""Check for lesson 05's task 4, run in real processes: a DDP training loop (sampler with set_epoch,
one checkpoint writer). checks.py re-exports it (task 3, averaging gradients by hand: checks_avg.py)."""

from __future__ import annotations

import hashlib
import random

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from fastrain_lib.lessons.checking import CheckResult, check, failed, not_done, passed, snapshot
from fastrain_lib.lessons.l05_data_vs_model_parallel.student_code import (
    _load_source,
    _run_ranks,
    answer_name,
    is_stub,
    library_answer,
    source_of,
)
from fastrain_lib.models import SimpleNN

SEED = 20261202

# ---------------------------------------------------------------------------------------
# Reference answers (what the solution notebook writes)
# ---------------------------------------------------------------------------------------


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
        if torch.is_grad_enabled():  # a pass under torch.no_grad() (an evaluation) trains nothing: not counted
            self.seen.append(int(index))
        return self.x[index], self.y[index]


# (world size, samples, epochs, batch size, SGD momentum): the first one divides nothing evenly
DDP_CONFIGS = [(3, 50, 2, 5, 0.9), (2, 64, 2, 8, 0.0)]


def ddp_configs(seed: int = SEED) -> list[tuple]:
    """(3, 50, 2, 5, 0.9) first (nothing divides evenly), then a generated one: 2 or 4 ranks, a
    sample count that the world size does not divide, 2 or 3 epochs, a batch size and momentum;
    then one process (world size 1: the loop must not assume a partner)."""
    rng = random.Random(seed + 4)
    world = rng.choice([2, 4])
    n = world * rng.randint(6, 12) + rng.randint(1, world - 1)
    return [DDP_CONFIGS[0], (world, n, rng.choice([2, 3]), rng.randint(3, 7), rng.choice([0.0, 0.5, 0.9])),
            (1, 23, 2, 4, 0.5)]


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
    from fastrain_lib.lessons.checking import Forbidden

    student = _load_source(source, name)
    saves = []
    real_save = torch.save  # torch.save and torch.serialization.save are one function: both names are watched

    def spy_save(obj, path, *args, **kwargs):  # remember who saved where, then really save
        saves.append(str(path))
        return real_save(obj, path, *args, **kwargs)

    epochs_seen = []  # (sampler's shuffle, the epoch given) for every set_epoch call, in order
    real_set_epoch = DistributedSampler.set_epoch

    def spy_set_epoch(sampler, epoch):
        epochs_seen.append((bool(getattr(sampler, "shuffle", True)), epoch))
        return real_set_epoch(sampler, epoch)

    torch.save = torch.serialization.save = spy_save
    DistributedSampler.set_epoch = spy_set_epoch  # this process only: observe the set_epoch rule itself
    try:
        dataset = LoggingDataset(n)
        model, optimizer = _fresh(momentum=momentum)
        start = snapshot(model.state_dict())
        with Forbidden([reference_train_ddp]) as watch:  # the library's answer is not the student's loop
            student(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path)
    finally:
        torch.save = torch.serialization.save = real_save
        DistributedSampler.set_epoch = real_set_epoch
    dist.barrier()  # rank 0 has written its checkpoint before anyone looks at it
    ref_state = None
    if with_reference:  # the library's loop, same seeds: the weights the student's loop must reach
        ref_model, ref_opt = _fresh(momentum=momentum)
        reference_train_ddp(rank, world_size, ref_model, ref_opt, LoggingDataset(n), epochs, batch_size,
                            checkpoint_path + f".ref{rank}")
        ref_state = snapshot(ref_model.state_dict())
    return {"rank": rank, "seen": dataset.seen, "saves": saves, "hash": _hash(model), "set_epoch": epochs_seen,
            "forbidden": watch.calls,
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
        return failed("bad_checkpoint", "checking.l05.ddp_bad_checkpoint", error=str(exc)[:200])
    ref, start = results[0]["ref_state"], results[0]["start"]
    if not isinstance(saved, dict):
        return failed("bad_checkpoint", "checking.l05.ddp_bad_checkpoint", error=type(saved).__name__)
    if set(saved) == {f"module.{k}" for k in ref}:
        return failed("module_prefix", "checking.l05.ddp_module_prefix")
    if set(saved) != set(ref):
        return failed("bad_checkpoint", "checking.l05.ddp_bad_checkpoint", error=", ".join(sorted(map(str, saved)))[:200])
    if all(torch.equal(saved[k], start[k]) for k in ref):
        return failed("saved_untrained", "checking.l05.ddp_saved_untrained")
    if not all(torch.allclose(saved[k], ref[k], atol=1e-5) for k in ref):
        return failed("checkpoint_stale", "checking.l05.ddp_checkpoint_stale")
    return None


def _judge_set_epoch(results, epochs) -> CheckResult | None:
    """The set_epoch rule, from the calls observed: once per epoch, with the epoch's number, on a
    sampler that shuffles (with shuffle=False set_epoch changes nothing: say that, not "add set_epoch")."""
    if epochs < 2:
        return None
    for r in results:
        calls = r.get("set_epoch", [])
        given = [epoch for _, epoch in calls]
        if not calls:
            if all(x["seen"][: len(x["seen"]) // epochs] == x["seen"][len(x["seen"]) // epochs: 2 * len(x["seen"]) // epochs]
                   for x in results):
                return failed("no_set_epoch", "lesson05.check_ddp_no_set_epoch")
            return failed("no_set_epoch", "lesson05.check_ddp_set_epoch_not_called")
        if len(set(given)) < epochs:
            return failed("set_epoch_same", "lesson05.check_ddp_set_epoch_same", calls=len(calls),
                          epochs=epochs, values=", ".join(str(g) for g in given[:6]))
        if not any(shuffle for shuffle, _ in calls):
            return failed("shuffle_off", "lesson05.check_ddp_shuffle_off")
    return None


def _judge_ddp(results, path, world, n, epochs) -> CheckResult | None:
    forbidden = [name for r in results for name in r.get("forbidden", [])]
    if forbidden:
        return failed("forbidden_call", "lesson05.check_ddp_forbidden", name=forbidden[0])
    trained_right = len({r["hash"] for r in results}) == 1 and all(
        torch.allclose(r["state"][k], r["ref_state"][k], atol=1e-5) for r in results for k in r["ref_state"])
    if trained_right:  # the reference's weights on every rank: extra passes (an evaluation) are the student's own
        return _judge_set_epoch(results, epochs) or _judge_checkpoint(path, results)
    per_epoch = -(-n // world)  # DistributedSampler pads to a multiple of world: ceil(n / world)
    for r in results:
        if len(r["seen"]) != epochs * per_epoch:
            return failed("no_sampler", "checking.l05.ddp_sampler_count", world=world, got=len(r["seen"]) // max(epochs, 1),
                          want=per_epoch, n=n)
    first = [set(r["seen"][:per_epoch]) for r in results]
    if set.union(*first) != set(range(n)):
        return failed("no_sampler", "checking.l05.ddp_sampler_count", world=world, got=per_epoch, want=per_epoch, n=n)
    problem = _judge_set_epoch(results, epochs)
    if problem is not None:
        return problem
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
    if library_answer(fn, [reference_train_ddp]):
        return failed("forbidden_call", "lesson05.check_ddp_forbidden", name=answer_name(fn))
    source = source_of(fn)
    if source is None:
        return failed("no_source", "lesson05.check_no_source")
    configs = ddp_configs()
    for world, n, epochs, batch_size, momentum in configs:
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
    return passed("lesson05.check_ddp_ok", worlds=", ".join(str(c[0]) for c in configs))
