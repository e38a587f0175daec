"""What machine are we on? Device detection, a hardware report, datasheet peaks.

Numbers in DATASHEET are the vendors' published peaks (dense, no sparsity), never
measurements; everything that shows them labels them "datasheet" with the source.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass

import torch

from .i18n import t


@dataclass(frozen=True)
class Peak:
    """A GPU's published peak throughput (dense) and memory bandwidth."""

    name: str
    tflops_fp16: float  # fp16/bf16 tensor-core TFLOP/s (dense)
    tflops_fp32: float  # plain fp32 (no TF32) TFLOP/s
    bandwidth_gbs: float  # memory bandwidth, GB/s
    fast_bf16: bool
    source: str
    tflops_tf32: float | None = None  # dense TF32 tensor-core TFLOP/s, where it exists


DATASHEET: dict[str, Peak] = {
    "T4": Peak("NVIDIA T4", 65, 8.1, 320, False, "NVIDIA T4 Tensor Core GPU datasheet"),
    "V100": Peak("NVIDIA V100 SXM2", 125, 15.7, 900, False, "NVIDIA V100 Tensor Core GPU datasheet"),
    "A100": Peak("NVIDIA A100 80GB SXM", 312, 19.5, 2039, True, "NVIDIA A100 Tensor Core GPU datasheet", 156),
    "L4": Peak("NVIDIA L4", 121, 30.3, 300, True, "NVIDIA L4 Tensor Core GPU datasheet", 60),
    "H100": Peak("NVIDIA H100 SXM", 989, 67, 3350, True, "NVIDIA H100 Tensor Core GPU datasheet", 494),
    "H200": Peak("NVIDIA H200 SXM", 989, 67, 4800, True, "NVIDIA H200 Tensor Core GPU datasheet", 494),
}


def datasheet_for(gpu_name: str) -> Peak | None:
    """The datasheet entry whose key appears in a GPU name ('Tesla T4' -> T4), or None."""
    upper = gpu_name.upper()
    for key, peak in DATASHEET.items():
        if key in upper:
            return peak
    return None


def available_devices() -> list[str]:
    """Device types that work here, fastest first, always ending with 'cpu'."""
    devices = []
    if torch.cuda.is_available():
        devices.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append("mps")
    return devices + ["cpu"]


def best_device() -> torch.device:
    """The seeds' choice, generalised: cuda if present, else mps, else cpu."""
    return torch.device(available_devices()[0])


def check_device(device: str | torch.device) -> torch.device:
    """A device that really exists here, or a clear message saying what to pick instead."""
    device = torch.device(device)
    if device.type not in available_devices():
        raise RuntimeError(t("hw.device_missing", device=device.type, available=", ".join(available_devices())))
    return device


def is_colab() -> bool:
    """True inside Google Colab (its runtime ships the google.colab package)."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def cpu_name() -> str:
    """The CPU model as the OS reports it (falls back to platform.processor())."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_info(index: int = 0) -> dict:
    """Name, memory and tensor-core abilities of CUDA GPU `index` ({} without CUDA)."""
    if not torch.cuda.is_available():
        return {}
    props = torch.cuda.get_device_properties(index)
    major, minor = props.major, props.minor
    return {
        "gpu_name": props.name,
        "gpu_memory_gb": round(props.total_memory / 1e9, 1),
        "compute_capability": f"{major}.{minor}",
        "gpu_count": torch.cuda.device_count(),
        # Tensor cores: fp16 since Volta (7.0); fast bf16 and TF32 since Ampere (8.0).
        "fp16_tensor_cores": major >= 7,
        "bf16_fast": major >= 8,
    }


def report() -> dict:
    """The facts about this machine that explain its timings (used in every result record)."""
    info = {
        "os": platform.platform(terse=True),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_version": torch.version.cuda,
        "cpu_name": cpu_name(),
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "devices": available_devices(),
        "colab": is_colab(),
    }
    info.update(gpu_info())
    if torch.cuda.is_available():
        info["driver"] = _nvidia_driver()
    return info


def _nvidia_driver() -> str | None:
    try:
        import subprocess

        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False,
        )
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def report_table(info: dict | None = None) -> list[tuple[str, str]]:
    """The report as (Bengali/English label, value) rows."""
    info = info or report()
    yes, no = t("common.yes"), t("common.no")
    rows = [
        (t("hw.cpu"), f"{info['cpu_name']} — {info['cpu_cores']} {t('hw.cores')}"),
        (t("hw.torch"), info["torch"]),
        (t("hw.cuda"), info["cuda_version"] or t("hw.none")),
        (t("hw.devices"), ", ".join(info["devices"])),
        (t("hw.colab"), yes if info["colab"] else no),
    ]
    if "gpu_name" in info:
        rows += [
            (t("hw.gpu"), f"{info['gpu_name']} × {info['gpu_count']}"),
            (t("hw.gpu_memory"), f"{info['gpu_memory_gb']} GB"),
            (t("hw.cc"), info["compute_capability"]),
            (t("hw.fp16_tc"), yes if info["fp16_tensor_cores"] else no),
            (t("hw.bf16_fast"), yes if info["bf16_fast"] else no),
        ]
    else:
        rows.append((t("hw.gpu"), t("hw.no_gpu")))
    return rows


def show_report(info: dict | None = None):
    """Display the hardware report as an HTML table in a notebook (text elsewhere)."""
    from .widgets import html_table

    rows = report_table(info)
    html = html_table([t("hw.item"), t("hw.value")], rows)
    try:
        from IPython.display import HTML, display

        display(HTML(html))
    except ImportError:  # plain Python: print instead
        for label, value in rows:
            print(f"{label}: {value}")


def datasheet_rows() -> list[tuple]:
    """Datasheet peaks as table rows, each labelled with its source."""
    return [
        (p.name, p.tflops_fp16, p.tflops_fp32, p.bandwidth_gbs, t("common.yes") if p.fast_bf16 else t("common.no"),
         f"{t('hw.datasheet')}: {p.source}")
        for p in DATASHEET.values()
    ]
