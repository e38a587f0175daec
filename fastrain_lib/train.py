"""The training loop every lesson reuses, with its switches.

    from fastrain_lib import train, models
    batches = train.TensorBatches(images, labels, batch_size=64, seed=0)
    history = train.train(models.SimpleNN(), batches, steps=100, device="cpu", precision="fp16")
    history.losses, history.scales, history.skipped, history.samples_per_s()

One step, in the order mixed precision needs (torch.amp recipe), is the one lesson 03 writes in
its cell and `make sync` saves to fastrain_lib/precision/step.py: amp_backward (autocast forward +
loss, scaled backward) once per micro-batch, then amp_update (unscale_ + clip, step, update,
zero_grad) once per optimizer step. This loop adds only what lies around a step: accumulation,
timing windows, checkpoints. For fp32, tf32 and bf16 the scaler is disabled and each of its calls
passes straight through.

Timing: CUDA and MPS run asynchronously, so the clock is read only after waiting for the device
(hardware.synchronize). Waiting costs time too, so `time_window` steps are timed together
between two waits and each gets the window's mean; losses and the loss scale are read
(`.item()`, a wait of its own) only after the clock stops. Inside the window every precision
mode waits the same way: once per step for the inf/nan check (GradScaler's inside
`scaler.step`, ours otherwise). The first step is timed alone (warm-up, compiling).

Checkpoints (fastrain_lib.checkpoint, written in lesson 07's cells: save_training, resume_training)
save model, optimizer, scaler, RNG states, position in the data and the history every
`checkpoint_every` steps; `resume=True` continues from the newest good one so that the loss curve is the same as if nothing had happened. That needs a
data order that can be replayed: each epoch's shuffle is derived from seed + epoch
(TensorBatches.set_epoch, and torch.manual_seed(seed + epoch) for DataLoaders that shuffle
with the global generator), and the batches already done in the current epoch are skipped.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from dataclasses import asdict, dataclass, field

import torch
from torch.nn import functional as F

from fastrain_lib import checkpoint
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import bench, hardware
from fastrain_lib.precision import amp as prec
from fastrain_lib.precision.step import amp_backward, amp_update
from fastrain_lib.ui.progress import progress as _progress


@dataclass
class History:
    """What one training run measured, one entry per optimizer step."""

    losses: list[float] = field(default_factory=list)
    step_times_s: list[float] = field(default_factory=list)
    scales: list[float] = field(default_factory=list)  # GradScaler's scale after the step (1.0 without one)
    skipped: list[bool] = field(default_factory=list)  # the optimizer step was skipped (inf/nan gradient)
    samples: int = 0  # samples seen
    peak_memory_bytes: int | None = None  # torch.cuda.max_memory_allocated on CUDA, else None
    compile_s: float | None = None  # first step's time when compile=True (compiling happens there)
    device: str = "cpu"
    precision: str = "fp32"
    resumed_from: int | None = None  # the checkpoint step this run continued from

    @property
    def steps(self) -> int:
        return len(self.losses)

    def median_step_s(self) -> float:
        """Median time of one optimizer step, leaving out the first (warm-up / compile)."""
        times = self.step_times_s[1:] or self.step_times_s
        return statistics.median(times) if times else math.nan

    def samples_per_s(self) -> float:
        """Throughput at the median step time."""
        if not self.losses:
            return math.nan
        return (self.samples / len(self.losses)) / self.median_step_s()

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> History:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_record(self, name: str, params: dict | None = None) -> bench.Record:
        """A bench.Record (median step time, its IQR, throughput, final loss) for saving/plotting."""
        times = self.step_times_s[1:] or self.step_times_s
        q = statistics.quantiles(times, n=4) if len(times) >= 2 else [0.0, 0.0, 0.0]
        record = bench.Record(name=name, median_s=self.median_step_s(), iqr_s=q[2] - q[0], times_s=list(times),
                              params={"device": self.device, "precision": self.precision, **(params or {})},
                              meta=bench.meta())
        record.metrics.update(samples_per_s=self.samples_per_s(), final_loss=self.losses[-1] if self.losses else None,
                              skipped_steps=sum(self.skipped), peak_memory_bytes=self.peak_memory_bytes,
                              compile_s=self.compile_s)
        return record


class TensorBatches:
    """Mini-batches from in-memory tensors, reshuffled each epoch from seed + epoch.

    Re-iterable (each `for` gives one epoch), cheap on a CPU (no DataLoader workers), and
    replayable: set_epoch(e) gives the same order every time, which resuming needs."""

    def __init__(self, inputs: torch.Tensor, targets: torch.Tensor, batch_size: int, *, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = True):
        if len(inputs) != len(targets):
            raise ValueError(t("train.length_mismatch", inputs=len(inputs), targets=len(targets)))
        if batch_size < 1:
            raise ValueError(t("train.bad_batch_size", batch_size=batch_size))
        self.inputs, self.targets = inputs, targets
        self.batch_size, self.shuffle, self.seed, self.drop_last = batch_size, shuffle, seed, drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        n = len(self.inputs)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def __iter__(self):
        n = len(self.inputs)
        if self.shuffle:
            order = torch.randperm(n, generator=torch.Generator().manual_seed(self.seed + self.epoch))
        else:
            order = torch.arange(n)
        for i in range(len(self)):
            index = order[i * self.batch_size:(i + 1) * self.batch_size]
            yield self.inputs[index], self.targets[index]


def default_loss(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy for a classifier ([B, C] vs [B]) and for LM logits ([B, T, V] vs [B, T])."""
    return F.cross_entropy(outputs.flatten(0, -2), targets.flatten())


