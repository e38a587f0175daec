"""Offline datasets: Bengali digits rendered from fonts, and MNIST when it is available.

No lesson may depend on a download (labs have poor internet, CI has none), so the
main dataset is made here, on the student's machine:

1. every Bengali font we can find (the bundled Noto Sans Bengali, plus system fonts
   that contain the digits ০-৯) draws each digit once per stroke width: the "templates";
2. each sample takes one template and moves it with a random affine transform
   (rotation, scale, shear, shift) in one batched torch.grid_sample call;
3. a little noise and contrast change, then 28x28 grayscale, white digit on black,
   like MNIST.

The result is deterministic for a seed (on one machine: other machines may have other
fonts), cached on disk after the first build, and fast (the ci-size set builds in
well under a second).

    ds = bengali_digits(train=True)          # size by run mode
    image, label = ds[0]                     # [1, 28, 28] float in [0, 1], int64
    loader = digits_loader(batch_size=64)
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import subprocess
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t

# Bump when the rendering changes: old cache files are then ignored, not reused.
VERSION = 2
DIGITS = "০১২৩৪৫৬৭৮৯"
CLASSES = list(DIGITS)
IMAGE = 28  # final side length, as in MNIST
CANVAS = 56  # templates are drawn at twice the size and averaged down (smoother edges)
CHUNK = 4096  # images transformed at once (bounds memory; part of the recipe, like VERSION)
STROKES = (0, 1, 2)  # extra stroke width in pixels (glyphs drawn at 48 px, then fitted to 40)
FONT_DIR = Path(__file__).resolve().parent / "fonts"


class DigitImages(Dataset):
    """Images [N,1,28,28] (float32 in [0,1]) and labels [N] (int64), plus class names."""

    def __init__(self, images: torch.Tensor, labels: torch.Tensor, classes: list[str], name: str = ""):
        if images.shape[0] != labels.shape[0]:
            raise ValueError(f"{images.shape[0]} images but {labels.shape[0]} labels")
        self.images = images
        self.labels = labels
        self.classes = list(classes)
        self.name = name

    def __len__(self) -> int:
        return self.labels.shape[0]

    def __getitem__(self, index: int):
        return self.images[index], self.labels[index]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, n={len(self)}, classes={self.classes})"


class BengaliDigits(DigitImages):
    """The rendered Bengali digits; .cache_path says where it lives, .from_cache whether it was reused."""

    cache_path: Path | None = None
    from_cache: bool = False


# ---------------------------------------------------------------- fonts and templates


def _has_digits(path: str) -> bool:
    """True when the font file maps every Bengali digit to a glyph of its own."""
    try:
        from fontTools.ttLib import TTFont  # installed with matplotlib

        cmap = TTFont(path, lazy=True, fontNumber=0).getBestCmap() or {}
        return all(ord(ch) in cmap for ch in DIGITS)
    except Exception:  # noqa: BLE001 - an unreadable or exotic font file: just skip it
        return False


@functools.lru_cache(maxsize=1)
def font_files() -> tuple[str, ...]:
    """The bundled Bengali fonts plus system fonts that contain ০-৯, sorted (deterministic).

    fontconfig's fc-list answers in milliseconds where it exists (Linux, Colab); elsewhere
    (Windows, macOS) matplotlib's font list is searched for fonts named Bengali/Bangla.
    A system copy of a bundled font is skipped."""
    found = {p.name: str(p) for p in sorted(FONT_DIR.glob("*.ttf"))}
    if shutil.which("fc-list"):
        charset = " ".join(f"{ord(ch):x}" for ch in DIGITS)
        try:
            out = subprocess.run(["fc-list", f":charset={charset}", "file"], check=False, capture_output=True,
                                 text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        for line in sorted(out.splitlines()):
            path = line.split(":")[0].strip()
            if path.endswith((".ttf", ".otf")) and Path(path).name not in found and _has_digits(path):
                found[Path(path).name] = path
    else:
        from matplotlib import font_manager

        for entry in sorted(font_manager.fontManager.ttflist, key=lambda e: e.fname):
            named = any(word in entry.name.lower() for word in ("bengali", "bangla", "beng"))
            if named and Path(entry.fname).name not in found and _has_digits(entry.fname):
                found[Path(entry.fname).name] = entry.fname
    return tuple(sorted(found.values()))


def _draw(font_path: str, digit: str, stroke: int) -> torch.Tensor:
    """One digit drawn with PIL, cropped to its ink and fitted into a 40x40 box in the
    middle of a 56x56 canvas (MNIST fits digits into 20x20 of 28x28)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_path, 48)
    image = Image.new("L", (96, 96), 0)
    ImageDraw.Draw(image).text((48, 48), digit, fill=255, font=font, anchor="mm",
                               stroke_width=stroke, stroke_fill=255)
    box = image.getbbox()
    if box is None:  # the font drew nothing: no template from it
        return torch.zeros(CANVAS, CANVAS)
    glyph = image.crop(box)
    scale = 40 / max(glyph.size)
    glyph = glyph.resize((max(1, round(glyph.width * scale)), max(1, round(glyph.height * scale))),
                         Image.Resampling.LANCZOS)
    canvas = Image.new("L", (CANVAS, CANVAS), 0)
    canvas.paste(glyph, ((CANVAS - glyph.width) // 2, (CANVAS - glyph.height) // 2))
    return torch.frombuffer(bytearray(canvas.tobytes()), dtype=torch.uint8).reshape(CANVAS, CANVAS).float() / 255


@functools.lru_cache(maxsize=4)
def templates(fonts: tuple[str, ...] | None = None) -> torch.Tensor:
    """All drawn digits: [10, T, 56, 56] (T = fonts x stroke widths), cached in memory."""
    fonts = fonts or font_files()
    per_digit = []
    for digit in DIGITS:
        drawn = [_draw(f, digit, s) for f in fonts for s in STROKES]
        per_digit.append(torch.stack(drawn))
    return torch.stack(per_digit)


# ---------------------------------------------------------------- rendering a dataset


def _stream_seed(seed: int, train: bool) -> int:
    """Train and test use different random streams, so they never share images."""
    return (int(seed) * 1_000_003 + (11 if train else 29)) % (2**63)


def render(size: int, seed: int = 0, train: bool = True, fonts: tuple[str, ...] | None = None):
    """Draw `size` random digit images: returns (images uint8 [N,1,28,28], labels int64 [N])."""
    g = torch.Generator().manual_seed(_stream_seed(seed, train))
    bank = templates(fonts)  # [10, T, 56, 56]
    # Balanced labels: 0..9 repeated, then shuffled.
    labels = (torch.arange(size) % 10)[torch.randperm(size, generator=g)]
    pick = torch.randint(0, bank.shape[1], (size,), generator=g)
    # In chunks, so that a 60000-image set does not need gigabytes of memory at once.
    chunks = [_transform(bank[labels[i:i + CHUNK], pick[i:i + CHUNK]].unsqueeze(1), g)
              for i in range(0, size, CHUNK)]
    return torch.cat(chunks), labels


def _transform(base: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Move, brighten, blur and add noise to templates [n, 1, 56, 56] -> uint8 [n, 1, 28, 28]."""
    n = base.shape[0]

    def uniform(low, high):
        return low + (high - low) * torch.rand(n, generator=g)

    # A random affine transform per image. affine_grid maps output to input coordinates
    # in [-1, 1]: rotation, shear and scale in the 2x2 part, shift in the last column.
    angle = uniform(-15, 15) * math.pi / 180
    shear = uniform(-0.3, 0.3)
    scale = uniform(0.85, 1.2)  # > 1 samples a bigger area: the digit looks smaller
    aspect = uniform(0.9, 1.1)
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = scale * aspect * cos
    theta[:, 0, 1] = scale * (shear * cos - sin)
    theta[:, 1, 0] = scale * aspect * sin
    theta[:, 1, 1] = scale * (shear * sin + cos)
    theta[:, 0, 2] = uniform(-0.12, 0.12)  # about ±2 pixels of 28
    theta[:, 1, 2] = uniform(-0.12, 0.12)
    grid = F.affine_grid(theta, [n, 1, CANVAS, CANVAS], align_corners=False)
    moved = F.grid_sample(base, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    images = F.avg_pool2d(moved, 2)  # 56 -> 28

    # Ink brightness, a little blur now and then, and sensor-like noise.
    images = images * uniform(0.75, 1.0).view(-1, 1, 1, 1)
    blurred = F.avg_pool2d(F.pad(images, (1, 1, 1, 1), mode="replicate"), 3, stride=1)
    blur = (torch.rand(n, generator=g) < 0.2).view(-1, 1, 1, 1)
    images = torch.where(blur, (images + blurred) / 2, images)  # soften, not smear
    images = images + uniform(0.0, 0.08).view(-1, 1, 1, 1) * torch.randn(images.shape, generator=g)
    return (images.clamp(0, 1) * 255).round().to(torch.uint8)  # stored like MNIST: bytes


def _default_size(train: bool) -> int:
    if train:
        return config.by_mode(ci=1000, lab=6000, full=60000)
    return config.by_mode(ci=300, lab=1000, full=10000)


def _cache_file(train: bool, size: int, seed: int) -> Path:
    split = "train" if train else "test"
    return config.data_dir() / f"bengali_digits-v{VERSION}-{split}-n{size}-s{seed}.pt"


def bengali_digits(train: bool = True, size: int | None = None, seed: int = 0) -> BengaliDigits:
    """The Bengali digits ০-৯ as a Dataset: .images [N,1,28,28] float32 in [0,1], .labels [N] int64.

    size None picks a size by run mode (ci: 1000 train / 300 test). Built once, then loaded
    from the cache under config.data_dir()."""
    size = _default_size(train) if size is None else size
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(t("data.bad_size", size=size))
    path = _cache_file(train, size, seed)
    from_cache = False
    stored = None
    if path.exists():
        try:
            stored = torch.load(path, weights_only=True)
            from_cache = True
        except Exception:  # noqa: BLE001 - a broken cache file (e.g. disk full earlier): rebuild it
            stored = None
    if stored is None:
        images, labels = render(size, seed, train)
        stored = {"images": images, "labels": labels}
        # Atomic write: a half-written file never appears under the real name, even when
        # two notebooks build the same set at once.
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        torch.save(stored, tmp)
        os.replace(tmp, path)
    dataset = BengaliDigits(stored["images"].float() / 255, stored["labels"].long(), CLASSES,
                            name=t("data.bengali_name"))
    dataset.cache_path, dataset.from_cache = path, from_cache
    return dataset


def digits_loader(train: bool = True, batch_size: int = 64, size: int | None = None, seed: int = 0,
                  **loader_kwargs) -> DataLoader:
    """A DataLoader over bengali_digits (shuffled for training unless told otherwise)."""
    loader_kwargs.setdefault("shuffle", train)
    return DataLoader(bengali_digits(train, size, seed), batch_size=batch_size, **loader_kwargs)


# ---------------------------------------------------------------- MNIST when we can get it


def _mnist(train: bool, download: bool):
    from torchvision import datasets

    return datasets.MNIST(root=str(config.data_dir()), train=train, download=download)


def load_mnist_or_digits(train: bool = True, size: int | None = None, seed: int = 0):
    """(dataset, name): torchvision's MNIST if it is on disk or can be downloaded (not in
    ci mode; short timeout), otherwise a Bengali message and the Bengali digits."""
    mnist = None
    try:
        mnist = _mnist(train, download=False)
    except Exception:  # noqa: BLE001 - not on disk (or torchvision missing)
        if not config.is_ci():
            import socket

            old = socket.getdefaulttimeout()
            socket.setdefaulttimeout(10)  # a lab with poor internet must not hang here
            try:
                mnist = _mnist(train, download=True)
            except Exception:  # noqa: BLE001 - offline, blocked, or a partial download
                mnist = None
            finally:
                socket.setdefaulttimeout(old)
    if mnist is None:
        print(t("data.mnist_missing"))
        dataset = bengali_digits(train, size, seed)
        return dataset, dataset.name
    images = mnist.data.unsqueeze(1).float() / 255
    labels = mnist.targets.long()
    if size is not None or config.is_ci():
        size = _default_size(train) if size is None else size
        keep = torch.randperm(len(labels), generator=torch.Generator().manual_seed(_stream_seed(seed, train)))[:size]
        images, labels = images[keep], labels[keep]
    return DigitImages(images, labels, [str(i) for i in range(10)], name="MNIST"), "MNIST"
