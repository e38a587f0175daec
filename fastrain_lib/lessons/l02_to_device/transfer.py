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

from fastrain_lib.measure import bench, hardware, reference
from fastrain_lib.core import config
from fastrain_lib.core.i18n import t


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
    from fastrain_lib.models import SimpleNN

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
    from fastrain_lib.ui.progress import progress

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


# ---------------------------------------------------------------- pinning every batch: what it costs, what it saves

PIN_STEPS = ("pageable .to", "pin_memory()", "pin_memory() + .to(non_blocking)", "pinned .to(non_blocking)")


def pin_cost(numel: int, device: str | torch.device | None = None, **kwargs) -> list[bench.Record]:
    """Per batch of `numel` float32 numbers: what pinning costs and what it saves.

    With a CUDA GPU, four records (names in PIN_STEPS), each the time for one batch:
      'pageable .to'                     x.to(gpu): the driver copies through its own pinned buffer
      'pin_memory()'                     x.pin_memory() alone: page-locked memory + one host copy (the cost)
      'pin_memory() + .to(non_blocking)' both, every batch, on the training loop's path
      'pinned .to(non_blocking)'         the copy when the batch is already pinned (pinned once, before)
    Without CUDA nothing can be pinned. One record measures what pin_memory() must do at the
    least here: a host-to-host copy of the same bytes ('host copy': metrics['gbs'])."""
    device = gpu_device() if device is None else hardware.check_device(device)
    src = bench.fresh_random(numel, seed=1)
    nbytes = numel * src.element_size()
    params = {"numel": numel, "bytes": nbytes}
    if device is None or device.type != "cuda":
        dst = torch.empty_like(src)
        record = bench.measure(lambda: dst.copy_(src), "host copy", params={**params, "device": "cpu"}, **kwargs)
        record.metrics["gbs"] = record.per_second(nbytes) / 1e9
        record.metrics["ms"] = record.median_s * 1e3
        return [record]
    pinned = src.pin_memory()
    work = {
        PIN_STEPS[0]: lambda: src.to(device),
        PIN_STEPS[1]: lambda: src.pin_memory(),
        PIN_STEPS[2]: lambda: src.pin_memory().to(device, non_blocking=True),
        PIN_STEPS[3]: lambda: pinned.to(device, non_blocking=True),
    }
    records = []
    for name, fn in work.items():  # Timer synchronises the GPU, so non_blocking copies count in full
        record = bench.measure(fn, name, params={**params, "device": str(device)}, **kwargs)
        record.metrics["gbs"] = record.per_second(nbytes) / 1e9
        record.metrics["ms"] = record.median_s * 1e3
        records.append(record)
    return records


def pin_verdict(records: list[bench.Record]) -> tuple[str, dict]:
    """(catalog key, values) for pin_cost's records: does pinning every batch pay here?"""
    by_name = {r.name: r for r in records}
    if "host copy" in by_name:
        r = by_name["host copy"]
        return "transfer.verdict_pin_cpu", {"mb": r.params["bytes"] / 1e6, "ms": r.metrics["ms"],
                                             "gbs": r.metrics["gbs"]}
    pageable, pin_only, both, pinned = (by_name[n].metrics["ms"] for n in PIN_STEPS)
    values = {"mb": records[0].params["bytes"] / 1e6, "pageable": pageable, "pin": pin_only, "both": both,
              "pinned": pinned, "saved": pageable - pinned}
    return ("transfer.verdict_pin_loses" if both > pageable else "transfer.verdict_pin_wins"), values


# ---------------------------------------------------------------- reading a non_blocking device->host copy too early


