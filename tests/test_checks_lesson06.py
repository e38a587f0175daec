"""Lesson 06 checks: valid answers pass, wrong ones a student could write fail with the code
naming their mistake (one row per answer; see tests/checkcases.py)."""

import math

import numpy as np
import torch
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.async_sgd import simulator as async_sgd
from fastrain_lib.lessons.l06_sync_vs_async_sgd import checks as C


def update_in_place(th, old, b, g, lr):
    th -= lr * g(old, b)  # changes the server's tensor it was handed
    return th


def update_sub(th, old, b, g, lr):
    """Valid: torch.sub with alpha."""
    return torch.sub(th, g(old, b), alpha=lr)


def reference_epoch_times(step_times, n):
    workers = len(step_times)
    return math.ceil(n / workers) * max(step_times), n / sum(1 / t for t in step_times)


def epoch_times_loop(step_times, n):
    """Valid: counts sync rounds with a loop; async via the summed rate; returns a list."""
    rounds, done = 0, 0
    while done < n:
        done += len(step_times)
        rounds += 1
    rate = sum(1.0 / t for t in step_times)
    return [rounds * max(step_times), n / rate]


def epoch_no_ceil(ts, n):
    return n / len(ts) * max(ts), n / sum(1 / t for t in ts)


def epoch_floor(ts, n):
    return n // len(ts) * max(ts), n / sum(1 / t for t in ts)


def epoch_sorts(ts, n):
    ts.sort()  # changes the caller's list
    return reference_epoch_times(ts, n)


def mean_sync(ts, n):
    return n / len(ts) * sum(ts) / len(ts), n / sum(1 / t for t in ts)


def waits(ts, n):
    s = math.ceil(n / len(ts)) * max(ts)
    return s, s


def mean_async(ts, n):
    return math.ceil(n / len(ts)) * max(ts), n * (sum(ts) / len(ts)) / len(ts)


def no_workers(ts, n):
    return n * max(ts), n / sum(1 / t for t in ts)


def may_start_sorts(c, cs, s):
    cs.sort()  # changes the caller's list
    return c - cs[0] <= s


def update_numpy(th, old, b, g, lr):
    """Valid: the new parameters as a NumPy float64 array."""
    return th.double().numpy() - lr * g(old, b).double().numpy()


def update_no_gradient(th, old, b, g, lr):
    """Wrong: moves by the drift between the copies, never asks for a gradient."""
    return th - lr * (th - old)


def update_fitted(th, old, b, g, lr):
    """Fitted to the hand-written configurations (lr 0.1 and 0.037, batches of 32 and 23)."""
    if len(b[0]) in (32, 23):
        return th - lr * g(old, b)
    return th - lr * g(th, b)


def may_start_fitted(c, cs, s):
    """Fitted to the hand-written cases: a lookup of their answers, 'may start' otherwise."""
    for clock, clocks, bound, ok in C.CASES:
        if (clock, list(clocks), bound) == (c, list(cs), s):
            return ok
    return True


def epoch_last_worker(ts, n):
    """Wrong: the last worker's time instead of the slowest one's (the fixed cases list the slowest first)."""
    return math.ceil(n / len(ts)) * ts[-1], n / sum(1 / t for t in ts)


def epoch_fitted(ts, n):
    """Fitted to the hand-written cases."""
    if n in (31, 44, 13, 30):
        return reference_epoch_times(ts, n)
    return n / len(ts) * max(ts), n / sum(1 / t for t in ts)


