import sys
import types

import pytest
import torch

from fastrain_lib import hardware


def test_devices_end_with_cpu():
    devices = hardware.available_devices()
    assert devices[-1] == "cpu"
    assert ("cuda" in devices) == torch.cuda.is_available()
    assert hardware.best_device().type == devices[0]


def test_check_device_rejects_missing_device():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(RuntimeError, match="cpu"):
        hardware.check_device("cuda")
    assert hardware.check_device("cpu").type == "cpu"


def test_report_has_provenance_fields():
    info = hardware.report()
    for key in ("torch", "cpu_name", "cpu_cores", "devices", "python", "colab"):
        assert key in info
    assert info["torch"] == torch.__version__
    rows = hardware.report_table(info)
    assert any("PyTorch" in label for label, _ in rows)


def test_report_table_for_a_gpu_machine():
    info = hardware.report() | {
        "gpu_name": "Tesla T4", "gpu_count": 1, "gpu_memory_gb": 15.8, "compute_capability": "7.5",
        "fp16_tensor_cores": True, "bf16_fast": False,
    }
    values = dict(hardware.report_table(info))
    assert "Tesla T4 × 1" in values.values()


@pytest.mark.parametrize("name,key", [("Tesla T4", "T4"), ("NVIDIA A100-SXM4-80GB", "A100"),
                                      ("NVIDIA H100 80GB HBM3", "H100"), ("NVIDIA H200", "H200"),
                                      ("NVIDIA L4", "L4"), ("Tesla V100-SXM2-16GB", "V100")])
def test_datasheet_lookup(name, key):
    assert hardware.datasheet_for(name) is hardware.DATASHEET[key]


def test_datasheet_is_labelled_with_sources():
    assert hardware.datasheet_for("GeForce GTX 1050") is None
    for peak in hardware.DATASHEET.values():
        assert "datasheet" in peak.source.lower()
        assert peak.tflops_fp16 > peak.tflops_fp32 > 0 and peak.bandwidth_gbs > 0
    assert hardware.DATASHEET["T4"].fast_bf16 is False  # FACTS.md: no fast bf16 on a T4
    for row in hardware.datasheet_rows():
        assert "NVIDIA" in row[-1]


def test_colab_detection(monkeypatch):
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert hardware.is_colab() is False
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert hardware.is_colab() is True
