"""Checks for lesson 02's exercises (.to(device), the training loop, throughput, a slow loop diagnosed from a profile).

A CPU-only machine has no second real device, so the checks move data to the 'meta'
device: a real PyTorch device (tensors there have a shape and dtype but no data), and
mixing it with CPU tensors raises the same device-mismatch error as cpu vs cuda.
"""

from __future__ import annotations

import copy
import math
import statistics
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from fastrain_lib.core import config, errors
from fastrain_lib.measure import noise
from fastrain_lib.lessons.l02_to_device import transfer
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.checking import (
    CheckResult,
    as_number,
    call_student,
    check,
    describe,
    failed,
    not_done,
    passed,
    snapshot,
    unchanged,
)

TARGET = torch.device("meta")


# ---------------------------------------------------------------- task 1: to_device(batch, device)

def example_batch() -> dict:
    """A nested batch like the ones real data loaders return: tensors inside dicts, tuples, lists,
    next to values that are not tensors (names, counts) which must come back unchanged."""
    return {
        "images": torch.rand(2, 1, 4, 4),
        "labels": torch.tensor([3, 7]),
        "extra": (torch.ones(2), ["৩", "৭"], [torch.zeros(1), 5, {"mask": torch.ones(2, dtype=torch.bool)}]),
        "name": "batch-0",
    }


def _compare(got, original, device: torch.device, depth: int) -> str | None:
    """The first mistake found walking `got` beside `original`, as a code; None if correct."""
    if isinstance(original, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            return "not_tensor"
        if got.device != device:
            return "not_moved" if depth == 0 else "nested_not_moved"
        if got.shape != original.shape or got.dtype != original.dtype:
            return "tensor_changed"
        if device.type != "meta" and not torch.equal(got.detach().cpu(), original.cpu()):
            return "tensor_changed"
        return None
    if isinstance(original, dict):
        if not isinstance(got, dict):
            return "container_type"
        if list(got.keys()) != list(original.keys()):
            return "dict_keys"
        for key in original:
            code = _compare(got[key], original[key], device, depth + 1)
            if code == "not_moved" or code == "nested_not_moved":
                return "dict_values"
            if code:
                return code
        return None
    if isinstance(original, (list, tuple)):
        if type(got) is not type(original):
            return "container_type"
        if len(got) != len(original):
            return "length"
        for g, o in zip(got, original):
            code = _compare(g, o, device, depth + 1)
            if code:
                return code
        return None
    try:
        same = got is original or (type(got) is type(original) and bool(got == original))
    except Exception:  # noqa: BLE001 - an object whose == fails is not the original
        same = False
    return None if same else "non_tensor_changed"


def _devices(value) -> list[torch.device]:
    if isinstance(value, torch.Tensor):
        return [value.device]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [d for v in value for d in _devices(v)]
    return []


def _batches() -> list:
    """Batches of every shape the task names: nested containers, several dtypes, non-tensors
    (Bengali text, numbers) that must come back unchanged."""
    g = torch.Generator().manual_seed(2)
    return [
        example_batch(),
        (torch.rand(3, 5, generator=g, dtype=torch.float64), torch.tensor([1, 2, 0])),
        [torch.rand(2, generator=g).half(), "টেক্সট ১২", 3, None, 2.5],
        {"ids": [torch.arange(7), (torch.zeros(2, 3, dtype=torch.bfloat16),)], "n": 7, "তথ্য": "কাং"},
    ]


# (the device the student gets, the device tensors must end on): a torch.device and a plain string,
# and the CPU itself (a hard-coded other device fails there)
TO_DEVICE_TARGETS = [(TARGET, TARGET), ("meta", TARGET), (torch.device("cpu"), torch.device("cpu"))]


@check
def check_to_device(to_device) -> CheckResult:
    """to_device(batch, device) must move every tensor in nested dicts/tuples/lists to `device`
    (given as torch.device or as a string), keep each container's type, keep non-tensors,
    and leave the input batch exactly as it was."""
    for device, target in TO_DEVICE_TARGETS:
        single = torch.ones(3)
        got, problem = call_student(to_device, single, device)
        if problem is not None:
            return problem
        if not isinstance(got, torch.Tensor) or got.device != target:
            return failed("not_moved", "lesson02.check.not_moved")
        for batch in _batches():
            before = snapshot(batch)
            got, problem = call_student(to_device, batch, device)
            if problem is not None:
                return problem
            if not unchanged(batch, before):
                return failed("mutated_input", "lesson02.check.mutated_input")
            code = _compare(got, before, target, 0)
            if code:
                return failed(code, f"lesson02.check.{code}")
    return passed()


# ---------------------------------------------------------------- task 2: fix the training loop

class _SpyModel(nn.Module):
    """A tiny classifier that notes the device of its inputs and of its own weights."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(16, 3)
        self.seen: list[tuple[torch.device, torch.device]] = []

    def forward(self, x):
        self.seen.append((x.device, self.fc.weight.device))
        return self.fc(x.reshape(x.shape[0], -1))


class _SpyLoss(nn.Module):
    """CrossEntropyLoss that notes the devices of the outputs and the targets it gets."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[torch.device, torch.device]] = []

    def forward(self, outputs, targets):
        self.seen.append((outputs.device, targets.device))
        return nn.functional.cross_entropy(outputs, targets)


class _SpyOptimizer:
    """Wraps an optimizer and counts zero_grad() and step() calls."""

    def __init__(self, optimizer):
        self.optimizer, self.zero_grads, self.steps = optimizer, 0, 0

    def zero_grad(self, *args, **kwargs):
        self.zero_grads += 1
        return self.optimizer.zero_grad(*args, **kwargs)

    def step(self, *args, **kwargs):
        self.steps += 1
        return self.optimizer.step(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.optimizer, name)


def _tiny_loader(sizes=(4, 4, 3), seed: int = 1):
    """Batches for the spy model; the last one shorter (datasets rarely divide evenly)."""
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(n, 1, 4, 4, generator=g), torch.randint(0, 3, (n,), generator=g)) for n in sizes]