CASES = [
    right(C.check_async_update, update_numpy, "numpy array"),
    right(C.check_async_update, lambda th, old, b, g, lr: (th.double() - lr * g(old, b).double()), "float64 tensor"),
    wrong(C.check_async_update, update_no_gradient, "no_gradient", "never calls grad_fn"),
    wrong(C.check_async_update, update_fitted, "no_staleness", "fitted to the fixed batch sizes"),
    right(C.check_may_start, lambda c, cs, s: torch.tensor(c - min(cs) <= s), "0-d bool tensor"),
    wrong(C.check_may_start, may_start_fitted, "wrong", "fitted to the fixed cases"),
    wrong(C.check_epoch_times, epoch_last_worker, "sync_last_not_slowest", "last worker's time"),
    wrong(C.check_epoch_times, epoch_fitted, "no_ceil", "fitted to the fixed cases"),
    wrong(C.check_async_update, async_sgd.async_update, "forbidden_call", "the library's rule"),
    right(C.check_async_update, lambda th, old, b, g, lr: th - lr * g(old, b), "solution"),
    right(C.check_async_update, update_sub, "torch.sub alpha"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: th - lr * g(th, b), "no_staleness", "fresh gradient"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: old - lr * g(old, b), "overwrites", "from old copy"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: th + lr * g(old, b), "wrong_sign", "plus"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: th - g(old, b), "no_lr", "no lr"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: th - 0.1 * g(old, b), "fixed_lr", "lr 0.1 hard-coded"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: th - 0.5 * lr * g(old, b), "wrong", "half lr"),
    wrong(C.check_async_update, update_in_place, "mutated_input", "theta -= in place"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: (th - lr * g(old, b)).tolist(), "wrong_shape", "list"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: None, "not_done", "stub"),
    wrong(C.check_async_update, lambda th, old, b, g, lr: th - lr * g(b), "crashed", "wrong call"),
    wrong(C.check_may_start, async_sgd.may_start, "forbidden_call", "the library's rule"),
    right(C.check_may_start, lambda c, cs, s: c <= min(cs) + s, "c <= min + s"),
    right(C.check_may_start, lambda c, cs, s: np.bool_(c - np.min(cs) <= s), "numpy bool"),
    wrong(C.check_may_start, lambda c, cs, s: c - min(cs) < s, "off_by_one", "strict <"),
    wrong(C.check_may_start, lambda c, cs, s: max(cs) - min(cs) <= s, "spread", "spread"),
    wrong(C.check_may_start, lambda c, cs, s: True, "no_bound", "always"),
    wrong(C.check_may_start, lambda c, cs, s: c - max(cs) < s, "wrong", "max"),
    wrong(C.check_may_start, lambda c, cs, s: c - cs[0] <= s, "first_not_min", "clocks[0]"),
    wrong(C.check_may_start, may_start_sorts, "mutated_input", "sorts clocks"),
    wrong(C.check_may_start, lambda c, cs, s: "yes", "not_bool", "text"),
    wrong(C.check_may_start, lambda c, cs, s: np.array([True, False]), "not_bool", "array"),
    right(C.check_epoch_times, reference_epoch_times, "formula"),
    right(C.check_epoch_times, epoch_times_loop, "loop + list"),
    wrong(C.check_epoch_times, mean_sync, "sync_mean", "sync by mean"),
    wrong(C.check_epoch_times, waits, "async_waits", "async waits"),
    wrong(C.check_epoch_times, mean_async, "async_mean", "async by mean"),
    wrong(C.check_epoch_times, no_workers, "sync_no_workers", "no workers"),
    wrong(C.check_epoch_times, epoch_no_ceil, "no_ceil", "no ceil"),
    wrong(C.check_epoch_times, epoch_floor, "no_ceil", "floor"),
    wrong(C.check_epoch_times, epoch_sorts, "mutated_input", "sorts step_times"),
    wrong(C.check_epoch_times, lambda ts, n: 3.0, "wrong_type", "one number"),
    wrong(C.check_epoch_times, lambda ts, n: None, "not_done", "stub"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_async_update, C.check_may_start, C.check_epoch_times])


def test_simulated_epoch_times_are_exact_here():
    assert C.simulated_epoch_times((1.0, 1.0, 2.0, 4.0), 44) == (44.0, 16.0)
    assert C.simulated_epoch_times((3.0, 0.5, 1.0), 31)[0] == 33.0  # ceil(31 / 3) rounds of 3.0


