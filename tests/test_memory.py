"""fastrain_lib.measure.memory: the per-parameter formula (Ultra-Scale Playbook / ZeRO convention) and
the measurement agree, part by part, on real models and optimizers."""

import pytest
import torch
from torch.nn import functional as F

from fastrain_lib.measure import memory
from fastrain_lib.models import SimpleNN, count_parameters


def test_formula_matches_the_playbook_table():
    n = 10**9
    fp32 = memory.training_bytes(n, "fp32")
    amp = memory.training_bytes(n, "amp")
    assert fp32 == {"weights": 4 * n, "grads": 4 * n, "optimizer": 8 * n, "master": 0, "total": 16 * n}
    assert amp == {"weights": 2 * n, "grads": 2 * n, "optimizer": 8 * n, "master": 4 * n, "total": 16 * n}
    # Playbook table: 1B parameters -> 16 GB, or 20 GB with fp32 gradient accumulation
    assert memory.gb(fp32["total"]) == 16 and memory.gb(memory.training_bytes(n, "amp", grads_fp32=True)["total"]) == 20
    assert memory.training_bytes(405 * n, "bf16")["total"] == 6480 * 10**9  # the table's 405B row
    assert memory.training_bytes(n, "autocast")["master"] == 0 and memory.training_bytes(n, "autocast")["total"] == 16 * n


def test_formula_other_optimizers_and_errors():
    assert memory.training_bytes(10, "fp32", "sgd")["total"] == 80
    assert memory.training_bytes(10, "amp", "sgd_momentum")["total"] == 10 * (2 + 2 + 4 + 4)
    for key in memory.KEYS[:-1]:
        assert isinstance(memory.training_bytes(7, "amp")[key], int)
    with pytest.raises(ValueError):
        memory.training_bytes(10, "fp8")
    with pytest.raises(ValueError):
        memory.training_bytes(10, "fp32", "lion")
    with pytest.raises(ValueError):
        memory.training_bytes(-1)


def _one_step(model, optimizer, dtype=torch.float32, autocast=False):
    torch.manual_seed(0)
    x, y = torch.rand(5, 1, 28, 28, dtype=dtype), torch.randint(0, 10, (5,))
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        loss = F.cross_entropy(model(x).float(), y)
    loss.backward()
    optimizer.step()


def test_measured_fp32_adam_is_16_bytes_per_parameter_plus_one_step_counter_per_tensor():
    model = SimpleNN(hidden=24)
    n = count_parameters(model)
    opt = torch.optim.Adam(model.parameters())
    before = memory.measured_bytes(model, opt)
    assert before == {"weights": 4 * n, "grads": 0, "optimizer": 0, "master": 0, "total": 4 * n}  # Adam is lazy
    _one_step(model, opt)
    got = memory.measured_bytes(model, opt)
    tensors = len(list(model.parameters()))
    want = memory.training_bytes(n, "fp32")
    assert got["weights"] == want["weights"] and got["grads"] == want["grads"] and got["master"] == 0
    assert got["optimizer"] == want["optimizer"] + 4 * tensors  # Adam's 'step' is a float32 scalar per tensor on CPU
    assert got["total"] == sum(got[k] for k in memory.KEYS[:-1])


def test_measured_autocast_layout_is_the_fp32_layout():
    model = SimpleNN(hidden=24)
    opt = torch.optim.Adam(model.parameters())
    _one_step(model, opt, autocast=True)
    got = memory.measured_bytes(model, opt)
    n = count_parameters(model)
    assert got["weights"] == 4 * n and got["grads"] == 4 * n and got["master"] == 0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_measured_master_weights_layout_matches_the_amp_formula(dtype):
    model = SimpleNN(hidden=24).to(dtype)
    n = count_parameters(model)
    opt = memory.MasterWeightsAdam(model, lr=1e-2)
    _one_step(model, opt, dtype=dtype)
    got = memory.measured_bytes(model, opt)
    want = memory.training_bytes(n, "amp")
    tensors = len(list(model.parameters()))
    assert (got["weights"], got["grads"], got["master"]) == (want["weights"], want["grads"], want["master"])
    assert got["optimizer"] == want["optimizer"] + 4 * tensors
    model2 = SimpleNN(hidden=24).to(dtype)
    kept = memory.MasterWeightsAdam(model2, keep_fp32_grads=True)
    _one_step(model2, kept, dtype=dtype)
    assert memory.measured_bytes(model2, kept)["grads"] == memory.training_bytes(n, "amp", grads_fp32=True)["grads"]


def test_master_weights_adam_trains_like_fp32_adam_and_skips_inf():
    torch.manual_seed(0)
    ref = SimpleNN(hidden=16)
    low = SimpleNN(hidden=16)
    low.load_state_dict(ref.state_dict())
    low = low.to(torch.bfloat16)
    ref_opt, low_opt = torch.optim.Adam(ref.parameters(), lr=1e-2), memory.MasterWeightsAdam(low, lr=1e-2)
    start = [p.detach().clone() for p in ref.parameters()]
    x, y = torch.rand(32, 1, 28, 28), torch.randint(0, 10, (32,))
    for _ in range(5):
        ref_opt.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        ref_opt.step()
        low_opt.zero_grad()
        F.cross_entropy(low(x.to(torch.bfloat16)).float(), y).backward()
        assert low_opt.step()
    # the master weights follow fp32 Adam closely; the model holds them rounded to bf16
    for m, p, r, r0 in zip(low_opt.master, low.parameters(), ref.parameters(), start):
        assert (m - r).abs().mean() < 0.25 * (r - r0).abs().mean()
        assert torch.equal(p, m.to(torch.bfloat16))
    before = [m.clone() for m in low_opt.master]
    low_opt.zero_grad()
    F.cross_entropy(low(x.to(torch.bfloat16)).float(), y).backward()
    low.fc1.weight.grad[0, 0] = float("inf")
    assert low_opt.step() is False
    assert all(torch.equal(a, b) for a, b in zip(before, low_opt.master))


def test_tied_weights_are_counted_once():
    lin = torch.nn.Linear(8, 8, bias=False)
    model = torch.nn.Sequential(lin, torch.nn.ReLU(), lin)
    assert memory.measured_bytes(model)["weights"] == 8 * 8 * 4


def test_peak_step_bytes_is_none_on_a_cpu_and_runs_the_step():
    calls = []
    assert memory.peak_step_bytes(lambda: calls.append(1), "cpu") is None
    assert calls == [1]
