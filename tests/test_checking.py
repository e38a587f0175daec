"""The exercise-check harness (fastrain_lib/lessons/checking.py, issue 28): numbers of every valid
type read the same, a changed input is found and named, a forbidden helper is seen through any
alias, aten ops are counted, seeded cases are stable. Each helper is also shown the wrong thing
it exists to catch."""

from __future__ import annotations

import decimal
import math
import sys
import threading
from fractions import Fraction

import numpy as np
import pytest
import torch

from fastrain_lib.lessons import checking
from fastrain_lib.lessons.checking import (
    as_integer,
    as_number,
    call_student,
    changed_part,
    forbid,
    seeded_cases,
    snapshot,
    torch_ops,
    unchanged,
)
from fastrain_lib.measure import memory

NUMPY_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
NUMPY_FLOATS = [np.float16, np.float32, np.float64, np.longdouble]


# --- as_number / as_integer: one rule for every valid type ------------------------------------------

@pytest.mark.parametrize("kind", NUMPY_INTS)
def test_every_numpy_integer_is_a_number_and_a_whole_number(kind):
    assert as_number(kind(7)) == 7.0 and type(as_number(kind(7))) is float
    assert as_integer(kind(7)) == 7 and type(as_integer(kind(7))) is int
    assert as_number(np.array([kind(7)])) == 7.0  # a one-element array too


@pytest.mark.parametrize("kind", NUMPY_FLOATS)
def test_every_numpy_float_is_a_number_but_not_a_whole_number(kind):
    assert as_number(kind(0.5)) == 0.5 and type(as_number(kind(0.5))) is float
    assert as_integer(kind(8)) is None  # a float where a whole number is asked
    assert as_integer(kind(8), integral_floats=True) == 8
    assert as_integer(kind(8.5), integral_floats=True) is None


def test_exact_types_fraction_and_decimal():
    assert as_number(Fraction(1, 3)) == pytest.approx(1 / 3)
    assert as_number(decimal.Decimal("2.5")) == 2.5
    assert as_integer(Fraction(8, 1)) == 8 and as_integer(Fraction(16, 2)) == 8
    assert as_integer(Fraction(8, 3)) is None
    assert as_integer(decimal.Decimal(8)) == 8 and as_integer(decimal.Decimal("8.5")) is None
    for bad in (decimal.Decimal("NaN"), decimal.Decimal("sNaN"), decimal.Decimal("Infinity")):
        assert as_number(bad) is None and as_integer(bad) is None


@pytest.mark.parametrize("value", [True, False, np.bool_(True), torch.tensor(True), np.array([True]), "3", None,
                                   complex(1, 0), np.complex64(1), [1], (2,), {"x": 1}, 10**400, math.inf,
                                   float("nan"), torch.tensor([1.0, 2.0]), torch.empty(1, device="meta"),
                                   np.array([1, 2])])
def test_not_one_real_number_is_refused(value):
    assert as_number(value) is None
    assert as_integer(value) is None or value == 10**400  # a huge int is a whole number, not a float


def test_tensors_and_plain_numbers():
    assert as_number(torch.tensor(2.5)) == 2.5 and as_number(torch.tensor([[3]], dtype=torch.int16)) == 3.0
    assert as_number(torch.tensor(1.5, dtype=torch.bfloat16)) == 1.5
    assert as_integer(torch.tensor(8)) == 8 and as_integer(torch.tensor(8.0)) is None
    assert as_integer(8) == 8 and as_integer(8.0) is None and as_integer(8.0, integral_floats=True) == 8
    assert as_integer(10**400) == 10**400  # Python ints are exact


def test_the_same_value_reads_the_same_through_every_type():
    """The consistency the issue asks for: one value, every valid spelling, one reading."""
    spellings = [3, 3.0, Fraction(3), decimal.Decimal(3), torch.tensor(3), torch.tensor(3.0), np.array(3),
                 *[k(3) for k in NUMPY_INTS + NUMPY_FLOATS]]
    assert {as_number(x) for x in spellings} == {3.0}
    whole = [x for x in spellings if as_integer(x) is not None]
    assert {as_integer(x) for x in whole} == {3}
    assert len(whole) == 5 + len(NUMPY_INTS)  # int, Fraction, Decimal, int tensor, np.array(3), NumPy ints


# --- guard_inputs: which argument was changed ------------------------------------------------------

def table():
    return {"fc1": [1.0, 2.0, 3.0], "fc2": {"w": torch.ones(3), "seen": {1, 2}}, "np": np.zeros(2)}


