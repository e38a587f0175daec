"""fastrain_lib.data: the rendered Bengali digits and the MNIST fallback."""

from __future__ import annotations

import pytest
import torch

from fastrain_lib import data
from fastrain_lib.models import SimpleNN


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    # Every test builds into its own folder: no files left behind, no cross-talk.
    monkeypatch.setenv("FASTRAIN_DATA", str(tmp_path))
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    return tmp_path


def test_shapes_dtypes_range_and_classes():
    ds = data.bengali_digits(train=True, size=200)
    assert len(ds) == 200
    assert ds.images.shape == (200, 1, 28, 28) and ds.images.dtype == torch.float32
    assert ds.labels.shape == (200,) and ds.labels.dtype == torch.int64
    assert 0.0 <= ds.images.min() and ds.images.max() <= 1.0
    assert ds.classes == list("০১২৩৪৫৬৭৮৯")
    image, label = ds[3]
    assert image.shape == (1, 28, 28) and label.dtype == torch.int64 and 0 <= int(label) < 10
    # Real digits, not blank frames: a clear bright stroke on a dark background.
    assert (ds.images.amax(dim=(1, 2, 3)) > 0.5).all()
    assert ds.images.mean() < 0.4


def test_ci_default_sizes():
    assert len(data.bengali_digits(train=True)) == 1000
    assert len(data.bengali_digits(train=False)) == 300


def test_deterministic_for_a_seed_and_different_for_another(private_cache):
    a = data.render(100, seed=5)
    b = data.render(100, seed=5)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    c = data.render(100, seed=6)
    assert not torch.equal(a[0], c[0])
    # Built fresh and loaded from the cache: identical tensors either way.
    first = data.bengali_digits(size=100, seed=5)
    assert not first.from_cache
    assert torch.equal(first.images, a[0].float() / 255)


def test_labels_balanced():
    ds = data.bengali_digits(size=250)
    counts = ds.labels.bincount(minlength=10)
    assert counts.tolist() == [25] * 10
    odd = data.bengali_digits(size=123).labels.bincount(minlength=10)
    assert odd.max() - odd.min() <= 1


def test_train_and_test_differ():
    train = data.bengali_digits(train=True, size=300, seed=0)
    test = data.bengali_digits(train=False, size=300, seed=0)
    assert not torch.equal(train.images, test.images)
    # No test image appears in the training set.
    flat_train = train.images.flatten(1)
    distances = torch.cdist(test.images.flatten(1), flat_train).min(dim=1).values
    assert (distances > 0).all()


def test_cache_is_written_and_reused(private_cache, monkeypatch):
    first = data.bengali_digits(size=60, seed=1)
    assert first.cache_path.exists() and first.cache_path.parent == private_cache
    assert not list(private_cache.glob("*.tmp"))  # atomic write leaves no temp file

    def no_render(*args, **kwargs):
        raise AssertionError("the cached set should have been reused")

    monkeypatch.setattr(data, "render", no_render)
    second = data.bengali_digits(size=60, seed=1)
    assert second.from_cache
    assert torch.equal(first.images, second.images) and torch.equal(first.labels, second.labels)
    # A different key builds a different file.
    monkeypatch.undo()
    monkeypatch.setenv("FASTRAIN_DATA", str(private_cache))
    data.bengali_digits(size=60, seed=2)
    assert len(list(private_cache.glob("bengali_digits-*.pt"))) == 2


def test_broken_cache_file_is_rebuilt(private_cache):
    path = data.bengali_digits(size=40).cache_path
    path.write_bytes(b"not a torch file")
    again = data.bengali_digits(size=40)
    assert not again.from_cache and len(again) == 40


@pytest.mark.parametrize("bad", [0, -5, 2.5, "100"])
def test_bad_size_gets_a_clear_message(bad):
    with pytest.raises(ValueError, match="size"):
        data.bengali_digits(size=bad)


def test_fonts_include_the_bundled_one():
    fonts = data.font_files()
    assert any("NotoSansBengali-Regular" in f for f in fonts)
    assert list(fonts) == sorted(fonts)


def test_loader_batches():
    loader = data.digits_loader(batch_size=32, size=100)
    images, labels = next(iter(loader))
    assert images.shape == (32, 1, 28, 28) and labels.shape == (32,)


def test_mnist_fallback_in_ci_gives_bengali_digits(capsys, monkeypatch):
    def missing(train, download):
        assert not download, "ci mode must never download"
        raise RuntimeError("Dataset not found")

    monkeypatch.setattr(data, "_mnist", missing)
    dataset, name = data.load_mnist_or_digits(train=False, size=50)
    assert isinstance(dataset, data.BengaliDigits) and len(dataset) == 50
    assert name == dataset.name
    assert "MNIST" in capsys.readouterr().out


@pytest.fixture
def one_thread():
    # Tiny matrices: one thread avoids thread-pool contention on a busy 2-core machine.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_simple_nn_learns_well_above_chance(one_thread):
    torch.manual_seed(0)
    train = data.bengali_digits(train=True, size=2000)
    test = data.bengali_digits(train=False, size=500)
    model = SimpleNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(3):  # 3 short epochs: well under a second on one CPU core
        order = torch.randperm(len(train))
        for start in range(0, len(train), 64):
            idx = order[start:start + 64]
            loss = torch.nn.functional.cross_entropy(model(train.images[idx]), train.labels[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        accuracy = (model(test.images).argmax(1) == test.labels).float().mean().item()
    # Chance is 10%; here it reaches about 90%. 0.7 leaves room for other fonts and seeds.
    assert accuracy > 0.7, accuracy


def test_mnist_when_present_is_converted_and_subset(monkeypatch):
    class FakeMNIST:
        data = torch.randint(0, 256, (500, 28, 28), dtype=torch.uint8)
        targets = torch.arange(500) % 10

    monkeypatch.setattr(data, "_mnist", lambda train, download: FakeMNIST())
    dataset, name = data.load_mnist_or_digits(train=True, size=64)
    assert name == "MNIST" and len(dataset) == 64
    assert dataset.images.shape == (64, 1, 28, 28) and dataset.images.dtype == torch.float32
    assert 0 <= dataset.images.min() and dataset.images.max() <= 1
    assert dataset.classes == [str(i) for i in range(10)]
    again, _ = data.load_mnist_or_digits(train=True, size=64)
    assert torch.equal(again.labels, dataset.labels)  # the same subset for the same seed


def test_fonts_without_fontconfig(monkeypatch):
    monkeypatch.setattr(data.shutil, "which", lambda name: None)
    data.font_files.cache_clear()
    try:
        fonts = data.font_files()
        assert any("NotoSansBengali-Regular" in f for f in fonts)
    finally:
        data.font_files.cache_clear()


def test_rendering_in_chunks_is_deterministic(monkeypatch):
    monkeypatch.setattr(data, "CHUNK", 7)  # several chunks, one of them partial
    images, labels = data.render(20, seed=1)
    again, _ = data.render(20, seed=1)
    assert images.shape == (20, 1, 28, 28) and images.dtype == torch.uint8
    assert torch.equal(images, again) and labels.bincount(minlength=10).tolist() == [2] * 10
