"""Lesson 05's checks accept the reference answers and name typical mistakes.

The real-process checks send the function's source to spawned processes, so the wrong
answers below are ordinary module-level functions (inspect.getsource must find them)."""

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F
from _processes import live_children
from checkcases import coverage_test, right, table_test, wrong
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from fastrain_lib.distributed import pipeline
from fastrain_lib.lessons import check_ranks as ranks
from fastrain_lib.lessons.l05_data_vs_model_parallel import checks as C


@pytest.fixture(autouse=True, scope="module")
def no_process_left():
    yield
    ranks.shutdown()  # the forkserver helper; every rank process is already gone
    assert ranks.LAST_PIDS and all(not p.is_running() or p.status() == "zombie" for p in _procs(ranks.LAST_PIDS))
    assert live_children() == []


def _procs(pids):
    import psutil

    out = []
    for pid in pids:
        try:
            out.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    return out



# ---------------------------------------------------------------- the solution notebook's answers (copies): the
# library's own references are forbidden answers (issue 39: one policy), so the right cases use these


def solution_scatter_reduce(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send = (rank - step) % world_size
        recv = (rank - step - 1) % world_size
        received = exchange(chunks[send], chunks[recv])
        chunks[recv] += received
    return chunks


def solution_bubble_fraction(stages, micro_batches):
    return (stages - 1) / (micro_batches + stages - 1)


def solution_idle_share(events, stages):
    work = [e for e in events if e["kind"] in ("F", "B")]
    span = max(e["end"] for e in work) - min(e["start"] for e in work)
    busy = sum(e["end"] - e["start"] for e in work)
    return 1 - busy / (stages * span)


def solution_average_gradients(model, world_size):
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= world_size


def solution_train_ddp(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(ddp_model(x), y)
            loss.backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)

# ---------------------------------------------------------------- task 1: scatter-reduce


def off_by_one(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send = (rank - step) % world_size
        recv = (rank - step) % world_size  # adds into the chunk it just sent
        chunks[recv] += exchange(chunks[send], chunks[recv])
    return chunks


def too_many_steps(chunks, rank, world_size, exchange):
    for step in range(world_size):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] += exchange(chunks[send], chunks[recv])
    return chunks


def overwrite(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv].copy_(exchange(chunks[send], chunks[recv]))  # replaces instead of adding
    return chunks


def not_in_place(chunks, rank, world_size, exchange):
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] = chunks[recv] + exchange(chunks[send], chunks[recv])  # a new tensor, not the view
    return chunks


def stub(chunks, rank, world_size, exchange):
    return None


def scatter_with_all_reduce(chunks, rank, world_size, exchange):
    """The right sums without the ring: torch's collective on every chunk."""
    for chunk in chunks:
        dist.all_reduce(chunk)
    return chunks


def scatter_no_return(chunks, rank, world_size, exchange):
    """Valid: works in place on the chunk views and returns nothing."""
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv].add_(exchange(chunks[send], chunks[recv]))


# ---------------------------------------------------------------- task 2: the bubble


# ---------------------------------------------------------------- task 3: averaging gradients


def average_by_all_gather(model, world_size):
    """The right mean without all_reduce: gathers every rank's gradient and averages by hand."""
    for p in model.parameters():
        pieces = [torch.empty_like(p.grad) for _ in range(world_size)]
        dist.all_gather(pieces, p.grad)
        p.grad.copy_(sum(pieces) / world_size)


def average_by_three(model, world_size):
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= 3  # fitted to the first example (3 processes)


def forgot_to_average(model, world_size):
    for p in model.parameters():
        dist.all_reduce(p.grad)


def no_all_reduce(model, world_size):
    for p in model.parameters():
        p.grad /= world_size


# ---------------------------------------------------------------- task 4: a DDP loop


