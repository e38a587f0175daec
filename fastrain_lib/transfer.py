"""What moving data costs: host -> device copies, pinned memory, non_blocking, .item(), DataLoader.

- host_to_device(): GB/s of a CPU -> GPU copy, from pageable or pinned (page-locked) memory,
  blocking or non_blocking. Needs a GPU; on a CPU-only machine there is nothing to move,
  so lessons show LINKS (the PCIe specification's peaks, labelled datasheet) and any
  reference/ records instead.
- launch_vs_sync(): GPU work is asynchronous: a call returns before the work is done; only
  a synchronisation (torch.cuda.synchronize, or anything that needs the value on the CPU,
  such as loss.item()) waits for it.
- item_cost(): the same training steps with loss.item() in every step vs once at the end.
- loader_throughput(): samples/s of a DataLoader for num_workers and pin_memory, with the
  workers' start-up time reported apart.
- train_epoch(): the seeds' training loop (to(device), zero_grad, forward, loss, backward, step).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from . import bench, config, hardware, reference
from .i18n import t


@dataclass(frozen=True)
class Link:
    """A host <-> GPU link's theoretical peak per direction (a specification, not a measurement)."""

    name: str
    gbs: float  # GB/s, one direction
    source: str


# PCIe x16, one direction: lanes x transfer rate x encoding efficiency (128b/130b since 3.0) / 8 bits.
# These are the specification's peaks; real copies reach less (protocol overhead, the host's memory).
LINKS: dict[str, Link] = {
    "pcie3": Link("PCIe 3.0 x16", 15.75, "PCI-SIG, PCI Express Base Specification 3.0 (8 GT/s per lane, 128b/130b)"),
    "pcie4": Link("PCIe 4.0 x16", 31.5, "PCI-SIG, PCI Express Base Specification 4.0 (16 GT/s per lane)"),
    "pcie5": Link("PCIe 5.0 x16", 63.0, "PCI-SIG, PCI Express Base Specification 5.0 (32 GT/s per lane)"),
}
# Which link the common GPUs use (their NVIDIA datasheets: T4 "PCIe Gen3 x16", A100 "PCIe Gen4",
# H100 "PCIe Gen5"). An SXM board talks to its host over the same PCIe generation.
GPU_LINKS = {"T4": "pcie3", "A100": "pcie4", "H100": "pcie5"}


def link_rows() -> list[tuple]:
    """(link, GB/s per direction, GPUs using it, 'datasheet: source') rows for a table."""
    rows = []
    for key, link in LINKS.items():
        gpus = ", ".join(g for g, k in GPU_LINKS.items() if k == key)
        rows.append((link.name, link.gbs, gpus, f"{t('hw.datasheet')}: {link.source}"))
    return rows


def gpu_device() -> torch.device | None:
    """The accelerator copies go to: cuda (or mps), or None on a CPU-only machine."""
    device = hardware.best_device()
    return None if device.type == "cpu" else device


def host_tensor(numel: int, pinned: bool) -> torch.Tensor:
    """Random float32 data in host memory; pinned (page-locked) when asked.

    Pinning needs an accelerator driver: on a CPU-only machine it raises a clear message."""
    src = bench.fresh_random(numel, seed=0)
    if pinned:
        if not hardware.cuda_available():
            raise RuntimeError(t("transfer.no_pinning"))
        src = src.pin_memory()
    return src


def host_to_device(numel: int, device: str | torch.device = "cuda", *, pinned: bool = False,
                   non_blocking: bool = False, **kwargs) -> bench.Record:
    """Time copying `numel` float32 numbers from host memory to `device`.

    metrics['gbs'] = bytes moved / median time. bench.measure synchronises the device after
    the copies, so a non_blocking copy is counted in full."""
    device = hardware.check_device(device)
    if device.type == "cpu":
        raise RuntimeError(t("transfer.needs_gpu"))
    src = host_tensor(numel, pinned)
    dst = torch.empty(numel, device=device)
    record = bench.measure(lambda: dst.copy_(src, non_blocking=non_blocking), f"h2d {numel}",
                           params={"numel": numel, "device": str(device), "pinned": pinned,
                                   "non_blocking": non_blocking}, **kwargs)
    record.metrics["gbs"] = record.per_second(src.numel() * src.element_size()) / 1e9
    return record


