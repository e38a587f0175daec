"""The α–β cost model: the fit recovers known α and β, is the least-squares optimum, keeps α, β ≥ 0,
and — on real processes — predicts an all-reduce size it was not fitted to. No worker survives."""

import math

import pytest
from _processes import live_children

from fastrain_lib.distributed import cost_model as C
from fastrain_lib.distributed import launcher as L


def synthetic(alpha, beta, p, sizes):
    f = C.Fit(alpha, beta, p)
    return [(n, f.allreduce_s(n)) for n in sizes]


SIZES = [4_096, 65_536, 1_048_576, 16_777_216]


@pytest.mark.parametrize("p", [2, 3, 4, 8])
def test_fit_recovers_known_alpha_and_beta(p):
    alpha, beta = 45e-6, 1 / 3.2e9  # 45 µs, 3.2 GB/s
    f = C.fit(synthetic(alpha, beta, p, SIZES), p)
    assert f.alpha_s == pytest.approx(alpha, rel=1e-9)
    assert f.beta_s_per_byte == pytest.approx(beta, rel=1e-9)
    assert f.world_size == p and f.bandwidth_bytes_per_s == pytest.approx(3.2e9, rel=1e-9)


def test_ring_formulas_by_hand():
    f = C.Fit(alpha_s=1e-5, beta_s_per_byte=1e-9, world_size=4)
    n = 1_000_000
    # all-reduce: 2(p−1) = 6 messages; each rank sends 2(p−1)/p · n = 1.5 MB
    assert f.allreduce_s(n) == pytest.approx(6e-5 + 1.5e-3)
    assert f.allgather_s(n) == pytest.approx(3e-5 + 0.75e-3)
    assert f.reduce_scatter_s(n) == pytest.approx(3e-5 + 0.75e-3)
    assert f.allreduce_s(n) == pytest.approx(f.reduce_scatter_s(n) + f.allgather_s(n))
    assert f.allreduce_s(n, world_size=2) == pytest.approx(2e-5 + 1e-3)


def _loss(f, points):
    return sum(((f.allreduce_s(n) - s) / s) ** 2 for n, s in points)


def test_fit_is_the_least_squares_optimum_on_noisy_points():
    # measured-looking points (±20 %): no nearby (α, β) has a smaller sum of squared relative errors
    base = synthetic(80e-6, 1 / 2e9, 2, [4_096, 32_768, 262_144, 2_097_152, 16_777_216])
    noisy = [(n, s * k) for (n, s), k in zip(base, (1.2, 0.85, 1.1, 0.9, 1.15))]
    f = C.fit(noisy, 2)
    best = _loss(f, noisy)
    for da in (0.97, 1.03):
        for db in (0.97, 1.03):
            other = C.Fit(f.alpha_s * da, f.beta_s_per_byte * db, 2)
            assert _loss(other, noisy) >= best
    assert all(e < 0.25 for e in f.relative_errors())


def test_fit_never_returns_a_negative_alpha_or_beta():
    # pure bandwidth (latency 0) with noise that would make an unconstrained α negative
    points = [(n, n / 1e9 * k) for n, k in zip(SIZES, (0.5, 1.0, 1.0, 1.0))]
    f = C.fit(points, 2)
    assert f.alpha_s >= 0 and f.beta_s_per_byte > 0
    # flat times (pure latency): β would be negative if the biggest message is a little faster
    flat = [(n, 1e-4 * k) for n, k in zip(SIZES, (1.0, 1.0, 1.0, 0.9))]
    f = C.fit(flat, 2)
    assert f.beta_s_per_byte >= 0 and f.alpha_s > 0


@pytest.mark.parametrize("points, p", [
    ([(4096, 1e-4), (8192, 2e-4)], 1),        # one process sends nothing
    ([(4096, 1e-4), (4096, 2e-4)], 2),        # one size only: α and β cannot be told apart
    ([(4096, 0.0), (8192, 2e-4)], 2),         # a zero time
    ([(4096, float("nan")), (8192, 2e-4)], 2),
])
def test_fit_rejects_what_cannot_be_fitted(points, p):
    with pytest.raises(ValueError):
        C.fit(points, p)


