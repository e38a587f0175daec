"""fastrain_lib.precision.amp: formats from torch.finfo, mode checks, loss-scaling statistics, memory."""

import math

import pytest
import torch

from fastrain_lib.models import SimpleNN
from fastrain_lib.precision import amp as precision
from fastrain_lib.precision import formats


def test_format_table_matches_finfo_and_ieee():
    table = {row["name"]: row for row in formats.format_table()}
    assert list(table) == list(precision.PRECISIONS)
    assert (table["fp32"]["exponent"], table["fp32"]["mantissa"]) == (8, 23)
    assert (table["fp16"]["exponent"], table["fp16"]["mantissa"]) == (5, 10)
    assert (table["bf16"]["exponent"], table["bf16"]["mantissa"]) == (8, 7)
    assert (table["tf32"]["exponent"], table["tf32"]["mantissa"], table["tf32"]["bits"]) == (8, 10, 19)
    assert table["fp16"]["max"] == 65504.0
    assert table["fp16"]["smallest_subnormal"] == 2.0**-24
    assert table["bf16"]["smallest_normal"] == torch.finfo(torch.float32).smallest_normal
    for row in table.values():
        assert row["sign"] + row["exponent"] + row["mantissa"] == row["bits"]


def test_store_and_bits():
    assert formats.store(70000.0, "fp16") == math.inf  # above fp16's max
    assert formats.store(1e-8, "fp16") == 0.0  # below fp16's smallest subnormal
    assert formats.store(1e-8, "bf16") != 0.0  # bf16 has fp32's range
    assert formats.store(0.1, "tf32") == formats.store(0.1, "fp16")  # both keep 10 mantissa bits
    assert formats.store(1.0 + 2**-11, "tf32") == 1.0  # a tie rounds to even
    sign, exponent, mantissa = formats.bit_fields(-2.0, "fp16")
    assert (sign, exponent, mantissa) == ("1", "10000", "0" * 10)
    assert formats.bit_fields(1.0, "bf16") == ("0", "01111111", "0" * 7)
    rows = formats.describe_number(0.1)
    assert [r["name"] for r in rows] == list(precision.PRECISIONS)
    assert rows[0]["rel_error"] < rows[2]["rel_error"] < rows[3]["rel_error"]


def test_check_precision_messages():
    for mode in precision.PRECISIONS:  # torch 2.14 runs every mode on a CPU
        assert precision.check_precision("cpu", mode) == mode
    with pytest.raises(ValueError, match="fp8"):
        precision.check_precision("cpu", "fp8")
    with pytest.raises(ValueError) as exc:
        precision.check_precision("cpu", "half")
    assert "fp16" in str(exc.value) and any("\u0980" <= c <= "\u09ff" for c in str(exc.value))


def test_check_precision_on_gpus_and_macs_asks_the_hardware_module(monkeypatch):
    from fastrain_lib.measure.hardware import Facts

    monkeypatch.delenv("FASTRAIN_FORCE_T4_POLICY", raising=False)
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    t4 = Facts("cuda", "Tesla T4", (7, 5), 1, 15 * 2**30)
    monkeypatch.setattr(precision.hardware, "facts", lambda device=None: t4)
    # torch.cuda.is_bf16_supported() says True on a T4 (emulation): we must still refuse bf16 there.
    with pytest.raises(ValueError, match=r"Tesla T4.*7\.5.*fp16"):
        precision.check_precision("cuda", "bf16")
    monkeypatch.setattr(precision, "_autocast_works", lambda device_type, dtype: True)
    monkeypatch.setattr(precision, "_scaler_works", lambda device_type: True)
    assert precision.check_precision("cuda", "fp16") == "fp16"
    a100 = Facts("cuda", "NVIDIA A100-SXM4-80GB", (8, 0), 1, 80 * 2**30)
    monkeypatch.setattr(precision.hardware, "facts", lambda device=None: a100)
    assert precision.check_precision("cuda", "bf16") == "bf16"
    mac = Facts("mps", "Apple MPS", count=1, probed_formats=("fp16",))  # the probe proved fp16 only
    monkeypatch.setattr(precision.hardware, "facts", lambda device=None: mac)
    assert precision.check_precision("mps", "fp16") == "fp16"
    with pytest.raises(ValueError, match="bf16"):
        precision.check_precision("mps", "bf16")


def test_check_precision_when_autocast_is_missing(monkeypatch):
    monkeypatch.setattr(precision, "_autocast_works", lambda device_type, dtype: False)
    with pytest.raises(ValueError, match="bf16"):
        precision.check_precision("cpu", "fp16")
    assert precision.supported("cpu") == ["fp32", "tf32"]


def test_autocast_and_scaler():
    a = torch.randn(4, 4)
    with precision.autocast("cpu", "bf16"):
        assert (a @ a).dtype == torch.bfloat16
    with precision.autocast("cpu", "fp32"):
        assert (a @ a).dtype == torch.float32
    assert precision.make_scaler("cpu", "fp16").is_enabled()
    assert not precision.make_scaler("cpu", "bf16").is_enabled()