def transfer_table(sizes: list[int], device: str | torch.device = "cuda") -> list[bench.Record]:
    """host_to_device for every size and every (pinned, non_blocking) combination."""
    records = []
    for numel in sizes:
        for pinned in (False, True):
            for non_blocking in (False, True):
                records.append(host_to_device(numel, device, pinned=pinned, non_blocking=non_blocking))
    return records


def reference_transfers() -> list[bench.Record]:
    """Host -> device records from reference/ (measured elsewhere, with their hardware), if any."""
    return [r for r in reference.records() if r.name.startswith("h2d")]


def synchronize(device: torch.device) -> None:
    """Wait until the device has finished every queued kernel (a no-op on the CPU)."""
    hardware.synchronize(device)


def launch_vs_sync(device: str | torch.device, size: int = 2048, repeats: int = 5) -> dict:
    """Seconds until a matmul call returns (launch) vs until its result is ready (sync).

    On a GPU the call returns almost at once; the work finishes later. On a CPU the call
    itself does the work, so the two times are about equal. Medians over `repeats`."""
    device = hardware.check_device(device)
    a = bench.fresh_random(size, size, device=device)
    launch, total = [], []
    for _ in range(repeats + 1):  # the first round is a warm-up
        synchronize(device)
        start = time.perf_counter()
        a @ a
        returned = time.perf_counter()
        synchronize(device)
        done = time.perf_counter()
        launch.append(returned - start)
        total.append(done - start)
    launch, total = sorted(launch[1:]), sorted(total[1:])
    return {"device": str(device), "size": size, "launch_s": launch[len(launch) // 2],
            "total_s": total[len(total) // 2]}


def random_batches(steps: int, batch_size: int, device: torch.device, seed: int = 0):
    """`steps` (images, labels) batches already on `device` (random data, for timing only)."""
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(batch_size, 1, 28, 28, generator=g).to(device),
             torch.randint(0, 10, (batch_size,), generator=g).to(device)) for _ in range(steps)]


def item_cost(device: str | torch.device, steps: int | None = None, batch_size: int = 256,
              **kwargs) -> list[bench.Record]:
    """The same `steps` SimpleNN training steps with loss.item() every step vs once at the end.

    loss.item() copies one number to the CPU, and so must wait for every queued kernel: the
    CPU cannot run ahead and queue the next step while the GPU works. Returns two records."""
    from .models import SimpleNN

    device = hardware.check_device(device)
    steps = steps or config.by_mode(ci=5, lab=20, full=50)
    batches = random_batches(steps, batch_size, device)
    model = SimpleNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()

    def run(every_step: bool) -> float:
        total = torch.zeros((), device=device)
        seen = 0.0
        for inputs, targets in batches:
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            if every_step:
                seen += loss.item()  # waits for the device: a synchronisation every step
            else:
                total += loss.detach()  # stays on the device: no waiting
        return seen if every_step else total.item()  # one synchronisation at the end

    records = []
    for every_step in (True, False):
        name = "item_every_step" if every_step else "item_once"
        record = bench.measure(lambda e=every_step: run(e), name, params={
            "device": str(device), "steps": steps, "batch_size": batch_size, "item_every_step": every_step},
            **kwargs)
        record.metrics["ms_per_step"] = record.median_s / steps * 1e3
        records.append(record)
    return records


class Augmented(Dataset):
    """A dataset wrapper that does real per-sample CPU work (random shift + noise), the way
    decoding and augmenting images does. It lives in a module, not a notebook cell, so
    DataLoader workers can pickle it under every start method."""

    def __init__(self, base: Dataset, shift: int = 2, noise: float = 0.05):
        self.base, self.shift, self.noise = base, shift, noise

    def __len__(self) -> int:
        return len(self.base)

    def __getitem__(self, index: int):
        image, label = self.base[index]
        g = torch.Generator().manual_seed(index)
        dx, dy = torch.randint(-self.shift, self.shift + 1, (2,), generator=g).tolist()
        image = torch.roll(image, shifts=(dy, dx), dims=(-2, -1))
        image = (image + self.noise * torch.randn(image.shape, generator=g)).clamp(0, 1)
        return image, label


def make_loader(dataset: Dataset, batch_size: int, num_workers: int = 0, pin_memory: bool = False,
                shuffle: bool = True, seed: int = 0) -> DataLoader:
    """A DataLoader; pin_memory is passed on only where an accelerator can use it.

    Without a GPU, PyTorch ignores pin_memory=True with a warning: we skip the warning, and
    the lesson says plainly that pinning does nothing here."""
    usable_pin = pin_memory and hardware.cuda_available()
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, num_workers=num_workers,
                      pin_memory=usable_pin, generator=torch.Generator().manual_seed(seed),
                      persistent_workers=False)


