"""The timing core: what it measures must be the truth about one call, warm, synchronised."""

import json
import threading
import time

import pytest
import torch

from fastrain_lib.measure import bench, hardware, noise


def test_measure_returns_median_and_spread():
    x = bench.fresh_random(64, 64)
    record = bench.measure(lambda: x @ x, "mm", params={"n": 64}, min_run_time=0.02)
    assert record.median_s > 0 and record.iqr_s >= 0
    assert len(record.times_s) >= 1
    assert record.params == {"n": 64}
    assert record.meta["torch"] == torch.__version__ and record.meta["mode"] == "ci"
    # the noise information sits beside the median and is consistent with it
    assert record.noise["verdict"] in ("quiet", "noisy") and record.noise["repeats"] == len(record.times_s)
    assert record.noise["spread"] == pytest.approx(record.iqr_s / record.median_s, rel=1e-3, abs=1e-4)
    assert record.noise["threads"] == noise.free_threads(torch.get_num_threads())  # as many as fit (next test)


def test_warm_up_keeps_slow_first_calls_out_of_the_timing():
    # The first 4 calls are slow (a cold cache, a compile, cuDNN autotuning), later ones fast.
    calls = []

    def work():
        calls.append(1)
        time.sleep(0.2 if len(calls) <= 4 else 0.001)

    # 0.1 s: a 1 ms sleep on a busy make test woke 30 ms late once; a timed slow call is 200 ms at least
    record = bench.measure(work, "cold start", warmup=4, min_run_time=0.05)
    assert max(record.times_s) < 0.1, "a slow warm-up call was timed"
    assert record.median_s < 0.1
    assert len(calls) > 4 + len(record.times_s)

    calls.clear()  # the same without warm-up: the slow calls are timed (the test above can fail)
    cold = bench.measure(work, "cold start", warmup=0, min_run_time=0.05)
    assert max(cold.times_s) >= 0.2


def test_median_is_the_time_of_one_call():
    # sleep() gives a lower bound that no load on a shared machine can break:
    # the median per call must be at least the sleep, not a total or a per-block time.
    record = bench.measure(lambda: time.sleep(0.01), "sleep", warmup=0, min_run_time=0.05)
    assert 0.01 <= record.median_s < 0.5


def test_measure_with_threads_sets_and_restores_them():
    before = torch.get_num_threads()
    seen = []
    record = bench.measure(lambda: seen.append(torch.get_num_threads()), "threads", warmup=1, min_run_time=0.01,
                           threads=1)
    assert set(seen) == {1} and record.noise["threads"] == 1
    assert torch.get_num_threads() == before


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
    assert record.metrics["compiles"] >= 1 and record.metrics["recompiles_timed"] == 0


def test_warm_up_continues_until_nothing_recompiles(monkeypatch):
    # A compiled step that compiles on call 1 and again on call 3 (say, a new shape): the
    # timing may only start after two calls in a row that compiled nothing.
    compiled_after_call = iter([1, 1, 2, 2, 2, 2, 2])
    state = {"graphs": 0}
    monkeypatch.setattr(bench, "graphs_compiled", lambda: state["graphs"])

    def step():
        time.sleep(0.001)
        state["graphs"] = next(compiled_after_call)

    warm = bench.warm_until_compiled(step, device="cpu")
    assert warm == {"compile_s": pytest.approx(warm["compile_s"]), "compiles": 2, "recompiles": 1,
                    "warmup_calls": 5}
    assert warm["compile_s"] >= 0.002  # the two compiling calls, not the quiet ones


def test_records_round_trip(tmp_path):
    r = bench.Record("a", 0.5, 0.1, [0.4, 0.5], {"k": "ক"}, {"gflops": 1.0}, bench.meta(),
                     {"verdict": "noisy", "reasons": ["load"], "other_cores": 1.5})
    path = bench.save_records([r], tmp_path / "x" / "r.json")
    loaded = bench.load_records(path)
    assert loaded == [r] and loaded[0].noisy
    assert json.loads(path.read_text(encoding="utf-8"))["schema"] == bench.SCHEMA_VERSION == 2
    assert not list(path.parent.glob("*.tmp"))