def test_tf32_context_restores_settings():
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    with precision.tf32(True):
        assert torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before


def test_underflow_share():
    values = torch.tensor([1e-9, 1e-9, 1e-3, 0.0, 1.0], dtype=torch.float32)
    assert formats.underflow_share(values) == pytest.approx(0.5)  # 2 of 4 nonzero entries
    assert formats.underflow_share(values, scale=2.0**16) == 0.0
    assert formats.underflow_share(values, dtype=torch.bfloat16) == 0.0
    assert formats.underflow_share(torch.zeros(3)) == 0.0


def test_overflow_hook():
    torch.manual_seed(0)
    model = SimpleNN(hidden=16)
    x, y = torch.rand(8, 1, 28, 28), torch.randint(0, 10, (8,))
    handle = precision.inject_overflow(model, {1})
    torch.nn.functional.cross_entropy(model(x), y).backward()
    assert torch.isfinite(model.fc1.weight.grad).all()
    model.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    assert torch.isinf(model.fc1.weight.grad).all()
    handle.remove()


def test_saved_tensor_bytes_halve_in_low_precision():
    model = SimpleNN(hidden=32)
    x, y = torch.rand(16, 1, 28, 28), torch.randint(0, 10, (16,))
    fp32 = precision.saved_tensor_bytes(model, x, y, mode="fp32")
    bf16 = precision.saved_tensor_bytes(model, x, y, mode="bf16")
    # the input (16x784) and hidden activations are saved: at least 16*784*4 bytes in fp32
    assert fp32["bytes"] >= 16 * 784 * 4
    assert "bfloat16" in bf16["by_dtype"]
    assert bf16["bytes"] < 0.6 * fp32["bytes"]
    # a slice of a bigger tensor counts only its own bytes
    big = torch.rand(1000, 1, 28, 28)
    assert precision.saved_tensor_bytes(model, big[:16], y)["bytes"] == fp32["bytes"]


def test_saved_tensor_bytes_runs_the_lessons_step_and_leaves_no_gradients(monkeypatch):
    from fastrain_lib.precision import amp, step

    calls = []
    monkeypatch.setattr(amp, "amp_backward", lambda *a, **k: calls.append(k["dtype"]) or step.amp_backward(*a, **k))
    model = SimpleNN(hidden=16)
    x, y = torch.rand(4, 1, 28, 28), torch.randint(0, 10, (4,))
    assert precision.saved_tensor_bytes(model, x, y, mode="fp16")["bytes"] > 0
    assert calls == [torch.float16] and all(p.grad is None for p in model.parameters())


