"""fastrain_lib.lessons.l02_to_device.transfer: copy costs, .item() synchronisation, DataLoader throughput, the training loop."""

import itertools
import json
import math

import pytest
import torch
from torch.utils.data import TensorDataset

from fastrain_lib.measure import bench
from fastrain_lib.measure import noise as noise_mod
from fastrain_lib.core import config
from fastrain_lib.lessons.l02_to_device import input_pipeline, transfer
from fastrain_lib.lessons.l02_to_device import verdicts as lesson_verdicts
from fastrain_lib.models import SimpleNN

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def tiny_digits(n=64):
    g = torch.Generator().manual_seed(0)
    return TensorDataset(torch.rand(n, 1, 28, 28, generator=g), torch.randint(0, 10, (n,), generator=g))


def test_links_are_labelled_datasheet_figures():
    rows = transfer.link_rows()
    assert [r[0] for r in rows] == ["PCIe 3.0 x16", "PCIe 4.0 x16", "PCIe 5.0 x16"]
    # each PCIe generation doubles the per-lane rate
    assert rows[1][1] == pytest.approx(2 * rows[0][1]) and rows[2][1] == pytest.approx(2 * rows[1][1])
    assert all("PCI-SIG" in r[3] for r in rows)
    assert "T4" in rows[0][2]


@pytest.mark.skipif(torch.cuda.is_available(), reason="CPU-only behaviour")
def test_cpu_only_machine_says_nothing_can_be_moved():
    assert transfer.gpu_device() is None
    with pytest.raises(RuntimeError, match="GPU"):
        transfer.host_to_device(1024, "cpu", pinned=True)


@needs_cuda
def test_host_to_device_on_a_gpu():
    records = transfer.transfer_table([1 << 16], "cuda")
    assert len(records) == 4
    assert all(r.metrics["gbs"] > 0 for r in records)
    assert {(r.params["pinned"], r.params["non_blocking"]) for r in records} == {
        (False, False), (False, True), (True, False), (True, True)}


def test_launch_vs_sync_on_cpu():
    result = transfer.launch_vs_sync("cpu", size=64, repeats=2)
    assert result["device"] == "cpu"
    assert 0 < result["launch_s"] <= result["total_s"]


def test_item_cost_returns_two_comparable_records():
    every, once = transfer.item_cost("cpu", steps=2, batch_size=8, warmup=1, min_run_time=0.01)
    assert every.params["item_every_step"] is True and once.params["item_every_step"] is False
    assert every.params["steps"] == once.params["steps"] == 2
    assert every.metrics["ms_per_step"] > 0 and once.metrics["ms_per_step"] > 0


def _item_loop_setup(seed=0):
    torch.manual_seed(seed)
    model = SimpleNN()
    batches = transfer.random_batches(3, 8, torch.device("cpu"), seed=seed)
    return model, torch.optim.SGD(model.parameters(), lr=0.1), torch.nn.CrossEntropyLoss(), batches


def test_the_lessons_two_item_loops_train_alike_and_read_the_loss_as_often_as_they_say():
    """Lesson 02's saved cells: .item() every step and once give the same weights and the same
    summed loss; a profile counts one read per step for the first and one in all for the second."""
    from torch.profiler import ProfilerActivity, profile

    from fastrain_lib.lessons.l02_to_device import saved

    results, reads = {}, {}
    for loop in (saved.train_item_every_step, saved.train_item_once):
        model, optimizer, criterion, batches = _item_loop_setup()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            total = loop(model, optimizer, criterion, batches)
        reads[loop.__name__] = sum(e.name == "aten::_local_scalar_dense" for e in prof.events())
        results[loop.__name__] = (total, [p.detach().clone() for p in model.parameters()])
    (every, w_every), (once, w_once) = results["train_item_every_step"], results["train_item_once"]
    assert isinstance(every, float) and isinstance(once, float)
    assert every == pytest.approx(once, rel=1e-5) and every > 0
    assert all(torch.equal(a, b) for a, b in zip(w_every, w_once))
    assert reads == {"train_item_every_step": 3, "train_item_once": 1}


