"""Exercise 04, task 2: the student's launch-count prediction is checked against a count measured
now (never a hard-coded number), and a wrong guess is told the measured rule."""

import re

import pytest

from fastrain_lib.fused import optimizers
from fastrain_lib.lessons.l04_fused_kernels import checks as lesson04
from fastrain_lib.measure import launches

N = lesson04.PREDICTION_N


def measured(impl, n=N):
    return optimizers.optimizer_step_launches(impl, n).launches


def rule(impl):
    one, four = measured(impl, 1), measured(impl, 4)
    return one, (four - one) / 3


def test_a_prediction_equal_to_the_measurement_passes():
    result = lesson04.check_launch_prediction({"forloop": measured("forloop"), "foreach": measured("foreach")})
    assert result.ok, result.message
    # the message reports the numbers measured now
    assert str(measured("forloop")) in result.message and str(measured("foreach")) in result.message


def test_the_linear_rule_from_1_and_4_tensors_predicts_16():
    # the exercise's reasoning (and the solution's): calls grow linearly with the number of tensors
    guess = {impl: round(one + (N - 1) * per) for impl, (one, per) in ((i, rule(i)) for i in ("forloop", "foreach"))}
    assert lesson04.check_launch_prediction(guess).ok


@pytest.mark.parametrize("prediction", [None, {}, {"forloop": None, "foreach": None}, {"forloop": 3}])
def test_a_missing_prediction_is_not_done(prediction):
    result = lesson04.check_launch_prediction(prediction)
    assert not result.ok and result.code == "not_done"


@pytest.mark.parametrize("bad", ["144", 12.5, True, [144]])
def test_a_guess_that_is_not_a_whole_number_is_named(bad):
    result = lesson04.check_launch_prediction({"forloop": bad, "foreach": measured("foreach")})
    assert not result.ok and result.code == "not_int"


def test_forgetting_to_multiply_by_the_tensors_fails_with_the_measured_rule():
    one, per = rule("forloop")
    result = lesson04.check_launch_prediction({"forloop": one, "foreach": measured("foreach")})
    assert not result.ok and result.code == "wrong_forloop"
    # the feedback states the measured count and the per-tensor rule, not just "wrong"
    numbers = re.findall(r"\d+", result.message)
    assert str(measured("forloop")) in numbers and str(one) in numbers and f"{per:g}" in result.message


def test_taking_foreach_as_constant_is_named_when_it_is_not_constant():
    one, per = rule("foreach")
    if per == 0:
        pytest.skip("foreach is constant on this torch version: nothing to name")
    result = lesson04.check_launch_prediction({"forloop": measured("forloop"), "foreach": one})
    assert not result.ok and result.code == "foreach_constant"


def test_off_by_one_fails_for_both_and_english_mode_has_no_bengali(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    result = lesson04.check_launch_prediction({"forloop": measured("forloop") + 1, "foreach": measured("foreach") - 1})
    assert not result.ok and result.code == "wrong_forloop+wrong_foreach"
    assert not re.search("[\u0980-\u09ff]", result.message), result.message


def _kinds(n):
    """One whole number in the unusual types a student may hold it in (issue 28: NumPy integers were
    accepted by one launch-count check and refused by its sibling)."""
    import fractions

    import numpy as np
    import torch

    return [n, np.int64(n), np.int32(n), float(n), np.float64(n), fractions.Fraction(n, 1), torch.tensor(n)]


def test_both_launch_checks_accept_the_same_whole_numbers():
    for kind in range(len(_kinds(1))):
        guess = {impl: _kinds(measured(impl))[kind] for impl in ("forloop", "foreach")}
        result = lesson04.check_launch_prediction(guess)
        assert result.ok, (type(guess["forloop"]), result.message)

        def measure(impl, n, kind=kind):
            import torch

            from fastrain_lib.fused import optimizers

            params = [torch.nn.Parameter(torch.randn(10)) for _ in range(n)]
            for p in params:
                p.grad = torch.randn_like(p)
            opt = optimizers.make_optimizer(params, impl)
            opt.step()
            return _kinds(launches.count_launches(opt.step, warmup=0).launches)[kind]

        result = lesson04.check_launch_counts(measure)
        assert result.ok, (kind, result.code, result.message)


def test_a_fraction_that_is_not_whole_is_refused_by_both_alike():
    import fractions

    half = fractions.Fraction(289, 2)
    assert lesson04.check_launch_prediction({"forloop": half, "foreach": measured("foreach")}).code == "not_int"
    assert lesson04.check_launch_counts(lambda impl, n: half).code == "not_int"


def test_launch_cases_are_seeded_and_include_counts_beyond_the_fixed_ones():
    cases = lesson04.launch_cases()
    assert cases == lesson04.launch_cases() and set(lesson04.LAUNCH_CASES) <= set(cases)
    # the fixed and generated ones, one tensor, and the first case again after the others (another context)
    assert len(cases) == len(lesson04.LAUNCH_CASES) + lesson04.GENERATED_LAUNCH + 2
    assert ("foreach", 1) in cases and cases[-1] == cases[0]
    assert {n for _, n in cases} - {5, 16}
