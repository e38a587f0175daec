"""Checks for lesson 02's exercises 1-3 (.to(device), the training loop, throughput and batch size); exercise 4 (a slow loop diagnosed from a profile) is checked in diagnose.py.

A CPU-only machine has no second real device, so the checks move data to the 'meta'
device: a real PyTorch device (tensors there have a shape and dtype but no data), and
mixing it with CPU tensors raises the same device-mismatch error as cpu vs cuda.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from fastrain_lib.core import errors
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


# the message of each mistake _compare can name (full keys, so a test can list them)
COMPARE_KEYS = {
    "not_tensor": "lesson02.check.not_tensor",
    "not_moved": "lesson02.check.not_moved",
    "nested_not_moved": "lesson02.check.nested_not_moved",
    "tensor_changed": "lesson02.check.tensor_changed",
    "container_type": "lesson02.check.container_type",
    "dict_keys": "lesson02.check.dict_keys",
    "dict_values": "lesson02.check.dict_values",
    "length": "lesson02.check.length",
    "non_tensor_changed": "lesson02.check.non_tensor_changed",
}

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
                return failed(code, COMPARE_KEYS[code])
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
    for variant, code, key in ((_no_zero_grad, "no_zero_grad", "checking.l02.no_zero_grad"),
                               (_plain_loss, "criterion_ignored", "checking.l02.criterion_ignored")):
        twin = copy.deepcopy(start)
        variant(twin, loader, make_opt(twin.parameters()), criterion_cls(), "cpu")
        if all(torch.allclose(a, b, atol=1e-6) for a, b in zip(twin.parameters(), model.parameters())):
            return failed(code, key)
    return failed("wrong_weights", "checking.l02.wrong_weights")


def _judge_losses(losses, ref_losses) -> CheckResult | None:
    if not isinstance(losses, (list, tuple)) or len(losses) != len(ref_losses):
        return failed("wrong_losses", "lesson02.check.wrong_losses", batches=len(ref_losses))
    for i, (got, want) in enumerate(zip(losses, ref_losses)):
        value = as_number(got)
        if value is None or abs(value - want.item()) > 1e-5 * max(1.0, abs(want.item())):
            return failed("wrong_loss_values", "checking.l02.wrong_loss_values", step=i + 1, got=describe(got),
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
        return failed("not_callable", "checking.not_callable", kind=type(train_epoch).__name__)
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
            return failed("mutated_input", "checking.l02.loader_changed")
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
            return failed("integer_division", "checking.l01.integer_division")
        return failed("wrong_value", "lesson02.check.wrong_value", batch_size=batch_size, steps=steps,
                      seconds=seconds, expected=expected, got=value)
    return passed()


BATCH_ANSWERS = ("a", "b", "c", "d")
BATCH_CORRECT = "b"
# why each wrong choice is wrong
WRONG_ANSWER_KEYS = {"a": "lesson02.check.answer_a", "c": "lesson02.check.answer_c", "d": "lesson02.check.answer_d"}


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
        return failed(f"wrong_{choice}", WRONG_ANSWER_KEYS[choice])
    return passed("lesson02.check.answer_right")


# task 4 (diagnose a slow loop from a profile) is in diagnose.py; its check is one of this lesson's checks
from fastrain_lib.lessons.l02_to_device.diagnose import check_fast_loop  # noqa: E402,F401
