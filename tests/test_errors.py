"""fastrain_lib.core.errors: real PyTorch errors, triggered on a CPU, are classified and explained."""

import pytest
import torch
from torch import nn

from fastrain_lib.core import errors


def raised(fn) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def device_mismatch():
    # A CPU model fed a tensor on the 'meta' device: the same device check that fires for cpu vs cuda.
    return raised(lambda: nn.Linear(4, 2)(torch.randn(3, 4, device="meta")))


def test_device_mismatch_with_meta_is_a_real_runtime_error():
    exc = device_mismatch()
    assert type(exc) is RuntimeError
    assert errors.classify(exc) == "device"
    assert errors.classify(raised(lambda: torch.randn(3) + torch.randn(3, device="meta"))) == "device"


def test_cuda_style_device_message_is_recognised():
    exc = RuntimeError("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!")
    found = errors.explanation(exc, lang="en")
    assert found.category == "device"
    assert "cuda:0, cpu" in found.text
    conv = RuntimeError("Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same")
    assert errors.classify(conv) == "device"
    conv_dtype = RuntimeError("Input type (torch.DoubleTensor) and weight type (torch.FloatTensor) should be the same")
    assert errors.classify(conv_dtype) == "dtype"


def test_dtype_mismatch():
    assert errors.classify(raised(lambda: torch.randn(2, 3) @ torch.randn(3, 2, dtype=torch.float64))) == "dtype"
    assert errors.classify(raised(lambda: nn.Linear(3, 2)(torch.randn(2, 3, dtype=torch.float64)))) == "dtype"
    wrong_target = raised(lambda: nn.CrossEntropyLoss()(torch.randn(4, 10), torch.rand(4)))
    assert errors.classify(wrong_target) == "dtype"


def test_shape_mismatch():
    assert errors.classify(raised(lambda: nn.Linear(4, 2)(torch.randn(2, 3)))) == "shape"
    assert errors.classify(raised(lambda: torch.randn(3) + torch.randn(4))) == "shape"
    assert errors.classify(raised(lambda: torch.randn(6).view(4, 2))) == "shape"
    batch = raised(lambda: nn.functional.cross_entropy(torch.randn(4, 10), torch.zeros(3, dtype=torch.long)))
    assert errors.classify(batch) == "shape"


def test_out_of_memory():
    exc = torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
    assert errors.classify(exc) == "oom"
    assert errors.classify(RuntimeError("MPS backend out of memory")) == "oom"


def test_other_names_the_exception_type():
    exc = KeyError("weights")
    assert errors.classify(exc) == "other"
    assert "KeyError" in errors.explain(exc)


def test_explain_is_bengali_by_default_and_english_on_request(monkeypatch):
    exc = device_mismatch()
    monkeypatch.delenv("FASTRAIN_LANG", raising=False)
    bn = errors.explain(exc)
    assert "ডিভাইস" in bn and ".to(device)" in bn
    assert "not on the expected device" in bn  # the original error is shown too
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    en = errors.explain(exc)
    assert en.startswith("Device mismatch") and "ডিভাইস" not in en


def test_every_category_has_both_languages():
    from fastrain_lib.core.i18n import CATALOG

    for category in errors.CATEGORIES:
        texts = CATALOG[f"errors.{category}"]
        assert texts["bn"] and texts["en"]


def test_explained_swallows_and_records(capsys):
    with errors.explained() as caught:
        nn.Linear(4, 2)(torch.randn(3, 4, device="meta"))
    assert caught.category == "device"
    assert isinstance(caught.exception, RuntimeError)
    out = capsys.readouterr().out
    assert "মূল ত্রুটি" in out or "original error" in out


def test_explained_lets_success_and_interrupts_through():
    with errors.explained(show=False) as caught:
        value = 1 + 1
    assert value == 2 and caught.exception is None and caught.category is None
    with pytest.raises(KeyboardInterrupt), errors.explained(show=False):
        raise KeyboardInterrupt


def test_explained_expect():
    with pytest.raises(AssertionError), errors.explained(show=False, expect="device"):
        pass
    # a different kind than expected is not hidden
    with pytest.raises(RuntimeError), errors.explained(show=False, expect="device"):
        torch.randn(3) + torch.randn(4)
    with pytest.raises(ValueError):
        errors.explained(expect="nonsense")


def test_panel_uses_explain():
    from fastrain_lib.ui import widgets

    assert "KeyError" in widgets.explain_error(KeyError("x"))
    assert errors.explain(device_mismatch()) == widgets.explain_error(device_mismatch())


def test_explanation_text_forms():
    found = errors.explanation(device_mismatch(), lang="en")
    assert str(found) == found.text
    assert found.error in repr(found) and found.text in repr(found)
    assert found.error in found._repr_html_()


def test_oom_advice_matches_lesson_02_accumulate_without_the_graph():
    """Lesson 02 keeps the loss with loss.detach() and calls .item() rarely; the OOM advice must agree
    (the old advice 'keep loss.item(), not the tensor' contradicted it and hid why memory grows)."""
    from fastrain_lib.core.i18n import t
    bn, en = t("errors.oom", "bn"), t("errors.oom", "en")
    for text in (bn, en):
        assert "loss.detach()" in text and ".item()" in text and "total += loss" in text
    assert "graph" in en and "গ্রাফ" in bn
    assert "accumulate loss.item(), not the loss tensor" not in en
    lesson = (__import__("pathlib").Path(__file__).parents[1] / "notebooks" / "02_to_device.ipynb").read_text(encoding="utf-8")
    assert "losses.append(loss.detach())" in lesson
