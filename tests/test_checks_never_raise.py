"""Property test: whatever a student hands to a check — any value, or a function that returns
any value, raises any exception, changes its arguments, or calls sys.exit — the check returns
a CheckResult with a message, and never raises.

Hypothesis draws the answers (derandomized: the same examples on every run, so CI is stable).
Examples are few per check (the whole check-test suite must stay fast); the real-process
checks get fewer still, each example starts real processes.
"""

from __future__ import annotations

import math
import re
import sys

import numpy as np
import pytest
import torch
from _processes import live_children
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrain_lib.distributed import pipeline
from fastrain_lib.lessons import check_ranks as ranks
from fastrain_lib.lessons.checking import CheckResult
from fastrain_lib.lessons.l01_gpu_vs_cpu import checks as lesson01
from fastrain_lib.lessons.l01_gpu_vs_cpu import noise_checks
from fastrain_lib.lessons.l02_to_device import checks as lesson02
from fastrain_lib.lessons.l03_mixed_precision import checks as lesson03
from fastrain_lib.lessons.l04_fused_kernels import checks as lesson04
from fastrain_lib.lessons.l05_data_vs_model_parallel import checks as lesson05
from fastrain_lib.lessons.l05b_ddp_in_depth import checks as lesson05b
from fastrain_lib.lessons.l05c_sharding_and_pipelines import checks as lesson05c
from fastrain_lib.lessons.l06_sync_vs_async_sgd import checks as lesson06
from fastrain_lib.lessons.l07_capstone import checks as lesson07
from fastrain_lib.measure import bench


class Hostile:
    """An object that raises from everything a check might try on it (repr stays: Hypothesis reports with it)."""

    def _boom(self, *args, **kwargs):
        raise ValueError("hostile")

    def __repr__(self):
        return "Hostile()"

    __str__ = __eq__ = __bool__ = __float__ = __int__ = __index__ = __len__ = __iter__ = _boom
    __lt__ = __gt__ = __le__ = __ge__ = __getitem__ = __contains__ = __format__ = _boom
    __hash__ = None


DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64, torch.bool, torch.complex64]


@st.composite
def tensors(draw):
    shape = draw(st.lists(st.integers(0, 3), max_size=3))
    dtype = draw(st.sampled_from(DTYPES))
    device = draw(st.sampled_from(["cpu", "cpu", "meta"]))
    fill = draw(st.sampled_from([0.0, 1.0, -2.5, math.inf, math.nan, 1e-8]))
    if dtype in (torch.int64, torch.bool):
        fill = 1
    return torch.full(shape, fill, dtype=dtype, device=device)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.text(max_size=8), st.complex_numbers(allow_nan=True), st.binary(max_size=4))
arrays = st.builds(lambda v, dt: np.full((2,), v).astype(dt), st.floats(-1e3, 1e3),
                   st.sampled_from(["float16", "float64", "int32", "bool", "U3", "object"]))
plain = st.one_of(scalars, tensors(), arrays, st.just(Hostile()), st.just(object()), st.just(torch.nn.Linear(2, 2)))
values = st.recursive(plain, lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                                     st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                      max_leaves=6)
records = st.builds(lambda m, p, r: bench.Record(name="x", median_s=m, params=p, metrics=r),
                    values, st.one_of(values, st.fixed_dictionaries({"batch_size": values})),
                    st.one_of(values, st.fixed_dictionaries({"samples_per_s": values})))


def returning(value):
    def answer(*args, **kwargs):
        return value
    return answer


def raising(exc):
    def answer(*args, **kwargs):
        raise exc
    return answer


def mutating(value):
    """Scribbles on every tensor and list it is given, then returns `value`."""
    def answer(*args, **kwargs):
        for arg in args:
            if isinstance(arg, torch.Tensor) and arg.is_floating_point():
                arg.data.mul_(-3.0)
            elif isinstance(arg, list):
                arg.append(Hostile())
        return value
    return answer