class _SmoothedLoss(_SpyLoss):
    """The spy loss with label smoothing: an answer that ignores `criterion` trains differently."""

    def forward(self, outputs, targets):
        self.seen.append((outputs.device, targets.device))
        return nn.functional.cross_entropy(outputs, targets, label_smoothing=0.2)


# (batch sizes, loss, optimizer, device as given): non-default hyperparameters in the second
EPOCH_CONFIGS = [
    ((4, 4, 3), _SpyLoss, lambda ps: torch.optim.SGD(ps, lr=0.1), torch.device("cpu")),
    ((5, 5, 5, 2), _SmoothedLoss, lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01), "cpu"),
]


def reference_train_epoch(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def _no_zero_grad(model, loader, optimizer, criterion, device):
    for inputs, targets in loader:
        criterion(model(inputs), targets).backward()
        optimizer.step()


def _plain_loss(model, loader, optimizer, criterion, device):
    reference_train_epoch(model, loader, optimizer, lambda out, y: nn.functional.cross_entropy(out, y), device)


def _meta_run(train_epoch) -> CheckResult | None:
    """On the 'meta' device: spies note where the weights, inputs and targets are when used."""
    model, criterion = _SpyModel(), _SpyLoss()
    optimizer = _SpyOptimizer(torch.optim.SGD(model.parameters(), lr=0.1))
    try:
        train_epoch(model, _tiny_loader(), optimizer, criterion, TARGET)
        error = None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a device bug raises here; the spies say which tensor stayed
        error = exc
    if any(weights != TARGET for _, weights in model.seen):
        return failed("model_not_moved", "lesson02.check.model_not_moved")
    if any(inputs != TARGET for inputs, _ in model.seen):
        return failed("inputs_not_moved", "lesson02.check.inputs_not_moved")
    if any(targets != TARGET for _, targets in criterion.seen):
        return failed("targets_not_moved", "lesson02.check.targets_not_moved")
    if error is not None and errors.classify(error) == "device":
        return failed("device_mismatch", "lesson02.check.device_mismatch")
    # Other errors on 'meta' (e.g. loss.item(): meta tensors hold no numbers) are not the
    # student's fault; the CPU runs below show any real error.
    return None


def _explain_weights(model, start, loader, make_opt, criterion_cls, optimizer) -> CheckResult:
    """The weights differ from the reference: name the mistake whose weights they are."""
    if not model.seen:
        return failed("no_forward", "lesson02.check.no_forward")
    if all(torch.equal(a, b) for a, b in zip(start.parameters(), model.parameters())):
        return failed("no_backward", "lesson02.check.no_backward")
    if optimizer.steps != len(loader):
        return failed("no_step", "lesson02.check.no_step", batches=len(loader), steps=optimizer.steps)
    for variant, code, key in ((_no_zero_grad, "no_zero_grad", "checks.l02.no_zero_grad"),
                               (_plain_loss, "criterion_ignored", "checks.l02.criterion_ignored")):
        twin = copy.deepcopy(start)
        variant(twin, loader, make_opt(twin.parameters()), criterion_cls(), "cpu")
        if all(torch.allclose(a, b, atol=1e-6) for a, b in zip(twin.parameters(), model.parameters())):
            return failed(code, key)
    return failed("wrong_weights", "checks.l02.wrong_weights")


def _judge_losses(losses, ref_losses) -> CheckResult | None:
    if not isinstance(losses, (list, tuple)) or len(losses) != len(ref_losses):
        return failed("wrong_losses", "lesson02.check.wrong_losses", batches=len(ref_losses))
    for i, (got, want) in enumerate(zip(losses, ref_losses)):
        value = as_number(got)
        if value is None or abs(value - want.item()) > 1e-5 * max(1.0, abs(want.item())):
            return failed("wrong_loss_values", "checks.l02.wrong_loss_values", step=i + 1, got=describe(got),
                          want=f"{want.item():.4f}")
    return None


@check
def check_train_epoch(train_epoch) -> CheckResult:
    """train_epoch(model, loader, optimizer, criterion, device) -> list of per-step losses.

    First on the 'meta' device (where are the weights, inputs and targets?). Then on the
    CPU, twice (batches that do not divide evenly; SGD with momentum and weight decay; a
    loss with label smoothing): the weights afterwards, every returned loss, and the
    loader's data must match a reference loop. How zero_grad is done (optimizer or model,
    set_to_none or not) does not matter; only the effect does."""
    if train_epoch is None:
        return not_done()
    if not callable(train_epoch):
        return failed("not_callable", "checks.not_callable", kind=type(train_epoch).__name__)
    problem = _meta_run(train_epoch)
    if problem is not None:
        return problem
    for sizes, criterion_cls, make_opt, device in EPOCH_CONFIGS:
        loader = _tiny_loader(sizes, seed=len(sizes))
        saved = snapshot(loader)
        model = _SpyModel()
        start, twin = copy.deepcopy(model), copy.deepcopy(model)
        optimizer = _SpyOptimizer(make_opt(model.parameters()))
        losses, problem = call_student(train_epoch, model, loader, optimizer, criterion_cls(), device)
        if problem is not None:
            return problem
        if not unchanged(loader, saved):
            return failed("mutated_input", "checks.l02.loader_changed")
        ref_losses = reference_train_epoch(twin, saved, make_opt(twin.parameters()), criterion_cls(), "cpu")
        if not all(torch.allclose(a, b, atol=1e-6) for a, b in zip(twin.parameters(), model.parameters())):
            return _explain_weights(model, start, saved, make_opt, criterion_cls, optimizer)
        problem = _judge_losses(losses, ref_losses)
        if problem is not None:
            return problem
    return passed()


# ---------------------------------------------------------------- task 3: throughput and batch size

@check
def check_throughput(throughput) -> CheckResult:
    """throughput(batch_size, steps, seconds) -> samples per second."""
    cases = [(48, 7, 3.3), (64, 10, 2.0), (256, 5, 0.5), (1, 100, 4.0), (13, 3, 0.7)]
    for batch_size, steps, seconds in cases:
        got, problem = call_student(throughput, batch_size, steps, seconds)
        if problem is not None:
            return problem
        value = as_number(got)
        if value is None:
            return failed("not_number", "lesson02.check.not_number")
        expected = batch_size * steps / seconds
        if abs(value - expected) <= 1e-6 * expected:
            continue
        if abs(value - steps / seconds) <= 1e-6 * (steps / seconds) and batch_size != 1:
            return failed("forgot_batch", "lesson02.check.forgot_batch")
        if abs(value - seconds / (batch_size * steps)) <= 1e-6 * (seconds / (batch_size * steps)):
            return failed("inverted", "lesson02.check.inverted")
        if value in (batch_size * steps // seconds, round(expected), int(expected)):
            return failed("integer_division", "checks.l01.integer_division")
        return failed("wrong_value", "lesson02.check.wrong_value", batch_size=batch_size, steps=steps,
                      seconds=seconds, expected=expected, got=value)
    return passed()


BATCH_ANSWERS = ("a", "b", "c", "d")
BATCH_CORRECT = "b"


@check
def check_batch_answer(answer) -> CheckResult:
    """The multiple-choice question: why do samples/s grow with the batch size, then level off?"""
    if answer is None or (isinstance(answer, str) and answer.strip() == ""):
        return not_done()
    if not isinstance(answer, str):
        return failed("not_a_choice", "lesson02.check.not_a_choice", choices=", ".join(BATCH_ANSWERS))
    choice = answer.strip().lower().strip("()")
    if choice not in BATCH_ANSWERS:
        return failed("not_a_choice", "lesson02.check.not_a_choice", choices=", ".join(BATCH_ANSWERS))
    if choice != BATCH_CORRECT:
        return failed(f"wrong_{choice}", f"lesson02.check.answer_{choice}")
    return passed("lesson02.check.answer_right")


# ---------------------------------------------------------------- task 4: diagnose a slow training loop from a profile
#
# The given loop (slow_train_steps) has three problems a profile shows:
#   1. every sample is decoded in the training process (num_workers=0): 'fastrain::load_sample'
#      rows in the profile, and a large share of the time inside DataLoader next();
#   2. loss.item() every step: one aten::_local_scalar_dense per step (on a GPU: a synchronization);
#   3. accuracy counted in a Python loop over the batch: a few tiny ops per SAMPLE.
# A fixed loop must give the same numbers (same weights, same mean loss and accuracy), lose
# all three from the profile, and run measurably faster. Timing on a busy machine can say
# nothing either way: then the check says so (a ⚠️, not a ❌) and asks for a rerun.

DIAG_BATCH = 32
DIAG_HIDDEN = 1024  # model width: a step that takes about as long as making its batch (measured here)
DIAG_ROUNDS = 2  # blur passes per sample in transfer.Decoded
SPEEDUP_MIN = 1.25  # the fixed loop must be at least this many times faster (median of paired rounds)


class Unsure(CheckResult):
    """Neither ✅ nor ❌: the machine was too busy for the timing to decide. Falsy (not passed)."""

    def _repr_html_(self) -> str:
        return f'<div style="color:#8a6d00;font-size:1.1em">⚠️ {self.message}</div>'

    def __str__(self) -> str:
        return "⚠️ " + self.message


def diagnose_steps() -> int:
    """Steps the timing runs: enough that starting DataLoader workers does not decide it."""
    return config.by_mode(ci=16, lab=32, full=64)


def diagnose_dataset(steps: int | None = None, batch_size: int = DIAG_BATCH, rounds: int = DIAG_ROUNDS):
    """Digit-sized random images, decoded (transfer.Decoded: per-sample CPU work) on every read."""
    n = 2 * (steps or diagnose_steps()) * batch_size  # twice what a loop uses: a shuffle picks other samples
    g = torch.Generator().manual_seed(7)
    base = TensorDataset(torch.rand(n, 1, 28, 28, generator=g), torch.randint(0, 10, (n,), generator=g))
    return transfer.Decoded(base, rounds=rounds)


class TimedSGD(torch.optim.SGD):
    """SGD that notes the clock at every step(): steps/s of a loop, whoever wrote the loop."""

    def __init__(self, params, **kwargs):
        super().__init__(params, **kwargs)
        self.stamps: list[float] = []

    def step(self, closure=None):
        result = super().step(closure)
        self.stamps.append(time.perf_counter())
        return result


def steady_steps_per_s(stamps: list[float], skip: int = 4) -> float:
    """Steps per second between the `skip`-th step and the last: DataLoader workers starting
    and their first prefetched batches are left out; the steady speed remains."""
    skip = min(skip, max(0, len(stamps) - 2))
    if len(stamps) < 2 or stamps[-1] <= stamps[skip]:
        return float("nan")
    return (len(stamps) - 1 - skip) / (stamps[-1] - stamps[skip])


def diagnose_model():
    """A fresh model and optimizer, the same every time (so two loops can be compared)."""
    from fastrain_lib.models import SimpleNN

    torch.manual_seed(0)
    model = SimpleNN(hidden=DIAG_HIDDEN)
    return model, TimedSGD(model.parameters(), lr=0.05, momentum=0.9)


def slow_train_steps(model, optimizer, dataset, batch_size, steps):
    """The slow loop of the exercise (correct, but slow): its mean loss and accuracy."""
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=0)
    criterion = nn.CrossEntropyLoss()
    total_loss, correct, seen = 0.0, 0, 0
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        for guess, label in zip(outputs.argmax(dim=1), labels):
            correct += int(guess == label)
        seen += labels.shape[0]
    return {"mean_loss": total_loss / steps, "accuracy": correct / seen}


def fast_train_steps(model, optimizer, dataset, batch_size, steps):
    """The reference fix: workers load the samples, the loss stays a tensor, accuracy is one op."""
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=2)
    criterion = nn.CrossEntropyLoss()
    total_loss = torch.zeros(())
    correct = torch.zeros((), dtype=torch.long)
    seen = 0
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach()
        correct += (outputs.argmax(dim=1) == labels).sum()
        seen += labels.shape[0]
    return {"mean_loss": total_loss.item() / steps, "accuracy": correct.item() / seen}


