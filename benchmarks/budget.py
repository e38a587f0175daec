"""`--mode gpu`: the suite sized to one GPU's ceilings so that it fits `make gpu-check`'s budget, and
the estimate of how long each family takes (printed by `make gpu-check DRY_RUN=1`).

Full mode fixes its sizes (an 8192³ matmul, 2^28 floats, a 24-layer × 1024 optimizer): about 176 s
at 100% of an H200's datasheet peak and about 870 s on a T4, and its optimizer alone holds ~14.6 GB of
AdamW state in a T4's 15.8 GB. GPU mode instead derives the sizes that depend on the device from its
ceilings (measured when the suite has measured them, else the datasheet row):
- one timed call of a ceiling kernel takes about TARGET_CALL_S at the device's peak, so every call
  is long enough to time (≫ the ~10 µs launch) and the number of calls, not the GPU, sets the time;
- no family holds more than MEMORY_SHARE of the GPU's memory.
Everything else runs at lab sizes (FASTRAIN_MODE=lab: the sizes the notebooks use), with lab's rounds
and round times, and the families that compile (layernorm's compiled variant, the compile family, the
ablation's compile stage) are left out: a cold torch.compile with Triton on a GPU takes tens of seconds
per graph, more than the whole family measures. `--mode full` keeps them for long runs.

The estimate counts what a family does (variants × rounds × seconds per round, plus warm-up and set-up)
with the suite's own timing constants; it is an upper bound of the measuring, not a guess of speed:
sizes follow the device, so the time does not."""

from __future__ import annotations

import math
from dataclasses import dataclass

TARGET_CALL_S = 0.004  # seconds of one timed ceiling call at the device's peak
MEMORY_SHARE = 0.10  # most of the GPU's memory one family may hold
GPU_FAMILIES = ("matmul", "copy", "optim", "layernorm", "amp", "capstone", "ddp", "ablation")  # no "compile"
SETUP_S = 20.0  # python + torch + CUDA context + the suite's 0.5 s idle window, once per run
MEASURE_S = 0.3  # lab's bench.measure min_run_time (fastrain_lib.measure.bench.measure)
CALL_OVERHEAD_S = 0.15  # warm-up calls and torch.utils.benchmark's own calibration per measure()
LAB_ROUNDS, LAB_MICRO_ROUNDS, LAB_ROUND_S, LAB_MIN_STEPS = 5, 9, 0.6, 5  # benchmarks.common / optim / steps (lab)
GPT_BUILD_S = 2.0  # build a tiny GPT, its optimizer and batches on the GPU
CAPSTONE_RUN_S = 8.0  # one capstone.run(steps=15) at lab size: data, model, 15 steps, one eval
DDP_WORLD_S = 25.0  # one torch.distributed world: start the processes, NCCL init, 30 steps, shut down


@dataclass(frozen=True)
class Device:
    """What the sizes and the estimate depend on: from a datasheet row or from facts + ceilings."""

    name: str
    capability: tuple[int, int]
    memory_gb: float
    tflops_fp16: float  # tensor-core peak (the largest matmul rate)
    tflops_fp32: float
    bandwidth_gbs: float
    count: int = 1
    apex: bool = False


def from_sheet(sheet, capability: tuple[int, int], count: int = 1) -> Device:
    """A Device from a datasheet row (fastrain_lib.measure.datasheet.Sheet)."""
    return Device(sheet.key, capability, float(sheet.memory_gb or 16), sheet.tflops_fp16, sheet.tflops_fp32,
                  sheet.bandwidth_gbs, count)


def from_facts(f, sheet=None) -> Device:
    """A Device for the GPU detected here (hardware.Facts). A GPU missing from the datasheet table is
    sized as a T4, the smallest GPU our users have, with its own memory: too small, never too big."""
    from fastrain_lib.measure.datasheet import DATASHEET

    row = sheet or DATASHEET["T4"]
    memory = (f.memory_bytes or 0) / 1e9 or float(row.memory_gb or 16)
    return Device(f.name, tuple(f.capability or (7, 5)), memory, row.tflops_fp16, row.tflops_fp32,
                  row.bandwidth_gbs, max(1, f.count))


# The four GPUs `make gpu-check DRY_RUN=1` plans for (datasheet key, compute capability).
PLANNED = (("T4", (7, 5)), ("L4", (8, 9)), ("A100", (8, 0)), ("H200", (9, 0)))


