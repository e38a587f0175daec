"""Lesson 01's exercise checks: each passes the solution and names typical wrong answers."""

from __future__ import annotations

import pytest
import torch

from fastrain_lib import bench
from fastrain_lib.checks import lesson01 as checks
from fastrain_lib.panels.lesson01 import training_step


@pytest.fixture(autouse=True)
def ci_mode(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    # Tiny timed steps: one thread avoids thread-pool contention on a busy shared machine.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ---- task 1: GFLOP/s


def gflops_solution(n, seconds):
    return 2 * n**3 / seconds / 1e9


@pytest.mark.parametrize("wrong, code", [
    (lambda n, s: n**3 / s / 1e9, "missing_factor_2"),
    (lambda n, s: 2 * n**2 / s / 1e9, "n_squared"),
    (lambda n, s: 2 * n**3 / s, "not_giga"),
    (lambda n, s: s / (2 * n**3) * 1e9, "inverted_rate"),
    (lambda n, s: 2 * n**3 / s / 1e6, "wrong_value"),
    (lambda n, s: "fast", "not_number"),
    (lambda n, s: None, "not_done"),
    (lambda n, s: 1 / 0, "crashed"),
])
def test_gflops_rejects(wrong, code):
    result = checks.check_matmul_gflops(wrong)
    assert not result and result.code == code
    assert result.message  # a Bengali explanation, from the catalog


def test_gflops_accepts_solution_and_tensor_answer():
    assert checks.check_matmul_gflops(gflops_solution)
    assert checks.check_matmul_gflops(lambda n, s: torch.tensor(2.0 * n**3 / s / 1e9, dtype=torch.float64))


# ---- task 2: arithmetic intensity


def intensity_solution(n, bytes_per_element):
    return (2 * n**3) / (3 * n**2 * bytes_per_element)


@pytest.mark.parametrize("wrong, code", [
    (lambda n, b: 2 * n**3 / (3 * n**2 * b * 8), "bits_not_bytes"),
    (lambda n, b: 2 * n**3 / (2 * n**2 * b), "forgot_output"),
    (lambda n, b: n**3 / (3 * n**2 * b), "missing_factor_2"),
    (lambda n, b: 2 * n / 3, "wrong_value"),
])
def test_intensity_rejects(wrong, code):
    result = checks.check_matmul_intensity(wrong)
    assert not result and result.code == code


def test_intensity_accepts_solution():
    assert checks.check_matmul_intensity(intensity_solution)


# ---- task 3: compute- or memory-bound


def bound_solution(intensity, peak_gflops, bandwidth_gbs):
    return "compute" if intensity >= peak_gflops / bandwidth_gbs else "memory"


@pytest.mark.parametrize("wrong, code", [
    (lambda i, p, b: "memory" if i >= p / b else "compute", "inverted_bound"),
    (lambda i, p, b: "compute", "constant_bound"),
    (lambda i, p, b: "compute" if i >= p else "memory", "wrong_ridge"),
    (lambda i, p, b: "compute" if i >= b / p else "memory", "wrong_ridge"),
    (lambda i, p, b: "Compute-bound", "bad_label"),
])
def test_bound_rejects(wrong, code):
    result = checks.check_bound(wrong)
    assert not result and result.code == code


def test_bound_accepts_solution():
    assert checks.check_bound(bound_solution)


# ---- task 4: throughput


def throughput_solution(model, batch_size, device="cpu"):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    inputs = bench.fresh_random(batch_size, 1, 28, 28, device=device)
    targets = torch.randint(0, 10, (batch_size,), device=device)
    record = bench.measure(lambda: training_step(model, optimizer, inputs, targets), "step",
                           params={"batch_size": batch_size})
    record.metrics["samples_per_s"] = batch_size / record.median_s
    return record


def _variant(rate_fn=None, train=True, params=True):
    """The solution with one typical mistake."""
    def fn(model, batch_size, device="cpu"):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = bench.fresh_random(batch_size, 1, 28, 28, device=device)
        targets = torch.randint(0, 10, (batch_size,), device=device)
        if train:
            step = lambda: training_step(model, optimizer, inputs, targets)
        else:
            step = lambda: model(inputs)
        record = bench.measure(step, "step", params={"batch_size": batch_size} if params else {})
        record.metrics["samples_per_s"] = (rate_fn or (lambda b, m: b / m))(batch_size, record.median_s)
        return record
    return fn


@pytest.mark.parametrize("wrong, code", [
    (_variant(rate_fn=lambda b, m: 1 / m), "steps_not_samples"),
    (_variant(rate_fn=lambda b, m: m), "time_not_rate"),
    (_variant(rate_fn=lambda b, m: m / b), "time_not_rate"),
    (_variant(rate_fn=lambda b, m: b / m / 1000), "wrong_rate"),
    (_variant(train=False), "no_training"),
    (_variant(params=False), "wrong_batch"),
    (lambda model, batch_size, device="cpu": 123.0, "not_record"),
    (lambda model, batch_size, device="cpu": None, "not_done"),
])
def test_throughput_rejects(wrong, code):
    result = checks.check_throughput(wrong)
    assert not result and result.code == code


def test_throughput_accepts_solution():
    result = checks.check_throughput(throughput_solution)
    assert result, result.message


def test_throughput_missing_metric():
    def no_metric(model, batch_size, device="cpu"):
        record = _variant()(model, batch_size, device)
        del record.metrics["samples_per_s"]
        return record

    assert checks.check_throughput(no_metric).code == "no_metric"