def test_predictions_follow_the_strategies_communication():
    f = C.Fit(alpha_s=50e-6, beta_s_per_byte=1e-9, world_size=4)
    n, compute = 4_000_000, 0.010
    ar = f.allreduce_s(n)
    assert C.predict_step_s("ddp", compute, n, f) == pytest.approx(compute + ar)
    # ZeRO-1/2 move the same bytes as DDP (reduce-scatter + all-gather = all-reduce)
    assert C.predict_step_s("zero1", compute, n, f) == pytest.approx(compute + ar)
    assert C.predict_step_s("zero2", compute, n, f) == pytest.approx(compute + ar)
    # ZeRO-3 gathers the weights twice: 1.5× the bytes and the messages
    assert C.predict_step_s("zero3", compute, n, f) == pytest.approx(compute + 1.5 * ar)
    # one central server: 2(p−1) full-size messages one after another on its link
    assert C.predict_step_s("ps", compute, n, f) == pytest.approx(compute + 6 * (50e-6 + n * 1e-9))
    assert f.reduce_scatter_s(n) == f.allgather_s(n)  # the same ring formula
    # 8 buckets: 8 times the latency, the same bytes
    assert C.comm_s("ddp", n, f, messages=8) == pytest.approx(8 * 6 * 50e-6 + 1.5 * n * 1e-9)
    assert C.bytes_sent_per_rank("zero3", n, 4) == pytest.approx(1.5 * C.bytes_sent_per_rank("ddp", n, 4))
    assert C.bytes_sent_per_rank("ps", n, 4) == 3 * n
    with pytest.raises(ValueError):
        C.predict_step_s("horovod", compute, n, f)


def test_counted_collectives_cost_what_the_formulas_say():
    f = C.Fit(alpha_s=40e-6, beta_s_per_byte=2e-9, world_size=4)
    n = 2_000_000
    # one all-reduce of n bytes (payload counts it twice) = the ring all-reduce
    assert C.collectives_s({"all_reduce": {"count": 1, "payload": 2 * n}}, f) == pytest.approx(f.allreduce_s(n))
    # ZeRO-3 cut into 5 layers: 10 all-gathers + 5 reduce-scatters of n/5 each = comm_s with 5 messages
    counts = {"all_gather": {"count": 10, "payload": 2 * n}, "reduce_scatter": {"count": 5, "payload": n},
              "total_payload": 3 * n}
    assert C.collectives_s(counts, f) == pytest.approx(C.comm_s("zero3", n, f, messages=5))
    # 8 tensors sent separately pay 8 start-ups: more than one call with the same bytes
    many = {"all_reduce": {"count": 8, "payload": 2 * n}}
    assert C.collectives_s(many, f) - f.allreduce_s(n) == pytest.approx(7 * 6 * 40e-6)
    assert C.collectives_s({"all_reduce": {"count": 1, "payload": 2 * n}}, f, world_size=1) == 0.0


def test_combine_takes_the_slowest_rank_per_round_then_median_or_min():
    results = [{"times": [[1.0, 5.0, 2.0]]}, {"times": [[1.5, 4.0, 1.0]]}]  # rounds: max = 1.5, 5.0, 2.0
    assert C.combine(results, [4096]) == [(4096, 2.0)]
    assert C.combine(results, [4096], "min") == [(4096, 1.5)]


def test_calls_per_repeat_is_the_same_for_every_rank_and_bounded():
    assert C.calls_per_repeat(4) == 16 and C.calls_per_repeat(16_777_216) == 1
    assert all(1 <= C.calls_per_repeat(n) <= 16 for n in (1, 1000, 10**5, 10**9))


def test_real_allreduce_fit_predicts_a_held_out_size():
    """Fit α, β on 4 sizes measured in 2 real gloo processes; the formula must predict a 5th,
    unmeasured size within a factor of 2, and every fitted point within a factor of 2 as well.

    Each size's time is the fastest of 15 interleaved rounds: other tests share this 2-core
    machine, and a burst of their load once made one size's median 4× the next larger size's.
    Up to 3 measurements: one quiet one must satisfy the model (a model 3× off fails all three;
    on a quiet machine the first attempt's error is ~10–30 %)."""
    held = 262_144
    tries = []
    for _ in range(3):
        points = C.measure_allreduce(2, [4_096, 65_536, held, 1_048_576, 4_194_304], repeats=15, timeout_s=120,
                                     statistic="min")
        assert L.pids_alive(L.LAST_PIDS) == [] and live_children() == []
        f = C.fit([pt for pt in points if pt[0] != held], 2)
        assert f.alpha_s > 0 and f.beta_s_per_byte > 0 and not math.isnan(f.bandwidth_bytes_per_s)
        ratio = f.allreduce_s(held) / dict(points)[held]
        tries.append((round(ratio, 2), [round(e, 2) for e in f.relative_errors()]))
        if 0.5 < ratio < 2.0 and all(e < 1.0 for e in f.relative_errors()):
            break
    else:
        pytest.fail(f"held-out prediction ÷ measurement, fit errors, per try: {tries}")
    # time grows with size: the biggest message takes longer than the smallest
    assert points[-1][1] > points[0][1]