def test_schema_1_files_still_load_without_noise_information(tmp_path):
    old = {"schema": 1, "records": [{"name": "matmul 256", "median_s": 0.01, "iqr_s": 0.0, "times_s": [0.01],
                                     "params": {"size": 256}, "metrics": {"gflops": 3.3}, "meta": {"torch": "2.5"}}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    [record] = bench.load_records(path)
    assert record.noise == {} and not record.noisy and record.metrics["gflops"] == 3.3


@pytest.mark.parametrize("content", ["{", '{"records": [{"name": "x"}]}', '[1, 2]', '{"schema": 1}'])
def test_malformed_files_are_rejected_clearly(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="bad.json"):
        bench.load_records(path)


def test_time_once_calls_exactly_once_and_times_that_call():
    calls = []
    seconds = bench.time_once(lambda: calls.append(1) or time.sleep(0.05))
    assert calls == [1]
    # bounded from both sides: at least the sleep, and not a multiple of it
    assert 0.05 <= seconds < 0.5


def test_time_once_waits_for_asynchronous_device_work(monkeypatch):
    # An asynchronous device: the call only queues 80 ms of work and returns at once, as a
    # CUDA kernel launch does. time_once must wait for the device (hardware.synchronize)
    # before it reads the clock, and must not count work queued before it started.
    queued: list[threading.Thread] = []

    def synchronize(device="cpu"):
        while queued:
            queued.pop().join()

    def launch(seconds):
        worker = threading.Thread(target=time.sleep, args=(seconds,))
        worker.start()
        queued.append(worker)

    monkeypatch.setattr(hardware, "synchronize", synchronize)
    launch(0.2)  # earlier work, still running: not this call's
    seconds = bench.time_once(lambda: launch(0.08), device="cuda")
    assert 0.08 <= seconds < 0.19
    assert not queued


def test_measure_uses_the_threads_that_fit_beside_a_busy_core_and_says_so(capsys, monkeypatch):
    """Issue 38: on a busy lab PC a thread team larger than the free cores waits for its descheduled member;
    bench.measure takes the threads that fit, records torch's own count beside them, and a verdict on the
    record says so on its line (unless the record is noisy anyway: then only the noisy line)."""
    from fastrain_lib.core import verdicts

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    cores = noise.cores()
    if cores < 2:
        pytest.skip("one core: no thread team to shrink")
    x = bench.fresh_random(64, 64)
    with bench.torch_threads(cores):
        noise._last_look["at"] = -1e9  # look again now, beside the hog
        with noise.hog(cores - 1):
            time.sleep(0.3)
            busy = bench.measure(lambda: x @ x, "mm", min_run_time=0.05)
    assert busy.noise["threads"] < cores and busy.noise["threads_wanted"] == cores
    verdicts.say("a finding", noise=[busy])
    out = capsys.readouterr().out
    assert (verdicts.NOISY_MARK in out) if busy.noisy else (f"thread(s), not {cores}" in out), out


def test_remeasure_noisy_measures_only_the_noisy_rows_of_a_list_or_a_dict(capsys, monkeypatch):
    """Issue 38: lessons 01 and 04 measure a noisy row once more at 1 thread before the verdict. A list gives
    remeasure the record, a dict its key (lesson 04's (variant, tensors) settings); quiet rows are kept as
    they were, the same kind comes back, and the printed line counts what was measured and what is still noisy."""
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    quiet = bench.Record(name="loop × 1", median_s=1.0)
    noisy = bench.Record(name="fused × 4", median_s=9.0, noise={"verdict": "noisy", "reasons": ["load"]})
    still = bench.Record(name="foreach × 4", median_s=8.0, noise={"verdict": "noisy", "reasons": ["load"]})
    asked = []

    def again(key):
        asked.append(key)
        return bench.Record(name=str(key), median_s=2.0) if key == ("fused", 4) else still

    rows = {("loop", 1): quiet, ("fused", 4): noisy, ("foreach", 4): still}
    new = bench.remeasure_noisy(rows, again)
    assert list(new) == list(rows) and new[("loop", 1)] is quiet and new[("fused", 4)].median_s == 2.0
    assert sorted(asked) == [("foreach", 4), ("fused", 4)]
    out = capsys.readouterr().out
    assert "2 of 3" in out and "still noisy: 1" in out and new[("foreach", 4)] is still
    assert bench.remeasure_noisy([quiet], again) == [quiet] and "None of the 1" in capsys.readouterr().out