def test_pinned_copy_needs_a_gpu_here_and_says_so():
    from fastrain_lib.lessons.l02_to_device import saved

    if torch.cuda.is_available():
        x = torch.rand(64, 7)
        y = saved.pinned_copy(x, "cuda")
        assert y.device.type == "cuda" and torch.equal(y.cpu(), x)
    else:
        with pytest.raises(RuntimeError):
            saved.pinned_copy(torch.rand(4), "cpu")


@needs_cuda
def test_the_side_stream_prefetch_computes_what_the_serial_loop_computes():
    from fastrain_lib.lessons.l02_to_device import saved

    hosts = [torch.rand(256, 256).pin_memory() for _ in range(5)]
    weight = torch.rand(256, 256, device="cuda")
    serial = saved.copy_then_compute(hosts, "cuda", lambda x: x @ weight)
    overlapped = saved.prefetch_on_side_stream(hosts, "cuda", lambda x: x @ weight)
    torch.cuda.synchronize()
    assert all(torch.allclose(a, b) for a, b in zip(serial, overlapped))
    assert torch.allclose(overlapped[-1], hosts[-1].cuda() @ weight)


def test_augmented_dataset_changes_images_deterministically():
    base = tiny_digits(4)
    augmented = input_pipeline.Augmented(base)
    image, label = augmented[1]
    assert image.shape == base[1][0].shape and label == base[1][1]
    assert torch.equal(image, augmented[1][0])  # same index, same augmentation
    assert not torch.equal(image, base[1][0])
    assert 0 <= image.min() and image.max() <= 1


@pytest.mark.parametrize("num_workers", [0, 1])
def test_loader_throughput(num_workers):
    record = input_pipeline.loader_throughput(input_pipeline.Augmented(tiny_digits(48)), batch_size=16,
                                        num_workers=num_workers, pin_memory=True)
    assert record.params["num_workers"] == num_workers and record.params["batches"] == 3
    assert record.params["pin_effective"] == torch.cuda.is_available()
    assert record.metrics["samples_per_s"] > 0 and record.metrics["startup_s"] > 0