def _run(fn, steps: int):
    """(result, problem, model) of one call of fn on a fresh model and the exercise's data."""
    model, optimizer = diagnose_model()
    result, problem = call_student(fn, model, optimizer, diagnose_dataset(steps), DIAG_BATCH, steps)
    return result, problem, model


def _judge_result(result, model, steps: int) -> CheckResult | None:
    ref_model, ref_opt = diagnose_model()
    want = slow_train_steps(ref_model, ref_opt, diagnose_dataset(steps), DIAG_BATCH, steps)
    if not isinstance(result, dict) or not {"mean_loss", "accuracy"} <= set(result):
        return failed("wrong_result", "lesson02.check.diag.wrong_result", got=describe(result))
    if not all(torch.allclose(a, b, rtol=1e-5, atol=1e-7) for a, b in zip(model.parameters(), ref_model.parameters())):
        return failed("wrong_weights", "lesson02.check.diag.wrong_weights", steps=steps)
    loss, accuracy = as_number(result["mean_loss"]), as_number(result["accuracy"])
    if loss is None or abs(loss - want["mean_loss"]) > 1e-4 * max(1.0, abs(want["mean_loss"])):
        return failed("wrong_loss", "lesson02.check.diag.wrong_loss", got=describe(result["mean_loss"]),
                      want=f"{want['mean_loss']:.4f}")
    if accuracy is None or abs(accuracy - want["accuracy"]) > 1e-6:
        return failed("wrong_accuracy", "lesson02.check.diag.wrong_accuracy", got=describe(result["accuracy"]),
                      want=f"{want['accuracy']:.4f}")
    return None


