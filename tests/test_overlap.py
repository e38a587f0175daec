"""DDP's buckets and no_sync(), measured in real processes: the bucket count follows bucket_cap_mb,
the timeline is causal, accumulation with no_sync() gives one big batch's gradient with one
all-reduce instead of k, and no worker survives."""

import pytest
import torch
from _processes import live_children

from fastrain_lib.distributed import launch
from fastrain_lib.distributed import launcher as L
from fastrain_lib.distributed import overlap as O

CFG = O.make_cfg(width=128, depth=4, batch=16, steps=2, warmup=1, micro_batches=3, bucket_caps_mb=[0.05, 1000.0])


@pytest.fixture(scope="module")
def sweep():
    results = launch(O.bucket_sweep, 2, args=(CFG,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == []
    return results


@pytest.fixture(scope="module")
def accumulated():
    results = launch(O.accumulation, 2, args=(CFG,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == [] and live_children() == []
    return results


def test_small_buckets_make_many_buckets_one_huge_bucket_makes_one(sweep):
    small, huge = sweep[0]["rows"]
    # 4 blocks of 128×128 floats (64 KB each) + biases + classifier; 0.05 MB caps cut them apart
    assert huge["buckets"] == 1
    assert small["buckets"] >= 4
    assert sum(small["bucket_bytes"]) == sum(huge["bucket_bytes"]) == sweep[0]["param_bytes"]


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


def test_no_sync_around_backward_only_still_all_reduces_every_time():
    # the lesson's warning, measured: DDP decides in forward; the gradient is right, the saving is gone
    cfg = {**CFG, "ways": ["backward_only_in_no_sync"]}
    results = launch(O.accumulation, 2, args=(cfg,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == []
    big = torch.tensor(O.big_batch_gradient(CFG, 2))
    for r in results:
        assert r["backward_only_in_no_sync"]["allreduces_per_step"] == CFG["micro_batches"]
        assert torch.allclose(torch.tensor(r["backward_only_in_no_sync"]["first_grad"]), big, rtol=1e-4, atol=1e-6)
