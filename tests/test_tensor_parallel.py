"""Tensor parallelism on real processes: the column-then-row MLP (DTensor and by hand) equals
the single-process MLP, with exactly one all-reduce in forward and one in backward."""

import pytest
import torch
from _processes import live_children

from fastrain_lib.distributed import launch, tensor_parallel
from fastrain_lib.distributed import launcher as L

CFG = {"width": 24, "batch": 5, "widths": (16, 64), "repeats": 2}
# a whole launch's limit: CI runs this on 2 cores beside another test worker and the loaded-lesson
# test's background hog, where starting and importing torch in each rank alone can take a minute
LOADED_TIMEOUT_S = 300


@pytest.fixture(scope="module", params=[2, 3], ids=["2 ranks", "3 ranks"])
def results(request):
    out = launch(tensor_parallel.tp_worker, request.param, args=(CFG,), threads=1, timeout_s=LOADED_TIMEOUT_S)
    yield out
    assert L.pids_alive(L.LAST_PIDS) == []
    assert live_children() == []


def test_output_and_input_gradient_equal_one_process(results):
    for r in results:
        assert r["error"] < 1e-5 and r["grad_x_error"] < 1e-5 and r["manual_error"] < 1e-5


def test_one_all_reduce_forward_one_backward(results):
    for r in results:
        assert r["forward_comms"] == {"all_reduce": 1}
        assert r["backward_comms"] == {"all_reduce": 1}
        assert r["manual_comms"]["all_reduce"]["count"] == 1
        assert set(r["manual_comms"]) == {"all_reduce", "total_payload"}
        assert r["manual_comms"]["all_reduce"]["bytes"] == CFG["batch"] * CFG["width"] * 4  # y: batch × d floats


def test_each_rank_holds_its_slice(results):
    w, d = len(results), CFG["width"]
    for r in results:
        assert r["up_local_shape"] == (4 * d // w, d)
        assert r["down_local_shape"] == (d, 4 * d // w)


def test_width_sweep_reports_compute_and_communication(results):
    rows = tensor_parallel.sweep_rows(results)
    w = len(results)
    assert [r["width"] for r in rows] == [tensor_parallel.tp_width(x, w) for x in CFG["widths"]]
    assert [r["width"] for r in rows] == ([16, 64] if w == 2 else [15, 63])  # equal slices for every rank
    for row in rows:
        assert row["allreduce_bytes"] == CFG["batch"] * row["width"] * 4
        assert row["flops_per_rank"] == 2 * CFG["batch"] * row["width"] * 4 * row["width"] * 2 / len(results)
        assert 0 < row["comm_share"] < 1
        assert row["comm_share"] == pytest.approx(row["allreduce_s"] / (row["compute_s"] + row["allreduce_s"]))


def test_tp_width_gives_equal_slices():
    assert [tensor_parallel.tp_width(x, 3) for x in (2, 3, 64, 66)] == [3, 3, 63, 66]
    assert tensor_parallel.tp_width(64, 2) == 64


def test_shard_rows_cover_every_row_once():
    for n in (8, 9, 10, 24):
        for w in (1, 2, 3, 4):
            rows = [i for r in range(w) for i in range(n)[tensor_parallel.shard_rows(n, r, w)]]
            assert rows == list(range(n))
            assert [len(range(n)[tensor_parallel.shard_rows(n, r, w)]) for r in range(w)] == \
                [len(c) for c in torch.arange(n).chunk(w)] + [0] * (w - len(torch.arange(n).chunk(w)))