def every_rank_saves(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    torch.save(model.state_dict(), checkpoint_path)  # every rank writes


def no_set_epoch(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def no_sampler_no_ddp(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def shuffle_off_with_set_epoch(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=False)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # called, but shuffle=False: the order never changes
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def set_epoch_zero(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for _ in range(epochs):
        sampler.set_epoch(0)  # the same number every epoch
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def test_stub_detection_and_no_launch_for_stubs():
    def stub_ddp(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
        """Docstring."""
        raise NotImplementedError

    assert C.is_stub(stub_ddp) and not C.is_stub(every_rank_saves)
    assert C.check_train_ddp(stub_ddp).code == "not_done"
    assert C.check_average_gradients(stub).code == "not_done"


# ---------------------------------------------------------------- more answers a student could write
# (module-level functions: the real-process checks send their source text to the ranks)


def scatter_add_(chunks, rank, world_size, exchange):
    """Valid: add_ on the chunk view, indices computed once per step."""
    for s in range(world_size - 1):
        chunks[(rank - s - 1) % world_size].add_(exchange(chunks[(rank - s) % world_size],
                                                          chunks[(rank - s - 1) % world_size]))
    return chunks


def scatter_two_ranks_only(chunks, rank, world_size, exchange):
    for step in range(1):  # "world_size - 1" is 1 on two ranks
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] += exchange(chunks[send], chunks[recv])
    return chunks


def average_with_get_world_size(model, world_size):
    """Valid: asks torch.distributed for the world size, divides with div_."""
    for p in model.parameters():
        if p.grad is not None:
            torch.distributed.all_reduce(p.grad, op=dist.ReduceOp.SUM)
            p.grad.div_(dist.get_world_size())


def average_by_two(model, world_size):
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= 2  # "two processes"


def average_weights_too(model, world_size):
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= world_size
        p.data /= world_size  # divides the weights as well


def average_with_max(model, world_size):
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.MAX)  # the largest, not the mean
        p.grad /= world_size


def average_waits_forever(model, world_size):
    for p in model.parameters():
        if dist.get_rank() == 0:
            dist.recv(p.grad, src=1)  # rank 1 never sends: it waits in a barrier instead
        else:
            dist.barrier()


def average_rank0_only(model, world_size):
    if dist.get_rank() == 0:  # the other ranks never join the all_reduce: a hang
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world_size


def ddp_module_state(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    """Valid: saves ddp_model.module.state_dict(), asks dist for the rank, zero_grad on the model."""
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=dist.get_rank(), shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            ddp_model.zero_grad(set_to_none=True)
            loss = F.cross_entropy(ddp_model(x), y)
            loss.backward()
            optimizer.step()
    if dist.get_rank() == 0:
        torch.save(ddp_model.module.state_dict(), checkpoint_path)


def _ddp_loop(model, optimizer, loader, sampler, epochs, forward):
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(forward(x), y).backward()
            optimizer.step()


def ddp_prefixed_checkpoint(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
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
        torch.save(ddp_model.state_dict(), checkpoint_path)  # keys start with "module."


def ddp_saves_first(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)  # before training
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()


def ddp_two_replicas(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=2, rank=rank % 2, shuffle=True, seed=0)  # hard-coded
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def ddp_forward_unwrapped(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    DDP(model)  # wrapped, but the forward below bypasses the wrapper: no gradient averaging
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def idle_sorted_copy(events, stages):
    """Valid: sorts a copy, keeps only F/B work."""
    work = sorted((e for e in events if e["kind"] != "A" and e["kind"] in "FB"), key=lambda e: e["start"])
    span = max(e["end"] for e in work) - work[0]["start"]
    return 1.0 - sum(e["end"] - e["start"] for e in work) / (stages * span)


def idle_all_events(events, stages):
    busy = sum(e["end"] - e["start"] for e in events)
    span = max(e["end"] for e in events) - min(e["start"] for e in events)
    return 1 - busy / (stages * span)


def idle_span_from_zero(events, stages):
    work = [e for e in events if e["kind"] in ("F", "B")]
    return 1 - sum(e["end"] - e["start"] for e in work) / (stages * max(e["end"] for e in work))


def idle_sorts_in_place(events, stages):
    events.sort(key=lambda e: e["start"])
    work = [e for e in events if e["kind"] in ("F", "B")]
    return 1 - sum(e["end"] - e["start"] for e in work) / (stages * (work[-1]["end"] - work[0]["start"]))


def idle_first_last(events, stages):
    work = [e for e in events if e["kind"] in ("F", "B")]
    span = work[-1]["end"] - work[0]["start"]  # assumes the list is in time order
    return 1 - sum(e["end"] - e["start"] for e in work) / (stages * span)


def _busy_span(events):
    busy = sum(e["end"] - e["start"] for e in events)
    return busy, max(e["end"] for e in events) - min(e["start"] for e in events)


def _busy_share(ev, k):
    busy, span = _busy_span([e for e in ev if e["kind"] in ("F", "B")])
    return busy / (k * span)


def _forgot_stages(ev, k):
    busy, span = _busy_span([e for e in ev if e["kind"] in ("F", "B")])
    return 1 - busy / span


TIMELINE = pipeline.ideal_schedule(2, 3, forward=1.0, backward=2.5)  # stands in for a measured one
# a "measured" timeline where stage 1 is slower than stage 0: its idle share is not the formula's
UNEVEN = [{**e, "start": e["start"] * (1.3 if e["stage"] == 1 else 1.0), "end": e["end"] * (1.3 if e["stage"] == 1 else 1.0)}
          for e in pipeline.ideal_schedule(2, 3, forward=1.0, backward=2.5)]


def _bubble_table(k, m):
    return {(k0, m0): (k0 - 1) / (m0 + k0 - 1) for k0, m0 in C.BUBBLE_CASES}.get((k, m), 0.25)


def _formula_not_measured(events, stages):
    micro = 1 + max(e["micro"] for e in events if e["kind"] in ("F", "B"))
    return (stages - 1) / (micro + stages - 1)


def _idle_fraction(events, stages):
    from fractions import Fraction

    work = [e for e in events if e["kind"] in ("F", "B")]
    busy = sum(Fraction(e["end"]) - Fraction(e["start"]) for e in work)
    span = Fraction(max(e["end"] for e in work)) - Fraction(min(e["start"] for e in work))
    return 1 - busy / (stages * span)

CASES = [
    right(C.check_scatter_reduce, solution_scatter_reduce, "the solution (real processes)"),
    wrong(C.check_scatter_reduce, C.reference_scatter_reduce, "forbidden_call", "the library's reference"),
    right(C.check_scatter_reduce, scatter_add_, "add_ (real processes)"),
    wrong(C.check_scatter_reduce, off_by_one, "off_by_one", "same chunk"),
    wrong(C.check_scatter_reduce, too_many_steps, "step_count", "world_size steps"),
    wrong(C.check_scatter_reduce, overwrite, "overwrite", "copy_"),
    wrong(C.check_scatter_reduce, not_in_place, "not_in_place", "new tensor"),
    wrong(C.check_scatter_reduce, scatter_two_ranks_only, "step_count", "two ranks only"),
    wrong(C.check_scatter_reduce, stub, "not_done", "stub"),
    wrong(C.check_scatter_reduce, scatter_with_all_reduce, "used_collective", "dist.all_reduce per chunk"),
    right(C.check_scatter_reduce, scatter_no_return, "in place, returns nothing", real_processes=False),
    right(C.check_bubble_fraction, solution_bubble_fraction, "the solution"),
    wrong(C.check_bubble_fraction, C.reference_bubble_fraction, "forbidden_call", "the library's reference"),
    right(C.check_bubble_fraction, lambda k, m: 1 - m / (m + k - 1), "1 - m/(m+k-1)"),
    wrong(C.check_bubble_fraction, lambda k, m: (k - 1) / (m + k), "off_by_one", "m + k"),
    wrong(C.check_bubble_fraction, lambda k, m: (k - 1) / m, "wrong_denominator", "/ m"),
    wrong(C.check_bubble_fraction, lambda k, m: (k - 1) // (m + k - 1), "integer_division", "//"),
    wrong(C.check_bubble_fraction, lambda k, m: _bubble_table(k, m), "wrong_value", "fitted to BUBBLE_CASES"),
    right(C.check_bubble_fraction, lambda k, m: __import__("fractions").Fraction(k - 1, m + k - 1), "Fraction"),
    right(C.check_bubble_fraction, lambda k, m: __import__("numpy").float32(k - 1) / __import__("numpy").float32(m + k - 1),
          "NumPy float32"),
    right(C.check_bubble_fraction, lambda k, m: torch.tensor((k - 1) / (m + k - 1), dtype=torch.float64), "0-d tensor"),
    wrong(C.check_bubble_fraction, lambda k, m: 3 / (m + 3), "wrong_value", "4 stages hard-coded"),
    wrong(C.check_bubble_fraction, lambda k, m: 100 * (k - 1) / (m + k - 1), "wrong_value", "percent"),
    wrong(C.check_bubble_fraction, lambda k, m: "(k-1)/(m+k-1)", "not_a_number", "text"),
    wrong(C.check_bubble_fraction, lambda k, m: None, "not_done", "stub"),
    right(C.check_idle_share, solution_idle_share, "the solution", events=TIMELINE),
    wrong(C.check_idle_share, C.reference_idle_share, "forbidden_call", "the library's reference", events=TIMELINE),
    right(C.check_idle_share, idle_sorted_copy, "sorted copy", events=TIMELINE),
    wrong(C.check_idle_share, _forgot_stages, "forgot_stages", "no K", events=TIMELINE),
    wrong(C.check_idle_share, _busy_share, "busy_not_idle", "busy share", events=TIMELINE),
    wrong(C.check_idle_share, idle_all_events, "not_only_work", "counts A events", events=TIMELINE),
    wrong(C.check_idle_share, idle_span_from_zero, "span_from_zero", "span from 0", events=TIMELINE),
    wrong(C.check_idle_share, idle_sorts_in_place, "mutated_input", "sorts in place", events=TIMELINE),
    wrong(C.check_idle_share, idle_first_last, "wrong_value", "list order as time", events=TIMELINE),
    wrong(C.check_idle_share, lambda ev, k: 0.5, "wrong_value", "constant", events=TIMELINE),
    wrong(C.check_idle_share, _formula_not_measured, "wrong_measured", "GPipe's formula, not the timeline",
          events=UNEVEN),
    right(C.check_idle_share, _idle_fraction, "Fraction", events=TIMELINE),
    right(C.check_average_gradients, solution_average_gradients, "the solution"),
    wrong(C.check_average_gradients, C.reference_average_gradients, "forbidden_call", "the library's reference"),
    right(C.check_average_gradients, average_with_get_world_size, "get_world_size + div_"),
    wrong(C.check_average_gradients, forgot_to_average, "not_averaged", "sum only"),
    wrong(C.check_average_gradients, no_all_reduce, "not_synced", "no all_reduce"),
    wrong(C.check_average_gradients, average_by_two, "off_by_factor", "/ 2 hard-coded"),
    wrong(C.check_average_gradients, average_weights_too, "weights_changed", "divides weights"),
    wrong(C.check_average_gradients, average_with_max, "wrong_result", "ReduceOp.MAX"),
    wrong(C.check_average_gradients, average_rank0_only, "worker_failed", "rank 0 only"),
    wrong(C.check_average_gradients, average_by_all_gather, "no_all_reduce", "all_gather, not all_reduce"),
    wrong(C.check_average_gradients, average_by_three, "off_by_factor", "/ 3 fitted to the first case"),
    wrong(C.check_average_gradients, average_waits_forever, "timeout", "hangs", timeout_s=3.0),
    right(C.check_train_ddp, solution_train_ddp, "the solution"),
    wrong(C.check_train_ddp, C.reference_train_ddp, "forbidden_call", "the library's reference"),
    right(C.check_train_ddp, ddp_module_state, "module.state_dict + get_rank"),
    wrong(C.check_train_ddp, every_rank_saves, "every_rank_saves", "every rank saves"),
    wrong(C.check_train_ddp, no_set_epoch, "no_set_epoch", "no set_epoch"),
    wrong(C.check_train_ddp, no_sampler_no_ddp, "no_sampler", "no sampler"),
    wrong(C.check_train_ddp, ddp_two_replicas, "no_sampler", "num_replicas=2"),
    wrong(C.check_train_ddp, ddp_prefixed_checkpoint, "module_prefix", "module. prefix"),
    wrong(C.check_train_ddp, ddp_saves_first, "saved_untrained", "saved before training"),
    wrong(C.check_train_ddp, ddp_forward_unwrapped, "not_synced", "forward bypasses DDP"),
    wrong(C.check_train_ddp, shuffle_off_with_set_epoch, "shuffle_off", "shuffle=False, set_epoch called"),
    wrong(C.check_train_ddp, set_epoch_zero, "set_epoch_same", "set_epoch(0) every epoch"),
]


# ---------------------------------------------------------------- issue 39: the result must come from the technique,
# the library's answers are forbidden, inputs in another context, correct unusual code passes


def scatter_calls_library(chunks, rank, world_size, exchange):
    """The lesson's own scatter_reduce: the library's answer, forbidden in this task."""
    from fastrain_lib.distributed.ring_allreduce import scatter_reduce as lesson_scatter_reduce

    return lesson_scatter_reduce(chunks, rank, world_size, exchange)


def scatter_remembers(chunks, rank, world_size, exchange, _memo={}):  # noqa: B006 - the cache is the point
    """Remembers the sums of an earlier call with the same shapes: right once, wrong on other values."""
    key = (rank, world_size, tuple(c.numel() for c in chunks), chunks[0].dtype if chunks else None)
    if key in _memo:
        for c, old in zip(chunks, _memo[key]):
            c.copy_(old)
        for step in range(world_size - 1):  # the ring's messages still flow, as the check counts them
            send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
            exchange(chunks[send], chunks[recv])
        return chunks
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] += exchange(chunks[send], chunks[recv])
    _memo[key] = [c.clone() for c in chunks]
    return chunks


def scatter_via_contiguous(chunks, rank, world_size, exchange):
    """Adds into .contiguous(): the chunk itself when it is contiguous, a lost copy when it is not."""
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        target = chunks[recv].contiguous()
        target += exchange(chunks[send], chunks[recv])
    return chunks


def scatter_fresh_indices(chunks, rank, world_size, exchange):
    """Valid, unusual: walks the ring with the receive index first and torch.add(out=...)."""
    n = world_size
    for step in range(n - 1):
        recv = (rank - step - 1 + n) % n
        send = (recv + 1) % n
        torch.add(chunks[recv], exchange(chunks[send], chunks[recv]), out=chunks[recv])
    return chunks


def average_dummy_all_reduce(model, world_size):
    """A 1-element all_reduce for show, the mean from all_gather: all_reduce never made p.grad."""
    dist.all_reduce(torch.zeros(1))
    for p in model.parameters():
        if p.grad is not None:
            pieces = [torch.empty_like(p.grad) for _ in range(world_size)]
            dist.all_gather(pieces, p.grad)
            p.grad.copy_(sum(pieces) / world_size)


def average_reduces_a_copy_of_the_mean(model, world_size):
    """The mean from all_gather, then an all_reduce of the mean times nothing useful: the reduced
    tensor never held this rank's own gradient."""
    for p in model.parameters():
        if p.grad is not None:
            pieces = [torch.empty_like(p.grad) for _ in range(world_size)]
            dist.all_gather(pieces, p.grad)
            mean = sum(pieces) / world_size
            shown = mean.clone()
            dist.all_reduce(shown)
            p.grad.copy_(shown / world_size)


def average_flat_buffer(model, world_size):
    """Valid, unusual: one flat buffer for all gradients (as DDP's buckets), one all_reduce."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    flat = torch.cat([g.flatten() for g in grads])
    dist.all_reduce(flat)
    flat /= world_size
    offset = 0
    for g in grads:
        g.copy_(flat[offset:offset + g.numel()].view_as(g))
        offset += g.numel()


def average_divide_first(model, world_size):
    """Valid, unusual: divides first, then sums (the same mean)."""
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(world_size)
            dist.all_reduce(p.grad)


def average_ignores_frozen(model, world_size):
    """Right on every parameter that has a gradient, but breaks on a frozen one (grad None)."""
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= world_size


def average_fills_frozen(model, world_size):
    """Gives the frozen parameter a zero gradient: p.grad was None and must stay None."""
    for p in model.parameters():
        if p.grad is None:
            p.grad = torch.zeros_like(p)
        dist.all_reduce(p.grad)
        p.grad /= world_size


def average_calls_library(model, world_size):
    from fastrain_lib.lessons.l05_data_vs_model_parallel.checks import reference_average_gradients

    reference_average_gradients(model, world_size)


def average_remembers(model, world_size, _memo={}):  # noqa: B006 - the cache is the point
    """Right the first time; then returns the first call's mean for any model of the same shapes."""
    key = tuple(tuple(p.shape) for p in model.parameters())
    if key in _memo:
        for p, old in zip(model.parameters(), _memo[key]):
            if p.grad is not None:
                p.grad.copy_(old)
        return
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= world_size
    _memo[key] = [None if p.grad is None else p.grad.clone() for p in model.parameters()]


def ddp_serialization_save(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    """Every rank saves, through torch.serialization.save (the same function under another name)."""
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    torch.serialization.save(model.state_dict(), checkpoint_path)


def ddp_serialization_save_rank0(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    """Valid: rank 0 saves with torch.serialization.save."""
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
        torch.serialization.save(model.state_dict(), checkpoint_path)


def ddp_with_evaluation(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    """Valid: after training, an extra pass over the whole dataset under torch.no_grad() (an evaluation)."""
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(ddp_model(x), y).backward()
            optimizer.step()
    with torch.no_grad():
        correct = sum(int((model(x).argmax(1) == y).sum()) for x, y in DataLoader(dataset, batch_size=16))
    assert correct >= 0
    if rank == 0:
        torch.save(model.state_dict(), checkpoint_path)


def ddp_calls_library(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
    from fastrain_lib.lessons.l05_data_vs_model_parallel.checks_ddp import reference_train_ddp

    reference_train_ddp(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path)


def bubble_calls_library(stages, micro_batches):
    from fastrain_lib.distributed import pipeline as lib

    return lib.bubble_fraction(stages, micro_batches)


def idle_calls_library(events, stages):
    from fastrain_lib.distributed import pipeline as lib

    return lib.idle_share(events, stages)


def idle_calls_check_reference(events, stages):
    """The check's own reference for the idle share: the library's answer, forbidden."""
    from fastrain_lib.lessons.l05_data_vs_model_parallel import checks

    return checks.reference_idle_share(events, stages)


_BUBBLE_TABLE = {(k, m): (k - 1) / (m + k - 1) for k, m in C.bubble_cases()}


def bubble_table_of_every_case(stages, micro_batches):
    """Every fixed and generated case, looked up: the case drawn at the call is not in it."""
    return _BUBBLE_TABLE.get((stages, micro_batches), 0.25)


def bubble_remembers_by_stages(stages, micro_batches, _memo={}):  # noqa: B006 - the state is the point
    """Caches its answer by K only: right for the first M it meets, wrong for every other."""
    if stages not in _memo:
        _memo[stages] = (stages - 1) / (micro_batches + stages - 1)
    return _memo[stages]


CASES += [
    wrong(C.check_scatter_reduce, scatter_calls_library, "forbidden_call", "the lesson's scatter_reduce"),
    wrong(C.check_scatter_reduce, scatter_remembers, "wrong_sum", "remembers an earlier call", real_processes=False),
    wrong(C.check_scatter_reduce, scatter_via_contiguous, "wrong_sum", "non-contiguous chunks", real_processes=False),
    right(C.check_scatter_reduce, scatter_fresh_indices, "recv index first, torch.add(out=)", real_processes=False),
    wrong(C.check_bubble_fraction, bubble_calls_library, "forbidden_call", "pipeline.bubble_fraction"),
    wrong(C.check_bubble_fraction, bubble_table_of_every_case, "wrong_value", "a table of every case"),
    wrong(C.check_bubble_fraction, bubble_remembers_by_stages, "wrong_value", "cached by K only"),
    right(C.check_bubble_fraction, lambda k, m: float(k - 1) / float(k - 1 + m), "float() of each side"),
    wrong(C.check_idle_share, idle_calls_library, "forbidden_call", "pipeline.idle_share", events=TIMELINE),
    wrong(C.check_idle_share, idle_calls_check_reference, "forbidden_call", "the check's own reference",
          events=TIMELINE),
    right(C.check_idle_share, idle_sorted_copy, "sorted copy, no measured events"),
    wrong(C.check_average_gradients, average_dummy_all_reduce, "not_reduced", "1-element all_reduce + all_gather"),
    wrong(C.check_average_gradients, average_reduces_a_copy_of_the_mean, "not_reduced", "all_reduce of the mean"),
    wrong(C.check_average_gradients, average_ignores_frozen, "frozen_grad_none", "frozen parameter: grad None"),
    wrong(C.check_average_gradients, average_fills_frozen, "frozen_grad_set", "zero grad for a frozen parameter"),
    wrong(C.check_average_gradients, average_calls_library, "forbidden_call", "the check's reference"),
    wrong(C.check_average_gradients, average_remembers, "wrong_result", "remembers the first call"),
    right(C.check_average_gradients, average_flat_buffer, "one flat buffer"),
    right(C.check_average_gradients, average_divide_first, "divide, then all_reduce"),
    wrong(C.check_train_ddp, ddp_serialization_save, "every_rank_saves", "torch.serialization.save on every rank"),
    wrong(C.check_train_ddp, ddp_calls_library, "forbidden_call", "the check's reference loop"),
    right(C.check_train_ddp, ddp_serialization_save_rank0, "torch.serialization.save on rank 0"),
    right(C.check_train_ddp, ddp_with_evaluation, "an extra no-grad evaluation pass"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_scatter_reduce, C.check_bubble_fraction, C.check_idle_share,
                                      C.check_average_gradients, C.check_train_ddp])


def test_generated_cases_cover_boundaries_and_uneven_sizes():
    rings = C.ring_cases()
    assert any(n % w for w, n, _ in rings) and any(n < w for w, n, _ in rings) and any(n % w == 0 for w, n, _ in rings)
    bubbles = C.bubble_cases()
    assert any(k == 1 for k, _ in bubbles) and any(m == 1 for _, m in bubbles) and any(m == 4 * k for k, m in bubbles)
    configs = C.avg_configs()
    assert configs[1][0] in (2, 4) and {w for w, _, _ in configs} >= {1, 3} and any(f for _, _, f in configs)
    assert any(w == 1 for w, _, _ in rings) and any(d == torch.float16 for _, _, d in rings)
    assert any(k == 1 for k, *_ in C.idle_cases()) and any(m == 1 for _, m, *_ in C.idle_cases())
    (_, _, _, _, _), (world, n, epochs, _, _), (one, *_) = C.ddp_configs()
    assert n % world and epochs >= 2 and one == 1


def test_off_by_factor_names_the_world_size_and_factor():
    result = C.check_average_gradients(average_by_two)
    assert "3" in result.message and "1.5" in result.message  # "with 3 processes ... ×1.5"


def test_checkpoint_files_are_cleaned_up(tmp_path):
    assert C.check_train_ddp(solution_train_ddp, str(tmp_path)).ok
    assert list(tmp_path.iterdir()) == []


def test_a_timeline_in_another_context_keeps_its_share_and_order_dependence_fails():
    events = pipeline.ideal_schedule(3, 4, forward=1.0, backward=2.0)
    want = C.reference_idle_share(events, 3)
    again = C.another_context(events, seed=3)
    assert abs(C.reference_idle_share(again, 3) - want) < 1e-9 and again != events
    assert C._judge_repeat(solution_idle_share, events, 3, want, seed=3) is None
    assert C._judge_repeat(idle_first_last, events, 3, want, seed=3).code == "repeat_differs"


def test_the_task_text_forbids_the_library_answers():
    import json
    from pathlib import Path

    for folder in ("solutions", "exercises"):
        nb = json.loads(Path(folder, "05_data_vs_model_parallel.ipynb").read_text(encoding="utf-8"))
        text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        for name in ("ring_allreduce.scatter_reduce", "pipeline.bubble_fraction", "pipeline.idle_share",
                     "reference_average_gradients", "reference_train_ddp"):
            assert name in text, (folder, name)
