"""Checks for lesson 01's exercises (GPU vs CPU).

Each check calls the student's function on the hand-written cases (the usual mistakes give a
different number there) and on cases drawn by a seeded generator (odd sizes, sizes that divide
nothing evenly, machines whose ridge is not a round number, the exact ridge), compares with the
right answer, and when it is wrong recognises the usual mistakes (forgetting the factor 2, n²
instead of n³, bits instead of bytes, ...) so the message can say what to fix.

What each check observes beyond the result:
- check_matmul_gflops / check_matmul_intensity: the formula over generated sizes (an answer fitted
  to the fixed examples fails), any real number type accepted (NumPy, Fraction, 0-d tensor);
- check_bound: generated machines, including an intensity exactly on the ridge (a dyadic ridge, so
  `i >= p / b` and `i * b >= p` agree exactly) and just either side of it;
- check_throughput: the timed step itself, through hooks on the model: every forward pass has
  batch_size samples, the weights change, the step ran several times (bench.measure repeats it),
  the first call, made slow on purpose (40 steps, ≥ 0.3 s), is not in the median (limit: 4 later steps), and
  the times were measured (the median lies among them, not below ¾ of the fastest step, on the real clock).
"""

from __future__ import annotations

import itertools
import math
import numbers
import random
import statistics
import time

import torch

from fastrain_lib.measure import bench
from fastrain_lib.models import SimpleNN
from fastrain_lib.lessons import checking
from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, describe, failed, passed

# The library functions that ARE the answer of a task (issue 39: one policy): an answer that calls one fails
# with "forbidden_call", and the task text says so. Names, resolved when a check runs.
FORBIDDEN = {
    "gflops": ["fastrain_lib.measure.roofline.matmul_flops"],
    "intensity": ["fastrain_lib.measure.roofline.matmul_intensity", "fastrain_lib.measure.roofline.matmul_flops",
                  "fastrain_lib.measure.roofline.matmul_bytes"],
    "bound": ["fastrain_lib.measure.roofline.bound"],
    "throughput": ["fastrain_lib.lessons.l01_gpu_vs_cpu.saved.batch_throughput"],
}


def _close(a: float, b: float, rel: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


def _number(value) -> float | None:
    """One real number, or None (never raises): what as_number accepts, and exact fractions
    (fractions.Fraction; any numbers.Real) too."""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, int, float)) and not hasattr(value, "dtype"):
        try:
            value = float(value)
        except Exception:  # noqa: BLE001 - an odd object: not a number
            return None
    return as_number(value)


SEED = 2026  # the generator's seed: the same cases on every run, none of them in the notebook


def _diagnose(got: float, expected: float, mistakes: dict[str, list[float]]) -> str | None:
    """None when right, else the code of the first known mistake that matches, else 'wrong_value'.

    `mistakes` maps a code to the values that mistake produces (several ways to make it)."""
    if _close(got, expected):
        return None
    for code, wrongs in mistakes.items():
        if any(_close(got, wrong) for wrong in wrongs):
            return code
    return "wrong_value"


# the message of each mistake _diagnose can name (full keys, so a test can list them)
MISTAKE_KEYS = {
    "missing_factor_2": "lesson01.check.missing_factor_2",
    "n_squared": "lesson01.check.n_squared",
    "not_giga": "lesson01.check.not_giga",
    "inverted_rate": "lesson01.check.inverted_rate",
    "bits_not_bytes": "lesson01.check.bits_not_bytes",
    "forgot_output": "lesson01.check.forgot_output",
    "integer_division": "checking.l01.integer_division",
}


def _check_numeric(fn, cases, expected_fn, mistakes_fn, show_case, forbid=()) -> CheckResult:
    # the first case again at the end, after the others (another context): an answer that remembers
    # what it returned, or changes state between calls, gives a different number there
    for case in list(cases) + list(cases[:1]):
        result, problem = call_student(fn, *case, forbid=forbid)
        if problem is not None:  # a CheckResult is falsy when failed: test for None
            return problem
        got = _number(result)
        if got is None:
            return failed("not_number", "lesson01.check.not_number", kind=describe(result))
        expected = expected_fn(*case)
        code = _diagnose(got, expected, mistakes_fn(*case))
        if code == "wrong_value":
            return failed(code, "lesson01.check.wrong_value", case=show_case(*case), expected=expected, got=got)
        if code:
            return failed(code, MISTAKE_KEYS[code])
    return passed()