def test_some_case_does_not_divide_evenly():
    assert any(n % len(ts) for ts, n in C.EPOCH_CASES)


# ---- check 4: local SGD communication (issue 17) ---------------------------------------------

def comm_ceil(steps, h):
    rounds = math.ceil(steps / h)
    return rounds, 1 - rounds / steps


def comm_negative_floor(steps, h):
    """Valid: -(-a // b) is ceil for integers; saved from the kept share; numpy floats."""
    rounds = -(-steps // h)
    return np.int64(rounds), np.float64((steps - rounds) / steps)


def comm_loop(steps, h):
    """Valid: counts like the worker does, returns a list."""
    count = sum(1 for s in range(steps) if (s + 1) % h == 0 or s + 1 == steps)
    return [count, 1.0 - count / steps]


def comm_fraction(steps, h):
    """Valid: exact fractions (the rounds a Fraction with denominator 1)."""
    from fractions import Fraction

    rounds = Fraction(-(-steps // h))
    return rounds, 1 - rounds / steps


def comm_fitted(steps, h):
    """Fitted to the hand-written cases: their answers looked up, steps // h otherwise + 1."""
    if (steps, h) in C.COMM_CASES:
        return comm_ceil(steps, h)
    return steps // h + 1, 1 - (steps // h + 1) / steps


COMM = [
    right(C.check_local_sgd_comm, comm_ceil, "ceil"),
    right(C.check_local_sgd_comm, comm_negative_floor, "negative floor division"),
    right(C.check_local_sgd_comm, comm_loop, "loop like the worker"),
    wrong(C.check_local_sgd_comm, lambda s, h: (s // h, 1 - (s // h) / s), "floor", "floor: misses the last average"),
    wrong(C.check_local_sgd_comm, lambda s, h: (s / h, 1 - 1 / h), "not_int", "a fraction of an all-reduce"),
    wrong(C.check_local_sgd_comm, lambda s, h: (s * h, 0.0), "times", "steps times H"),
    wrong(C.check_local_sgd_comm, lambda s, h: (math.ceil(s / h), math.ceil(s / h) / s), "saved_inverted",
          "share kept instead of saved"),
    wrong(C.check_local_sgd_comm, lambda s, h: (math.ceil(s / h), 1 - 1 / h), "saved_1_over_h", "1 - 1/H"),
    wrong(C.check_local_sgd_comm, lambda s, h: (math.ceil(s / h) + 1, 0.5), "rounds_wrong", "one too many"),
    wrong(C.check_local_sgd_comm, lambda s, h: math.ceil(s / h), "wrong_type", "only the rounds"),
    wrong(C.check_local_sgd_comm, lambda s, h: None, "not_done", "the stub"),
    wrong(C.check_local_sgd_comm, lambda s, h: (float(math.ceil(s / h)), 1 - math.ceil(s / h) / s), "rounds_not_whole",
          "8.0: a float where a whole number is asked"),
    wrong(C.check_local_sgd_comm, lambda s, h: (np.ceil(s / h), 1 - np.ceil(s / h) / s), "rounds_not_whole",
          "np.ceil gives a float"),
    right(C.check_local_sgd_comm, comm_fraction, "Fraction saved, Fraction(8, 1) rounds"),
    right(C.check_local_sgd_comm, lambda s, h: (torch.tensor(-(-s // h)), torch.tensor(1 - (-(-s // h)) / s)),
          "0-d tensors"),
    wrong(C.check_local_sgd_comm, comm_fitted, "rounds_wrong", "fitted to the fixed cases"),
]

test_comm_case = table_test(COMM)
test_comm_coverage = coverage_test(COMM, [C.check_local_sgd_comm])


def test_comm_rule_is_what_the_real_workers_counted():
    # the check's reference is the rule the real processes use; tests/test_local_sgd.py counts
    # the all-reduces in real gloo processes and finds the same numbers
    from fastrain_lib.async_sgd import local_sgd
    for steps, h in C.COMM_CASES:
        assert C.counted_rounds(steps, h) == local_sgd.rounds(steps, h) == math.ceil(steps / h)


def test_comm_check_never_raises_on_hostile_answers():
    class Boom:
        def __iter__(self):
            raise ValueError("boom")

        def __len__(self):
            raise ValueError("boom")

    def exits(*a):
        raise SystemExit(3)

    for answer in (lambda s, h: Boom(), lambda s, h: ("a", "b"), lambda s, h: (float("nan"), 0.5), exits,
                   lambda s, h: 1 / 0, "not a function", lambda s, h: torch.tensor([8.0, 0.7333333])):
        result = C.check_local_sgd_comm(answer)
        assert not result and result.message.strip()


# ---- issue 28: generated cases ---------------------------------------------------------------

def test_generated_cases_are_seeded_and_reach_what_the_fixed_ones_do_not():
    ssp = C.ssp_cases()
    assert ssp == C.ssp_cases() and len(ssp) > len(C.CASES)
    drawn = ssp[len(C.CASES):]
    assert sum(c - min(cs) == s for c, cs, s, _ in drawn) >= 3  # exactly on the <= boundary
    assert any(cs.index(min(cs)) == len(cs) - 1 for _, cs, _, _ in drawn)  # slowest last
    assert any(0 < cs.index(min(cs)) < len(cs) - 1 for _, cs, _, _ in drawn)  # slowest in the middle
    epochs = C.epoch_cases()[len(C.EPOCH_CASES):]
    assert any(ts.index(max(ts)) == len(ts) - 1 for ts, _ in epochs) or any(
        ts.index(max(ts)) not in (0,) for ts, _ in epochs)
    comm = C.comm_cases()[len(C.COMM_CASES):]
    assert any(h > s for s, h in comm) and any(s % h for s, h in comm)


def test_a_whole_number_prints_as_one_after_the_check():
    """8.0 no longer passes and then prints '5.0': what passes is an integer type."""
    assert not C.check_local_sgd_comm(lambda s, h: (float(-(-s // h)), 1 - (-(-s // h)) / s))
    assert f"{comm_ceil(30, 7)[0]}" == "5"


# ---- issue 39: one policy for the course's own answers, the whole input space, inputs asked again ----

def update_calls_library(th, old, b, g, lr):
    from fastrain_lib.async_sgd.simulator import async_update as rule  # any alias: its code is watched

    return rule(th, old, b, g, lr)


def epoch_by_simulator(ts, n):
    """The check's reference called: the simulator does the work, not the student."""
    from fastrain_lib.async_sgd import simulator as sim
    from fastrain_lib.async_sgd import problems

    problem = problems.make_problem("blobs", 40, n_eval=10, seed=0)
    out = []
    for mode in ("sync", "async"):
        cfg = sim.SimConfig(mode=mode, workers=len(ts), speeds=tuple(1.0 / t for t in ts), gradients=n, lr=0.01)
        out.append(sim.simulate(problem, cfg).time_for(n))
    return tuple(out)


def comm_by_library(steps, h):
    from fastrain_lib.async_sgd import local_sgd

    r = local_sgd.rounds(steps, h)
    return r, 1 - r / steps


def comm_by_worker_rule(steps, h):
    from fastrain_lib.async_sgd.local_sgd import averages_after

    r = sum(averages_after(s, steps, h) for s in range(steps))
    return r, 1 - r / steps


_seen = {}


def _counting(key, value, bump):
    """Right the first time an input is met, off the second time (an answer cached by its input or
    fitted to the order of the cases)."""
    _seen[key] = _seen.get(key, 0) + 1
    return bump(value) if _seen[key] > 1 else value


def update_counts_calls(th, old, b, g, lr):
    return _counting(("u", float(lr), len(b[0]), float(th.sum())), th - lr * g(old, b), lambda v: v * 1.01)


def may_start_counts_calls(c, cs, s):
    return _counting(("m", c, tuple(cs), s), c - min(cs) <= s, lambda v: not v)


def epoch_counts_calls(ts, n):
    return _counting(("e", tuple(ts), n), reference_epoch_times(ts, n), lambda v: (v[0] + 1, v[1]))


def comm_counts_calls(steps, h):
    return _counting(("c", steps, h), comm_ceil(steps, h), lambda v: (v[0] + 1, v[1]))


def update_fresh_means_different(th, old, b, g, lr):
    """Valid and unusual: writes the rule as theta minus lr times the gradient where the worker read,
    taking the gradient once and copying nothing (also right with staleness 0, where the copy equals theta)."""
    return torch.add(th, g(old, b), alpha=-lr)


def may_start_lone_worker_waits(c, cs, s):
    """Wrong only when a worker is alone: compares with the slowest OTHER worker (none: waits forever)."""
    others = [v for i, v in enumerate(cs) if i != cs.index(c)]
    return bool(others) and c - min(others) <= s


def may_start_sorted_copy(c, cs, s):
    """Valid and unusual: sorts a copy, never the caller's list."""
    return c - sorted(cs)[0] <= s


def epoch_one_worker_zero(ts, n):
    """Wrong for one worker only: 'nobody to wait for' gives a sync time of 0."""
    if len(ts) == 1:
        return 0.0, n * ts[0]
    return reference_epoch_times(ts, n)


def comm_one_step_none(steps, h):
    """Wrong when the run is shorter than H: no average at all (the last, short period is averaged too)."""
    rounds = steps // h if steps < h else -(-steps // h)
    return rounds, 1 - rounds / steps


POLICY = [
    wrong(C.check_async_update, update_calls_library, "forbidden_call", "library rule under an alias"),
    wrong(C.check_epoch_times, epoch_by_simulator, "forbidden_call", "the simulator computes the times"),
    wrong(C.check_local_sgd_comm, comm_by_library, "forbidden_call", "local_sgd.rounds"),
    wrong(C.check_local_sgd_comm, comm_by_worker_rule, "forbidden_call", "the worker's averages_after"),
    wrong(C.check_async_update, update_counts_calls, "wrong", "cached by input, asked again"),
    wrong(C.check_may_start, may_start_counts_calls, "wrong", "cached by input, asked again"),
    wrong(C.check_epoch_times, epoch_counts_calls, "sync_wrong", "cached by input, asked again"),
    wrong(C.check_local_sgd_comm, comm_counts_calls, "rounds_wrong", "cached by input, asked again"),
    right(C.check_async_update, update_fresh_means_different, "torch.add alpha=-lr"),
    wrong(C.check_may_start, may_start_lone_worker_waits, "wrong", "a lone worker waits"),
    right(C.check_may_start, may_start_sorted_copy, "sorted copy"),
    wrong(C.check_epoch_times, epoch_one_worker_zero, "sync_wrong", "one worker: sync 0"),
    wrong(C.check_local_sgd_comm, comm_one_step_none, "floor", "no average when steps < H"),
]

test_policy_case = table_test(POLICY)


def test_the_cases_reach_the_edges_the_tasks_allow():
    assert any(len(cs) == 1 for _, cs, _, _ in C.ssp_cases()) and any(s == 0 for _, _, s, _ in C.ssp_cases())
    assert any(drift == 0 and rows.stop - rows.start == 1 for _, rows, _, drift in C.async_configs())
    epochs = C.epoch_cases()
    assert any(len(ts) == 1 for ts, _ in epochs) and any(n < len(ts) for ts, n in epochs) and any(n == 1 for _, n in epochs)
    assert (1, 1) in C.comm_cases() and any(h > s for s, h in C.comm_cases())
    for cases in (C.ssp_cases(), C.epoch_cases(), C.comm_cases()):
        assert len({repr(c) for c in cases}) < len(cases)  # an input asked again, later
