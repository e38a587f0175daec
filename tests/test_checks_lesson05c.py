"""Lesson 05c's checks accept right answers (the solution and other correct ways to write it)
and name typical mistakes. The tensor-parallel check runs each answer in real processes (it
sends the function's source), so the answers below are module-level functions."""

import math
import sys

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F
from _processes import live_children
from checkcases import coverage_test, right, table_test, wrong
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrain_lib.lessons.checking import CheckResult
from fastrain_lib.lessons import check_ranks as ranks
from fastrain_lib.lessons.l05c_sharding_and_pipelines import checks as C


@pytest.fixture(autouse=True, scope="module")
def no_process_left():
    yield
    ranks.shutdown()
    assert live_children() == []


# ---------------------------------------------------------------- task 1: ZeRO memory per rank


def zero_reference(n, stage, w):
    """The formula written out (an answer may not call the library's, which the check forbids)."""
    return 2 * n / (w if stage >= 3 else 1) + 2 * n / (w if stage >= 2 else 1) + 12 * n / (w if stage >= 1 else 1)


def zero_by_dict(n_params, stage, world_size):
    parts = {"weights": 2 * n_params, "grads": 2 * n_params, "optim": 12 * n_params}
    for name, from_stage in (("optim", 1), ("grads", 2), ("weights", 3)):
        if stage >= from_stage:
            parts[name] = parts[name] / world_size
    return sum(parts.values())


def zero_by_formula(n_params, stage, world_size):
    n = world_size
    return [16 * n_params, 4 * n_params + 12 * n_params / n, 2 * n_params + 14 * n_params / n,
            16 * n_params / n][stage]


def zero_numpy(n_params, stage, world_size):
    import numpy as np

    return np.float64(zero_reference(n_params, stage, world_size))


def zero_fp32(n, stage, w):
    return (4 * n / w if stage >= 3 else 4 * n) + (4 * n / w if stage >= 2 else 4 * n) + (8 * n / w if stage >= 1 else 8 * n)


def zero_no_master(n, stage, w):
    return (2 * n / w if stage >= 3 else 2 * n) + (2 * n / w if stage >= 2 else 2 * n) + (8 * n / w if stage >= 1 else 8 * n)


def zero_all_sharded(n, stage, w):
    return 16 * n / w if stage else 16 * n


def zero_off_by_one(n, stage, w):
    return zero_reference(n, min(stage + 1, 3), w)


def zero_in_gb(n, stage, w):
    return zero_reference(n, stage, w) / 1e9


def zero_per_param(n, stage, w):
    return zero_reference(n, stage, w) / n


def zero_ignores_world(n, stage, w):
    return zero_reference(n, stage, 3)


def zero_fraction(n, stage, w):
    """Exact arithmetic: a fractions.Fraction is a valid number of bytes per rank."""
    from fractions import Fraction

    return 2 * Fraction(n, w if stage >= 3 else 1) + 2 * Fraction(n, w if stage >= 2 else 1) + \
        12 * Fraction(n, w if stage >= 1 else 1)


def zero_tensor(n, stage, w):
    return torch.tensor(zero_reference(n, stage, w), dtype=torch.float64)  # a 0-d tensor


def zero_floor(n, stage, w):
    """// everywhere: right whenever N divides Ψ (every fixed case but one), wrong otherwise."""
    return 2 * n // (w if stage >= 3 else 1) + 2 * n // (w if stage >= 2 else 1) + 12 * n // (w if stage >= 1 else 1)


FITTED = {case: zero_reference(*case) for case in C.ZERO_CASES}


def zero_fitted(n, stage, w):
    """Right on the fixed examples (a table), something plausible elsewhere."""
    return FITTED.get((n, stage, w), 4 * n + 12 * n / w)


def zero_library(n, stage, w):
    from fastrain_lib.distributed.zero import formula_bytes as fb  # any alias: the code object is watched

    return fb(n, stage, w, "amp")["total"]


