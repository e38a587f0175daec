"""Lesson 05's checks accept the reference answers and name typical mistakes.

The real-process checks send the function's source to spawned processes, so the wrong
answers below are ordinary module-level functions (inspect.getsource must find them)."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from fastrain_lib.checks import lesson05 as C
from fastrain_lib.distributed import launcher as L
from fastrain_lib.distributed import pipeline

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


def test_scatter_reduce_reference_passes_in_simulation_and_real_processes():
    result = C.check_scatter_reduce(C.reference_scatter_reduce)
    assert result.ok, result.message
    assert "dist.all_reduce" in result.message or "all_reduce" in result.message
    assert L.pids_alive(L.LAST_PIDS) == []


def test_scatter_reduce_mistakes_are_named():
    assert C.check_scatter_reduce(off_by_one, real_processes=False).code == "off_by_one"
    assert C.check_scatter_reduce(too_many_steps, real_processes=False).code == "step_count"
    assert C.check_scatter_reduce(overwrite, real_processes=False).code == "overwrite"
    assert C.check_scatter_reduce(not_in_place, real_processes=False).code == "not_in_place"
    assert C.check_scatter_reduce(stub, real_processes=False).code == "not_done"
    assert C.check_scatter_reduce(None).code == "not_done"


# ---------------------------------------------------------------- task 2: the bubble


def test_bubble_fraction_checks():
    assert C.check_bubble_fraction(C.reference_bubble_fraction).ok
    assert C.check_bubble_fraction(lambda k, m: (k - 1) / (m + k)).code == "off_by_one"
    assert C.check_bubble_fraction(lambda k, m: (k - 1) / m).code == "wrong_denominator"
    assert C.check_bubble_fraction(lambda k, m: None).code == "not_done"


def _busy_span(events):
    busy = sum(e["end"] - e["start"] for e in events)
    return busy, max(e["end"] for e in events) - min(e["start"] for e in events)


def test_idle_share_checks_on_paper_and_on_a_recorded_timeline():
    events = pipeline.ideal_schedule(2, 3, forward=1.0, backward=2.5)  # stands in for a measured one
    result = C.check_idle_share(C.reference_idle_share, events)
    assert result.ok, result.message

    def forgot_stages(ev, k):
        busy, span = _busy_span(ev)
        return 1 - busy / span

    def busy_share(ev, k):
        busy, span = _busy_span(ev)
        return busy / (k * span)

    assert C.check_idle_share(forgot_stages, events).code == "forgot_stages"
    assert C.check_idle_share(busy_share, events).code == "busy_not_idle"
    assert C.check_idle_share(lambda ev, k: 0.5, events).code == "wrong_value"


# ---------------------------------------------------------------- task 3: averaging gradients


def forgot_to_average(model, world_size):
    for p in model.parameters():
        dist.all_reduce(p.grad)


def no_all_reduce(model, world_size):
    for p in model.parameters():
        p.grad /= world_size


def test_average_gradients_checks():
    assert C.check_average_gradients(C.reference_average_gradients).ok
    assert C.check_average_gradients(forgot_to_average).code == "not_averaged"
    assert C.check_average_gradients(no_all_reduce).code == "not_synced"
    assert L.pids_alive(L.LAST_PIDS) == []


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


def test_train_ddp_checks(tmp_path):
    ok = C.check_train_ddp(C.reference_train_ddp, str(tmp_path))
    assert ok.ok, ok.message
    assert C.check_train_ddp(every_rank_saves, str(tmp_path)).code == "every_rank_saves"
    assert C.check_train_ddp(no_set_epoch, str(tmp_path)).code == "no_set_epoch"
    assert C.check_train_ddp(no_sampler_no_ddp, str(tmp_path)).code == "no_sampler"
    assert list(tmp_path.iterdir()) == []  # the check cleans up its checkpoint files
    assert L.pids_alive(L.LAST_PIDS) == []


def test_stub_detection_and_no_launch_for_stubs():
    def stub_ddp(rank, world_size, model, optimizer, dataset, epochs, batch_size, checkpoint_path):
        """Docstring."""
        raise NotImplementedError

    assert C.is_stub(stub_ddp) and not C.is_stub(every_rank_saves)
    assert C.check_train_ddp(stub_ddp).code == "not_done"
    assert C.check_average_gradients(stub).code == "not_done"
