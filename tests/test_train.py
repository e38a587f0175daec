"""fastrain_lib.train: every precision mode on a CPU, the skip-on-inf path, clipping, options."""

import math
import os
import sys

import pytest
import torch

from fastrain_lib import train
from fastrain_lib.models import SimpleNN
from fastrain_lib.precision import amp as precision


def _data(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 1, 28, 28, generator=g)
    y = (x.flatten(1)[:, :10].argmax(1))  # a learnable rule: which of the first 10 pixels is brightest
    return x, y


def _run(mode, steps=12, **kwargs):
    torch.manual_seed(0)
    model = SimpleNN(hidden=32)
    x, y = _data()
    history = train.train(model, train.TensorBatches(x, y, 32), steps=steps, precision=mode,
                          progress=False, lr=1e-2, **kwargs)
    return model, history


@pytest.mark.parametrize("mode", precision.PRECISIONS)
def test_every_mode_trains_on_cpu(mode):
    model, h = _run(mode, steps=24)
    assert h.steps == 24 and len(h.step_times_s) == len(h.scales) == len(h.skipped) == 24
    assert h.samples == 24 * 32
    assert all(math.isfinite(v) for v in h.losses)
    assert sum(h.losses[-4:]) < sum(h.losses[:4])  # it learns
    assert h.precision == mode and h.peak_memory_bytes is None
    assert all(p.dtype == torch.float32 for p in model.parameters())  # master weights stay fp32
    if mode == "fp16":
        # GradScaler starts at 2^16 and may skip a few early steps while it finds its scale:
        # each skipped step halves the scale
        assert sum(h.skipped) <= 3
        for i in range(1, 24):
            assert (h.scales[i] == h.scales[i - 1] / 2) == h.skipped[i]
    else:
        assert set(h.scales) == {1.0}
        assert not any(h.skipped)
    assert h.samples_per_s() > 0


def test_modes_agree_early_on():
    base = _run("fp32", steps=3)[1].losses
    for mode in ("fp16", "bf16"):
        losses = _run(mode, steps=3, scaler_options={"init_scale": 2.0**8})[1].losses
        assert losses == pytest.approx(base, rel=0.05)


def test_fp16_skips_on_inf_and_halves_the_scale():
    torch.manual_seed(0)
    model = SimpleNN(hidden=32)
    handle = precision.inject_overflow(model, {2})
    x, y = _data()
    before = {}

    def remember(step, history):
        before[step] = model.fc2.weight.detach().clone()

    h = train.train(model, train.TensorBatches(x, y, 32), steps=6, precision="fp16", progress=False,
                    on_step=remember, scaler_options={"growth_interval": 2}, time_window=1)
    handle.remove()
    assert h.skipped == [False, False, True, False, False, False]
    assert h.scales[2] == h.scales[1] / 2  # halved on the overflow
    assert h.scales[1] == 2 * h.scales[0]  # grown after 2 good steps
    # the skipped step changed nothing: weights after step 3 equal those after step 2
    assert torch.equal(before[3], before[2])
    assert all(torch.isfinite(p).all() for p in model.parameters())


@pytest.mark.parametrize("mode", ["fp32", "bf16"])
def test_without_scaler_inf_steps_are_skipped_too(mode):
    torch.manual_seed(0)
    model = SimpleNN(hidden=32)
    handle = precision.inject_overflow(model, {1})
    x, y = _data()
    h = train.train(model, train.TensorBatches(x, y, 32), steps=4, precision=mode, progress=False)
    handle.remove()
    assert h.skipped == [False, True, False, False]
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_clipping_unscales_first():
    # clipping the scaled gradients (x256) to norm 0.5 would shrink the true gradients 256 times
    # more than intended; unscaled-then-clipped gradients make the same steps as in fp32
    sgd = lambda params: torch.optim.SGD(params, lr=0.5)  # SGD: the step is proportional to the gradient
    _, clipped16 = _run("fp16", steps=5, clip_grad=0.5, optimizer=sgd, scaler_options={"init_scale": 2.0**8})
    _, clipped32 = _run("fp32", steps=5, clip_grad=0.5, optimizer=sgd)
    assert max(clipped32.losses) - min(clipped32.losses) > 0.05  # the clipped steps are big enough to matter
    assert clipped16.losses == pytest.approx(clipped32.losses, abs=5e-3)


