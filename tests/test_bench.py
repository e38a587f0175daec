import json

import pytest
import torch

from fastrain_lib import bench


def test_measure_returns_median_and_spread():
    x = bench.fresh_random(64, 64)
    record = bench.measure(lambda: x @ x, "mm", params={"n": 64}, min_run_time=0.02)
    assert record.median_s > 0 and record.iqr_s >= 0
    assert len(record.times_s) >= 1
    assert record.params == {"n": 64}
    assert record.meta["torch"] == torch.__version__ and record.meta["mode"] == "ci"


def test_measure_warms_up_before_timing():
    calls = []
    bench.measure(lambda: calls.append(1), "count", warmup=3, min_run_time=0.01)
    assert len(calls) > 3


def test_median_is_the_time_of_one_call():
    # sleep() gives a lower bound that no load on a shared machine can break:
    # the median per call must be at least the sleep, not a total or a per-block time.
    import time

    record = bench.measure(lambda: time.sleep(0.01), "sleep", warmup=0, min_run_time=0.05)
    assert 0.01 <= record.median_s < 0.5


def test_matmul_metrics():
    record = bench.matmul(64, min_run_time=0.02)
    assert record.metrics["gflops"] == pytest.approx(2 * 64**3 / record.median_s / 1e9)
    assert record.params == {"size": 64, "device": "cpu", "dtype": "float32"}


def test_fresh_random_is_not_zero_and_seedable():
    a = bench.fresh_random(1000, seed=1)
    assert a.abs().sum() > 0
    assert torch.equal(a, bench.fresh_random(1000, seed=1))
    assert not torch.equal(a, bench.fresh_random(1000, seed=2))


def test_copy_bandwidth_counts_read_and_write():
    record = bench.copy_bandwidth(1 << 16, min_run_time=0.02)
    expected = 2 * (1 << 16) * 4 / record.median_s / 1e9
    assert record.metrics["gbs"] == pytest.approx(expected)


def test_compile_time_is_reported_apart():
    def double(x):
        return x * 2

    record = bench.measure_compiled(double, (torch.ones(8),), "double", min_run_time=0.01)
    assert record.metrics["compile_s"] > record.median_s


def test_records_round_trip(tmp_path):
    r = bench.Record("a", 0.5, 0.1, [0.4, 0.5], {"k": "ক"}, {"gflops": 1.0}, bench.meta())
    path = bench.save_records([r], tmp_path / "x" / "r.json")
    loaded = bench.load_records(path)
    assert loaded == [r]
    assert json.loads(path.read_text(encoding="utf-8"))["schema"] == bench.SCHEMA_VERSION
    assert not list(path.parent.glob("*.tmp"))


@pytest.mark.parametrize("content", ["{", '{"records": [{"name": "x"}]}', '[1, 2]', '{"schema": 1}'])
def test_malformed_files_are_rejected_clearly(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="bad.json"):
        bench.load_records(path)


def test_time_once_calls_exactly_once():
    calls = []
    seconds = bench.time_once(lambda: calls.append(1))
    assert calls == [1] and seconds >= 0