def early_read(device: str | torch.device, numel: int = 1 << 22, busy: int = 8) -> dict:
    """A GPU copies a result to the CPU with non_blocking=True; the CPU reads it at once.

    The GPU is first given `busy` large matmuls, so the copy waits in the queue behind them.
    .to("cpu", non_blocking=True) returns before the copy has happened: the host tensor
    holds whatever its memory held (often zeros). Reading after hardware.synchronize is right.
    Returns {'expected', 'early' (first values read at once), 'late' (after synchronizing),
    'early_ok', 'late_ok'}. Needs a CUDA GPU."""
    device = hardware.check_device(device)
    if device.type != "cuda":
        raise RuntimeError(t("transfer.needs_gpu"))
    a = bench.fresh_random(4096, 4096, device=device, seed=2) / 64
    result = torch.full((numel,), 7.0, device=device)
    hardware.synchronize(device)
    for _ in range(busy):
        a = torch.tanh(a @ a)  # queued: the GPU is busy for a while
    result.add_(a[0, 0] * 0 + 1)  # the value depends on the queued work: 8.0 once it has run
    host = result.to("cpu", non_blocking=True)  # returns at once; the copy waits in the queue
    early = host[:4].clone()  # read NOW, before synchronizing: the copy may not have happened
    hardware.synchronize(device)
    late = host[:4].clone()
    expected = torch.full((4,), 8.0)
    return {"expected": expected.tolist(), "early": early.tolist(), "late": late.tolist(),
            "early_ok": torch.equal(early, expected), "late_ok": torch.equal(late, expected)}


def simulated_early_read(delay_s: float = 0.05, numel: int = 4) -> dict:
    """The same mistake WITHOUT a GPU, simulated: a helper thread plays the copy engine and
    writes the result `delay_s` later; the main thread reads at once, then after waiting.
    This is a simulation on the CPU (a thread, not a GPU); it shows the logic, not GPU timings."""
    import threading

    host = torch.zeros(numel)  # like fresh pinned memory: it holds whatever was there
    done = threading.Event()

    def copy_engine():
        time.sleep(delay_s)
        host.fill_(8.0)
        done.set()

    threading.Thread(target=copy_engine, daemon=True).start()
    early = host.clone()  # read at once
    done.wait(timeout=10)  # the simulation's "synchronize"
    late = host.clone()
    expected = torch.full((numel,), 8.0)
    return {"expected": expected.tolist(), "early": early.tolist(), "late": late.tolist(),
            "early_ok": torch.equal(early, expected), "late_ok": torch.equal(late, expected)}


# ---------------------------------------------------------------- overlapping copies with compute (a second stream)


def overlap_model(copy_s: float, compute_s: float, batches: int) -> dict:
    """Time for `batches` batches, each copied (copy_s) then computed on (compute_s):

    serial      every copy waits for the previous compute: batches · (copy + compute)
    overlapped  the next batch's copy runs on a second stream while this one computes:
                copy + (batches - 1) · max(copy, compute) + compute
    A pure formula (no measurement): the picture the GPU measurement is checked against."""
    serial = batches * (copy_s + compute_s)
    overlapped = copy_s + (batches - 1) * max(copy_s, compute_s) + compute_s if batches else 0.0
    return {"serial_s": serial, "overlapped_s": overlapped, "speedup": serial / overlapped if overlapped else 1.0}


def overlap_timeline(copy_s: float, compute_s: float, batches: int, overlapped: bool) -> list[tuple]:
    """(lane, batch, start_s, end_s) bars for the two lanes 'copy' and 'compute' of the model above."""
    bars, copy_free, compute_free = [], 0.0, 0.0
    for b in range(batches):
        start = copy_free if overlapped else max(copy_free, compute_free)
        copy_end = start + copy_s
        bars.append(("copy", b, start, copy_end))
        compute_start = max(copy_end, compute_free)
        compute_free = compute_start + compute_s
        bars.append(("compute", b, compute_start, compute_free))
        copy_free = copy_end
    return bars