def loader_throughput(dataset: Dataset, batch_size: int = 64, num_workers: int = 0, pin_memory: bool = False,
                      max_batches: int | None = None) -> bench.Record:
    """Samples/s of iterating a DataLoader once, with the start-up time apart.

    metrics['startup_s']: until the first batch arrives (starting worker processes costs
    time); metrics['samples_per_s']: the batches after the first. One pass is timed with
    perf_counter: a DataLoader pass has a one-off start, which repeating would hide."""
    loader = make_loader(dataset, batch_size, num_workers, pin_memory)
    max_batches = max_batches or len(loader)
    samples, count = 0, 0
    start = time.perf_counter()
    first = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for images, _labels in loader:
            count += 1
            if first is None:
                first = time.perf_counter()
            else:
                samples += images.shape[0]
            if count >= max_batches:
                break
    end = time.perf_counter()
    del loader  # ends the worker processes now, not at garbage collection
    steady = max(end - first, 1e-9) if first is not None else float("nan")
    record = bench.Record(
        name=f"loader w{num_workers} pin{int(pin_memory)}", median_s=steady,
        params={"batch_size": batch_size, "num_workers": num_workers, "pin_memory": pin_memory,
                "pin_effective": pin_memory and hardware.cuda_available(), "batches": count},
        meta=bench.meta())
    record.metrics["startup_s"] = (first - start) if first is not None else float("nan")
    record.metrics["samples_per_s"] = samples / steady if samples else float("nan")
    return record


def train_epoch(model: nn.Module, loader, device: torch.device, optimizer, criterion=None,
                max_steps: int | None = None, progress_key: str | None = None) -> dict:
    """One pass of the seeds' training loop.

    Each step: inputs and targets .to(device), zero_grad, forward, loss, backward, step.
    Losses are kept on the device and read once at the end (no .item() per step).
    Returns losses (one per step), samples, seconds (the whole pass), startup_s (until the
    first step is done: DataLoader workers starting, first-call costs) and samples_per_s
    (the steps after the first, so that one-off start-up does not hide the steady speed)."""
    from .progress import progress

    criterion = criterion or nn.CrossEntropyLoss()
    model.train()
    losses, samples, first_samples = [], 0, 0
    batches = progress(loader, progress_key) if progress_key else loader
    synchronize(device)
    start = time.perf_counter()
    after_first = None
    for step, (inputs, targets) in enumerate(batches):
        if max_steps is not None and step >= max_steps:
            break
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        samples += inputs.shape[0]
        if after_first is None:
            synchronize(device)
            after_first, first_samples = time.perf_counter(), samples
    synchronize(device)
    end = time.perf_counter()
    values = torch.stack(losses).cpu().tolist() if losses else []
    steady_s = end - after_first if after_first is not None else 0.0
    steady_samples = samples - first_samples
    return {"losses": values, "samples": samples, "seconds": end - start,
            "startup_s": (after_first - start) if after_first is not None else float("nan"),
            "samples_per_s": steady_samples / steady_s if steady_s > 0 and steady_samples else
            (samples / (end - start) if end > start else float("nan"))}


@torch.no_grad()
def accuracy(model: nn.Module, loader, device: torch.device) -> float:
    """Share of correctly classified samples (model in eval mode)."""
    model.eval()
    correct = total = 0
    for inputs, targets in loader:
        predictions = model(inputs.to(device)).argmax(dim=1)
        correct += (predictions == targets.to(device)).sum().item()
        total += targets.shape[0]
    model.train()
    return correct / max(total, 1)
