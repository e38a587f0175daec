"""What moving data costs: host -> device copies, pinned memory, non_blocking, .item(), a second stream.

The techniques themselves are written in lesson 02's cells and saved to saved.py (pinned_copy,
train_item_every_step / train_item_once, read_back, copy_then_compute / prefetch_on_side_stream); this
module measures them:
- host_to_device(), transfer_table(): GB/s of a CPU -> GPU copy, from pageable or pinned
  (page-locked) memory, blocking or non_blocking. Needs a GPU; on a CPU-only machine there is
  nothing to move, so lessons show LINKS (the PCIe specification's peaks, labelled datasheet)
  and any reference/ records instead.
- pin_cost(): what pinning every batch costs and saves (its verdict: verdicts.py).
- launch_vs_sync(): GPU work is asynchronous: a call returns before the work is done; only
  a synchronisation (torch.cuda.synchronize, or anything that needs the value on the CPU,
  such as loss.item()) waits for it.
- item_cost(): the same training steps with loss.item() in every step vs once at the end.
- early_read(), simulated_early_read(): reading a non_blocking device -> host copy too early.
- overlap_model(), plot_overlap(), overlap_measure(): copies beside compute on a second stream.

The input pipeline (DataLoader workers, the training loop, profiling) is in input_pipeline.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from torch import nn

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l02_to_device.saved import (
    copy_then_compute,
    pinned_copy,
    prefetch_on_side_stream,
    read_back,
    train_item_every_step,
    train_item_once,
)
from fastrain_lib.measure import bench, hardware


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
        rows.append((link.name, link.gbs, gpus, f"{t('hardware.datasheet')}: {link.source}"))
    return rows


def gpu_device() -> torch.device | None:
    """The accelerator copies go to: cuda (or mps), or None on a CPU-only machine."""
    device = hardware.best_device()
    return None if device.type == "cpu" else device


def host_to_device(numel: int, device: str | torch.device = "cuda", *, pinned: bool = False,
                   non_blocking: bool = False, **kwargs) -> bench.Record:
    """Time copying `numel` float32 numbers from host memory to `device`.

    metrics['gbs'] = bytes moved / median time. bench.measure synchronises the device after
    the copies, so a non_blocking copy is counted in full."""
    device = hardware.check_device(device)
    if device.type == "cpu":
        raise RuntimeError(t("transfer.needs_gpu"))
    src = bench.fresh_random(numel, seed=0)
    src = src.pin_memory() if pinned else src  # page-locked host memory (needs the GPU's driver)
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


def launch_vs_sync(device: str | torch.device, size: int = 2048, repeats: int = 5) -> dict:
    """Seconds until a matmul call returns (launch) vs until its result is ready (sync).

    On a GPU the call returns almost at once; the work finishes later. On a CPU the call
    itself does the work, so the two times are about equal. Medians over `repeats`, with the noise
    information of the window ('noise')."""
    from fastrain_lib.measure import noise

    device = hardware.check_device(device)
    a = bench.fresh_random(size, size, device=device)
    launch, total = [], []
    wanted = torch.get_num_threads()
    threads = noise.free_threads(wanted) if device.type == "cpu" else wanted  # CPU work: the threads that fit the free cores
    with bench.torch_threads(threads), noise.Window() as window:
        for _ in range(repeats + 1):  # the first round is a warm-up
            hardware.synchronize(device)
            start = time.perf_counter()
            a @ a
            returned = time.perf_counter()
            hardware.synchronize(device)
            done = time.perf_counter()
            launch.append(returned - start)
            total.append(done - start)
    launch, total = sorted(launch[1:]), sorted(total[1:])
    spread, count = noise.from_times(total)
    return {"device": str(device), "size": size, "launch_s": launch[len(launch) // 2],
            "total_s": total[len(total) // 2],
            "noise": window.assess(threads=threads, spread=spread, repeats=count, threads_wanted=wanted)}


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

    records = []
    for every_step, loop in ((True, train_item_every_step), (False, train_item_once)):  # the lesson's two loops
        name = "item_every_step" if every_step else "item_once"
        record = bench.measure(lambda loop=loop: loop(model, optimizer, criterion, batches), name, params={
            "device": str(device), "steps": steps, "batch_size": batch_size, "item_every_step": every_step},
            **kwargs)
        record.metrics["ms_per_step"] = record.median_s / steps * 1e3
        records.append(record)
    return records


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
        PIN_STEPS[2]: lambda: pinned_copy(src, device),  # the lesson's cell
        PIN_STEPS[3]: lambda: pinned.to(device, non_blocking=True),
    }
    records = []
    for name, fn in work.items():  # Timer synchronises the GPU, so non_blocking copies count in full
        record = bench.measure(fn, name, params={**params, "device": str(device)}, **kwargs)
        record.metrics["gbs"] = record.per_second(nbytes) / 1e9
        record.metrics["ms"] = record.median_s * 1e3
        records.append(record)
    return records



# ---------------------------------------------------------------- reading a non_blocking device->host copy too early


def early_read(device: str | torch.device, numel: int = 1 << 22, busy: int = 8) -> dict:
    """A GPU copies a result to the CPU with non_blocking=True; the CPU reads it at once.

    The GPU is first given `busy` large matmuls, so the copy waits in the queue behind them.
    read_back (the lesson's cell) copies it with .to("cpu", non_blocking=True), which returns before the
    copy has happened: read at once, the host tensor holds whatever its memory held (often zeros);
    read after torch.cuda.synchronize, it is right.
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
    early, late = read_back(result, device)  # the lesson's cell: read before, then after synchronizing
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
        ax.set_yticks([0, 1], [plots.label("core.compute"), plots.label("transfer.lane_copy")])
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

    def compute(x):
        return (x[: matmul_n * matmul_n].view(matmul_n, matmul_n) @ weight).sum()

    records = []
    for name, loop in (("copy+compute serial", copy_then_compute), ("copy+compute overlapped", prefetch_on_side_stream)):
        record = bench.measure(lambda loop=loop: loop(hosts, device, compute), name, params={"device": str(device), "batches": batches, "numel": numel,
                                                 "matmul_n": matmul_n}, **kwargs)
        record.metrics["ms"] = record.median_s * 1e3
        records.append(record)
    return records