@pytest.mark.parametrize("mutate, where", [
    (lambda t, n: t["fc1"].__setitem__(2, 0.0), "t['fc1'][2]"),
    (lambda t, n: t["fc2"]["w"].add_(1), "t['fc2']['w']"),
    (lambda t, n: t["fc2"]["seen"].add(3), "t['fc2']['seen']"),
    (lambda t, n: t["np"].__setitem__(0, 5.0), "t['np']"),
    (lambda t, n: t.__setitem__("new", 1), "t"),
    (lambda t, n: t["fc1"].append(4.0), "t['fc1']"),
    (lambda t, n: n.append(9), "n"),
])
def test_a_changed_input_is_found_and_named(mutate, where):
    def answer(t, n):
        mutate(t, n)
        return 42

    result, failure = call_student(answer, table(), [1, 2], guard_inputs=True)
    assert result is None and failure.code == "mutated_input"
    assert where in failure.message  # the student is told which part they wrote into


def test_an_answer_that_copies_passes_and_nan_is_not_a_change():
    def answer(t, n):
        t = dict(t)
        t["fc1"] = [0.0]  # rebinding a copy: the caller's data is untouched
        n = n + [3]
        return len(n)

    given = table()
    given["fc2"]["w"][0] = float("nan")  # NaN != NaN must not read as "changed"
    assert call_student(answer, given, [1, 2], guard_inputs=True) == (3, None)


def test_guard_only_the_named_arguments_and_a_modules_weights():
    model = torch.nn.Linear(2, 1)

    def train(model, data):
        with torch.no_grad():
            model.weight.add_(1)  # training the given model is the task here
        return model

    assert call_student(train, model, [1], guard_inputs=("data",))[1] is None
    _, failure = call_student(train, model, [1], guard_inputs=True)
    assert failure.code == "mutated_input" and "model['weight']" in failure.message
    _, failure = call_student(lambda *xs: xs[1].append(0) or 1, 0, [], guard_inputs=True)
    assert failure.code == "mutated_input" and "xs[1]" in failure.message


def test_snapshot_helpers_directly():
    before = snapshot(table())
    after = table()
    assert unchanged(after, before) and changed_part(after, before, "x") is None
    after["fc2"]["w"][1] = 7
    assert not unchanged(after, before) and changed_part(after, before, "x") == "x['fc2']['w']"


@pytest.mark.parametrize("scalar", [np.float32(0.5), np.float64(2.5), np.int64(3), np.uint8(7), np.float16(1.5),
                                    np.longdouble(0.25), np.float64("nan"), np.complex64(1j), np.bool_(True)])
def test_an_untouched_numpy_scalar_is_not_a_change(scalar):
    # NumPy scalars are immutable: they compare by value (NaN equal to NaN, as for arrays), so a
    # correct answer whose input holds one is not failed as "mutated_input".
    assert changed_part(scalar, snapshot(scalar), "v") is None
    given = {"lr": scalar, "xs": [scalar, np.float32(2)]}
    before = snapshot(given)
    assert unchanged(given, before)
    assert call_student(lambda d: 1, given, guard_inputs=True) == (1, None)
    given["xs"][1] = np.float32(3)  # a replaced scalar is still a change, and so is another dtype
    assert changed_part(given, before, "d") == "d['xs'][1]"
    assert changed_part(np.float64(0.5), snapshot(np.float32(0.5)), "v") == "v"