def make_optimizer(model: torch.nn.Module, optimizer=None, lr: float = 1e-3) -> torch.optim.Optimizer:
    """None -> AdamW(lr); a callable -> optimizer(params); an Optimizer instance is used as is."""
    if optimizer is None:
        return torch.optim.AdamW(model.parameters(), lr=lr)
    if isinstance(optimizer, torch.optim.Optimizer):
        return optimizer
    if callable(optimizer):
        return optimizer(model.parameters())
    raise TypeError(t("train.bad_optimizer", kind=type(optimizer).__name__))


_clock = time.perf_counter  # one name, so a test can see when the clock is read


def _move(batch, device: torch.device):
    inputs, targets = batch
    return inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True)


def train(model: torch.nn.Module, batches, *, steps: int | None = None, epochs: int = 1, device="cpu",
          precision: str = "fp32", optimizer=None, lr: float = 1e-3, clip_grad: float | None = None,
          compile: bool = False, loss_fn=None, grad_accum: int = 1, seed: int = 0, progress: bool = True,
          checkpoint_dir=None, checkpoint_every: int | None = None, resume: bool = False, on_step=None,
          scaler_options: dict | None = None, skip_nonfinite: bool = True, time_window: int = 4) -> History:
    """Train `model` on `batches` (a re-iterable of (inputs, targets)) and return a History.

    steps: optimizer steps to run (epochs are repeated as needed); None -> `epochs` epochs.
    precision: 'fp32' | 'tf32' | 'fp16' (autocast + GradScaler) | 'bf16' (autocast).
    optimizer: None -> AdamW(lr); a factory params -> Optimizer; or an Optimizer.
    clip_grad: max gradient norm (the gradients are unscaled first).
    grad_accum: micro-batches per optimizer step (the loss is divided by it).
    checkpoint_dir / checkpoint_every / resume: see fastrain_lib.checkpoint.
    on_step(step, history): called for each optimizer step (step counts from 1) once its numbers
        are known, i.e. at the end of its timing window; a window always ends at a checkpoint step
        and at every multiple of time_window, so use time_window=1 to see the model after each step.
    time_window: steps timed together between two device synchronisations (see the module notes).
    scaler_options: extra GradScaler arguments (e.g. growth_interval) for fp16.
    skip_nonfinite: without a scaler, skip a step whose gradients hold inf/nan (as GradScaler does).
    """
    device = hardware.check_device(device)
    prec.check_precision(device, precision)
    if grad_accum < 1:
        raise ValueError(t("train.bad_grad_accum", grad_accum=grad_accum))
    if steps is None and epochs < 1 or steps is not None and steps < 1:
        raise ValueError(t("train.bad_steps", steps=steps, epochs=epochs))
    if resume and checkpoint_dir is None:
        raise ValueError(t("train.resume_needs_dir"))
    if time_window < 1:
        raise ValueError(t("train.bad_time_window", time_window=time_window))
    loss_fn = loss_fn or default_loss
    model.to(device)
    model.train()
    opt = make_optimizer(model, optimizer, lr)
    scaler = prec.make_scaler(device, precision, **(scaler_options or {}))
    dtype = prec.AUTOCAST_DTYPES.get(precision)  # None: fp32/tf32, autocast off
    history = History(device=str(device), precision=precision)
    step, epoch, done_in_epoch = 0, 0, 0
    position = (0, 0)  # (epoch, batches of it done) after the last optimizer step

    # model, optimizer and scaler from the newest good checkpoint (lesson 07's cell: checkpoint.resume_training)
    saved = checkpoint.resume_training(checkpoint_dir, model, opt, scaler) if resume else None
    if saved is not None:
        history = History.from_dict(saved["history"])
        step, epoch, done_in_epoch = saved["step"], saved["epoch"], saved["batch_in_epoch"]
        position = (epoch, done_in_epoch)
        history.resumed_from = step

    if steps is None:
        total = epochs * len(batches) // grad_accum if hasattr(batches, "__len__") else None
    else:
        total = steps
    step_fn = torch.compile(model) if compile else model
    hardware.reset_peak_memory(device)
    bar = _progress(total=total, key="train.progress", precision=precision) if progress else None
    if bar is not None:
        bar.update(step)

    def finished() -> bool:
        return step >= total if total is not None else False

    pending = []  # steps of the open timing window: numbers still on the device
    timed_before = history.steps  # the first step timed in this call is timed alone

    def window_ends() -> bool:
        if history.steps + len(pending) == timed_before + 1 or finished():
            return True
        return step % time_window == 0 or bool(checkpoint_every and step % checkpoint_every == 0)

    def close_window() -> None:
        """Stop the clock, then read what the window's steps left on the device."""
        hardware.synchronize(device)
        elapsed = (_clock() - start) / len(pending)
        first = history.steps
        for item in pending:
            history.losses.append(torch.stack(item["losses"]).mean().item())
            history.step_times_s.append(elapsed)
            if scaler.is_enabled():
                before, after = float(item["scale_before"]), float(item["scale_after"])
                item["skip"] = after < before  # GradScaler halves its scale exactly when it skipped
            else:
                after = 1.0
            history.scales.append(after)
            history.skipped.append(bool(item["skip"]))
            history.samples += item["samples"]
        if compile and history.compile_s is None:
            history.compile_s = elapsed
        pending.clear()
        for done in range(first + 1, history.steps + 1):
            if bar is not None:
                bar.update(1)
            if on_step is not None:
                on_step(done, history)
        if checkpoint_dir is not None and checkpoint_every and step % checkpoint_every == 0:
            checkpoint.save_training(checkpoint_dir, step, model, opt, scaler, epoch=position[0], batch_in_epoch=position[1],
                                     history=history.to_dict())

    # fp32 is the strict baseline (TF32 off), tf32 switches it on; both restored after the run
    tf32_setting = prec.tf32(precision == "tf32") if precision in ("fp32", "tf32") else contextlib.nullcontext()
    with tf32_setting:
        while not finished() and (steps is not None or epoch < epochs):
            # The epoch's data order depends only on seed + epoch, so a resumed run replays it.
            torch.manual_seed(seed + epoch)
            for source in (batches, getattr(batches, "sampler", None)):  # TensorBatches, DistributedSampler
                if hasattr(source, "set_epoch"):
                    source.set_epoch(epoch)
            micro, losses_in_step, samples_in_step = 0, [], 0
            seen, skip_first, steps_before = 0, done_in_epoch, step
            for batch in batches:
                seen += 1
                if seen <= done_in_epoch:
                    continue  # done before the checkpoint we resumed from
                if saved is not None:  # first new batch after resuming: continue the saved RNG streams
                    checkpoint.set_rng_state(saved["rng"])
                    saved = None
                if micro == 0 and not pending:
                    hardware.synchronize(device)
                    start = _clock()
                inputs, targets = _move(batch, device)
                # forward + loss under autocast, backward of loss / grad_accum x scale (precision/step.py)
                loss = amp_backward(step_fn, scaler, inputs, targets, loss_fn, dtype=dtype, accumulate=grad_accum)
                losses_in_step.append(loss.float())
                samples_in_step += len(inputs)
                micro += 1
                if micro < grad_accum:
                    continue

                # the scale stays a device tensor here; it is read after the clock stops
                scale_before = _scale_tensor(scaler)
                # (unscale_ + clip) -> step -> update -> zero_grad; without a scaler an inf/nan
                # gradient is skipped here as GradScaler would (precision/step.py)
                skip = not amp_update(model, opt, scaler, max_norm=clip_grad, skip_nonfinite=skip_nonfinite)
                step += 1
                pending.append({"losses": losses_in_step, "samples": samples_in_step, "skip": skip,
                                "scale_before": scale_before, "scale_after": _scale_tensor(scaler)})
                micro, losses_in_step, samples_in_step = 0, [], 0
                position = (epoch, seen)
                if window_ends():
                    close_window()
                if finished():
                    break
            if pending:  # the epoch ended inside a window
                close_window()
            if micro:  # an unfinished accumulation at the epoch's end is dropped
                opt.zero_grad(set_to_none=True)
            if seen == 0:  # without this, steps=N over an empty iterable would loop forever
                raise ValueError(t("train.no_batches"))
            if seen > skip_first and step == steps_before:
                raise ValueError(t("train.accum_too_large", grad_accum=grad_accum, batches=seen))
            # a new epoch starts from torch.manual_seed(seed + epoch) in both the original and
            # the resumed run, so a saved RNG state not used by now is no longer needed
            saved = None
            epoch += 1
            done_in_epoch = 0

    if bar is not None:
        bar.close()
    history.peak_memory_bytes = hardware.peak_memory(device)
    if checkpoint_dir is not None and step > 0 and not (checkpoint_every and step % checkpoint_every == 0):
        # the end of the run is worth a checkpoint too
        checkpoint.save_training(checkpoint_dir, step, model, opt, scaler, epoch=position[0], batch_in_epoch=position[1],
                                     history=history.to_dict())
    return history


def _scale_tensor(scaler):
    """GradScaler's current scale as a device tensor copy (get_scale() would wait for the device)."""
    if not scaler.is_enabled():
        return None
    scale = scaler._get_scale_async()  # the scale tensor itself; None before the first scale()
    return scale.detach().clone() if scale is not None else scaler.get_scale()