# ---------------------------------------------------------------- task 2: the column/row MLP


def tp_solution(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    h = F.gelu(x @ w1[cut].T + b1[cut])
    y = h @ w2[:, cut].T
    dist.all_reduce(y)
    return y + b2


def tp_chunk(x, w1, b1, w2, b2, rank, world_size):
    import torch.distributed

    up_w, up_b = w1.chunk(world_size, dim=0)[rank], b1.chunk(world_size)[rank]
    down_w = w2.chunk(world_size, dim=1)[rank]
    partial = F.linear(F.gelu(F.linear(x, up_w, up_b)), down_w)
    torch.distributed.all_reduce(partial, op=torch.distributed.ReduceOp.SUM)
    return partial + b2


def tp_tensor_split(x, w1, b1, w2, b2, rank, world_size):
    rows = torch.tensor_split(torch.arange(w1.shape[0]), world_size)[rank]
    h = torch.nn.functional.gelu(x @ w1[rows].t() + b1[rows])
    out = h.matmul(w2[:, rows].t()).contiguous()
    dist.all_reduce(out)
    out += b2
    return out


def tp_full_local(x, w1, b1, w2, b2, rank, world_size):
    return F.gelu(x @ w1.T + b1) @ w2.T + b2


def tp_no_allreduce(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    return F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T + b2


def tp_bias_each_rank(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T + b2
    dist.all_reduce(y)
    return y


def tp_average(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T
    dist.all_reduce(y)
    return y / world_size + b2


def tp_gather_hidden(x, w1, b1, w2, b2, rank, world_size):
    """Right output, but two collectives: gathers the hidden units, then splits down by rows."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    h = F.gelu(x @ w1[cut].T + b1[cut])
    parts = [torch.empty_like(h) for _ in range(world_size)]
    dist.all_gather(parts, h)
    y = torch.cat(parts, dim=1) @ w2[:, :].T
    y = y / world_size
    dist.all_reduce(y)
    return y + b2


def tp_first_block_always(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    h = F.gelu(x @ w1[:block].T + b1[:block])
    y = h @ w2[:, :block].T
    dist.all_reduce(y)
    return y + b2


def tp_full_then_share(x, w1, b1, w2, b2, rank, world_size):
    """Computes the whole MLP on every rank, then 'all-reduces' it and divides: right numbers,
    one all-reduce, but nothing is split — the poisoned run catches it."""
    y = F.gelu(x @ w1.T + b1) @ w2.T
    dist.all_reduce(y)
    return y / world_size + b2


def tp_full_then_slice(x, w1, b1, w2, b2, rank, world_size):
    """All hidden units computed, then this rank's block sliced out: right output, one all-reduce,
    and the NaN blocks fall away with the slice — only the matmul's shape shows nothing was split."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    h = F.gelu(x @ w1.T + b1)[:, cut]
    y = h @ w2[:, cut].T
    dist.all_reduce(y)
    return y + b2


def tp_einsum(x, w1, b1, w2, b2, rank, world_size):
    """A valid, unusual way: einsum on this rank's block."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    h = F.gelu(torch.einsum("bd,hd->bh", x, w1[cut]) + b1[cut])
    y = torch.einsum("bh,dh->bd", h, w2[:, cut])
    dist.all_reduce(y)
    return y + b2


def tp_writes_b2(x, w1, b1, w2, b2, rank, world_size):
    """Right output, but the caller's input is zeroed afterwards ('to free memory')."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T
    dist.all_reduce(y)
    x.zero_()
    return y + b2


def tp_fitted_shapes(x, w1, b1, w2, b2, rank, world_size):
    """Fitted to the hand-written shapes (d = 6): hard-codes the block of 24 hidden units."""
    block = 24 // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T
    dist.all_reduce(y)
    return y + b2


def tp_stub(x, w1, b1, w2, b2, rank, world_size):
    raise NotImplementedError


def tp_returns_list(x, w1, b1, w2, b2, rank, world_size):
    return [1.0, 2.0]


CASES = [
    right(C.check_zero_memory, zero_reference, "solution"),
    right(C.check_zero_memory, zero_fraction, "exact Fraction"),
    right(C.check_zero_memory, zero_tensor, "0-d tensor"),
    wrong(C.check_zero_memory, zero_floor, "rounded", "floor division"),
    wrong(C.check_zero_memory, zero_fitted, "stage_shift", "a table of the fixed examples"),
    wrong(C.check_zero_memory, zero_library, "forbidden_call", "the library's formula_bytes"),
    wrong(C.check_zero_memory, C.reference_zero_bytes, "forbidden_call", "the check's own reference"),
    right(C.check_zero_memory, zero_by_dict, "dict of parts"),
    right(C.check_zero_memory, zero_by_formula, "closed forms per stage"),
    right(C.check_zero_memory, zero_numpy, "numpy float"),
    wrong(C.check_zero_memory, zero_fp32, "fp32", "fp32 bytes 4+4+8"),
    wrong(C.check_zero_memory, zero_no_master, "no_master", "forgot the fp32 master weights"),
    wrong(C.check_zero_memory, lambda n, s, w: 16 * n, "no_shard", "DDP for every stage"),
    wrong(C.check_zero_memory, zero_all_sharded, "all_sharded", "everything / N from stage 1"),
    wrong(C.check_zero_memory, zero_off_by_one, "stage_shift", "one stage too far"),
    wrong(C.check_zero_memory, zero_in_gb, "units", "gigabytes"),
    wrong(C.check_zero_memory, zero_per_param, "per_param", "bytes per parameter"),
    wrong(C.check_zero_memory, zero_ignores_world, "wrong_value", "always N = 3"),
    wrong(C.check_zero_memory, lambda n, s, w: "16 bytes", "not_a_number", "a string"),
    wrong(C.check_zero_memory, lambda n, s, w: None, "not_done", "stub"),
    right(C.check_column_row_mlp, tp_solution, "solution"),
    right(C.check_column_row_mlp, tp_chunk, "torch.chunk and F.linear"),
    right(C.check_column_row_mlp, tp_tensor_split, "tensor_split, in-place bias"),
    wrong(C.check_column_row_mlp, tp_full_local, "no_split", "whole MLP on every rank"),
    wrong(C.check_column_row_mlp, tp_no_allreduce, "no_allreduce", "partial sums returned"),
    wrong(C.check_column_row_mlp, tp_bias_each_rank, "bias_twice", "b2 before the all-reduce"),
    wrong(C.check_column_row_mlp, tp_average, "averaged", "divided by world size"),
    wrong(C.check_column_row_mlp, tp_gather_hidden, "two_collectives", "all-gather then all-reduce"),
    wrong(C.check_column_row_mlp, tp_first_block_always, "wrong_output", "block 0 on every rank"),
    wrong(C.check_column_row_mlp, tp_full_then_share, "full_matmul", "whole MLP, all-reduce, divide"),
    wrong(C.check_column_row_mlp, tp_full_then_slice, "full_matmul", "all hidden units, then slice"),
    right(C.check_column_row_mlp, tp_einsum, "einsum on the block"),
    wrong(C.check_column_row_mlp, tp_writes_b2, "mutated_input", "input zeroed after use"),
    wrong(C.check_column_row_mlp, tp_fitted_shapes, "wrong_output", "block fitted to d = 6"),
    wrong(C.check_column_row_mlp, tp_stub, "not_done", "stub"),
    wrong(C.check_column_row_mlp, tp_returns_list, "not_tensor", "a list"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_zero_memory, C.check_column_row_mlp])


def test_generated_cases_do_not_divide_and_differ_from_the_fixed_ones():
    generated = C.zero_cases()[len(C.ZERO_CASES):-3]
    assert len(generated) == 12 and not set(generated) & set(C.ZERO_CASES)
    assert all(n % w for n, _, w in generated) and {s for _, s, _ in generated} == {0, 1, 2, 3}
    assert C.zero_cases() == C.zero_cases()  # the same on every run
    shapes = C.tp_shapes()
    assert all(4 * d % w == 0 for w, (_, d) in shapes.items()) and shapes != C.TP_SHAPES


def test_full_matmul_rule_on_shapes():  # the rule on shapes (ops now named by aten)
    calls = [("__matmul__", [(5, 6), (6, 12)]), ("linear", [(5, 12), (6, 12)])]
    assert C.full_matmuls(calls, 24) == []
    assert C.full_matmuls(calls + [("__matmul__", [(5, 6), (6, 24)])], 24) == [("__matmul__", [(5, 6), (6, 24)])]


def test_the_cases_have_exact_expected_values():
    assert C.reference_zero_bytes(1_000_000, 1, 4) == 7_000_000
    assert math.isclose(C.reference_zero_bytes(7_000_000_000, 3, 64), 16 * 7e9 / 64)


def test_a_hanging_answer_times_out_quickly():
    result = C.check_column_row_mlp(tp_rank0_only, timeout_s=5.0)
    assert (bool(result), result.code) == (False, "timeout")


def tp_rank0_only(x, w1, b1, w2, b2, rank, world_size):
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T
    if rank == 0:
        dist.all_reduce(y)  # the other ranks never join: rank 0 waits forever
    return y + b2


def returning(value):
    def answer(*args, **kwargs):
        return value
    return answer


def raising(exc):
    def answer(*args, **kwargs):
        raise exc
    return answer


def exits(*args, **kwargs):
    sys.exit(3)


values = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True), st.text(max_size=5),
                   st.complex_numbers(allow_nan=True), st.just(torch.ones(2)), st.just(torch.tensor(float("nan"))),
                   st.just(object()), st.lists(st.integers(), max_size=3))
answers = st.one_of(values, values.map(returning), st.sampled_from([ZeroDivisionError("x"), TypeError(), MemoryError()]).map(raising),
                    st.just(exits), st.just(print))


@pytest.mark.parametrize("check, examples", [(C.check_zero_memory, 25), (C.check_column_row_mlp, 4)])
def test_a_check_never_raises(check, examples):
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(answer=answers)
    def never_raises(answer):
        kwargs = {"timeout_s": 20.0} if check is C.check_column_row_mlp else {}
        result = check(answer, **kwargs)
        assert isinstance(result, CheckResult) and result.message.strip() and isinstance(result.ok, bool)

    never_raises()


# ---------------------------------------------------------------- issue 39: tied to the sharded computation


def tp_broadcast_full(x, w1, b1, w2, b2, rank, world_size):
    """All hidden units by a broadcast multiply and sum (no named matmul), then this rank's block:
    right output, one all-reduce — the op's operands still span all 4d units."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    h = F.gelu((x[:, None, :] * w1[None, :, :]).sum(-1) + b1)[:, cut]
    y = (h[:, None, :] * w2[None, :, cut]).sum(-1)
    dist.all_reduce(y)
    return y + b2


def tp_full_in_thread(x, w1, b1, w2, b2, rank, world_size):
    """The full layer computed in a helper thread (a dispatch mode is thread-local): still seen."""
    import threading

    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    box = {}
    worker = threading.Thread(target=lambda: box.update(h=F.gelu(x @ w1.T + b1)))
    worker.start()
    worker.join()
    y = box["h"][:, cut] @ w2[:, cut].T
    dist.all_reduce(y)
    return y + b2


def tp_library(x, w1, b1, w2, b2, rank, world_size):
    """The course's own cut imported: the answer, not written."""
    from fastrain_lib.distributed.tensor_parallel import manual_forward as mine

    return mine(x, w1, b1, w2, b2, rank, world_size)


def tp_broadcast_block(x, w1, b1, w2, b2, rank, world_size):
    """Valid and unusual: the block's products by broadcast multiply and sum, index_select for the block."""
    block = w1.shape[0] // world_size
    rows = torch.arange(rank * block, (rank + 1) * block)
    h = F.gelu((x[:, None, :] * w1.index_select(0, rows)[None]).sum(-1) + b1.index_select(0, rows))
    y = (h[:, None, :] * w2.index_select(1, rows)[None]).sum(-1)
    dist.all_reduce(y)
    return y + b2


TIED = [
    wrong(C.check_column_row_mlp, tp_broadcast_full, "full_matmul", "broadcast multiply-sum over all units"),
    wrong(C.check_column_row_mlp, tp_full_in_thread, "full_matmul", "full layer in a helper thread"),
    wrong(C.check_column_row_mlp, tp_library, "forbidden_call", "tensor_parallel.manual_forward"),
    right(C.check_column_row_mlp, tp_broadcast_block, "broadcast multiply-sum on the block"),
]

test_tied_case = table_test(TIED)


def test_any_computing_op_on_all_units_counts_but_slicing_does_not():
    hidden, width = 24, 6
    calls = [("aten::mm", [(5, 6), (6, 12)]), ("aten::mul", [(5, 1, 6), (1, 12, 6)])]
    assert C.full_matmuls(calls, hidden, width) == []
    full = [("aten::mul", [(5, 1, 6), (1, 24, 6)]), ("aten::sum", [(5, 24, 6)]), ("aten::mul", [(144,), (144,)])]
    assert C.full_matmuls(calls + full, hidden, width) == full
    assert "slice" in C.SELECTS and "mul" not in C.SELECTS and "mm" not in C.SELECTS


def tp_squeezes(x, w1, b1, w2, b2, rank, world_size):
    """Squeezes the batch away: right for every batch but one sample (the 1-process case feeds one)."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T
    dist.all_reduce(y)
    return (y + b2).squeeze()


def tp_skips_allreduce_alone(x, w1, b1, w2, b2, rank, world_size):
    """Valid: one process has nothing to add, so the all-reduce is skipped there."""
    block = w1.shape[0] // world_size
    cut = slice(rank * block, (rank + 1) * block)
    y = F.gelu(x @ w1[cut].T + b1[cut]) @ w2[:, cut].T
    if world_size > 1:
        dist.all_reduce(y)
    return y + b2


_asked = []


def zero_counts_calls(n, stage, w):
    """Right the first time it meets an input, then off by a byte: an answer cached by its input
    (or fitted to the order of the cases) fails when one case is asked again in another order."""
    _asked.append((n, stage, w))
    return zero_reference(n, stage, w) + (_asked.count((n, stage, w)) > 1)


def zero_one_process_is_ddp(n, stage, w):
    """Wrong for N = 1 only: treats one process as 'no ZeRO' but shards by 2 (a default that never applies)."""
    return zero_reference(n, stage, w if w > 1 else 2)


INPUT_SPACE = [
    wrong(C.check_column_row_mlp, tp_squeezes, "wrong_shape", "squeeze() loses a batch of one"),
    right(C.check_column_row_mlp, tp_skips_allreduce_alone, "no all-reduce when alone"),
    wrong(C.check_zero_memory, zero_counts_calls, "wrong_value", "cached by input, asked again"),
    wrong(C.check_zero_memory, zero_one_process_is_ddp, "wrong_value", "N = 1 handled as 2"),
]

test_input_space_case = table_test(INPUT_SPACE)


def test_the_cases_reach_world_sizes_one_and_three_and_repeat_an_input():
    cases = C.zero_cases()
    assert {w for _, _, w in cases} >= {1, 3} and any(n == 1 for n, _, _ in cases)
    assert len(set(cases)) < len(cases)  # an input asked twice, the second time later and in another order
    assert set(C.WORLD_SIZES) == {1, 2, 3} and C.tp_shapes()[1][0] == 1