def _pow2_floor(x: float) -> int:
    return 1 << max(0, int(math.floor(math.log2(max(1.0, x)))))


def matmul_sizes(dev: Device) -> list[int]:
    """Three sizes ending where one fp16 matmul takes ~TARGET_CALL_S at the tensor-core peak, within the
    memory share (three n×n fp32 matrices), a power of two from 1024 to 8192 (T4: 4096, A100: 8192)."""
    by_time = (TARGET_CALL_S * dev.tflops_fp16 * 1e12 / 2) ** (1 / 3)
    by_memory = math.sqrt(MEMORY_SHARE * dev.memory_gb * 1e9 / (3 * 4))
    top = max(1024, min(8192, _pow2_floor(min(by_time, by_memory))))
    return [top // 4, top // 2, top]


def copy_numel(dev: Device) -> int:
    """float32 elements for the streaming kernels: a copy (8 bytes per element) takes ~TARGET_CALL_S at
    the datasheet bandwidth, within the memory share (two buffers)."""
    by_time = TARGET_CALL_S * dev.bandwidth_gbs * 1e9 / 8
    by_memory = MEMORY_SHARE * dev.memory_gb * 1e9 / 8
    return max(1 << 22, min(1 << 28, _pow2_floor(min(by_time, by_memory))))


def optim_shape(dev: Device) -> tuple[int, int]:
    """(layers, width) of the optimizer benchmark's transformer: AdamW holds 16 bytes per parameter
    (p, g, m, v in fp32) within the memory share, and one fused step moves 28 bytes per parameter in
    about 4×TARGET_CALL_S at the datasheet bandwidth. Width 1024 as in full mode; ≈12.6 M parameters
    per layer."""
    per_layer = 12 * 1024 * 1024 + 13 * 1024
    by_memory = MEMORY_SHARE * dev.memory_gb * 1e9 / 16
    by_time = 4 * TARGET_CALL_S * dev.bandwidth_gbs * 1e9 / 28
    return max(1, min(24, int(min(by_memory, by_time) // per_layer))), 1024


def sizes(dev: Device) -> dict:
    """Every size GPU mode sets (the rest are lab's)."""
    return {"matmul": matmul_sizes(dev), "copy_numel": copy_numel(dev), "optim": optim_shape(dev)}


def amp_modes(dev: Device) -> list[str]:
    """The precisions the amp family measures on this GPU: tf32 and bf16 only with Ampere's tensor cores."""
    return ["fp32", "tf32", "fp16", "bf16"] if dev.capability >= (8, 0) else ["fp32", "fp16"]


def estimate(dev: Device, families=GPU_FAMILIES) -> dict[str, float]:
    """Seconds each family of `--mode gpu` takes on `dev`, by counting its work (module docstring)."""
    per_measure = MEASURE_S + CALL_OVERHEAD_S
    step_round = max(LAB_ROUND_S, LAB_MIN_STEPS * 0.01)  # a lab GPT step on a GPU is launch-bound, ≪ 0.12 s
    amp = len(amp_modes(dev))
    found = {
        "matmul": (amp + 0) * 3 * per_measure,  # formats (tf32 only on Ampere+) × 3 sizes
        "copy": (4 + 2) * per_measure,  # four streaming kernels + pageable and pinned host copies
        "optim": (3 + dev.apex) * LAB_MICRO_ROUNDS * per_measure + 3,  # for-loop, foreach, fused (+Apex)
        "layernorm": (2 + dev.apex) * (LAB_MICRO_ROUNDS * per_measure + 1),  # naive, nn.LayerNorm (+Apex)
        "amp": amp * (GPT_BUILD_S + LAB_ROUND_S / 2 + LAB_ROUNDS * step_round),
        "capstone": (3 if dev.capability >= (8, 0) else 2) * CAPSTONE_RUN_S,  # fp32 + each fast precision
        "ddp": 0.0 if dev.count < 2 else DDP_WORLD_S * (1 + int(math.log2(min(dev.count, 4)))),
        # fp32, tf32 (Ampere+), amp, fused AdamW (+ Apex LayerNorm); no compile stage in gpu mode
        "ablation": (3 + (dev.capability >= (8, 0)) + dev.apex) * (GPT_BUILD_S + LAB_ROUND_S / 2
                                                                   + LAB_ROUNDS * step_round),
    }
    return {name: round(found[name], 1) for name in families}


def total(dev: Device, families=GPU_FAMILIES) -> float:
    return round(SETUP_S + sum(estimate(dev, families).values()), 1)
