"""Ring all-reduce from scratch: equal to dist.all_reduce, bytes as the formula says."""

import pytest
import torch

from fastrain_lib.distributed import launch, ring
from fastrain_lib.distributed import launcher as L


@pytest.mark.parametrize("world", [2, 3, 4])
def test_ring_equals_all_reduce_in_real_processes(world):
    numels = [1, 7, 10, 1000] if world == 3 else [5, 64]  # 7 and 10 do not divide by 3; 1 < world
    numels = [n for n in numels if n >= world]
    results = launch(ring.compare_worker, world, args=(numels, 1, 6 if world == 3 else None), timeout_s=120)
    for r in results:
        for row in r["sizes"]:
            assert row["ring_error"] < 1e-5 and row["naive_error"] < 1e-5, row
    # bytes sent: measured by the trace == the formulas
    for row_index, numel in enumerate(numels):
        formula = ring.bytes_per_worker(numel, world)
        ring_bytes = [r["sizes"][row_index]["ring_bytes"] for r in results]
        assert sum(ring_bytes) == pytest.approx(world * formula["ring"])
        assert results[0]["sizes"][row_index]["naive_bytes"] == formula["server"]
        assert results[1]["sizes"][row_index]["naive_bytes"] == formula["worker"]
    if world == 3:
        trace = results[0]["trace"]
        assert trace["after"] == [6.0] * 6  # 1 + 2 + 3
        events = [e for r in results for e in r["trace"]["events"]]
        assert len(events) == 3 * 2 * (3 - 1)
        states = ring.contributions(events, 3)
        assert len(states) == 2 * (3 - 1) + 1
        assert all(chunk == {0, 1, 2} for row in states[-1] for chunk in row)
        # after scatter-reduce rank r owns the finished chunk (r + 1) mod N
        assert all(states[2][r][(r + 1) % 3] == {0, 1, 2} for r in range(3))
        # the stepper widget draws every step of this real trace
        from fastrain_lib.lessons.l05_data_vs_model_parallel import panel as lesson05

        box = lesson05.ring_stepper(events, 3)
        pictures = set()
        for k in range(len(states)):
            box.show_step(k)
            (shown,) = box.children[1].outputs  # exactly one picture per step, replaced, not appended
            pictures.add(shown["data"]["image/png"])
        assert len(pictures) == len(states)  # every step draws a different state
    assert L.pids_alive(L.LAST_PIDS) == []


def test_schedule_and_chunks():
    assert ring.chunk_bounds(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert [e - s for s, e in ring.chunk_bounds(10, 3)] == [len(c) for c in torch.arange(10).tensor_split(3)]
    # every step, what rank r receives is what its left neighbour sends
    for world in (2, 3, 5):
        for step in range(world - 1):
            for r in range(world):
                left = (r - 1) % world
                assert ring.scatter_reduce_indices(left, world, step)[0] == ring.scatter_reduce_indices(r, world, step)[1]
                assert ring.all_gather_indices(left, world, step)[0] == ring.all_gather_indices(r, world, step)[1]


@pytest.mark.parametrize("world,numel", [(2, 5), (3, 10), (4, 4), (4, 13)])
def test_simulation_sums(world, numel):
    tensors = [torch.randn(numel) for _ in range(world)]
    results, events = ring.simulate_ring(tensors)
    total = sum(tensors)
    assert all(torch.allclose(r, total, atol=1e-5) for r in results)
    assert len(events) == world * 2 * (world - 1)


def test_simulation_catches_an_off_by_one():
    def wrong(chunks, rank, world, exchange):
        for step in range(world - 1):
            send, recv = (rank - step) % world, (rank - step) % world  # adds into the chunk it sent
            chunks[recv] += exchange(chunks[send], chunks[recv])
        return chunks

    tensors = [torch.randn(9) for _ in range(3)]
    results, _ = ring.simulate_ring(tensors, wrong)
    assert not torch.allclose(results[0], sum(tensors))


def test_bytes_formula_flattens_for_the_ring():
    s = 1000
    ring_bytes = [ring.bytes_per_worker(s, n)["ring"] for n in (2, 4, 8, 64)]
    server = [ring.bytes_per_worker(s, n)["server"] for n in (2, 4, 8, 64)]
    assert ring_bytes == sorted(ring_bytes) and ring_bytes[-1] < 2 * s * 4
    assert server[-1] == 63 * s * 4