def plot_overlap(copy_s: float, compute_s: float, batches: int, title: str = ""):
    """Two timelines (serial above, overlapped below) of the model: a labelled picture, not a measurement."""
    from fastrain_lib.ui import plots

    fig, axes = plots.new_figure(nrows=2, sharex=True)
    colors = {"copy": "#e69f00", "compute": "#0072b2"}
    for ax, overlapped in zip(axes, (False, True)):
        for lane, b, start, end in overlap_timeline(copy_s, compute_s, batches, overlapped):
            y = 1 if lane == "copy" else 0
            ax.barh(y, (end - start) * 1e3, left=start * 1e3, color=colors[lane], edgecolor="white")
            ax.text((start + end) / 2 * 1e3, y, str(b + 1), ha="center", va="center", color="white", fontsize=9)
        ax.set_yticks([0, 1], [plots.label("transfer.lane_compute"), plots.label("transfer.lane_copy")])
        total = overlap_model(copy_s, compute_s, batches)["overlapped_s" if overlapped else "serial_s"]
        ax.set_title(plots.label("transfer.timeline_overlapped" if overlapped else "transfer.timeline_serial",
                                 ms=total * 1e3), fontsize=11)
    axes[-1].set_xlabel(plots.label("transfer.time_ms"))
    if title:
        fig.suptitle(title)
    return fig


def overlap_measure(device: str | torch.device, batches: int = 8, numel: int = 1 << 24, matmul_n: int = 2048,
                    **kwargs) -> list[bench.Record]:
    """On a CUDA GPU: `batches` pinned batches copied to the GPU and computed on (a matmul each),
    serial (copy and compute on one stream) vs overlapped (copies on a second stream, one
    batch ahead). Uses the device-generic torch.Stream API; the compute stream waits for each
    copy (wait_stream) before using it. Two records; needs a CUDA GPU."""
    device = hardware.check_device(device)
    if device.type != "cuda":
        raise RuntimeError(t("transfer.needs_gpu"))
    hosts = [bench.fresh_random(numel, seed=i).pin_memory() for i in range(batches)]
    weight = bench.fresh_random(matmul_n, matmul_n, device=device, seed=99)
    side = torch.Stream(device=device)
    main = torch.accelerator.current_stream(device)

    def compute(x):
        return (x[: matmul_n * matmul_n].view(matmul_n, matmul_n) @ weight).sum()

    def serial():
        return [compute(h.to(device, non_blocking=True)) for h in hosts]

    def overlapped():
        out = []
        with side:
            nxt = hosts[0].to(device, non_blocking=True)
        for i in range(batches):
            main.wait_stream(side)  # this batch's copy must be done before computing on it
            current = nxt
            current.record_stream(main)  # the memory is used on the main stream too
            if i + 1 < batches:
                with side:  # the next copy runs beside this compute
                    nxt = hosts[i + 1].to(device, non_blocking=True)
            out.append(compute(current))
        return out

    records = []
    for name, fn in (("copy+compute serial", serial), ("copy+compute overlapped", overlapped)):
        record = bench.measure(fn, name, params={"device": str(device), "batches": batches, "numel": numel,
                                                 "matmul_n": matmul_n}, **kwargs)
        record.metrics["ms"] = record.median_s * 1e3
        records.append(record)
    return records


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


LOAD_SAMPLE = "fastrain::load_sample"
NEXT_BATCH = "enumerate(DataLoader)#"  # the DataLoader marks each next() with this prefix


def wait_vs_compute(loader, model: nn.Module, optimizer, device: str | torch.device = "cpu",
                    max_steps: int | None = None) -> dict:
    """Time a training loop in two parts per step: waiting for the next batch (the input
    pipeline) and the step itself (to(device), forward, backward, optimizer step, synchronized).

    Returns {'wait_s', 'step_s' (lists, one per step, the first step left out: workers starting),
    'startup_s', 'wait_share' (waiting ÷ total), 'steps_per_s'}."""
    device = hardware.check_device(device)
    criterion = nn.CrossEntropyLoss()
    waits, steps = [], []
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
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        criterion(model(inputs), targets).backward()
        optimizer.step()
        synchronize(device)
        t2 = time.perf_counter()
        count += 1
        if startup is None:
            startup = t2 - start
            continue
        waits.append(t1 - t0)
        steps.append(t2 - t1)
    del iterator  # the worker processes end here
    total = sum(waits) + sum(steps)
    return {"wait_s": waits, "step_s": steps, "startup_s": startup or float("nan"),
            "wait_share": sum(waits) / total if total else float("nan"),
            "steps_per_s": len(steps) / total if total else float("nan")}


