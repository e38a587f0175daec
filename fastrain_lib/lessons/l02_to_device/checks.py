"""Checks for lesson 02's exercises 1-3 (.to(device), the training loop, throughput and batch size); exercise 4 (a slow loop diagnosed from a profile) is checked in diagnose.py.

A CPU-only machine has no second real device, so the checks move data to the 'meta'
device: a real PyTorch device (tensors there have a shape and dtype but no data), and
mixing it with CPU tensors raises the same device-mismatch error as cpu vs cuda.

How each check observes its technique (issue 28):
- check_to_device: where every returned tensor is (check_to_device.py);
- check_train_epoch: spies on the model, the loss and the optimizer note the device of the weights,
  inputs and targets at each use and count zero_grad/step; the weights afterwards are compared with
  a reference loop; every step's loss tensor is watched through a weak reference, so a loop that
  keeps `loss` itself (its graph, grad_fn and all) alive after it returns is seen, not guessed;
- check_throughput: the formula on seeded generated cases (the types the task gives: whole batch sizes and
  steps, seconds as a float, batch size 1 included), every number type an answer may return accepted alike
  (as_number: a float, a NumPy float, a 0-d tensor, a Fraction); each case is asked again in another
  context (twice the batches in twice the time: the same rate), so a table of the cases' answers fails;
- check_batch_answer: a multiple-choice letter, each wrong letter told why it is wrong.

Issue 39: every generated input the task allows (batch size 1, sizes that do not divide, frozen
parameters whose .grad stays None), one input repeated in another context (the same batches in another
order, a fresh clone), and the course's own loop (input_pipeline.train_epoch, saved.train_epoch) is
forbidden in task 2, whose answer it is (the task text says so).
"""

from __future__ import annotations

import copy
import random
import weakref
import torch
from torch import nn

from fastrain_lib.core import errors
from fastrain_lib.lessons.l02_to_device.saved import train_epoch as lesson_train_epoch  # the lesson's loop, the reference
from fastrain_lib.lessons import checking
from fastrain_lib.lessons.checking import (
    CheckResult,
    as_number,
    call_student,
    check,
    describe,
    failed,
    not_done,
    passed,
    seeded_cases,
)

# task 1 (to_device) is in check_to_device.py; its names are re-exported here
from fastrain_lib.lessons.l02_to_device.check_to_device import (  # noqa: E402,F401
    COMPARE_KEYS,
    TARGET,
    _batches,
    _compare,
    _devices,
    all_batches,
    check_to_device,
    example_batch,
    random_batch,
)


# ---------------------------------------------------------------- task 2: fix the training loop

class _SpyModel(nn.Module):
    """A tiny classifier that notes the device of its inputs and of its own weights. frozen=True puts a
    frozen layer in front (requires_grad=False: its .grad stays None, as in fine-tuning)."""

    def __init__(self, frozen: bool = False):
        super().__init__()
        torch.manual_seed(0)
        self.pre = nn.Linear(16, 16) if frozen else None
        self.fc = nn.Linear(16, 3)
        if frozen:
            self.pre.requires_grad_(False)
        self.seen: list[tuple[torch.device, torch.device]] = []

    def forward(self, x):
        self.seen.append((x.device, self.fc.weight.device))
        x = x.reshape(x.shape[0], -1)
        return self.fc(torch.relu(self.pre(x)) if self.pre is not None else x)


class _SpyLoss(nn.Module):
    """CrossEntropyLoss that notes the devices of the outputs and the targets it gets, and keeps a
    weak reference to every loss it returns: a loss still alive after the loop holds its graph."""

    smoothing = 0.0

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[torch.device, torch.device]] = []
        self.returned: list[weakref.ref] = []

    def forward(self, outputs, targets):
        self.seen.append((outputs.device, targets.device))
        loss = nn.functional.cross_entropy(outputs, targets, label_smoothing=self.smoothing)
        self.returned.append(weakref.ref(loss))
        return loss

    def graphs_alive(self) -> int:
        """Losses (each with its grad_fn graph) that something still holds."""
        return sum(ref() is not None and ref().grad_fn is not None for ref in self.returned)


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

    smoothing = 0.2


