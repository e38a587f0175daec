"""Lesson 02's panel: train SimpleNN on the Bengali digits with a chosen device, batch size,
num_workers and pin_memory -> samples/s and the loss curve.

Every run trains a fresh model on the same number of samples, so runs with different batch
sizes are compared on equal work. The data goes through input_pipeline.Augmented (a random shift
and noise per sample, real CPU work, as decoding and augmenting images is), which is the
work that DataLoader workers can take off the training process.
"""

from __future__ import annotations

import functools
import time

import ipywidgets as widgets
import torch
from torch import nn

from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.lessons.l02_to_device import input_pipeline
from fastrain_lib.lessons.l02_to_device.saved import make_loader, train_epoch  # the lesson's cells
from fastrain_lib.core.i18n import t
from fastrain_lib.models import SimpleNN
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome

BATCH_SIZES = (16, 64, 256)
WORKERS = (0, 1, 2)
HISTORY: list[tuple[str, float, bool]] = []  # (setting, samples/s, noisy) of the runs so far, for the bar chart


@functools.lru_cache(maxsize=1)
def dataset():
    """The Bengali digits training set (built once, then cached on disk by fastrain_lib.data)."""
    from fastrain_lib import data

    return data.bengali_digits(train=True)


def training_run(device: str, batch_size: int, num_workers: int, pin_memory: bool, samples: int | None = None,
                 seed: int = 0) -> dict:
    """Train a fresh SimpleNN on `samples` augmented digit images with the lesson's train_epoch (a saved cell):
    losses, seconds, startup_s (the first step), samples_per_s (the steps after it), 'x' (samples seen)."""
    device = hardware.check_device(device)
    samples = samples or config.by_mode(ci=640, lab=6000)
    torch.manual_seed(seed)
    model = SimpleNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = iter(make_loader(input_pipeline.Augmented(dataset()), batch_size, num_workers, pin_memory, seed=seed))
    criterion, steps = nn.CrossEntropyLoss(), max(1, samples // batch_size)
    hardware.synchronize(device)
    start = time.perf_counter()
    losses = train_epoch(model, batches, device, optimizer, criterion, max_steps=1)  # workers starting, first calls
    hardware.synchronize(device)
    first = time.perf_counter()
    losses += train_epoch(model, batches, device, optimizer, criterion, max_steps=steps - 1)
    hardware.synchronize(device)
    end = time.perf_counter()
    del batches  # the worker processes end here
    later = batch_size * (len(losses) - 1)
    return {"losses": torch.stack(losses).cpu().tolist(), "samples": batch_size * len(losses), "seconds": end - start,
            "startup_s": first - start, "x": [batch_size * (i + 1) for i in range(len(losses))],
            "samples_per_s": later / (end - first) if later and end > first else batch_size / (first - start)}


def speed_experiment(device: str, batch_size: int, num_workers: int, pin_memory: bool) -> Outcome:
    """One training run for the chosen setting: loss curve, and samples/s beside earlier runs."""
    threads, wanted = input_pipeline.fitting_threads()  # the training threads that fit the free cores (lesson 01 §7)
    with bench.torch_threads(threads), noise.Window() as window:  # was the machine quiet while this run trained?
        result = training_run(device, batch_size, num_workers, pin_memory)
    info = window.assess(threads=input_pipeline.cores_needed(num_workers, threads), repeats=len(result["losses"]))
    rate = result["samples_per_s"]
    pin = t("core.yes") if pin_memory else t("core.no")
    setting = f"{device}\nb{batch_size} w{num_workers} p{int(pin_memory)}"
    HISTORY.append((setting, rate, noise.is_noisy(info)))
    del HISTORY[:-6]  # the last six runs fit on one chart

    fig, (left, right) = plots.new_figure(ncols=2)
    left.plot(result["x"], result["losses"], marker=".")
    left.set_xlabel(plots.label("lesson02.samples_seen"))
    left.set_ylabel(plots.label("core.loss"))
    left.set_title(plots.label("lesson02.panel_plot", device=device, batch_size=batch_size,
                               num_workers=num_workers, pin=pin, rate=rate), fontsize=11)
    plots.bars(right, [s for s, _, _ in HISTORY], [r for _, r, _ in HISTORY], ylabel=plots.label("core.samples_per_s"),
               title=plots.label("lesson02.history"), fmt="{:.0f}", noisy=[n for _, _, n in HISTORY])
    right.tick_params(axis="x", labelsize=8)

    record = bench.Record(name="lesson02_train", median_s=result["seconds"],
                          params={"device": device, "batch_size": batch_size, "num_workers": num_workers,
                                  "pin_memory": pin_memory, "samples": result["samples"]},
                          metrics={"samples_per_s": rate, "startup_s": result["startup_s"],
                                   "final_loss": result["losses"][-1]},
                          meta=bench.meta(), noise=info)
    headers = [t("core.device"), t("core.batch_size"), "num_workers", "pin_memory",
               t("core.samples_per_s"), t("transfer.startup_s"), t("core.final_loss"), t("noise.verdict_col")]
    rows = [(device, batch_size, num_workers, pin, rate, result["startup_s"], result["losses"][-1],
             t("noise.noisy_word") if noise.is_noisy(info) else t("noise.quiet_word"))]
    note = t("lesson02.panel_note", startup=result["startup_s"])
    if threads < wanted:  # said on the panel: the run used fewer threads than torch's own
        note += " " + t("core.verdict_fewer_threads", threads=threads, wanted=wanted)
    if noise.is_noisy(info):  # a noisy run: say so and what to do (the «চালাও» button reruns it); no cause
        note += " " + noise.sentence(info)
    if pin_memory and not hardware.cuda_available():
        note += " " + t("transfer.pin_ignored")
    return Outcome(figure=fig, headers=headers, rows=rows, records=[record], note=note)


def make() -> ExperimentPanel:
    return ExperimentPanel(
        t("lesson02.panel_title"),
        {
            "device": widgets.Dropdown(options=hardware.available_devices(), value=hardware.available_devices()[0],
                                       description=t("core.device")),
            "batch_size": widgets.Dropdown(options=list(BATCH_SIZES), value=64, description=t("core.batch_size")),
            "num_workers": widgets.Dropdown(options=list(WORKERS), value=0, description=t("lesson02.num_workers")),
            "pin_memory": widgets.Checkbox(value=False, description=t("lesson02.pin_memory")),
        },
        speed_experiment,
        name="lesson02_training_speed",
    )
