"""Checks for lesson 02's exercises (.to(device), the training loop, throughput).

A CPU-only machine has no second real device, so the checks move data to the 'meta'
device: a real PyTorch device (tensors there have a shape and dtype but no data), and
mixing it with CPU tensors raises the same device-mismatch error as cpu vs cuda.
"""

from __future__ import annotations

import torch
from torch import nn

from .. import errors
from . import CheckResult, call_student, failed, not_done, passed

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
    return None if (got is original or got == original) else "non_tensor_changed"


def _devices(value) -> list[torch.device]:
    if isinstance(value, torch.Tensor):
        return [value.device]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [d for v in value for d in _devices(v)]
    return []


def check_to_device(to_device) -> CheckResult:
    """to_device(batch, device) must move every tensor in nested dicts/tuples/lists to `device`,
    keep each container's type, keep non-tensors, and leave the input batch as it was."""
    single, problem = call_student(to_device, torch.ones(3), TARGET)
    if problem is not None:
        return problem
    if not isinstance(single, torch.Tensor) or single.device != TARGET:
        return failed("not_moved", "lesson02.check.not_moved")
    for batch in (example_batch(), (torch.rand(2, 3), torch.tensor([1, 2])), [torch.rand(2), "text", 3]):
        before = _devices(batch)
        got, problem = call_student(to_device, batch, TARGET)
        if problem is not None:
            return problem
        if _devices(batch) != before:
            return failed("mutated_input", "lesson02.check.mutated_input")
        code = _compare(got, batch, TARGET, 0)
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


def _tiny_loader(batches: int = 3, batch_size: int = 4):
    g = torch.Generator().manual_seed(1)
    return [(torch.rand(batch_size, 1, 4, 4, generator=g), torch.randint(0, 3, (batch_size,), generator=g))
            for _ in range(batches)]


def check_train_epoch(train_epoch) -> CheckResult:
    """train_epoch(model, loader, optimizer, criterion, device) -> list of per-step losses.

    First on the 'meta' device: spies note where the model's weights, the inputs and the
    targets are when they are used. Then on the CPU: one zero_grad and one step per batch,
    the weights change, one loss per batch."""
    if train_epoch is None:
        return not_done()
    model, criterion = _SpyModel(), _SpyLoss()
    optimizer = _SpyOptimizer(torch.optim.SGD(model.parameters(), lr=0.1))
    try:
        train_epoch(model, _tiny_loader(), optimizer, criterion, TARGET)
        error = None
    except Exception as exc:  # noqa: BLE001 - a device bug raises here; the spies say which tensor stayed
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
    # student's fault; the CPU run below shows any real error.

    loader = _tiny_loader()
    model, criterion = _SpyModel(), _SpyLoss()
    optimizer = _SpyOptimizer(torch.optim.SGD(model.parameters(), lr=0.1))
    before = [p.detach().clone() for p in model.parameters()]
    losses, problem = call_student(train_epoch, model, loader, optimizer, criterion, torch.device("cpu"))
    if problem is not None:
        return problem
    if not model.seen:
        return failed("no_forward", "lesson02.check.no_forward")
    if optimizer.steps != len(loader):
        return failed("no_step", "lesson02.check.no_step", batches=len(loader), steps=optimizer.steps)
    if optimizer.zero_grads < len(loader):
        return failed("no_zero_grad", "lesson02.check.no_zero_grad")
    if all(torch.equal(a, b) for a, b in zip(before, model.parameters())):
        return failed("no_backward", "lesson02.check.no_backward")
    if not isinstance(losses, (list, tuple)) or len(losses) != len(loader):
        return failed("wrong_losses", "lesson02.check.wrong_losses", batches=len(loader))
    return passed()


# ---------------------------------------------------------------- task 3: throughput and batch size

def check_throughput(throughput) -> CheckResult:
    """throughput(batch_size, steps, seconds) -> samples per second."""
    cases = [(64, 10, 2.0), (256, 5, 0.5), (1, 100, 4.0)]
    for batch_size, steps, seconds in cases:
        got, problem = call_student(throughput, batch_size, steps, seconds)
        if problem is not None:
            return problem
        try:
            value = float(got)
        except (TypeError, ValueError):
            return failed("not_number", "lesson02.check.not_number")
        expected = batch_size * steps / seconds
        if abs(value - expected) <= 1e-6 * expected:
            continue
        if abs(value - steps / seconds) <= 1e-6 * (steps / seconds) and batch_size != 1:
            return failed("forgot_batch", "lesson02.check.forgot_batch")
        if abs(value - seconds / (batch_size * steps)) <= 1e-6 * (seconds / (batch_size * steps)):
            return failed("inverted", "lesson02.check.inverted")
        return failed("wrong_value", "lesson02.check.wrong_value", batch_size=batch_size, steps=steps,
                      seconds=seconds, expected=expected, got=value)
    return passed()


BATCH_ANSWERS = ("a", "b", "c", "d")
BATCH_CORRECT = "b"


def check_batch_answer(answer) -> CheckResult:
    """The multiple-choice question: why do samples/s grow with the batch size, then level off?"""
    if answer is None or str(answer).strip() == "":
        return not_done()
    choice = str(answer).strip().lower()
    if choice not in BATCH_ANSWERS:
        return failed("not_a_choice", "lesson02.check.not_a_choice", choices=", ".join(BATCH_ANSWERS))
    if choice != BATCH_CORRECT:
        return failed(f"wrong_{choice}", f"lesson02.check.answer_{choice}")
    return passed("lesson02.check.answer_right")