def _sgd(lr: float, momentum: float = 0.0, weight_decay: float = 0.0):
    return lambda ps: torch.optim.SGD(ps, lr=lr, momentum=momentum, weight_decay=weight_decay)


def _random_config(rng: random.Random):
    """Batch sizes (the last one often shorter), loss and SGD settings, a frozen layer or not, drawn by a
    seeded generator."""
    full, n = rng.randint(1, 6), rng.randint(1, 4)
    sizes = (full,) * n + ((rng.randint(1, full),) if rng.random() < 0.7 else ())
    loss = rng.choice([_SpyLoss, _SmoothedLoss])
    make_opt = _sgd(rng.choice([0.01, 0.05, 0.1, 0.3]), rng.choice([0.0, 0.5, 0.9]), rng.choice([0.0, 0.01]))
    return sizes, loss, make_opt, rng.choice([torch.device("cpu"), "cpu"]), rng.random() < 0.3, False


# (batch sizes, loss, optimizer, device as given, frozen layer, batches in reverse order): non-default
# hyperparameters in the second; batch size 1 (every batch, and a last one of 1) with a frozen layer; the
# first configuration again with its batches in reverse order (one input in another context: an answer that
# remembers its result by what it was given fails there); then generated ones
EPOCH_CONFIGS = seeded_cases(_random_config, n=3, seed=5, fixed=[
    ((4, 4, 3), _SpyLoss, _sgd(0.1), torch.device("cpu"), False, False),
    ((5, 5, 5, 2), _SmoothedLoss, _sgd(0.05, 0.9, 0.01), "cpu", False, False),
    ((1, 1, 1), _SpyLoss, _sgd(0.1, 0.9), "cpu", True, False),
    ((3, 3, 1), _SmoothedLoss, _sgd(0.05, 0.5, 0.01), torch.device("cpu"), True, False),
    ((4, 4, 3), _SpyLoss, _sgd(0.1), torch.device("cpu"), False, True),
])
# the course's own loop is the answer of task 2: calling it is not writing the loop (the task text says so)
FORBIDDEN_EPOCH = (lesson_train_epoch,)


def _no_zero_grad(model, loader, optimizer, criterion, device):
    for inputs, targets in loader:
        criterion(model(inputs), targets).backward()
        optimizer.step()


def _plain_loss(model, loader, optimizer, criterion, device):
    lesson_train_epoch(model.to(device), loader, device, optimizer, lambda out, y: nn.functional.cross_entropy(out, y))