def exits(*args, **kwargs):
    sys.exit(3)


exceptions = st.sampled_from([ZeroDivisionError("x"), RuntimeError("CUDA error"), TypeError(), KeyError("k"),
                              MemoryError(), RecursionError(), StopIteration(), ValueError(Hostile())])
predictions = st.fixed_dictionaries({"forloop": values, "foreach": values})
answers = st.one_of(values, predictions, records.map(returning), values.map(returning), exceptions.map(raising),
                    values.map(mutating), st.just(exits), st.just(print), st.just(int))

TIMELINE = pipeline.ideal_schedule(2, 3)
FAST = 6  # examples per check
SLOW = 3  # examples for the checks that start real processes
CHECKS = [
    (lesson01.check_matmul_gflops, {}, FAST), (lesson01.check_matmul_intensity, {}, FAST),
    (lesson01.check_bound, {}, FAST), (lesson01.check_throughput, {}, FAST),
    (noise_checks.check_fair_speedup, {}, FAST), (noise_checks.check_interleaved_rounds, {}, FAST),
    (lesson02.check_to_device, {}, FAST), (lesson02.check_train_epoch, {}, FAST),
    (lesson02.check_throughput, {}, FAST), (lesson02.check_batch_answer, {}, FAST),
    (lesson03.check_amp_step, {}, FAST), (lesson03.check_clip_step, {}, FAST),
    (lesson03.check_underflow_share, {}, FAST),
    (lesson02.check_fast_loop, {}, SLOW),
    (lesson03.check_accum_step, {}, FAST), (lesson03.check_adam_bytes, {}, FAST),
    (lesson03.check_predict_fit, {}, FAST),
    (lesson06.check_local_sgd_comm, {}, FAST),
    (lesson04.check_foreach_adam, {}, FAST), (lesson04.check_launch_counts, {}, FAST),
    (lesson04.check_layer_norm, {}, FAST), (lesson04.check_launch_prediction, {}, FAST),
    (lesson04.check_triton_softmax, {}, FAST), (lesson04.check_graph_breaks, {}, FAST),
    (lesson05.check_scatter_reduce, {"timeout_s": 20.0}, SLOW), (lesson05.check_bubble_fraction, {}, FAST),
    (lesson05.check_idle_share, {"events": TIMELINE}, FAST),
    (lesson05.check_average_gradients, {"timeout_s": 20.0}, SLOW),
    (lesson05.check_train_ddp, {"timeout_s": 20.0}, SLOW),
    (lesson05b.check_compare, {}, FAST), (lesson05b.check_allreduce_time, {}, FAST),
    (lesson05c.check_zero_memory, {}, FAST), (lesson05c.check_column_row_mlp, {"timeout_s": 20.0}, SLOW),
    (lesson06.check_async_update, {}, FAST), (lesson06.check_may_start, {}, FAST),
    (lesson06.check_epoch_times, {}, FAST),
    (lesson07.check_mfu, {}, FAST), (lesson07.check_strip_dangling, {}, FAST),
]


@pytest.fixture(autouse=True, scope="module")
def no_process_left():
    yield
    ranks.shutdown()
    assert live_children() == []


@pytest.mark.parametrize("check, kwargs, examples", CHECKS, ids=[c.__name__ + "@" + c.__module__[-8:] for c, _, _ in CHECKS])
def test_a_check_never_raises(check, kwargs, examples):
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(answer=answers)
    def never_raises(answer):
        result = check(answer, **kwargs)
        assert isinstance(result, CheckResult)
        assert isinstance(result.message, str) and result.message.strip()
        assert isinstance(result.ok, bool)

    never_raises()


