"""fastrain_lib.transfer: copy costs, .item() synchronisation, DataLoader throughput, the training loop."""

import json

import pytest
import torch
from torch.utils.data import TensorDataset

from fastrain_lib import bench, config, transfer
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
        transfer.host_to_device(1024, "cpu")
    with pytest.raises(RuntimeError):
        transfer.host_tensor(16, pinned=True)
    assert not transfer.host_tensor(16, pinned=False).is_pinned()


@needs_cuda
def test_host_to_device_on_a_gpu():
    records = transfer.transfer_table([1 << 16], "cuda")
    assert len(records) == 4
    assert all(r.metrics["gbs"] > 0 for r in records)
    assert {(r.params["pinned"], r.params["non_blocking"]) for r in records} == {
        (False, False), (False, True), (True, False), (True, True)}


def test_reference_transfers_handles_absence_and_files(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "reference_dir", lambda: None)
    assert transfer.reference_transfers() == []
    record = bench.Record(name="h2d 1048576", median_s=1e-4, params={"pinned": True}, metrics={"gbs": 40.0},
                          meta={"gpu_name": "NVIDIA H100"})
    bench.save_records([record, bench.Record(name="matmul 64", median_s=1.0)], tmp_path / "h100.json")
    (tmp_path / "broken.json").write_text(json.dumps({"nothing": 1}))
    monkeypatch.setattr(config, "reference_dir", lambda: tmp_path)
    found = transfer.reference_transfers()
    assert [r.name for r in found] == ["h2d 1048576"] and found[0].meta["gpu_name"] == "NVIDIA H100"


def test_launch_vs_sync_on_cpu():
    result = transfer.launch_vs_sync("cpu", size=64, repeats=2)
    assert result["device"] == "cpu"
    assert 0 < result["launch_s"] <= result["total_s"]


def test_item_cost_returns_two_comparable_records():
    every, once = transfer.item_cost("cpu", steps=2, batch_size=8, warmup=1, min_run_time=0.01)
    assert every.params["item_every_step"] is True and once.params["item_every_step"] is False
    assert every.params["steps"] == once.params["steps"] == 2
    assert every.metrics["ms_per_step"] > 0 and once.metrics["ms_per_step"] > 0


def test_augmented_dataset_changes_images_deterministically():
    base = tiny_digits(4)
    augmented = transfer.Augmented(base)
    image, label = augmented[1]
    assert image.shape == base[1][0].shape and label == base[1][1]
    assert torch.equal(image, augmented[1][0])  # same index, same augmentation
    assert not torch.equal(image, base[1][0])
    assert 0 <= image.min() and image.max() <= 1


@pytest.mark.parametrize("num_workers", [0, 1])
def test_loader_throughput(num_workers):
    record = transfer.loader_throughput(transfer.Augmented(tiny_digits(48)), batch_size=16,
                                        num_workers=num_workers, pin_memory=True)
    assert record.params["num_workers"] == num_workers and record.params["batches"] == 3
    assert record.params["pin_effective"] == torch.cuda.is_available()
    assert record.metrics["samples_per_s"] > 0 and record.metrics["startup_s"] > 0


def test_train_epoch_learns_and_reports():
    torch.manual_seed(0)
    labels = torch.arange(64) % 10
    images = torch.zeros(64, 1, 28, 28)
    images[torch.arange(64), 0, 0, labels] = 1.0  # an easy task: the label is a bright pixel's position
    loader = transfer.make_loader(TensorDataset(images, labels), batch_size=16)
    model = SimpleNN(hidden=32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    first = transfer.train_epoch(model, loader, torch.device("cpu"), optimizer)
    for _ in range(10):
        last = transfer.train_epoch(model, loader, torch.device("cpu"), optimizer)
    assert len(first["losses"]) == 4 and first["samples"] == 64 and first["samples_per_s"] > 0
    assert sum(last["losses"]) < sum(first["losses"])
    assert transfer.accuracy(model, loader, torch.device("cpu")) > 0.5
    limited = transfer.train_epoch(model, loader, torch.device("cpu"), optimizer, max_steps=2)
    assert len(limited["losses"]) == 2


def test_lesson02_panel_runs_and_changes_with_its_controls(monkeypatch):
    from fastrain_lib.panels import lesson02

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