def test_guard_message_is_bengali_with_the_name(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    _, failure = call_student(lambda d: d.pop("a"), {"a": 1}, guard_inputs=True)
    assert failure.message.startswith("তোমার ফাংশন তার ইনপুট d বদলে দিয়েছে")


# --- forbid: "write it without X" ------------------------------------------------------------------

def _through_another_helper(n):
    return memory.training_bytes(n).get("total", 0)


def test_a_forbidden_helper_is_seen_through_any_alias():
    from fastrain_lib.measure.memory import training_bytes as tb  # imported before the check patches anything

    answers = {
        "module attribute": lambda n: memory.training_bytes(n),
        "alias imported earlier": lambda n: tb(n),
        "inside another function": _through_another_helper,
    }
    for name, answer in answers.items():
        result, failure = call_student(answer, 10, forbid=[memory.training_bytes])
        assert result is None and failure.code == "forbidden_call", name
        assert "fastrain_lib.measure.memory.training_bytes" in failure.message
    own = lambda n: {"total": 16 * n}
    assert call_student(own, 10, forbid=["fastrain_lib.measure.memory.training_bytes"]) == ({"total": 160}, None)


def test_forbid_as_a_context_manager_and_builtins():
    with forbid(math.fsum, "json.dumps") as watch:
        import json

        json.dumps([1])
        math.fsum([1.0, 2.0])
        sum([1, 2])  # allowed
    assert watch.calls == ["json.dumps", "math.fsum"]
    assert watch.failure().code == "forbidden_call"
    with forbid(math.fsum) as quiet:
        sum([1.0])
    assert quiet.calls == [] and quiet.failure() is None


def test_forbid_restores_the_profiler_even_when_the_answer_crashes():
    def boom(n):
        raise ValueError("x")

    assert sys.getprofile() is None
    _, failure = call_student(boom, 1, forbid=[memory.training_bytes])
    assert failure.code == "crashed"
    assert sys.getprofile() is None and threading.getprofile() is None


def test_forbid_sees_a_call_in_a_thread_the_answer_starts():
    def answer(n):
        out = []
        worker = threading.Thread(target=lambda: out.append(memory.training_bytes(n)))
        worker.start()
        worker.join(timeout=30)
        return out[0]

    assert call_student(answer, 10, forbid=[memory.training_bytes])[1].code == "forbidden_call"


# --- torch_ops: did foreach do the work? -----------------------------------------------------------

def test_torch_ops_tells_a_foreach_update_from_a_loop():
    params = [torch.ones(3), torch.ones(2)]
    grads = [torch.ones(3), torch.ones(2)]
    with torch_ops() as ops:
        torch._foreach_add_(params, grads, alpha=0.1)
    assert ops.count("aten::_foreach_") >= 1
    with torch_ops() as loop:
        for p, g in zip(params, grads):
            p.add_(g, alpha=0.1)
    assert loop.count("aten::_foreach_") == 0 and loop.names["aten::add_"] == 2


@pytest.mark.parametrize("foreach, expected", [(True, True), (False, False)])
def test_torch_ops_sees_an_optimizers_implementation(foreach, expected):
    model = torch.nn.Linear(3, 2)
    model(torch.ones(1, 3)).sum().backward()
    optimizer = torch.optim.Adam(model.parameters(), foreach=foreach)
    with torch_ops() as ops:
        optimizer.step()
    assert (ops.count("aten::_foreach_") > 0) is expected


# --- seeded cases ----------------------------------------------------------------------------------

def test_seeded_cases_are_stable_varied_and_keep_the_regression_cases_first():
    make = lambda rng: (rng.randint(1, 1000), rng.choice([2, 3, 4]))
    first = seeded_cases(make, n=8, seed=5, fixed=[(7, 2)])
    assert first == seeded_cases(make, n=8, seed=5, fixed=[(7, 2)])  # the same on every run
    assert first[0] == (7, 2) and len(first) == 9
    assert len(set(first[1:])) > 4  # really different cases, not one repeated
    assert seeded_cases(make, n=8, seed=6) != first[1:]


def test_the_helpers_are_documented():
    for name in ("guard_inputs", "forbid", "torch_ops", "seeded_cases", "as_number", "as_integer", "Fraction"):
        assert name in checking.__doc__


def test_torch_ops_records_the_ops_of_threads_the_answer_starts():
    """A dispatch mode is thread-local: an answer computing in a new thread or a pool escaped the record (issue 39)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    with checking.torch_ops() as ops:
        worker = threading.Thread(target=lambda: torch.ones(3).exp())
        worker.start()
        worker.join()
        with ThreadPoolExecutor(2) as pool:
            pool.submit(lambda: torch.ones(2).sin()).result()
    assert ops.count("aten::exp") == 1 and ops.count("aten::sin") == 1
    with checking.torch_ops() as ops:
        pass
    worker = threading.Thread(target=lambda: torch.ones(3).exp())  # after the block: not recorded, nor patched
    worker.start()
    worker.join()
    assert ops.count("aten::") == 0


def test_every_check_result_goes_to_the_check_log(tmp_path, monkeypatch):
    import json

    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(checking.CHECK_LOG_ENV, str(log))

    @checking.check
    def right():
        return checking.passed()

    @checking.check
    def broken():
        raise RuntimeError("a bug in the check")

    assert right() and not broken()
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(r["check"].rsplit(".", 1)[-1], r["ok"], r["code"]) for r in rows] == [("right", True, "ok"),
                                                                                  ("broken", False, "check_error")]


def test_the_checks_clock_is_bound_before_any_answer_runs(monkeypatch):
    import time

    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)  # an answer that stops time
    first = checking.clock()
    time.sleep(0.01)
    assert checking.clock() - first >= 0.009