def test_lesson03_panel_runs_and_changes_with_its_controls(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    import matplotlib.pyplot as plt

    from fastrain_lib.lessons.l03_mixed_precision import panel as lesson03
    from fastrain_lib.ui.widgets import ExperimentPanel

    panel = lesson03.make()
    assert isinstance(panel, ExperimentPanel)
    first = panel.run(modes=("fp32", "fp16"), batch_size=16, width=64)
    assert panel.last_error is None and [row[0] for row in first.rows] == ["fp32", "fp16"]
    assert first.rows[1][2] < first.rows[0][2]  # fp16 saves fewer activation bytes
    assert len(first.records) == 2 and first.records[0].metrics["activation_bytes"] > 0
    second = panel.run(modes=("bf16",), batch_size=16, width=64)
    assert [row[0] for row in second.rows] == ["bf16"] and panel.runs == 2
    assert panel.run(modes=()) is None and isinstance(panel.last_error, ValueError)
    plt.close("all")


def test_naive_loss_overflows_in_fp16_and_the_fp32_function_does_not():
    from fastrain_lib.lessons.l03_mixed_precision.saved import fp32_cross_entropy, naive_cross_entropy

    g = torch.Generator().manual_seed(0)
    h, w = torch.randn(64, 64, generator=g), torch.randn(1000, 64, generator=g)
    w = w * (30.0 / (h @ w.T).abs().max())
    y = torch.randint(0, 1000, (64,), generator=g)
    logits = h @ w.T
    assert logits.abs().max() > 20  # large logits, as promised
    ref = torch.nn.functional.cross_entropy(logits.double(), y).item()
    assert abs(naive_cross_entropy(logits, y).item() - ref) < 1e-4
    assert not torch.isfinite(naive_cross_entropy(logits.half(), y))  # exp(30) = inf in fp16
    fn = fp32_cross_entropy("cpu")
    lg = logits.half().requires_grad_()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = fn.apply(lg, y)
    assert loss.dtype == torch.float32 and abs(loss.item() - ref) < 1e-2
    loss.backward()
    # its hand-written backward is the softmax-minus-one-hot gradient of cross_entropy
    lf = logits.half().float().requires_grad_()
    torch.nn.functional.cross_entropy(lf, y).backward()
    assert lg.grad.dtype == torch.float16
    assert torch.allclose(lg.grad.float(), lf.grad, atol=1e-3)


# ---------------------------------------------------------------------------------------
# precision/step.py: the one AMP step, saved from lesson 03's cell
# ---------------------------------------------------------------------------------------

def _tiny(seed=0):
    torch.manual_seed(seed)
    model = SimpleNN(hidden=16)
    g = torch.Generator().manual_seed(seed + 1)
    x, y = torch.rand(12, 1, 28, 28, generator=g), torch.randint(0, 10, (12,), generator=g)
    return model, x, y


def _by_hand(model, opt, scaler, x, y, dtype, max_norm):
    """The torch.amp recipe written out, to compare the library step with."""
    with torch.autocast("cpu", dtype=dtype):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_amp_step_is_the_torch_amp_recipe_and_skips_an_overflow(dtype):
    from fastrain_lib.precision.step import amp_step

    model, x, y = _tiny()
    twin = SimpleNN(hidden=16)
    twin.load_state_dict(model.state_dict())
    opts = [torch.optim.SGD(m.parameters(), lr=0.5) for m in (model, twin)]
    scalers = [torch.amp.GradScaler("cpu", init_scale=2.0**10, enabled=dtype == torch.float16) for _ in range(2)]
    for step in range(3):
        handles = [precision.inject_overflow(m, {0}) for m in (model, twin)] if step == 2 else []
        before = [p.detach().clone() for p in model.parameters()]
        loss = amp_step(model, opts[0], scalers[0], x, y, torch.nn.functional.cross_entropy, dtype=dtype, max_norm=0.1)
        want = _by_hand(twin, opts[1], scalers[1], x, y, dtype, 0.1)
        for h in handles:
            h.remove()
        assert loss.item() == want.item() and not loss.requires_grad  # the unscaled, detached loss
        # bit for bit (bf16's step 2: no scaler, both write the same nan into the weights)
        assert all(torch.allclose(a, b, rtol=0, atol=0, equal_nan=True) for a, b in zip(model.parameters(), twin.parameters()))
        assert all(p.grad is None for p in model.parameters())  # zero_grad at the end
        if step == 2 and dtype == torch.float16:  # GradScaler skipped the step and halved its scale
            assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
            assert scalers[0].get_scale() == scalers[1].get_scale() == 2.0**9


def test_amp_backward_accumulated_over_micro_batches_equals_one_big_batch():
    from fastrain_lib.precision.step import amp_backward, amp_step, amp_update

    model, x, y = _tiny()
    twin = SimpleNN(hidden=16)
    twin.load_state_dict(model.state_dict())
    opt, twin_opt = torch.optim.SGD(model.parameters(), lr=0.5), torch.optim.SGD(twin.parameters(), lr=0.5)
    off = torch.amp.GradScaler("cpu", enabled=False)
    big = amp_step(model, opt, off, x, y, torch.nn.functional.cross_entropy, max_norm=0.05)
    losses = [amp_backward(twin, off, xm, ym, torch.nn.functional.cross_entropy, accumulate=3)
              for xm, ym in zip(x.chunk(3), y.chunk(3))]
    assert amp_update(twin, twin_opt, off, max_norm=0.05)
    assert torch.stack(losses).mean().item() == pytest.approx(big.item(), rel=1e-5)
    for a, b in zip(model.parameters(), twin.parameters()):
        assert torch.allclose(a, b, atol=1e-6)


def test_amp_update_without_a_scaler_skips_an_inf_gradient_only_when_asked():
    from fastrain_lib.precision.step import amp_backward, amp_update

    for skip in (True, False):
        model, x, y = _tiny()
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        off = torch.amp.GradScaler("cpu", enabled=False)
        handle = precision.inject_overflow(model, {0})
        amp_backward(model, off, x, y, torch.nn.functional.cross_entropy, dtype=torch.bfloat16)
        handle.remove()
        stepped = amp_update(model, opt, off, skip_nonfinite=skip)
        finite = all(torch.isfinite(p).all() for p in model.parameters())
        assert stepped is (not skip) and finite is skip  # a plain step writes the inf into the weights


def test_train_steps_are_the_lessons_amp_step():
    """train() in fp16 with clipping gives the very weights of a loop of amp_step over the same batches."""
    from fastrain_lib import train
    from fastrain_lib.precision.step import amp_step

    model, x, y = _tiny()
    twin = SimpleNN(hidden=16)
    twin.load_state_dict(model.state_dict())
    batches = train.TensorBatches(torch.cat([x] * 4), torch.cat([y] * 4), 12, shuffle=False)
    options = {"init_scale": 2.0**12, "growth_interval": 2}
    h = train.train(model, batches, steps=4, precision="fp16", clip_grad=0.5, progress=False,
                    optimizer=lambda ps: torch.optim.SGD(ps, lr=0.3), scaler_options=options)
    opt, scaler = torch.optim.SGD(twin.parameters(), lr=0.3), torch.amp.GradScaler("cpu", **options)
    losses = [amp_step(twin, opt, scaler, xb, yb, train.default_loss, dtype=torch.float16, max_norm=0.5).item()
              for xb, yb in batches]
    assert h.losses == pytest.approx(losses, rel=1e-6) and h.scales[-1] == scaler.get_scale()
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), twin.parameters()))