def pipeline_verdicts(pipeline: dict[int, dict], cores: int) -> list[tuple[str, dict]]:
    """(catalog key, values) for lesson 02's input-pipeline verdict, from wait_vs_compute results
    per num_workers ({0: ..., 1: ..., 2: ...}): is waiting for data the bottleneck with no workers,
    which worker count was fastest, and — when workers made training slower — why, from the
    measured step times. Measured here (2 cores): waiting fell from 91% to 33% with 2 workers,
    yet training ran at 0.76x, because the step itself grew from 1.31 to 13.63 ms."""
    import statistics

    def step_ms(w):
        return statistics.median(pipeline[w]["step_s"]) * 1e3 if pipeline[w]["step_s"] else float("nan")

    best = max((w for w in pipeline if w > 0), key=lambda w: pipeline[w]["steps_per_s"])
    ratio = pipeline[best]["steps_per_s"] / pipeline[0]["steps_per_s"]
    values = {"best": best, "share": pipeline[best]["wait_share"], "ratio": ratio}
    lines = [("lesson02.bottleneck_data" if pipeline[0]["wait_share"] > 0.5 else "lesson02.bottleneck_step", values)]
    if ratio < 1:
        slower_step = step_ms(best) > 1.2 * step_ms(0)
        lines.append(("lesson02.workers_took_cores" if slower_step else "lesson02.workers_cost_more",
                      {**values, "step0_ms": step_ms(0), "step_ms": step_ms(best), "cores": cores}))
    return lines


@dataclass
class LoopProfile:
    """What torch.profiler saw in this process while a training loop ran.

    item_calls      reads of one number to the CPU (aten::_local_scalar_dense: .item(), int(t), float(t))
    ops             top-level aten operator calls (each a kernel launch on a GPU)
    samples_here    samples loaded in this process (LOAD_SAMPLE marks); 0 when workers load them
    data_s          seconds inside the DataLoader's next() (waiting for or making the batch)
    total_s         seconds of the whole profiled call
    table           (name, calls, total ms) rows, the busiest first"""

    item_calls: int
    ops: int
    samples_here: int
    data_s: float
    total_s: float
    table: list

    @property
    def data_share(self) -> float:
        return self.data_s / self.total_s if self.total_s > 0 else float("nan")


def profile_loop(fn, *args, rows: int = 12, **kwargs) -> tuple[object, LoopProfile]:
    """Run fn(*args, **kwargs) once under torch.profiler (CPU activity; on a GPU the kernels'
    launches still show as aten ops). Returns (fn's result, LoopProfile)."""
    import os
    from collections import defaultdict

    from torch.profiler import ProfilerActivity, profile

    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # keep Kineto's start/stop lines off the notebook
    start = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        result = fn(*args, **kwargs)
    total = time.perf_counter() - start
    items = ops = samples = 0
    data_us = 0.0
    counts: dict[str, int] = defaultdict(int)
    times: dict[str, float] = defaultdict(float)
    for event in prof.events():
        name = event.name
        if name == LOAD_SAMPLE or name.startswith(NEXT_BATCH):
            if name == LOAD_SAMPLE:
                samples += 1
                label = name
            else:
                data_us += event.cpu_time_total
                label = "DataLoader next()"
            counts[label] += 1
            times[label] += event.cpu_time_total / 1e3
            continue
        if _loading(event):
            continue  # making the batch: counted as samples and data time, not as the step's ops
        if name == "aten::_local_scalar_dense":
            items += 1
        if name.startswith("aten::") and (event.cpu_parent is None or not event.cpu_parent.name.startswith("aten::")):
            ops += 1
            counts[name] += 1
            times[name] += event.cpu_time_total / 1e3
    table = sorted(((n, counts[n], times[n]) for n in counts), key=lambda row: -row[2])[:rows]
    return result, LoopProfile(items, ops, samples, data_us / 1e6, total, table)


def _loading(event) -> bool:
    """True for an op run while making a batch (inside a DataLoader next() or a sample's load)."""
    parent = event.cpu_parent
    while parent is not None:
        if parent.name == LOAD_SAMPLE or parent.name.startswith(NEXT_BATCH):
            return True
        parent = parent.cpu_parent
    return False
