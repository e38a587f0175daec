"""fastrain_lib.precision.amp: formats from torch.finfo, mode checks, loss-scaling statistics, memory."""

import math

import pytest
import torch

from fastrain_lib.models import SimpleNN
from fastrain_lib.precision import amp as precision
from fastrain_lib.precision import formats, fp32_regions


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
    assert formats.overflow_share(values, scale=2.0**16) == pytest.approx(0.2)
    assert formats.underflow_share(torch.zeros(3)) == 0.0


def test_real_gradients_and_overflow_hook():
    torch.manual_seed(0)
    model = SimpleNN(hidden=16)
    x, y = torch.rand(8, 1, 28, 28), torch.randint(0, 10, (8,))
    grads = precision.real_gradients(model, x, y)
    assert grads.numel() == sum(p.numel() for p in model.parameters())
    assert all(p.grad is None for p in model.parameters())
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


def test_autocast_dtypes_reports_low_precision_matmul():
    rows = dict(precision.autocast_dtypes("cpu", "bf16"))
    assert rows["a @ b (matmul)"] == "bfloat16"
    assert rows["cross_entropy"] == "float32"  # autocast keeps losses in fp32


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
    h, w, y = fp32_regions.large_logits()
    logits = h @ w.T
    assert logits.abs().max() > 20  # large logits, as promised
    ref = torch.nn.functional.cross_entropy(logits.double(), y).item()
    assert abs(fp32_regions.naive_cross_entropy(logits, y).item() - ref) < 1e-4
    assert not torch.isfinite(fp32_regions.naive_cross_entropy(logits.half(), y))  # exp(30) = inf in fp16
    fn = fp32_regions.fp32_cross_entropy("cpu")
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