def test_train_epoch_learns_and_reports():
    from torch import nn

    from fastrain_lib.lessons.l02_to_device.saved import train_epoch  # the lesson's cell

    torch.manual_seed(0)
    labels = torch.arange(64) % 10
    images = torch.zeros(64, 1, 28, 28)
    images[torch.arange(64), 0, 0, labels] = 1.0  # an easy task: the label is a bright pixel's position
    loader = input_pipeline.make_loader(TensorDataset(images, labels), batch_size=16)
    model = SimpleNN(hidden=32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    first = train_epoch(model, loader, torch.device("cpu"), optimizer, nn.CrossEntropyLoss())
    for _ in range(10):
        last = train_epoch(model, loader, torch.device("cpu"), optimizer, nn.CrossEntropyLoss())
    assert len(first) == 4 and all(loss.device.type == "cpu" and not loss.requires_grad for loss in first)
    assert sum(last) < sum(first)
    assert input_pipeline.accuracy(model, loader, torch.device("cpu")) > 0.5
    assert len(train_epoch(model, iter(loader), torch.device("cpu"), optimizer, nn.CrossEntropyLoss(), max_steps=2)) == 2


def test_lesson02_panel_runs_and_changes_with_its_controls(monkeypatch):
    from fastrain_lib.lessons.l02_to_device import panel as lesson02

    monkeypatch.setattr(lesson02, "dataset", lambda: tiny_digits(64))  # no font rendering in a unit test
    monkeypatch.setattr(lesson02, "HISTORY", [])
    panel = lesson02.make()
    first = panel.run(batch_size=16)
    assert panel.last_error is None and first.records[0].metrics["samples_per_s"] > 0
    second = panel.run(num_workers=1, pin_memory=True)
    assert panel.last_error is None and panel.runs == 2
    assert first.figure.axes[0].get_title() != second.figure.axes[0].get_title()
    assert second.records[0].params["num_workers"] == 1
    assert len(lesson02.HISTORY) == 2


# ------------------------------------------------------------------ pinning per batch, early reads, streams


@pytest.mark.skipif(torch.cuda.is_available(), reason="CPU-only behaviour")
def test_pin_cost_without_a_gpu_measures_the_host_copy_only():
    (record,) = transfer.pin_cost(1 << 16, min_run_time=0.01)
    assert record.name == "host copy" and record.params["bytes"] == 4 << 16
    assert record.metrics["gbs"] == pytest.approx((4 << 16) / record.median_s / 1e9)
    assert record.metrics["ms"] == pytest.approx(record.median_s * 1e3)
    key, values = lesson_verdicts.pin_verdict([record])
    # a busy machine (the noise verdict of this very record) gets the sentence that explains nothing
    assert key == ("transfer.verdict_pin_noisy" if record.noisy else "transfer.verdict_pin_cpu")
    assert values["mb"] == pytest.approx(0.262144)


def _pin_records(pageable, pin, both, pinned):
    return [bench.Record(name=n, median_s=ms / 1e3, params={"bytes": 8_000_000}, metrics={"ms": ms})
            for n, ms in zip(transfer.PIN_STEPS, (pageable, pin, both, pinned))]


def test_pin_verdict_compares_pinning_every_batch_with_a_plain_copy():
    key, values = lesson_verdicts.pin_verdict(_pin_records(pageable=1.0, pin=0.9, both=1.6, pinned=0.7))
    assert key == "transfer.verdict_pin_loses" and values["saved"] == pytest.approx(0.3) and values["mb"] == 8.0
    key, values = lesson_verdicts.pin_verdict(_pin_records(pageable=2.0, pin=0.4, both=1.5, pinned=1.1))
    assert key == "transfer.verdict_pin_wins" and values["both"] == 1.5


def test_simulated_early_read_is_wrong_before_waiting_and_right_after():
    result = transfer.simulated_early_read(delay_s=0.05)
    assert result["early"] == [0.0] * 4 and not result["early_ok"]
    assert result["late"] == result["expected"] == [8.0] * 4 and result["late_ok"]


def test_gpu_only_parts_say_so_on_a_cpu():
    with pytest.raises(RuntimeError, match="GPU"):
        transfer.early_read("cpu")
    with pytest.raises(RuntimeError, match="GPU"):
        transfer.overlap_measure("cpu")


@needs_cuda
def test_early_read_and_overlap_on_a_gpu():
    result = transfer.early_read("cuda")
    assert result["late_ok"]  # after synchronizing the values are right, whatever the early read saw
    serial, overlapped = transfer.overlap_measure("cuda", batches=4, numel=1 << 22, matmul_n=1024)
    assert serial.params == overlapped.params and overlapped.median_s < 1.05 * serial.median_s
    records = transfer.pin_cost(1 << 20)
    assert [r.name for r in records] == list(transfer.PIN_STEPS)


@pytest.mark.parametrize("copy_s, compute_s, batches", [(4e-3, 5e-3, 6), (2e-3, 2e-3, 3), (1e-3, 6e-3, 1)])
def test_overlap_model_and_its_timeline_agree(copy_s, compute_s, batches):
    model = transfer.overlap_model(copy_s, compute_s, batches)
    assert model["serial_s"] == pytest.approx(batches * (copy_s + compute_s))
    assert model["overlapped_s"] == pytest.approx(copy_s + (batches - 1) * max(copy_s, compute_s) + compute_s)
    for overlapped, total in ((False, model["serial_s"]), (True, model["overlapped_s"])):
        bars = transfer.overlap_timeline(copy_s, compute_s, batches, overlapped)
        assert max(end for *_, end in bars) == pytest.approx(total)
        for lane in ("copy", "compute"):  # one lane does one thing at a time
            spans = sorted((s, e) for name, _, s, e in bars if name == lane)
            assert all(a[1] <= b[0] + 1e-12 for a, b in itertools.pairwise(spans))
        copies = {b: e for name, b, _, e in bars if name == "copy"}
        assert all(s >= copies[b] - 1e-12 for name, b, s, _ in bars if name == "compute")  # data first


def test_equal_copy_and_compute_gain_the_most():
    assert transfer.overlap_model(1.0, 1.0, 9)["speedup"] == pytest.approx(18 / 10)
    assert transfer.overlap_model(1.0, 9.0, 9)["speedup"] < transfer.overlap_model(1.0, 1.0, 9)["speedup"]


def test_plot_overlap_draws_both_timelines():
    fig = transfer.plot_overlap(4e-3, 5e-3, 3)
    assert len(fig.axes) == 2
    widths = sorted({round(p.get_width(), 6) for p in fig.axes[0].patches})
    assert widths == [4.0, 5.0]  # the bars are the model's copy and compute times, in ms


# ------------------------------------------------------------------ is the input pipeline the bottleneck?


class SlowSamples(torch.utils.data.Dataset):
    """Each sample takes `delay` seconds to make (a stand-in for decoding)."""

    def __init__(self, n=64, delay=0.004):
        self.n, self.delay = n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import time

        time.sleep(self.delay)
        return torch.full((1, 28, 28), i / self.n), torch.tensor(i % 10)


def test_wait_vs_compute_sees_a_slow_input_pipeline():
    torch.manual_seed(0)
    model = SimpleNN(hidden=16)
    loader = input_pipeline.make_loader(SlowSamples(), batch_size=8, shuffle=False)
    # One thread: beside CI's other worker, a 2-thread team waiting for a descheduled thread made this
    # tiny step take longer than the 32 ms of loading (wait share 0.42), which is not what is tested here.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        result = input_pipeline.wait_vs_compute(loader, model, torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    finally:
        torch.set_num_threads(threads)
    assert len(result["wait_s"]) == len(result["step_s"]) == 7  # 8 batches, the first left out
    assert all(w >= 8 * 0.004 * 0.9 for w in result["wait_s"])  # 8 samples, 4 ms each
    assert result["wait_share"] > 0.5
    total = sum(result["wait_s"]) + sum(result["step_s"])
    assert result["steps_per_s"] == pytest.approx(7 / total)


def test_decoded_is_deterministic_and_marks_every_sample():
    from torch.profiler import ProfilerActivity, profile

    decoded = input_pipeline.Decoded(tiny_digits(4), rounds=2)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        first = decoded[1][0]
    assert torch.equal(first, decoded[1][0]) and 0 <= first.min() and first.max() <= 1
    assert not torch.equal(first, input_pipeline.Augmented(tiny_digits(4))[1][0])  # the blur changed it
    assert sum(e.name == input_pipeline.LOAD_SAMPLE for e in prof.events()) == 1


def test_profile_loop_counts_what_the_function_did():
    def work(n_items, n_adds):
        x = torch.ones(3)
        for _ in range(n_adds):
            x = x + 1
        return [x.sum().item() for _ in range(n_items)]

    result, prof = input_pipeline.profile_loop(work, 5, 3)
    assert result == [12.0] * 5
    assert prof.item_calls == 5
    assert prof.ops >= 3 + 5 + 5 and {n: c for n, c, _ in prof.table}["aten::add"] == 3
    assert prof.samples_here == 0 and prof.data_s == 0.0


@pytest.mark.parametrize("num_workers, samples_here", [(0, 24), (1, 0)])
def test_profile_loop_sees_where_samples_are_loaded(num_workers, samples_here):
    loader = input_pipeline.make_loader(input_pipeline.Decoded(tiny_digits(24), rounds=1), batch_size=8,
                                  num_workers=num_workers, shuffle=False)
    model = SimpleNN(hidden=8)
    _, prof = input_pipeline.profile_loop(input_pipeline.wait_vs_compute, loader, model,
                                    torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    assert prof.samples_here == samples_here
    assert prof.data_s > 0 and 0 < prof.data_share < 1
    names = [n for n, _, _ in prof.table]
    assert "DataLoader next()" in names and (input_pipeline.LOAD_SAMPLE in names) == (num_workers == 0)


def _loop(step_ms: float, wait_ms: float, steps: int = 10) -> dict:
    total = steps * (step_ms + wait_ms) / 1e3
    return {"wait_s": [wait_ms / 1e3] * steps, "step_s": [step_ms / 1e3] * steps, "startup_s": 0.05,
            "wait_share": wait_ms / (step_ms + wait_ms), "steps_per_s": steps / total}


# Measured here (lab, 2-core AMD EPYC): no workers 14.09 ms waiting + 1.31 ms step; 1 worker 11.74 + 10.68;
# 2 workers 6.76 + 13.63 — less waiting, yet 0.76x, because the workers took the step's cores.
MEASURED_PIPELINE = {0: _loop(1.31, 14.09), 1: _loop(10.68, 11.74), 2: _loop(13.63, 6.76)}


@pytest.mark.parametrize("pipeline, keys", [
    (MEASURED_PIPELINE, ["lesson02.bottleneck_data", "lesson02.workers_took_cores"]),
    # workers hid the waiting on idle cores: faster, nothing to explain
    ({0: _loop(2.0, 8.0), 1: _loop(2.1, 3.0), 2: _loop(2.0, 0.5)}, ["lesson02.bottleneck_data"]),
    # slower with the step unchanged: the cost of moving batches between processes
    ({0: _loop(2.0, 3.0), 1: _loop(2.1, 3.5), 2: _loop(2.2, 4.0)}, ["lesson02.bottleneck_data", "lesson02.workers_cost_more"]),
    ({0: _loop(8.0, 1.0), 2: _loop(8.0, 0.5)}, ["lesson02.bottleneck_step"]),
])
def test_pipeline_verdicts_say_why_workers_slowed_training(pipeline, keys, monkeypatch):
    from fastrain_lib.core.i18n import t

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    lines = lesson_verdicts.pipeline_verdicts(pipeline, cores=2)
    assert [k for k, _ in lines] == keys
    best = lines[0][1]["best"]
    assert pipeline[best]["steps_per_s"] == max(pipeline[w]["steps_per_s"] for w in pipeline if w > 0)
    if "lesson02.workers_took_cores" in keys:
        text = t(lines[1][0], **lines[1][1])
        assert "1.31 ms to 13.63 ms" in text and "1.32× slower" in text and "same 2 cores" in text
        assert "0.76× faster" not in text and "0.76×" not in text  # a ratio below 1 is said as "slower"


# ------------------------------------------------------------------ noise: no cause from a noisy row (issue 27)


def _info(noisy: bool) -> dict:
    info = {"cores": 2, "threads": 2, "other_cores": 1.4 if noisy else 0.0, "steal_cores": 0.0, "repeats": 10}
    info["verdict"], info["reasons"] = noise_mod.verdict(info)
    assert (info["verdict"] == "noisy") == noisy
    return info


CAUSAL = {"lesson02.bottleneck_data", "lesson02.bottleneck_step", "lesson02.workers_took_cores",
          "lesson02.workers_cost_more", "lesson02.workers_helped", "lesson02.workers_hurt", "lesson02.workers_same",
          "lesson02.pin_gap_cpu_large", "lesson02.pin_gap_cpu_noise", "lesson02.pin_gap_gpu",
          "lesson02.reconcile_agree", "lesson02.reconcile_overhead", "transfer.verdict_pin_cpu",
          "transfer.verdict_pin_loses", "transfer.verdict_pin_wins"}


@pytest.mark.parametrize("noisy_row", [0, 2])
def test_pipeline_verdict_gives_no_cause_when_a_row_it_stands_on_is_noisy(noisy_row):
    infos = {w: _info(w == noisy_row) for w in MEASURED_PIPELINE}
    lines = lesson_verdicts.pipeline_verdicts(MEASURED_PIPELINE, cores=2, noise_by_workers=infos)
    assert [k for k, _ in lines] == ["lesson02.pipeline_noisy"]
    assert not CAUSAL & {k for k, _ in lines}
    # quiet rows: the causal explanation is back
    quiet = lesson_verdicts.pipeline_verdicts(MEASURED_PIPELINE, 2, {w: _info(False) for w in MEASURED_PIPELINE})
    assert [k for k, _ in quiet] == ["lesson02.bottleneck_data", "lesson02.workers_took_cores"]


def test_the_warm_up_epoch_is_left_out_of_the_mean():
    # issue 27: lesson 02's mean included a first epoch 10x the others
    mean, left_out = lesson_verdicts.steady_mean([12.0, 1.2, 1.2])
    assert mean == pytest.approx(1.2) and left_out
    assert lesson_verdicts.steady_mean([12.0, 1.0, 1.4])[0] == pytest.approx(1.2)
    mean, left_out = lesson_verdicts.steady_mean([3.0])
    assert mean == 3.0 and not left_out  # one epoch: nothing else to average, and it says so
    assert math.isnan(lesson_verdicts.steady_mean([])[0])


@pytest.mark.parametrize("ratio, words", [(0.1, "10.00× slower"), (0.5, "2.00× slower"), (2.13, "2.13× faster"),
                                          (1.02, "about the same speed (1.02×)")])
def test_ratios_are_worded_by_their_direction(monkeypatch, ratio, words):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    assert lesson_verdicts.speed_words(ratio) == words


def _loader_record(workers, pin, rate, noisy=False):
    return bench.Record(name=f"loader w{workers} pin{int(pin)}", median_s=1.0,
                        params={"num_workers": workers, "pin_memory": pin}, metrics={"samples_per_s": rate},
                        noise=_info(noisy))


@pytest.mark.parametrize("on_rate, noisy, cuda, key", [
    (1250.0, False, False, "lesson02.pin_gap_cpu_large"),  # the 25% gap on a quiet CPU: not pin_memory
    (1250.0, True, False, "lesson02.pin_gap_noisy"),  # the same gap on a busy machine: noise, nothing more
    (1080.0, False, False, "lesson02.pin_gap_cpu_noise"),  # small and quiet: noise of a single pass
    (1250.0, False, True, "lesson02.pin_gap_gpu"),
    (1250.0, True, True, "lesson02.pin_gap_noisy"),
])
def test_the_pin_memory_gap_on_a_cpu_is_never_called_pin_memorys_effect(monkeypatch, on_rate, noisy, cuda, key):
    from fastrain_lib.core.i18n import t

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records = [_loader_record(0, False, 1000.0), _loader_record(0, True, on_rate, noisy), _loader_record(1, False, 900.0)]
    (line,) = lesson_verdicts.pin_gap_verdicts(records, cuda=cuda)
    assert line[0] == key and line[2] == records[:2]
    text = t(line[0], **line[1])
    if not cuda:
        assert "faster" in text and ("noise" in text or "noisy" in text or "busy" in text or "not pin_memory" in text)
        assert "ignores" in text or "busy" in text


@pytest.mark.parametrize("rates, noisy, key", [
    ((1000.0, 1500.0), False, "lesson02.workers_helped"),
    ((1000.0, 600.0), False, "lesson02.workers_hurt"),
    ((1000.0, 1040.0), False, "lesson02.workers_same"),
    ((1000.0, 1500.0), True, "lesson02.workers_noisy"),
    ((1000.0, 600.0), True, "lesson02.workers_noisy"),
])
def test_workers_verdict_follows_the_noise(rates, noisy, key):
    records = [_loader_record(0, False, rates[0]), _loader_record(2, False, rates[1], noisy)]
    got, values = lesson_verdicts.workers_verdict(records)
    assert got == key and values["workers"] == 2 and values["ratio"] == pytest.approx(rates[1] / rates[0])


# the run: 2 workers 2.13x faster in the timed run; under the profiler the 2-worker loop was slower
@pytest.mark.parametrize("before, profiled, before_noisy, profiled_noisy, key", [
    ({0: 10.0, 2: 21.3}, {0: 6.0, 2: 4.0}, False, False, "lesson02.reconcile_overhead"),
    ({0: 10.0, 2: 21.3}, {0: 6.0, 2: 4.0}, False, True, "lesson02.reconcile_noisy"),
    ({0: 10.0, 2: 21.3}, {0: 6.0, 2: 4.0}, True, False, "lesson02.reconcile_noisy"),
    ({0: 10.0, 2: 21.3}, {0: 6.0, 2: 10.0}, False, False, "lesson02.reconcile_agree"),
    ({0: 10.0, 2: 7.0}, {0: 6.0, 2: 4.0}, False, False, "lesson02.reconcile_agree"),
])
def test_the_profiler_run_is_reconciled_with_the_run_before_it(monkeypatch, before, profiled, before_noisy,
                                                               profiled_noisy, key):
    from fastrain_lib.core.i18n import t

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    got, values = lesson_verdicts.reconcile_verdict(before, profiled, 2, before_noisy=_info(before_noisy),
                                                    profiled_noisy=profiled_noisy)
    assert got == key
    text = t(got, **values)
    assert values["before"] in text and values["profiled"] in text
    if key == "lesson02.reconcile_overhead":
        assert "2.13× faster" in text and "1.50× slower" in text and "profiler" in text
        assert "quiet" in text


def test_noisy_sentences_stand_on_the_noise_verdict_only():
    for key in lesson_verdicts.NOISY_KEYS:
        assert lesson_verdicts.stands_on(key, ["records"]) == ()
        assert key not in CAUSAL
    assert lesson_verdicts.stands_on("lesson02.workers_helped", ["records"]) == ["records"]


def test_pin_verdict_on_noisy_records_explains_nothing():
    records = _pin_records(pageable=1.0, pin=0.9, both=1.6, pinned=0.7)
    records[2].noise = _info(True)
    key, _ = lesson_verdicts.pin_verdict(records)
    assert key == "transfer.verdict_pin_noisy"


def test_a_real_background_load_makes_the_loader_rows_noisy_and_the_verdict_says_so():
    # Every core busy and two more hogs: beside the test's own process and the other test workers, two hogs on
    # 2 cores got only 1.2 cores in CI (the 1-thread row needs more than 1.25 to be noisy); 24 batches, not 6,
    # so the window is more than a tick or two of /proc/stat
    with noise_mod.hog(noise_mod.cores() + 2, max_seconds=60):
        records = [input_pipeline.loader_throughput(input_pipeline.Augmented(tiny_digits(384)), batch_size=16,
                                                    num_workers=w, max_batches=24) for w in (0, 1)]
    # A row may still read as quiet at the edge (CI: 1.21 other cores where the 1-thread row needs 1.25); the
    # truth to hold is that the load is seen, and that the verdict then gives no cause and each row its own word.
    noisy = [r for r in records if r.noisy]
    assert noisy, [r.noise for r in records]
    key, _ = lesson_verdicts.workers_verdict(records)
    assert key == "lesson02.workers_noisy"
    for r in records:
        assert lesson_verdicts.noise_word(r) == lesson_verdicts.t("noise.noisy_word" if r.noisy else "noise.quiet_word")


# ------------------------------------------------------------------ the lesson notebook itself


def _lesson_cells():
    import nbformat

    return nbformat.read(config.REPO_DIR / "notebooks" / "02_to_device.ipynb", as_version=4).cells


def test_the_lesson_averages_epochs_without_the_warm_up():
    import inspect

    source = "\n".join(c.source for c in _lesson_cells() if c.cell_type == "code")
    assert "lesson_verdicts.steady_mean(times)[0]" in source and "lesson_verdicts.training(results" in source
    assert "epoch_s = {name: steady_mean(times)[0]" in inspect.getsource(lesson_verdicts.training)
    assert "sum(times) / len(times)" not in source


def test_every_verdict_in_the_lesson_names_what_it_stands_on():
    import re

    import inspect

    sources = [c.source for c in _lesson_cells() if c.cell_type == "code"] + [inspect.getsource(lesson_verdicts)]
    for source in sources:
        for call in re.finditer(r"verdicts\.say\(", source):
            depth, i = 1, call.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(source[i], 0)
                i += 1
            assert "noise=" in source[call.end():i], source[call.start():i][:120]


def test_the_route_marks_the_profiler_optional_and_off_on_a_cpu():
    cells = _lesson_cells()
    (toc,) = [c for c in cells if "route-toc" in c.metadata.get("tags", [])]
    headings = [line[3:] for c in cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("## ")]
    rows = [line for line in toc.source.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(headings)
    assert all(("🟢 মূল" in h) != ("⚪ ঐচ্ছিক" in h) for h in headings)
    profiler = next(c for c in cells if "profile_loop" in c.source and c.cell_type == "code")
    assert profiler.source.startswith('RUN_PROFILER = hardware.run_optional("profiler")')
    assert "optional" in profiler.metadata.get("tags", [])
    core_minutes = sum(int(r.split("|")[3].strip().translate(str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")))
                       for r in rows if "🟢" in r)
    assert 35 <= core_minutes <= 45


def test_op_counts_become_table_rows_not_a_dict():
    """issue 27: `'aten::item': 128` printed as a raw dict; launches.op_rows gives rows for a small table."""
    from fastrain_lib.measure import launches

    rows = launches.op_rows({"aten::add_": 8, "aten::item": 128, "aten::mul_": 8})
    assert rows == [("aten::item", 128), ("aten::add_", 8), ("aten::mul_", 8)]
    counted = launches.count_launches(lambda: torch.ones(3).add_(1).sum().item())
    assert counted.rows() == launches.op_rows(counted.names) and counted.rows(1)[0][1] == max(counted.names.values())


# ------------------------------------------------------------------ the one call of each # VERDICT cell (verdicts.py)


def _said(capsys, fn, *args, **kwargs) -> list[str]:
    fn(*args, **kwargs)
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def _item_records(every_ms, once_ms, device="cpu", noisy=False):
    return [bench.Record(name=n, median_s=ms * 4 / 1e3, iqr_s=1e-5, noise=_info(noisy),
                         params={"device": device, "steps": 4, "item_every_step": every}, metrics={"ms_per_step": ms})
            for n, every, ms in (("item_every_step", True, every_ms), ("item_once", False, once_ms))]


@pytest.mark.parametrize("device, every, once, noisy, last", [
    ("cpu", 2.0, 1.0, False, "is not .item()'s cost"),
    ("cuda", 2.0, 1.0, False, "clearly slower here"),
    ("cuda", 1.02, 1.0, False, "within the noise"),
    ("cuda", 2.0, 1.0, True, None),
])
def test_the_item_verdict_says_the_numbers_then_why_only_when_quiet(capsys, monkeypatch, device, every, once, noisy, last):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    lines = _said(capsys, lesson_verdicts.item, _item_records(every, once, device, noisy))
    if noisy:
        assert lines and all(line.startswith("➤ ⚠️") for line in lines)  # the noisy mark only, no cause
    else:
        assert f"Measured here ({device})" in lines[0] and f"{every:.3f} ms/step" in lines[0] and last in lines[1]


def test_the_launch_and_training_verdicts(capsys, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    lines = _said(capsys, lesson_verdicts.launch, [{"device": "cuda", "launch_s": 1e-5, "total_s": 1e-3, "noise": _info(False)},
                                                   {"device": "cpu", "launch_s": 1e-3, "total_s": 1e-3, "noise": _info(False)}])
    assert "returned after 0.010 ms" in lines[0] and "asynchronous" in lines[1] and "as a CPU does" in lines[3]
    results = {"cpu": ([], [3.0, 2.0, 2.0], 0.5), "cuda": ([], [5.0, 1.0, 1.0], 0.5)}
    lines = _said(capsys, lesson_verdicts.training, results, {"cpu": _info(False), "cuda": _info(False)}, 3)
    assert "accuracy after 3 epochs 50.0%" in lines[0] and "later epochs average 2.00 s" in lines[1]
    assert lines[-1].endswith("cuda against the CPU: 2.00× faster.")
    lines = _said(capsys, lesson_verdicts.training, results, {"cpu": _info(True), "cuda": _info(False)}, 3)
    assert not any(line.startswith("➤ cpu:") or "faster" in line for line in lines)


def test_the_early_read_overlap_and_profiler_verdicts(capsys, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    lines = _said(capsys, lesson_verdicts.early_read, transfer.simulated_early_read(delay_s=0.05))
    assert lines[0].startswith("➤ Simulation") and "— wrong;" in lines[0] and "— right (expected" in lines[0]
    lines = _said(capsys, lesson_verdicts.overlap, 2e-3, 3e-3, 6)
    assert len(lines) == 1 and "Model (not measured)" in lines[0] and "one stream 30.0 ms" in lines[0]
    assert _said(capsys, lesson_verdicts.reconcile, {}, {}) == ["➤ The profiler did not run (the cell is off), so there is nothing to compare."]


def test_the_loader_and_pipeline_verdicts_give_no_cause_from_noisy_rows(capsys, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records = [_loader_record(0, False, 1000.0), _loader_record(0, True, 1010.0), _loader_record(2, False, 1500.0)]
    for r in records:
        r.metrics["startup_s"] = 0.5
    lines = _said(capsys, lesson_verdicts.loaders, records, cuda=False, cores=2)
    assert "1000 samples/s" in lines[0] and "2 cores" in lines[0] and "helped" in lines[1] and "pin_memory on, against off" in lines[2]
    records[2].noise = _info(True)
    lines = _said(capsys, lesson_verdicts.loaders, records, cuda=False, cores=2)
    assert not any("helped" in line for line in lines) and any("noisy" in line for line in lines)
    row = {"wait_s": [0.01], "step_s": [0.001], "wait_share": 0.9, "steps_per_s": 90.0, "startup_s": 0.1, "noise": _info(False)}
    lines = _said(capsys, lesson_verdicts.pipeline, {0: row, 2: {**row, "wait_share": 0.2, "steps_per_s": 200.0}}, 2)
    assert lines[0].startswith("➤ num_workers=0: per step on average 10.00 ms") and "the input pipeline is the bottleneck" in lines[2]