# ---------------------------------------------------------------- task 1: GFLOP/s of a matmul

# sizes and times that divide nothing evenly (integer division or rounding shows), plus round ones
GFLOPS_CASES = [(123, 0.0037), (100, 0.001), (777, 0.3), (512, 0.02), (1000, 2.0), (4099, 1.3)]


def gflops_cases(seed: int = SEED, count: int = 6) -> list[tuple[int, float]]:
    """Sizes 3..6000 (odd, prime, round) and times that are not round numbers."""
    rng = random.Random(seed)
    return [(rng.choice([rng.randrange(3, 6001), rng.randrange(3, 6001) | 1, 64 * rng.randrange(1, 64)]),
             round(rng.uniform(1e-4, 5.0), rng.randrange(3, 7))) for _ in range(count)]


@check
def check_matmul_gflops(fn) -> CheckResult:
    """fn(n, seconds) -> GFLOP/s of an n x n matmul that took `seconds`: 2n³ / seconds / 1e9."""

    def mistakes(n, s):
        return {
            "missing_factor_2": [n**3 / s / 1e9],
            "n_squared": [2 * n**2 / s / 1e9, n**2 / s / 1e9],
            "not_giga": [2 * n**3 / s, n**3 / s],
            "inverted_rate": [s / (2 * n**3) * 1e9, s / (2 * n**3)],
            "integer_division": [2 * n**3 // s / 1e9, 2 * n**3 / s // 1e9, 2 * n**3 // s // 1e9, round(2 * n**3 / s / 1e9)],
        }

    return _check_numeric(fn, GFLOPS_CASES + gflops_cases(), lambda n, s: 2 * n**3 / s / 1e9, mistakes,
                          lambda n, s: f"n={n}, seconds={s}", forbid=FORBIDDEN["gflops"])


# ---------------------------------------------------------------- task 2: arithmetic intensity

INTENSITY_CASES = [(333, 8), (1000, 2), (1024, 4), (257, 2), (4096, 4), (7, 1)]


def intensity_cases(seed: int = SEED, count: int = 6) -> list[tuple[int, int]]:
    """Sizes 2..9000 and 1, 2, 4 or 8 bytes per element (int8, bf16, fp32, fp64)."""
    rng = random.Random(seed + 1)
    return [(rng.randrange(2, 9001), rng.choice((1, 2, 4, 8))) for _ in range(count)]


@check
def check_matmul_intensity(fn) -> CheckResult:
    """fn(n, bytes_per_element) -> FLOPs per byte of an n x n matmul: 2n³ / (3n²·b) = 2n / 3b."""

    def mistakes(n, b):
        return {
            "bits_not_bytes": [2 * n / (3 * 8 * b)],
            "forgot_output": [2 * n / (2 * b), n / (2 * b)],
            "missing_factor_2": [n / (3 * b)],
            "integer_division": [2 * n**3 // (3 * n**2 * b), 2 * n // (3 * b), round(2 * n / (3 * b))],
        }

    return _check_numeric(fn, INTENSITY_CASES + intensity_cases(), lambda n, b: 2 * n / (3 * b), mistakes,
                          lambda n, b: f"n={n}, bytes_per_element={b}", forbid=FORBIDDEN["intensity"])


# ---------------------------------------------------------------- task 3: compute- or memory-bound

# (intensity FLOP/byte, peak GFLOP/s, bandwidth GB/s) -> answer; none sits on the ridge itself.
BOUND_CASES = [
    ((100.0, 1000.0, 100.0), "compute"),  # ridge 10
    ((1.0, 1000.0, 100.0), "memory"),
    ((1 / 12, 8100.0, 320.0), "memory"),  # c = a + b on a T4 (ridge 25)
    ((170.0, 8100.0, 320.0), "compute"),  # a 1024² fp32 matmul on a T4
    ((50.0, 19500.0, 2039.0), "compute"),  # above the A100's ridge (9.6) but far below its peak
    ((5.0, 60.0, 20.0), "compute"),  # a CPU: ridge 3
    ((2.0, 60.0, 20.0), "memory"),
    ((100.0, 60.0, 20.0), "compute"),  # intensity above the peak number: still just "compute"
    ((0.01, 60.0, 20.0), "memory"),
    ((30.0, 989000.0, 3350.0), "memory"),  # an H100 (ridge ≈ 295): 30 is far below it
    ((400.0, 989000.0, 3350.0), "compute"),
    ((26.0, 8100.0, 320.0), "compute"),  # just above the T4's ridge (25.3): a hard-coded ridge of 30 fails
    ((24.0, 8100.0, 320.0), "memory"),
    ((25.1, 8100.0, 320.0), "memory"),  # between 25 and the ridge 25.3: a rounded ridge fails
]


def bound_cases(seed: int = SEED, count: int = 4) -> list[tuple[tuple[float, float, float], str]]:
    """Generated machines: a dyadic ridge (exact in floating point, so every correct way of
    comparing agrees on it) with an intensity exactly on it ("compute": both limits are equal, and
    the exercise says so), just below it, just above it, and far from it."""
    rng = random.Random(seed + 2)
    cases = []
    for _ in range(count):
        ridge = rng.randrange(3, 4000) / 2 ** rng.randrange(0, 4)
        bandwidth = float(2 ** rng.randrange(3, 13))
        peak = ridge * bandwidth
        cases += [((ridge, peak, bandwidth), "compute"), ((ridge * (1 - 1e-6), peak, bandwidth), "memory"),
                  ((ridge * (1 + 1e-6), peak, bandwidth), "compute"),
                  ((ridge * rng.uniform(0.01, 0.5), peak, bandwidth), "memory")]
    return cases


@check
def check_bound(fn) -> CheckResult:
    """fn(intensity, peak_gflops, bandwidth_gbs) -> "compute" or "memory"; "compute" on the ridge."""
    answers = []
    cases = BOUND_CASES + bound_cases()
    cases = cases + cases[-4:-3]  # a generated machine again, after the others (another context)
    for args, _ in cases:
        result, problem = call_student(fn, *args, forbid=FORBIDDEN["bound"])
        if problem is not None:  # a CheckResult is falsy when failed: test for None
            return problem
        if not isinstance(result, str) or result not in ("compute", "memory"):
            return failed("bad_label", "lesson01.check.bad_label", answer=describe(result))
        answers.append(result)
    expected = [answer for _, answer in cases]
    if answers == expected:
        return passed()
    if len(set(answers)) == 1:
        return failed("constant_bound", "lesson01.check.constant_bound", answer=answers[0])
    off_ridge = [(a, e) for (args, e), a in zip(cases, answers) if args[0] != args[1] / args[2]]
    if all(a != e for a, e in off_ridge):
        return failed("inverted_bound", "lesson01.check.inverted_bound")
    wrong = [(args, e) for (args, e), a in zip(cases, answers) if a != e]
    if all(args[0] == args[1] / args[2] for args, _ in wrong):  # only the exact ridge is wrong: > for >=
        ridge = wrong[0][0]
        return failed("ridge_boundary", "lesson01.check.ridge_boundary", ridge=ridge[0], peak=ridge[1],
                      bandwidth=ridge[2])
    wrong = next(args for args, _ in wrong)
    case = f"intensity={wrong[0]:.3g}, peak_gflops={wrong[1]:g}, bandwidth_gbs={wrong[2]:g}"
    return failed("wrong_ridge", "lesson01.check.wrong_ridge", case=case)


# ---------------------------------------------------------------- task 4: throughput vs batch size

THROUGHPUT_BATCHES = (1, 5, 24)  # 1: the lesson's next cell uses it (a .squeeze() answer breaks there); 5, 24: not 32
# The first forward pass of each case is made this much slower on purpose: a median that
# contains it (no warm-up, or one call timed) is far above the step's own time. The limit is derived
# from this machine now: the typical time between two later forward passes of the same answer (one
# step, under whatever load the machine has), times STEP_FACTOR, and never below STEP_LIMIT_S (a
# SimpleNN step of at most 40 samples takes well under a millisecond on a quiet core). On a machine so
# busy that one step takes longer than the slow call, the check cannot tell and does not refuse.
SLOW_FIRST_S = 0.3
STEP_LIMIT_S = SLOW_FIRST_S / 10
STEP_FACTOR = 4.0
# The slow first call is at least SLOW_STEPS steps long (a step timed by the check itself just before),
# so on a busy machine it still stands out: one step timed, or a mean of a few that holds it, exceeds
# STEP_FACTOR steps. At most SLOW_MAX_S, so a very busy machine does not wait for long.
SLOW_STEPS = 40
SLOW_MAX_S = 3.0


def slow_first_s(batch_size: int, device: str = "cpu") -> float:
    """How long the first forward pass sleeps: max(SLOW_FIRST_S, SLOW_STEPS × one step measured now)."""
    from fastrain_lib.lessons.l01_gpu_vs_cpu.saved import training_step

    torch.manual_seed(1)
    model = SimpleNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    inputs, targets = torch.randn(batch_size, 1, 28, 28, device=device), torch.randint(0, 10, (batch_size,), device=device)
    times = []
    for _ in range(3):
        start = checking.clock()
        training_step(model, optimizer, inputs, targets)
        times.append(checking.clock() - start)
    return min(SLOW_MAX_S, max(SLOW_FIRST_S, SLOW_STEPS * sorted(times)[1]))
MIN_CALLS = 4  # warm-up + several timed repeats: bench.measure makes dozens


def throughput_batches(seed: int = SEED) -> tuple[int, ...]:
    """The fixed two and one drawn from 3..40 (not a power of two)."""
    rng = random.Random(seed + 3)
    drawn = rng.choice([b for b in range(3, 41) if b & (b - 1) and b not in THROUGHPUT_BATCHES])
    return THROUGHPUT_BATCHES + (drawn,)


def _batch_spy(model, slow_first_s: float = 0.0, stamps: list | None = None,
               swapped: list | None = None) -> tuple[list[int], object]:
    """Notes each forward pass's batch size (is batch_size used?), in `stamps` when it began, in `swapped` if it ran
    with time.perf_counter replaced; the first pass sleeps `slow_first_s` (a warm-up a fair timing leaves out)."""
    seen: list[int] = []

    def hook(module, args):
        if stamps is not None:
            stamps.append(checking.clock())  # the check's own clock, bound before any answer ran
        if swapped is not None and time.perf_counter is not checking.clock:
            swapped.append(len(seen))
        if not seen and slow_first_s:
            time.sleep(slow_first_s)
        if args and isinstance(args[0], torch.Tensor) and args[0].dim() > 0:
            seen.append(int(args[0].shape[0]))
        else:
            seen.append(-1)

    return seen, model.register_forward_pre_hook(hook)


def step_limit(stamps: list[float]) -> float:
    """The largest fair median: STEP_FACTOR times the typical gap between two forward passes after
    the slow first one (one step on this machine now), at least STEP_LIMIT_S."""
    gaps = [b - a for a, b in itertools.pairwise(stamps[1:])]
    return max(STEP_LIMIT_S, STEP_FACTOR * statistics.median(gaps)) if gaps else STEP_LIMIT_S


# The reported median may be this share of the shortest step the check timed itself (two forward passes apart,
# on checking.clock), no less: every step lasts about that long; a median halved by hand is less.
OWN_STEP_SHARE = 0.75


def own_step_s(stamps: list[float]) -> float | None:
    """The shortest step the check measured itself: the smallest gap between two forward passes after the
    slow first one, the last pass ending when the answer returned (None with fewer than 3 later passes)."""
    gaps = [b - a for a, b in itertools.pairwise(stamps[1:])]
    return min(gaps) if len(gaps) >= 2 else None


def _judge_record(record, batch_size: int) -> CheckResult | None:
    if not isinstance(record, bench.Record):
        return failed("not_record", "lesson01.check.not_record", kind=describe(record))
    median = _number(record.median_s)
    if median is None or median <= 0:
        return failed("bad_time", "lesson01.check.bad_time", value=describe(record.median_s))
    params = record.params if isinstance(record.params, dict) else {}
    if _number(params.get("batch_size")) != batch_size:
        return failed("wrong_batch", "lesson01.check.wrong_batch", got=describe(params.get("batch_size")),
                      expected=batch_size)
    metrics = record.metrics if isinstance(record.metrics, dict) else {}
    rate = _number(metrics.get("samples_per_s"))
    if rate is None:
        return failed("no_metric", "lesson01.check.no_metric")
    expected = batch_size / median
    if _close(rate, expected, rel=1e-3):
        return None
    if _close(rate, 1 / median, rel=1e-3):
        return failed("steps_not_samples", "lesson01.check.steps_not_samples")
    if _close(rate, median, rel=1e-3) or _close(rate, median / batch_size, rel=1e-3):
        return failed("time_not_rate", "lesson01.check.time_not_rate")
    return failed("wrong_rate", "lesson01.check.wrong_rate", got=rate, expected=expected)


@check
def check_throughput(fn, device: str = "cpu") -> CheckResult:
    """fn(model, batch_size, device) -> the bench.Record of one training step, with
    params['batch_size'] and metrics['samples_per_s'] = batch_size / median_s.

    No speed threshold of the machine: it checks that the measurement is shaped and computed right, that every
    timed forward pass has batch_size samples (1, 5, 24 and a drawn size), that the step trains (the weights
    change), and that it was timed fairly on the real clock, several times, the slow first call left out."""
    batches = throughput_batches()
    # the first batch size again at the end, on a model with other weights: an answer that hands back what
    # it measured for that batch size before (cached by its input) runs no step there and fails
    for case, batch_size in enumerate(batches + batches[:1]):
        torch.manual_seed(case)
        model = SimpleNN().to(device)
        before = [p.detach().clone() for p in model.parameters()]
        stamps, swapped = [], []  # when each forward pass began; those run on a swapped clock
        slow = slow_first_s(batch_size, device)
        seen, handle = _batch_spy(model, slow, stamps, swapped)
        start = checking.clock()
        try:
            record, problem = call_student(fn, model, batch_size, device, forbid=FORBIDDEN["throughput"])
        finally:
            handle.remove()
        wall = checking.clock() - start
        stamps.append(start + wall)  # the last step's end, for own_step_s
        if problem is not None:  # a CheckResult is falsy when failed: test for None
            return problem
        problem = _judge_record(record, batch_size)
        if problem is not None:
            return problem
        wrong = [b for b in seen if b != batch_size]
        if wrong:
            return failed("batch_ignored", "checking.l01.batch_ignored", got=wrong[0], want=batch_size)
        if all(torch.equal(a, b.detach()) for a, b in zip(before, model.parameters())):
            return failed("no_training", "lesson01.check.no_training")
        if len(seen) < MIN_CALLS:
            return failed("timed_once", "lesson01.check.timed_once", calls=len(seen))
        if swapped:
            return failed("time_not_measured", "lesson01.check.clock_swapped")
        problem = _judge_timing(record, stamps, wall, slow)
        if problem is not None:
            return problem
    return passed()


def _judge_timing(record, stamps: list[float], wall: float, slow: float) -> CheckResult | None:
    """Was the median measured, warm-up left out? Not trusting the record: the check timed the steps itself. Both
    tests pass any fair median, mean or minimum; on a busy PC a made-up one slips past one, rarely past both."""
    median = _number(record.median_s)
    if median >= step_limit(stamps) or median > wall:
        return failed("warmup_timed", "lesson01.check.warmup_timed", median_ms=median * 1e3,
                      slow_ms=slow * 1e3, limit_ms=step_limit(stamps) * 1e3)
    own = own_step_s(stamps)
    if own is not None and median < OWN_STEP_SHARE * own:
        return failed("time_not_measured", "lesson01.check.time_not_measured", median_ms=median * 1e3,
                      own_ms=own * 1e3)
    times = [_number(t) for t in record.times_s] if isinstance(record.times_s, (list, tuple)) else [None]  # its own
    if times and None not in times and not min(times) * (1 - 1e-6) <= median <= max(times) * (1 + 1e-6):
        return failed("time_not_measured", "lesson01.check.median_not_from_times", median_ms=median * 1e3,
                      low_ms=min(times) * 1e3, high_ms=max(times) * 1e3)
    return None