def test_optimizer_factory_grad_accum_and_epochs():
    x, y = _data(128)
    model = SimpleNN(hidden=16)
    h = train.train(model, train.TensorBatches(x, y, 16), epochs=2, grad_accum=2, progress=False,
                    optimizer=lambda params: torch.optim.SGD(params, lr=0.1))
    assert h.steps == 2 * (128 // 16) // 2
    assert h.samples == 2 * 128
    record = h.to_record("sgd", {"hidden": 16})
    assert record.params["hidden"] == 16 and record.metrics["samples_per_s"] > 0
    assert train.History.from_dict(h.to_dict()) == h


def test_lm_shaped_default_loss():
    logits = torch.randn(2, 5, 7)
    targets = torch.randint(0, 7, (2, 5))
    expected = torch.nn.functional.cross_entropy(logits.reshape(10, 7), targets.reshape(10))
    assert torch.allclose(train.default_loss(logits, targets), expected)


def test_bad_input_gets_a_bengali_message():
    x, y = _data(32)
    batches = train.TensorBatches(x, y, 8)
    with pytest.raises(ValueError, match="fp8"):
        train.train(SimpleNN(), batches, steps=1, precision="fp8", progress=False)
    with pytest.raises(ValueError, match="checkpoint_dir"):
        train.train(SimpleNN(), batches, steps=1, resume=True, progress=False)
    with pytest.raises(ValueError):
        train.TensorBatches(x, y[:5], 8)
    with pytest.raises(TypeError):
        train.train(SimpleNN(), batches, steps=1, optimizer=3, progress=False)
    with pytest.raises(ValueError):  # an empty iterable must not loop forever
        train.train(SimpleNN(), [], steps=3, progress=False)
    with pytest.raises(ValueError, match="grad_accum=9"):
        train.train(SimpleNN(), batches, steps=3, grad_accum=9, progress=False)


def test_tensor_batches_order_depends_on_seed_and_epoch():
    x, y = torch.arange(20.0), torch.arange(20)
    b = train.TensorBatches(x, y, 5, seed=3)
    first = [t[1].tolist() for t in b]
    assert [t[1].tolist() for t in b] == first  # re-iterable, same epoch -> same order
    b.set_epoch(1)
    assert [t[1].tolist() for t in b] != first
    assert sorted(i for batch in first for i in batch) == list(range(20))


def _waits_per_window(monkeypatch, mode, steps=9, window=4):
    """Run train() and count, for each timed window, the calls that make the host wait for the
    device (item, bool, float, tolist, get_scale, hardware.synchronize) while the clock runs."""
    inside, counts, clock_reads = [False], [], []
    real_clock = train._clock

    def clock():
        inside[0] = not inside[0]
        clock_reads.append(inside[0])
        if inside[0]:
            counts.append(0)
        return real_clock()

    def counted(original):
        def wrapper(*args, **kwargs):
            # Only the loop's own reads and GradScaler's: the optimizer's .item() on its CPU step
            # counters is the same in every mode and waits for nothing.
            caller = sys._getframe(1).f_code.co_filename
            # (the step itself lives in precision/step.py, saved from lesson 03's cell)
            if inside[0] and caller.endswith(("train.py", os.path.join("precision", "step.py"), "grad_scaler.py")):
                counts[-1] += 1
            return original(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(train, "_clock", clock)
    for name in ("item", "__bool__", "__float__", "tolist"):
        monkeypatch.setattr(torch.Tensor, name, counted(getattr(torch.Tensor, name)))
    monkeypatch.setattr(torch.amp.GradScaler, "get_scale", counted(torch.amp.GradScaler.get_scale))
    monkeypatch.setattr(train.hardware, "synchronize", counted(train.hardware.synchronize))
    _, h = _run(mode, steps=steps, time_window=window, scaler_options={"init_scale": 2.0**8})
    monkeypatch.undo()
    assert clock_reads == [True, False] * len(counts)  # every window's clock stopped
    return counts, h


def test_every_precision_waits_the_same_inside_the_timed_window(monkeypatch):
    """Reading the loss or the scale inside the window made fp16 wait more often than bf16/fp32,
    so the comparison measured sync overhead. Now: one wait per step (the inf check), one at the end."""
    results = {mode: _waits_per_window(monkeypatch, mode) for mode in ("fp32", "bf16", "fp16")}
    sizes = [1, 3, 4, 1]  # step 1 alone (warm-up), then windows ending at multiples of 4, then the last step
    for mode, (counts, h) in results.items():
        assert counts == [n + 1 for n in sizes], mode
        # steps of one window share its mean time
        assert len(set(h.step_times_s[1:4])) == 1 and len(set(h.step_times_s[4:8])) == 1
        assert h.steps == 9 and len(h.scales) == 9 and all(math.isfinite(v) for v in h.losses)


def test_time_window_must_be_positive():
    x, y = _data(32)
    with pytest.raises(ValueError, match="time_window=0"):
        train.train(SimpleNN(), train.TensorBatches(x, y, 8), steps=1, time_window=0, progress=False)
