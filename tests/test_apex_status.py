"""apex_status() tells apart the four situations, on real package layouts in a temp dir."""

import sys

import pytest

from fastrain_lib.fused import apex


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("apex", "amp_C", "fused_layer_norm_cuda"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


def test_not_installed(fake_site, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "apex" else real(name, *a))
    status = apex.apex_status()
    assert status.state == "missing" and not status.fused_adam
    assert "fused=True" in apex.ApexStatus("missing", False, False).message


def test_wrong_pypi_package(fake_site):
    # PyPI's 'apex' (a Pyramid web toolkit): a package without optimizers/ or normalization/.
    pkg = fake_site / "apex"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise SyntaxError('python 2 code')\n")
    status = apex.apex_status()
    assert status.state == "wrong_package"
    assert "pip uninstall apex" in status.message


def test_nvidia_apex_without_extensions(fake_site):
    pkg = fake_site / "apex"
    for sub in ("optimizers", "normalization"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    status = apex.apex_status()
    assert status.state == "no_extensions"
    assert "APEX_CUDA_EXT=1" in status.message


def test_nvidia_apex_with_extensions(fake_site):
    pkg = fake_site / "apex"
    for sub in ("optimizers", "normalization"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (fake_site / "amp_C.py").write_text("")
    (fake_site / "fused_layer_norm_cuda.py").write_text("")
    status = apex.apex_status()
    assert status.state == "ok" and status.fused_adam and status.fused_layer_norm
    assert "adam_w_mode=True" in status.message
