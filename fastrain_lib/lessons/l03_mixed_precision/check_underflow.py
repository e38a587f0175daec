"""Lesson 03's exercise check, task 3: the share of a gradient's nonzero entries that fp16 loses."""

from __future__ import annotations

import math
import random

import torch

from fastrain_lib.lessons.checking import (
    CheckResult,
    call_student,
    check,
    failed,
    passed,
    unchanged,
)
from fastrain_lib.lessons.l03_mixed_precision.observe import number

UNDERFLOW_SEED = 2806


def reference_underflow_share(grad: torch.Tensor) -> float:
    nonzero = grad[grad != 0]
    if nonzero.numel() == 0:
        return 0.0
    return (nonzero.to(torch.float16) == 0).float().mean().item()


def underflow_examples() -> list[torch.Tensor]:
    """Gradient-like float32 tensors (the task gives fp32 gradients, so only fp32 is fed): tiny values
    on both sides of fp16's limits, zeros, negatives only just below the limit (a sign that matters),
    1-D to 3-D, sizes of 1 and no power of two, transposed and sliced views (not contiguous), and
    one with no nonzero entry at all."""
    g = torch.Generator().manual_seed(3)
    magnitudes = 10.0 ** torch.empty(2000).uniform_(-10, -2, generator=g)
    signs = torch.where(torch.rand(2000, generator=g) < 0.5, -1.0, 1.0)
    mixed = magnitudes * signs
    mixed[::7] = 0.0  # zeros are not "lost", they were zero already
    subnormals = torch.tensor([1e-5, 3e-5, 5e-5, -2e-5, 1e-8, 2e-8, 4e-8, 1e-3, 0.0])
    wide = 10.0 ** torch.empty(37, 11).uniform_(-9, -3, generator=g)
    negative = -(10.0 ** torch.empty(9, 5).uniform_(-9, -6, generator=g))  # only negatives, many lost
    return [mixed, subnormals, torch.randn(50, 20, generator=g) * 1e-6, wide.T, wide[::3, 1:],
            negative, torch.tensor([3e-8]), torch.zeros(5)] + generated_examples()


def generated_examples(seed: int = UNDERFLOW_SEED, extra: int = 4) -> list[torch.Tensor]:
    """Drawn by a seeded generator, all float32: shape (0-d to 3-d, sizes 1 and no power of two),
    the range of magnitudes, the share of zeros and of negatives."""
    rng = random.Random(seed)
    out = []
    for _ in range(extra):
        shape = tuple(rng.choice([1, 3, 7, 11, 13]) for _ in range(rng.randint(0, 3)))
        g = torch.Generator().manual_seed(rng.randint(0, 10**6))
        low = rng.uniform(-11, -6)
        values = 10.0 ** torch.empty(shape, dtype=torch.float64).uniform_(low, low + rng.uniform(2, 7), generator=g)
        values = values * torch.where(torch.rand(shape, generator=g) < rng.uniform(0, 1), -1.0, 1.0).double()
        values = values * (torch.rand(shape, generator=g) > rng.uniform(0, 0.4)).double()
        out.append(values.to(torch.float32))
    return out


def _again_elsewhere(grad: torch.Tensor) -> torch.Tensor:
    """The same entries in another context: a fresh tensor, order reversed, one more zero and a
    different shape — the share is the same, so an answer cached by its input (id, shape, first
    values) must compute it again."""
    flat = grad.detach().flatten().flip(0).clone()
    return torch.cat([flat, torch.zeros(1)])


def _forbidden():
    """The lesson's one policy: the course's own answer (precision.formats.underflow_share) and the
    check's reference may not be called while the answer runs, in any thread."""
    from fastrain_lib.lessons.l03_mixed_precision.observe import forbidden
    from fastrain_lib.precision import formats

    return forbidden(functions=[formats.underflow_share, reference_underflow_share])


@check
def check_underflow_share(fn) -> CheckResult:
    """fn(grad) -> share (0..1) of the nonzero entries of grad (float32) that become 0 in fp16.
    The grad itself must come back unchanged."""
    examples = underflow_examples()
    examples.append(_again_elsewhere(examples[0]))
    for grad in examples:
        saved = grad.clone()
        with _forbidden() as seen:
            value, problem = call_student(fn, grad)
        if seen.calls:
            return failed("used_library", "lesson03.check.underflow_used_library", name=seen.calls[0])
        if problem is not None:
            return problem
        if not unchanged(grad, saved):
            return failed("mutated_input", "checking.l03.grad_mutated")
        grad = saved
        got = number(value)
        if got is None:
            return failed("not_a_number", "lesson03.check.not_a_number")
        value = got
        expected = reference_underflow_share(grad)
        if math.isclose(value, expected, abs_tol=1e-6):
            continue
        if value > 1:
            return failed("count_not_share", "lesson03.check.count_not_share")
        nonzero = grad[grad != 0]
        if math.isclose(value, (grad.to(torch.float16) == 0).float().mean().item(), abs_tol=1e-6):
            return failed("counted_zeros", "lesson03.check.counted_zeros")
        tiny = torch.finfo(torch.float16).tiny
        if math.isclose(value, (nonzero.abs() < tiny).float().mean().item(), abs_tol=1e-6):
            return failed("normal_not_subnormal", "lesson03.check.normal_not_subnormal")
        if math.isclose(value, ((nonzero > 0) & (nonzero.to(torch.float16) == 0)).float().mean().item(), abs_tol=1e-6):
            return failed("sign", "lesson03.check.sign")
        return failed("wrong_share", "lesson03.check.wrong_share", expected=expected, got=value)
    return passed("lesson03.check.underflow_ok")
