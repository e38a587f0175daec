"""DDP's buckets and no_sync(), measured in real processes with lesson 05b's own cells (saved.py):
the bucket count follows bucket_cap_mb, the hand-written bucketed all-reduce gives DDP's gradients,
the timeline is causal, accumulation with no_sync() gives one big batch's gradient with one
all-reduce instead of k, and no worker survives."""

import pytest
import torch
import torch.nn.functional as F
from _processes import live_children
from torch.nn.parallel import DistributedDataParallel

from fastrain_lib.distributed import launch
from fastrain_lib.distributed import launcher as L
from fastrain_lib.distributed import overlap as O
from fastrain_lib.lessons.l05b_ddp_in_depth import saved

CFG = O.make_cfg(width=128, depth=4, batch=16, steps=2, warmup=1, micro_batches=3, bucket_caps_mb=[0.05, 1000.0])


@pytest.fixture(scope="module")
def sweep():
    results = launch(saved.bucket_worker, 2, args=(CFG,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == []
    return results


@pytest.fixture(scope="module")
def accumulated():
    results = launch(saved.accumulation_worker, 2, args=(CFG,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == [] and live_children() == []
    return results


def test_small_buckets_make_many_buckets_one_huge_bucket_makes_one(sweep):
    small, huge = sweep[0]["rows"]
    # 4 blocks of 128×128 floats (64 KB each) + biases + classifier; 0.05 MB caps cut them apart
    assert huge["buckets"] == huge["ours_buckets"] == 1
    assert small["buckets"] >= 4 and small["ours_buckets"] >= 4
    assert sum(small["bucket_bytes"]) == sum(huge["bucket_bytes"]) == sweep[0]["param_bytes"]


def test_the_hand_written_buckets_give_ddps_gradients(sweep):
    for rank in sweep:
        for row in rank["rows"]:
            assert row["max_grad_gap"] < 1e-6, row["bucket_cap_mb"]
            assert row["ours_s"] > 0 and row["step_s"] > 0


def test_every_setting_is_timed_in_the_same_rounds_so_a_busy_sweep_can_read_ratios(sweep):
    """The worker interleaves: every cap, DDP's step and ours, once per round (lesson 05b's busy ratios stand on it)."""
    from fastrain_lib.lessons.l05b_ddp_in_depth import panel

    assert all(rank["interleaved"] for rank in sweep)
    for rank in sweep:
        assert {len(row["times"]) for row in rank["rows"]} | {len(row["ours_times"]) for row in rank["rows"]} == {CFG["steps"]}
    rows = panel.sweep_rows(sweep, {})
    assert all(len(row["rounds_ddp"]) == len(row["rounds_ours"]) == CFG["steps"] for row in rows)


def forgets_to_average(rank, world_size, cfg):
    """The hand-written buckets without finish()'s wait, divide and copy back: each rank keeps its own gradient."""
    x, y = O.batch_for(cfg, rank)
    ddp = DistributedDataParallel(O.model_for(cfg))
    model = O.model_for(cfg)
    ours = saved.BucketedAllReduce(model, bucket_cap_mb=0.05)
    F.cross_entropy(ddp(x), y).backward()
    F.cross_entropy(model(x), y).backward()
    for work in ours.work:
        work.wait()
    return (O.gradient_vector(ddp.module) - O.gradient_vector(model)).abs().max().item()


def test_a_bucketed_all_reduce_without_finish_is_caught():
    gaps = launch(forgets_to_average, 2, args=(CFG,), threads=1, timeout_s=120)
    assert all(gap > 1e-4 for gap in gaps)


def test_timeline_is_causal_and_the_hidden_share_is_a_share(sweep):
    for row in sweep[0]["rows"]:
        for e in row["events"]:
            assert 0.0 <= e["ready"] <= e["done"] <= row["backward_s"] + 1e-3
        assert 0.0 <= row["hidden_share"] <= 1.0
    # one bucket is ready only when every gradient exists: nothing can hide behind compute
    # (our gradient hook runs just after DDP's, so allow the few instructions — or a preemption on
    # this shared 2-core machine — between the two: 2 ms)
    huge = sweep[0]["rows"][1]
    event = huge["events"][0]
    assert event["ready"] >= huge["compute_end_s"] - 2e-3
    assert min(event["done"], huge["compute_end_s"]) - event["ready"] <= 2e-3


def test_hidden_share_by_hand():
    events = [{"ready": 0.0, "done": 2.0}, {"ready": 3.0, "done": 5.0}]
    assert O.hidden_share(events, compute_end=4.0) == pytest.approx(3.0 / 4.0)  # 2 of 2 + 1 of 2
    assert O.hidden_share(events, compute_end=0.0) == 0.0
    assert O.hidden_share([], compute_end=1.0) == 0.0


def test_no_sync_accumulation_equals_one_big_batch(accumulated):
    big = torch.tensor(O.big_batch_gradient(CFG, 2))
    for r in accumulated:
        for way in ("no_sync", "every"):
            got = torch.tensor(r[way]["first_grad"])
            assert torch.allclose(got, big, rtol=1e-4, atol=1e-6), (way, (got - big).abs().max())


def test_a_wrong_accumulation_is_caught():
    # the comparison can fail: the gradient of ONE rank's micro-batches is not the big batch's
    big = torch.tensor(O.big_batch_gradient(CFG, 2))
    alone = torch.tensor(O.big_batch_gradient(CFG, 1))
    assert not torch.allclose(alone, big, rtol=1e-4, atol=1e-6)


def test_no_sync_all_reduces_once_per_step_instead_of_k_times(accumulated):
    k = CFG["micro_batches"]
    for r in accumulated:
        assert r["every"]["allreduces_per_step"] == k  # one bucket per backward
        assert r["no_sync"]["allreduces_per_step"] == 1
        assert r["every"]["bytes_per_step"] == pytest.approx(k * r["no_sync"]["bytes_per_step"])


def backward_only_in_no_sync(rank, world_size, cfg):
    """The lesson's warning: the forward outside no_sync(), only the backward inside."""
    ddp = DistributedDataParallel(O.model_for(cfg))
    counter = O.count_allreduces(ddp)
    k = cfg["micro_batches"]
    for i in range(k):
        x, y = O.batch_for(cfg, rank, i)
        loss = F.cross_entropy(ddp(x), y) / k
        if i < k - 1:
            with ddp.no_sync():  # too late: this forward already asked for a sync
                loss.backward()
        else:
            loss.backward()
    return {"allreduces": len(counter), "grad": O.gradient_vector(ddp.module).tolist()}


def test_no_sync_around_backward_only_still_all_reduces_every_time():
    # the lesson's warning, measured: DDP decides in forward; the gradient is right, the saving is gone
    results = launch(backward_only_in_no_sync, 2, args=(CFG,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == []
    big = torch.tensor(O.big_batch_gradient(CFG, 2))
    for r in results:
        assert r["allreduces"] == CFG["micro_batches"]
        assert torch.allclose(torch.tensor(r["grad"]), big, rtol=1e-4, atol=1e-6)