def _meta_run(train_epoch) -> CheckResult | None:
    """On the 'meta' device: spies note where the weights, inputs and targets are when used."""
    model, criterion = _SpyModel(), _SpyLoss()
    optimizer = _SpyOptimizer(torch.optim.SGD(model.parameters(), lr=0.1))
    try:
        with checking.forbid(*FORBIDDEN_EPOCH) as watch:
            train_epoch(model, _tiny_loader(), optimizer, criterion, TARGET)
        error = None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a device bug raises here; the spies say which tensor stayed
        error = exc
        watch = None
    if watch is not None and watch.calls:
        return watch.failure()
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
    if isinstance(losses, torch.Tensor) and losses.dim() == 1:  # torch.stack(losses): one loss per step too
        losses = list(losses)
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
    for sizes, criterion_cls, make_opt, device, frozen, reverse in EPOCH_CONFIGS:
        loader = _tiny_loader(sizes, seed=len(sizes) + sum(sizes))
        if reverse:
            loader = loader[::-1]
        saved = copy.deepcopy(loader)
        model = _SpyModel(frozen)
        start, twin = copy.deepcopy(model), copy.deepcopy(model)
        optimizer = _SpyOptimizer(make_opt(model.parameters()))
        criterion = criterion_cls()
        # the loader (argument 1) must come back as it was; the model and optimizer are meant to change
        losses, problem = call_student(train_epoch, model, loader, optimizer, criterion, device, guard_inputs=(1,),
                                       forbid=FORBIDDEN_EPOCH)
        if problem is not None:
            if problem.code == "mutated_input":
                return failed("mutated_input", "checking.l02.loader_changed")
            return problem
        ref_losses = lesson_train_epoch(twin, saved, "cpu", make_opt(twin.parameters()), criterion_cls())  # the lesson's loop
        if not all(torch.allclose(a, b, atol=1e-6) for a, b in zip(twin.parameters(), model.parameters())):
            return _explain_weights(model, start, saved, make_opt, criterion_cls, optimizer)
        alive = criterion.graphs_alive()  # observed: losses with their graph still held after the loop
        if alive or _holds_graph(losses):
            return failed("graph_kept", "lesson02.check.graph_kept", alive=max(alive, 1), steps=len(sizes))
        problem = _judge_losses(losses, ref_losses)
        if problem is not None:
            return problem
    return passed()


def _holds_graph(value) -> bool:
    """A returned value that still carries autograd history (grad_fn / requires_grad)."""
    if isinstance(value, torch.Tensor):
        return value.requires_grad or value.grad_fn is not None
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_graph(v) for v in value)
    return False


# ---------------------------------------------------------------- task 3: throughput and batch size

def _random_throughput_case(rng: random.Random):
    """A seeded case of the types the task gives (issue 39: never a type it excludes): a whole batch size
    (1 included) and step count, seconds as a float that is not round (a measured time)."""
    batch_size, steps = rng.choice([1, 2, 3, 7, 16, 48, 100, 333, 1024, 4096]), rng.randint(1, 500)
    seconds = round(rng.uniform(0.05, 40.0), rng.randint(1, 4))
    return batch_size, steps, float(seconds)


THROUGHPUT_CASES = seeded_cases(_random_throughput_case, n=10, seed=3,
                                fixed=[(48, 7, 3.3), (64, 10, 2.0), (256, 5, 0.5), (1, 100, 4.0), (13, 3, 0.7)])
# each case again in another context: twice the steps in twice the time is the same rate (a table of answers fails)
THROUGHPUT_CASES = THROUGHPUT_CASES + [(b, 2 * s, 2 * t) for b, s, t in THROUGHPUT_CASES[:3]]


@check
def check_throughput(throughput) -> CheckResult:
    """throughput(batch_size, steps, seconds) -> samples per second, for whole batch sizes and steps and
    seconds as a float (what the task gives); the answer may be a float, a NumPy float, a 0-d tensor or a
    Fraction: any valid number."""
    for batch_size, steps, seconds in THROUGHPUT_CASES:
        got, problem = call_student(throughput, batch_size, steps, seconds)  # numbers: nothing to write into
        if problem is not None:
            return problem
        value = as_number(got)
        if value is None:
            return failed("not_number", "lesson02.check.not_number")
        batch_size, steps, seconds = int(batch_size), int(steps), float(seconds)
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
    choice = answer.strip().lower().strip("().: ")
    if choice not in BATCH_ANSWERS:
        return failed("not_a_choice", "lesson02.check.not_a_choice", choices=", ".join(BATCH_ANSWERS))
    if choice != BATCH_CORRECT:
        return failed(f"wrong_{choice}", WRONG_ANSWER_KEYS[choice])
    return passed("lesson02.check.answer_right")


# task 4 (diagnose a slow loop from a profile) is in diagnose.py; its check is one of this lesson's checks
from fastrain_lib.lessons.l02_to_device.diagnose import check_fast_loop  # noqa: E402,F401
