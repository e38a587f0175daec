"""ZeRO / FSDP on real processes: every strategy trains to the same weights as one process,
the bytes each rank really holds are the formula's, and the collectives counted are the
ones each stage must send (2Ψ for DDP/ZeRO-1/2, 3Ψ for ZeRO-3)."""

import pytest
import torch
import torch.distributed as dist
from _processes import live_children

from fastrain_lib.distributed import launch, zero
from fastrain_lib.distributed import launcher as L

CFG = {"width": 32, "depth": 2, "batch": 8, "steps": 3}  # every parameter's size divides by 2
# a whole launch's limit: CI runs this on 2 cores beside another test worker and the loaded-lesson
# test's background hog, where starting and importing torch in each rank alone can take a minute
LOADED_TIMEOUT_S = 300


def test_formula_matches_the_papers_numbers():
    n = 1_000_000
    amp = [zero.formula_bytes(n, s, 4, "amp")["total"] for s in range(4)]
    assert amp == [16e6, 2e6 + 2e6 + 3e6, 2e6 + 0.5e6 + 3e6, 4e6]  # 16Ψ, 4Ψ+12Ψ/N, 2Ψ+14Ψ/N, 16Ψ/N
    # ZeRO paper, Figure 1: Ψ = 7.5B, N = 64 → 120 GB, 31.4 GB, 16.6 GB, 1.88 GB
    paper = [zero.formula_bytes(7.5e9, s, 64, "amp")["total"] / 1e9 for s in range(4)]
    assert [round(x, 2) for x in paper] == [120.0, 31.41, 16.64, 1.88]
    fp32 = zero.formula_bytes(n, 1, 2, "fp32")
    assert (fp32["params"], fp32["grads"], fp32["optim"]) == (4e6, 4e6, 4e6)


def test_formula_agrees_with_lesson_03s_memory_module_when_present():
    memory = pytest.importorskip("fastrain_lib.measure.memory")
    for precision in ("fp32", "amp"):
        assert zero.formula_bytes(12345, 0, 3, precision)["total"] == memory.training_bytes(12345, precision)["total"]


def test_payload_formulas():
    assert zero.payload_bytes("ddp", 100) == 800 and zero.payload_bytes("zero3", 100) == 1200


def counted_collectives(rank, world_size):
    """Known collectives inside a CommCounter: what it records must be exactly these."""
    x = torch.ones(100)
    counter = zero.CommCounter()
    with counter:
        dist.all_reduce(x)
        out = torch.empty(200)
        dist.all_gather_into_tensor(out, torch.ones(100))
        piece = torch.empty(50)
        dist.reduce_scatter_tensor(piece, torch.ones(100))
        dist.broadcast(torch.ones(10), src=0)
    return counter.summary()


def test_comm_counter_counts_what_was_sent():
    summary = launch(counted_collectives, 2, timeout_s=LOADED_TIMEOUT_S)[0]
    assert summary["all_reduce"] == {"count": 1, "bytes": 400, "payload": 800}
    assert summary["all_gather"] == {"count": 1, "bytes": 800, "payload": 800}
    assert summary["reduce_scatter"] == {"count": 1, "bytes": 400, "payload": 400}
    assert summary["broadcast"] == {"count": 1, "bytes": 40, "payload": 40}
    assert summary["total_payload"] == 2040


@pytest.fixture(scope="module")
def runs():
    results = launch(zero.zero_worker, 2, args=(zero.STRATEGIES, CFG), threads=1, timeout_s=LOADED_TIMEOUT_S)
    yield {s: [r[i] for r in results] for i, s in enumerate(zero.STRATEGIES)}
    assert L.pids_alive(L.LAST_PIDS) == []
    assert live_children() == []


def test_every_strategy_trains_like_one_process(runs):
    for strategy, ranks in runs.items():
        assert max(r["max_error"] for r in ranks) < 1e-5, strategy


def test_measured_bytes_per_rank_are_the_formulas(runs):
    n = runs["ddp"][0]["n_params"]
    assert n == 32 * 32 + 32 + 32 * 32 + 32 + 10 * 32 + 10
    for strategy in ("ddp", "zero1", "zero2", "zero3"):
        want = zero.formula_bytes(n, zero.STAGE[strategy], 2, "fp32")
        for r in runs[strategy]:
            assert (r["params_bytes"], r["grads_bytes"], r["optim_bytes"]) == \
                (want["params"], want["grads"], want["optim"]), (strategy, r["rank"])
    # PyTorch's ZeroRedundancyOptimizer gives whole parameter tensors to ranks: together they hold
    # exactly one copy of Adam's state, each about half (at most one tensor's worth more)
    torch_z1 = runs["zero1_torch"]
    assert sum(r["optim_bytes"] for r in torch_z1) == 8 * n
    assert max(r["optim_bytes"] for r in torch_z1) <= 4 * n + 8 * 32 * 32
    assert all(r["grads_bytes"] == 4 * n and r["params_bytes"] == 4 * n for r in torch_z1)


def test_zero2_frees_each_full_gradient_during_backward(runs):
    n = runs["ddp"][0]["n_params"]
    for r in runs["zero2"]:
        # at most one full gradient tensor (the largest: 32×32) lives beside the shards
        assert r["peak_grads_bytes"] <= 4 * n / 2 + 4 * 32 * 32


def test_collectives_each_stage_sends(runs):
    n4 = 4 * runs["ddp"][0]["n_params"]  # bytes of all parameters (= of all gradients)
    ddp, z1, z2, z3 = (runs[s][0]["comm"] for s in ("ddp", "zero1", "zero2", "zero3"))
    assert set(ddp) == {"all_reduce", "total_payload"} and ddp["all_reduce"]["bytes"] == n4
    for c in (z1, z2):
        assert c["reduce_scatter"]["bytes"] == n4 and c["all_gather"]["bytes"] == n4
        assert c["total_payload"] == 2 * n4 == zero.payload_bytes("zero1", n4 // 4)
    # FSDP2: weights gathered in forward and again in backward, gradients reduce-scattered once
    assert z3["all_gather"]["bytes"] == 2 * n4 and z3["reduce_scatter"]["bytes"] == n4
    assert z3["total_payload"] == 3 * n4
    torch_z1 = runs["zero1_torch"][0]["comm"]
    assert torch_z1["all_reduce"]["bytes"] == n4 and torch_z1["broadcast"]["bytes"] == n4
    rows = zero.table([[runs[s][r] for s in zero.STRATEGIES] for r in range(2)])
    assert [row["payload"] == row["payload_formula"] for row in rows] == [True] * 5


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError):
        zero._build("zero4", {**zero.DEFAULTS, **CFG}, 0, 1, torch.device("cpu"))
