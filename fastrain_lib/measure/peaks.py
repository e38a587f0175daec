"""Peaks and MFU: one peak for every MFU in the course (a GPU's datasheet figure, or on a CPU/Mac
the best matmul measured here), and the MFU arithmetic. Re-exported by hardware.py."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch

from fastrain_lib.core import config
from fastrain_lib.core.dtypes import AUTOCAST_DTYPES
from fastrain_lib.core.i18n import t
from fastrain_lib.measure.datasheet import Sheet, datasheet_for
from fastrain_lib.measure.probe import Facts, synchronize


@dataclass(frozen=True)
class Peak:
    """The FLOP/s an MFU divides by, and where it comes from."""

    flops: float | None  # FLOP/s; None when unknown (a GPU missing from the datasheet table)
    bandwidth: float | None  # bytes/s where known
    kind: str  # "datasheet", "measured" or "unknown"
    label: str  # what to print beside the number (catalog text)
    source: str  # the datasheet's name, or what was measured

    @property
    def tflops(self) -> float | None:
        return None if self.flops is None else self.flops / 1e12


def sheet_tflops(sheet: Sheet, precision: str) -> float:
    """A datasheet row's TFLOP/s for a precision (bf16 without bf16 tensor cores: the fp32 rate)."""
    if precision == "fp16" or (precision == "bf16" and sheet.fast_bf16):
        return sheet.tflops_fp16
    if precision == "tf32":
        return sheet.tflops_tf32 or sheet.tflops_fp32
    return sheet.tflops_fp32


def datasheet_peak(f: Facts, precision: str = "fp32") -> Peak:
    """The datasheet peak for a GPU described by `f`; kind "unknown" for a GPU not in the table."""
    sheet = datasheet_for(f.name)
    if sheet is None:
        return Peak(None, None, "unknown", t("hardware.peak_unknown", name=f.name or "?"), "")
    return Peak(sheet_tflops(sheet, precision) * 1e12, sheet.bandwidth_gbs * 1e9, "datasheet",
                t("hardware.peak_datasheet", name=sheet.key, source=sheet.source), sheet.source)


@functools.lru_cache(maxsize=16)
def measured_peak(device_type: str, precision: str = "fp32") -> Peak:
    """The best matmul FLOP/s measured here now (fp32, and `precision`'s format if fp16/bf16), with
    all the threads torch uses now (the threads a training step of this process gets)."""
    import logging

    # torch.utils.benchmark imports cpp_extension, which logs a CUDA_HOME warning on CPU-only machines.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    import torch.utils.benchmark as tbench  # heavy import, only needed here

    dtypes = [torch.float32] + ([AUTOCAST_DTYPES[precision]] if precision in AUTOCAST_DTYPES else [])
    best, best_dtype = 0.0, torch.float32
    for dtype in dtypes:
        for n in config.by_mode(ci=(256, 512), lab=(256, 512, 1024), full=(1024, 2048, 4096)):
            a = torch.randn(n, n, device=device_type).to(dtype)  # random: never time all-zero tensors
            # Timer runs on ONE thread unless told: the peak is what all of torch's threads reach
            timer = tbench.Timer("a @ a", globals={"a": a}, num_threads=torch.get_num_threads())
            timer.timeit(1)  # warm up
            seconds = timer.blocked_autorange(min_run_time=0.2).median
            synchronize(device_type)
            flops = 2 * n**3 / seconds
            if flops > best:
                best, best_dtype = flops, dtype
    name = str(best_dtype).replace("torch.", "")
    return Peak(best, None, "measured", t("hardware.peak_measured", dtype=name), f"matmul {name} ({device_type})")


def mfu(achieved_flops_per_s: float, pk: Peak | float | None) -> float | None:
    """Model FLOPs utilisation = achieved FLOP/s ÷ peak FLOP/s (PaLM, appendix B).

    None when the peak is unknown. A value above 1 means the peak or the FLOP count is wrong:
    it is returned as is, and `mfu_text` flags it instead of showing it."""
    flops = pk.flops if isinstance(pk, Peak) else pk
    if not flops or flops <= 0 or achieved_flops_per_s is None or math.isnan(achieved_flops_per_s):
        return None
    return achieved_flops_per_s / flops


def mfu_ok(value: float | None) -> bool:
    """An MFU that can be shown: known and at most 100%."""
    return value is not None and not math.isnan(value) and 0 <= value <= 1.0


def mfu_text(value: float | None) -> str:
    """'43.1%', or a clear 'unknown' / 'above 100% — a bug, not shown'."""
    if value is None or math.isnan(value):
        return t("hardware.mfu_unknown")
    if value > 1.0:
        return t("hardware.mfu_impossible")
    return f"{value * 100:.1f}%"


