"""Lesson 02, exercise task 1: to_device(batch, device) moves every tensor of a nested batch.

How the check observes the technique: it hands the answer batches whose tensors must end on the
'meta' device (a CPU-only machine has no second real device; a meta tensor exists only where .to()
put it) and on the CPU, and walks every returned tensor: its device, dtype, shape and (off meta)
values. Batches are the hand-written ones (nested dicts/tuples/lists, Bengali text, None) plus
seeded generated ones (depths, dtypes from bool to bfloat16, 0-d tensors, NumPy scalars and
fractions as values that are not tensors). Every argument is compared before and after
(snapshot, then a walk that reads NumPy scalars by value): an answer that moves its caller's
batch in place fails. Issue 39: batches of one sample, transposed and sliced (non-contiguous)
tensors, and one batch asked again in another context (a fresh clone with other numbers and the
same shapes, to the CPU): an answer that remembers its result by what it was given fails there.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import torch

from fastrain_lib.lessons.checking import CheckResult, call_student, check, failed, passed, seeded_cases, snapshot

TARGET = torch.device("meta")


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
            if original.dim() == 0 and depth > 0:
                return "scalar_not_moved"  # a 0-d tensor is a tensor too
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
            if code in ("not_moved", "nested_not_moved") and isinstance(original[key], torch.Tensor):
                return "dict_values"  # a tensor right inside the dict stayed: the dict's values were not walked
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
        # one sample (batch size 1), and tensors that are views: transposed and sliced (non-contiguous)
        (torch.rand(1, 1, 4, 4, generator=g), torch.tensor([3]), torch.rand(4, 3, generator=g).t(),
         {"every_other": torch.arange(10)[::2], "column": torch.rand(3, 4, generator=g)[:, 1]}),
    ]


# the message of each mistake _compare can name (full keys, so a test can list them)
COMPARE_KEYS = {
    "not_tensor": "lesson02.check.not_tensor",
    "not_moved": "lesson02.check.not_moved",
    "nested_not_moved": "lesson02.check.nested_not_moved",
    "scalar_not_moved": "lesson02.check.scalar_not_moved",
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


_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.uint8, torch.bool)
_VALUES = ("টেক্সট", "batch-7", 7, 2.5, None, np.int64(3), np.float32(0.5), Fraction(1, 3), True)


def _random_tensor(rng: random.Random) -> torch.Tensor:
    shape = rng.choice([(), (rng.randint(1, 5),), (rng.randint(1, 3), rng.randint(1, 4))])  # 0-d tensors too
    dtype = rng.choice(_DTYPES)
    g = torch.Generator().manual_seed(rng.randrange(2**31))
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return torch.rand(shape, generator=g).to(dtype)
    return torch.randint(0, 100, shape, generator=g, dtype=dtype)


def random_batch(rng: random.Random, depth: int = 0):
    """A nested batch: dicts, tuples and lists up to three levels, tensors of every dtype, and
    values that are not tensors (Bengali text, None, NumPy scalars, a Fraction) that must come back as they are."""
    kind = rng.choice(["dict", "tuple", "list", "tensor", "value"] if depth < 3 else ["tensor", "value"])
    if depth == 0:
        kind = rng.choice(["dict", "tuple", "list"])
    if kind == "tensor":
        return _random_tensor(rng)
    if kind == "value":
        return rng.choice(_VALUES)
    items = [random_batch(rng, depth + 1) for _ in range(rng.randint(1, 4))]
    if kind == "dict":
        return {f"{rng.choice(['x', 'y', 'ছবি', 'mask'])}{i}": v for i, v in enumerate(items)}
    return tuple(items) if kind == "tuple" else items


def all_batches() -> list:
    """The hand-written batches, then seeded generated ones (the same on every run)."""
    return seeded_cases(random_batch, n=6, seed=2, fixed=_batches())


def _same(value, before) -> bool:
    """The batch still equals its snapshot: containers, every tensor (device, dtype, shape, numbers),
    every other value (NumPy scalars by value: checking.unchanged reads them as changed)."""
    if isinstance(before, torch.Tensor):
        return (isinstance(value, torch.Tensor) and value.device == before.device and value.dtype == before.dtype
                and value.shape == before.shape and (value.device.type == "meta" or torch.equal(value, before)))
    if isinstance(before, dict):
        return isinstance(value, dict) and list(value) == list(before) and all(_same(value[k], before[k]) for k in before)
    if isinstance(before, (list, tuple)):
        return type(value) is type(before) and len(value) == len(before) and all(map(_same, value, before))
    try:
        return value is before or (type(value) is type(before) and bool(value == before))
    except Exception:  # noqa: BLE001 - an object whose == fails has changed
        return False


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
        for batch in all_batches():
            before = snapshot(batch)
            got, problem = call_student(to_device, batch, device)
            if problem is not None:
                return problem
            if not _same(batch, before):  # the batch was moved or changed in place
                return failed("mutated_input", "lesson02.check.mutated_input")
            code = _compare(got, before, target, 0)
            if code:
                return failed(code, COMPARE_KEYS[code])
    # one batch again in another context: a fresh clone with other numbers (the same shapes), to the CPU
    again = _renumbered(example_batch())
    before = snapshot(again)
    got, problem = call_student(to_device, again, torch.device("cpu"))
    if problem is not None:
        return problem
    code = "mutated_input" if not _same(again, before) else _compare(got, before, torch.device("cpu"), 0)
    if code:
        return failed(code, COMPARE_KEYS.get(code, "lesson02.check.mutated_input"))
    return passed()


def _renumbered(batch):
    """The batch with every tensor's numbers changed (the same shapes, dtypes and containers)."""
    if isinstance(batch, torch.Tensor):
        return (~batch) if batch.dtype == torch.bool else batch + 1
    if isinstance(batch, dict):
        return {k: _renumbered(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_renumbered(v) for v in batch)
    return batch