def exercise_checks_called() -> dict[str, object]:
    """'alias.check_x' -> the check object, for every `alias.check_*(` in solutions/*.ipynb whose alias a
    cell of that notebook imports from fastrain_lib.lessons (`import checks as lesson01`, `import noise_checks`,
    `checks as checks05b`): so a check module under any alias is seen, not only `lessonNN.`."""
    import importlib
    import json
    import re
    from pathlib import Path

    imports = re.compile(r"from\s+(fastrain_lib\.lessons[\w.]*)\s+import\s+([\w\s,]+?)(?:\s+as\s+(\w+))?\s*(?:#|\n|$)")
    called = {}
    for path in Path(__file__).resolve().parents[1].glob("solutions/*.ipynb"):
        source = "\n".join("".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"])
        aliases = {}
        for package, names, alias in imports.findall(source + "\n"):
            names = [n.strip() for n in names.split(",")]
            for name in names:
                aliases[alias if alias and len(names) == 1 else name] = f"{package}.{name}"
        for alias, check_name in re.findall(r"\b(\w+)\.(check_\w+)\s*\(", source):
            if alias in aliases:
                module = importlib.import_module(aliases[alias])
                called[f"{alias}.{check_name}"] = getattr(module, check_name, None)
    return called


def test_every_exercise_check_is_covered():
    called = exercise_checks_called()
    # a lesson's checks under the aliases its solution uses: lesson01, noise_checks, checks05b, ...
    assert {"lesson01.check_bound", "noise_checks.check_fair_speedup", "checks05b.check_compare"} <= set(called)
    covered = [c for c, _, _ in CHECKS]
    missing = sorted(name for name, fn in called.items() if fn is None or not any(fn is c for c in covered))
    assert not missing, missing


# --- the harness helpers every check now uses (issue 28): whatever the answer and its arguments ---

@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(answer=answers, args=st.lists(values, max_size=3))
def test_call_student_with_guards_never_raises(answer, args):
    """guard_inputs snapshots and compares anything (hostile objects, meta tensors, modules), and
    forbid restores the profiler whatever the answer does."""
    from fastrain_lib.lessons.checking import call_student
    from fastrain_lib.measure import memory

    _, failure = call_student(answer, *args, guard_inputs=True, forbid=[memory.training_bytes, "json.dumps"])
    assert failure is None or (isinstance(failure, CheckResult) and failure.message.strip() and not failure.ok)
    assert sys.getprofile() is None


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(value=st.one_of(values, st.fractions(), st.decimals(allow_nan=True), st.integers(-2**63, 2**63 - 1).map(np.int64),
                       st.floats(width=16).map(np.float16)))
def test_as_number_and_as_integer_never_raise(value):
    from fastrain_lib.lessons.checking import as_integer, as_number

    number, whole = as_number(value), as_integer(value)
    assert number is None or (type(number) is float and math.isfinite(number))
    assert whole is None or type(whole) is int


# --- an unfinished exercise in each language (issue 29: exercises run only in Bengali in make test) ---

BENGALI_LETTERS = re.compile(r"[\u0980-\u09FF]")


@pytest.mark.parametrize("lang", ["en", "bn"])
@pytest.mark.parametrize("check, kwargs, examples", CHECKS, ids=[c.__name__ + "@" + c.__module__[-8:] for c, _, _ in CHECKS])
def test_an_unfinished_answer_is_told_in_the_students_language(check, kwargs, examples, lang, monkeypatch):
    """What an exercise cell hands a check before the student writes anything (`return None` or
    `answer = None`) gets feedback in FASTRAIN_LANG: no Bengali letter in English mode, Bengali in
    Bengali mode. This is the one path of an exercise notebook its solution's English run cannot show."""
    monkeypatch.setenv("FASTRAIN_LANG", lang)
    for unfinished in (None, returning(None)):
        result = check(unfinished, **kwargs)
        assert not result.ok and result.message.strip()
        has_bengali = bool(BENGALI_LETTERS.search(result.message))
        assert has_bengali == (lang == "bn"), f"{lang}: {result.message[:200]!r}"
