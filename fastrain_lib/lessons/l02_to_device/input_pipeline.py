"""The input pipeline of lesson 02: DataLoader workers and pinning, the training loop that
feeds on it, and how to tell whether waiting for data is the bottleneck.

- Augmented / Decoded: datasets that do real per-sample CPU work (augmenting; decoding).
- loader_throughput(): samples/s of the lesson's DataLoader (make_loader, a saved cell), with the
  workers' start-up time reported apart.
- accuracy(): the test accuracy of the seeds' training loop (train_epoch, a saved cell of the lesson).
- wait_vs_compute(): each step split into waiting for the batch and the step (its verdict: verdicts.py).
- profile_loop() (measure/loop_profile.py, re-exported here): what torch.profiler saw while a loop ran.

Copies, synchronisation and overlapping copies with compute are in transfer.py.
"""

from __future__ import annotations

import time
import warnings

import torch
from torch import nn
from torch.utils.data import Dataset

from fastrain_lib.lessons.l02_to_device.saved import make_loader, train_epoch  # the lesson's cells
from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.measure.loop_profile import LOAD_SAMPLE, NEXT_BATCH, LoopProfile, profile_loop  # noqa: F401 (used by the lesson)


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


def cores_needed(num_workers: int, threads: int | None = None) -> int:
    """Cores a loop with `num_workers` DataLoader workers keeps busy: the training process's threads
    (torch's own count unless given) plus one per worker, at most the machine's (what the noise verdict
    counts as ours)."""
    return max(1, min(noise.cores(), (threads or torch.get_num_threads()) + int(num_workers)))


def fitting_threads() -> tuple[int, int]:
    """(threads, wanted): the training process's CPU threads that fit the free cores now, and torch's own
    count (lesson 01 §7: a thread team larger than the free cores waits at every step). A timing taken with
    fewer than torch's own says so on its verdict line (noise info "threads_wanted")."""
    wanted = torch.get_num_threads()
    return noise.free_threads(wanted), wanted


def _assess(window, threads: int, wanted: int, num_workers: int, **kwargs) -> dict:
    """The noise information of a timing that ran with `threads` training threads and `num_workers` workers."""
    # the line "measured with 1 thread, not 2" counts training threads: said for a loop without workers
    return window.assess(threads=cores_needed(num_workers, threads),
                         threads_wanted=wanted if threads < wanted and not num_workers else None, **kwargs)


def loader_throughput(dataset: Dataset, batch_size: int = 64, num_workers: int = 0, pin_memory: bool = False,
                      max_batches: int | None = None) -> bench.Record:
    """Samples/s of iterating a DataLoader once, with the start-up time apart.

    metrics['startup_s']: until the first batch arrives (starting worker processes costs
    time); metrics['samples_per_s']: the batches after the first. One pass is timed with
    perf_counter: a DataLoader pass has a one-off start, which repeating would hide."""
    loader = make_loader(dataset, batch_size, num_workers, pin_memory)
    max_batches = max_batches or len(loader)
    samples, count = 0, 0
    threads, wanted = fitting_threads()
    fit = bench.torch_threads(threads)
    fit.__enter__()  # the training process's threads that fit the free cores (restored below)
    window = noise.Window().__enter__()
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
    window.__exit__(None, None, None)
    fit.__exit__(None, None, None)
    del loader  # ends the worker processes now, not at garbage collection
    steady = max(end - first, 1e-9) if first is not None else float("nan")
    record = bench.Record(
        name="DataLoader", median_s=steady,
        params={"batch_size": batch_size, "num_workers": num_workers, "pin_memory": pin_memory,
                "pin_effective": pin_memory and hardware.cuda_available(), "batches": count},
        meta=bench.meta(), noise=_assess(window, threads, wanted, num_workers, repeats=count))
    record.metrics["startup_s"] = (first - start) if first is not None else float("nan")
    record.metrics["samples_per_s"] = samples / steady if samples else float("nan")
    return record


def remeasure_noisy(records: list[bench.Record], dataset: Dataset) -> list[bench.Record]:
    """The records with every noisy one measured once more, the same setting (one rerun before the verdict
    gives up; a quiet rerun replaces its row, a still noisy one stays noisy). Each rerun again takes the
    training threads that fit the free cores."""
    again = []
    for r in records:
        if noise.is_noisy(r.noise):
            p = r.params
            r = loader_throughput(dataset, batch_size=p["batch_size"], num_workers=p["num_workers"],
                                  pin_memory=p["pin_memory"], max_batches=p["batches"])
        again.append(r)
    return again


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


# ---------------------------------------------------------------- is the input pipeline the bottleneck?


class Decoded(Augmented):
    """Augmented, with `rounds` extra blur passes per sample standing for decoding (JPEG, audio):
    per-sample CPU work that cannot be skipped, only moved off the training process. Each
    sample is marked in the profiler as 'fastrain::load_sample', so a profile shows which
    process loaded it (DataLoader workers are other processes: their samples do not appear)."""

    def __init__(self, base: Dataset, rounds: int = 4, **kwargs):
        super().__init__(base, **kwargs)
        self.rounds = rounds

    def __getitem__(self, index: int):
        with torch.profiler.record_function(LOAD_SAMPLE):
            image, label = super().__getitem__(index)
            kernel = torch.full((1, 1, 3, 3), 1 / 9)
            for _ in range(self.rounds):  # a 3x3 blur, then back to the sharp image's range
                image = torch.nn.functional.conv2d(image.unsqueeze(0), kernel, padding=1).squeeze(0)
            return image.clamp(0, 1), label




def wait_vs_compute(loader, model: nn.Module, optimizer, device: str | torch.device = "cpu",
                    max_steps: int | None = None) -> dict:
    """Time a training loop in two parts per step: waiting for the next batch (the input
    pipeline) and the step itself (one step of the lesson's train_epoch, synchronized).

    Returns {'wait_s', 'step_s' (lists, one per step, the first step left out: workers starting),
    'startup_s', 'wait_share' (waiting ÷ total), 'steps_per_s', 'noise' (measure.noise: was the
    machine quiet while it ran?)}."""
    device = hardware.check_device(device)
    criterion = nn.CrossEntropyLoss()
    waits, steps = [], []
    threads, wanted = fitting_threads()
    fit = bench.torch_threads(threads)
    fit.__enter__()  # the training process's threads that fit the free cores (restored below)
    window = noise.Window().__enter__()
    iterator = iter(loader)
    start = time.perf_counter()
    startup = None
    count = 0
    while max_steps is None or count < max_steps:
        t0 = time.perf_counter()
        try:
            inputs, targets = next(iterator)
        except StopIteration:
            break
        t1 = time.perf_counter()
        train_epoch(model, [(inputs, targets)], device, optimizer, criterion)  # one step of the lesson's loop
        hardware.synchronize(device)
        t2 = time.perf_counter()
        count += 1
        if startup is None:
            startup = t2 - start
            continue
        waits.append(t1 - t0)
        steps.append(t2 - t1)
    del iterator  # the worker processes end here
    window.__exit__(None, None, None)
    fit.__exit__(None, None, None)
    total = sum(waits) + sum(steps)
    info = _assess(window, threads, wanted, getattr(loader, "num_workers", 0), repeats=len(steps))
    return {"wait_s": waits, "step_s": steps, "startup_s": startup or float("nan"),
            "wait_share": sum(waits) / total if total else float("nan"),
            "steps_per_s": len(steps) / total if total else float("nan"), "noise": info}