_OPS_PER_STEP: dict[int, float] = {}


def _reference_ops_per_step(steps: int) -> float:
    """Top-level aten ops per step of the reference fix (measured once per session: torch versions differ)."""
    if steps not in _OPS_PER_STEP:
        model, optimizer = diagnose_model()
        _, prof = transfer.profile_loop(fast_train_steps, model, optimizer, diagnose_dataset(steps),
                                         DIAG_BATCH, steps)
        _OPS_PER_STEP[steps] = prof.ops / steps
    return _OPS_PER_STEP[steps]


def _judge_profile(fn, steps: int) -> CheckResult | None:
    model, optimizer = diagnose_model()
    dataset = diagnose_dataset(steps)
    try:
        _, prof = transfer.profile_loop(fn, model, optimizer, dataset, DIAG_BATCH, steps)
    except Exception as exc:  # noqa: BLE001 - it ran once already; a second failure is still the answer's
        return not_done(exc)
    if prof.ops / steps > _reference_ops_per_step(steps) + DIAG_BATCH / 2:
        return failed("python_loop", "lesson02.check.diag.python_loop", ops=prof.ops / steps,
                      ref=_reference_ops_per_step(steps), batch=DIAG_BATCH)
    if prof.item_calls >= steps:  # one per step or more (a DataLoader reads one seed, the end two totals)
        return failed("item_every_step", "lesson02.check.diag.item_every_step", items=prof.item_calls, steps=steps)
    if prof.samples_here > 0:
        return failed("data_in_main", "lesson02.check.diag.data_in_main", samples=prof.samples_here,
                      share=prof.data_share)
    return None


def _speedup(fn, steps: int, rounds: int = 3) -> tuple[float, dict, list[float]]:
    """Median over paired rounds of (fn's steady steps/s ÷ the slow loop's), with the noise
    information of the whole window (fastrain_lib.measure.noise)."""
    ratios = []
    with noise.Window() as window:
        for _ in range(rounds):
            rates = []
            for loop in (slow_train_steps, fn):
                model, optimizer = diagnose_model()
                loop(model, optimizer, diagnose_dataset(steps), DIAG_BATCH, steps)
                rates.append(steady_steps_per_s(optimizer.stamps))
            ratios.append(rates[1] / rates[0] if rates[0] > 0 else float("nan"))
    ratios = [r for r in ratios if math.isfinite(r)] or [0.0]  # drop NaN (a round too short to time)
    spread, repeats = noise.from_times(ratios)
    # the slow loop needs one core, the fixed one two (training + a worker): two cores must be free
    info = window.assess(threads=min(noise.cores(), 2), spread=spread, repeats=repeats)  # training + a worker
    return statistics.median(ratios), info, ratios


@check
def check_fast_loop(fast_loop, *, steps: int | None = None) -> CheckResult:
    """See _check_fast_loop. Runs with one CPU thread for the training process (restored after):
    with as many OpenMP threads as cores, the DataLoader workers or any other program make the
    thread team wait (lesson 01, "why timings lie"), and both loops' timings would mostly measure that."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _check_fast_loop(fast_loop, steps=steps)
    finally:
        torch.set_num_threads(before)


def _check_fast_loop(fast_loop, *, steps: int | None = None) -> CheckResult:
    """fast_loop(model, optimizer, dataset, batch_size, steps) -> {'mean_loss', 'accuracy'}:
    the same numbers as slow_train_steps, none of its three problems in the profile, and
    at least SPEEDUP_MIN times its speed (or, on a busy machine, an honest 'cannot tell')."""
    steps = steps or diagnose_steps()
    if fast_loop is None:
        return not_done()
    if not callable(fast_loop):
        return failed("not_callable", "checks.not_callable", kind=type(fast_loop).__name__)
    few = 4
    result, problem, model = _run(fast_loop, few)
    if problem is not None:
        return problem
    problem = _judge_result(result, model, few)  # (a failed CheckResult is falsy: no `or` here)
    if problem is None:
        problem = _judge_profile(fast_loop, steps)
    if problem is not None:
        return problem
    speedup, info, ratios = _speedup(fast_loop, steps)
    if speedup >= SPEEDUP_MIN:
        return passed("lesson02.check.diag.correct", speedup=speedup)
    if noise.is_noisy(info):
        return Unsure(False, t("lesson02.check.diag.noisy", speedup=speedup, need=SPEEDUP_MIN)
                      + " " + noise.sentence(info), "noisy")
    return failed("not_faster", "lesson02.check.diag.not_faster", speedup=speedup, need=SPEEDUP_MIN,
                  rounds=", ".join(f"{r:.2f}" for r in ratios))
