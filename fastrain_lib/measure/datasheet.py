"""Vendors' published GPU peaks (dense, no sparsity), matched by the exact name the driver reports.

Read it through `fastrain_lib.measure.hardware` (which re-exports it): hardware is the one place that
answers hardware questions; this file only holds the table.

Why exact names: the old lookup took the first key found *inside* the name, so "NVIDIA L40S"
matched the L4 row (a third of its speed) and "NVIDIA H100 PCIe" the SXM row, giving an MFU
that could pass 100%. A GPU that is not in the table gets no datasheet peak at all: its MFU is
shown as unknown rather than wrong.

Every row's numbers come from the source it names (dense figures; NVIDIA's datasheets print the
sparse figure with an asterisk, twice the dense one). fp16 is the tensor-core rate with fp32
accumulation, which is what PyTorch's autocast uses (GeForce cards run fp16 accumulation twice as
fast; we do not use it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sheet:
    """One GPU model's published peaks."""

    key: str  # short name used in tables and plots ("A100 SXM 80GB")
    names: tuple[str, ...]  # exact names as torch.cuda.get_device_name returns them
    tflops_fp16: float  # fp16 tensor-core TFLOP/s, dense, fp32 accumulate (bf16 the same where fast_bf16)
    tflops_fp32: float  # plain fp32 TFLOP/s (no TF32)
    bandwidth_gbs: float  # memory bandwidth, GB/s
    fast_bf16: bool  # bf16 tensor cores (Ampere, sm80+)
    source: str  # where the numbers come from
    tflops_tf32: float | None = None  # dense TF32 tensor-core TFLOP/s, where it exists
    memory_gb: float | None = None

    @property
    def name(self) -> str:  # kept for older callers: the row's display name
        return f"NVIDIA {self.key}"


_V100 = "NVIDIA V100 Tensor Core GPU datasheet (2020)"
_A100 = "NVIDIA A100 Tensor Core GPU datasheet (2021)"
_H100 = "NVIDIA H100 Tensor Core GPU datasheet (2023)"
_H200 = "NVIDIA H200 Tensor Core GPU datasheet (2024)"

# Ordered: the first row that lists the name wins. Names are compared after normalize().
ROWS: tuple[Sheet, ...] = (
    Sheet("T4", ("Tesla T4", "NVIDIA T4"), 65, 8.1, 320, False, "NVIDIA T4 Tensor Core GPU datasheet", None, 16),
    # no tensor cores: its fp16 figure is the plain fp16 rate (the source is shown in Bengali lines: its title only)
    Sheet("P100 PCIe 16GB", ("Tesla P100-PCIE-16GB",), 18.7, 9.3, 732, False, "NVIDIA Tesla P100 datasheet", None, 16),
    Sheet("V100 PCIe", ("Tesla V100-PCIE-16GB", "Tesla V100-PCIE-32GB"), 112, 14, 900, False, _V100, None, 32),
    Sheet("V100 SXM2", ("Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB"), 125, 15.7, 900, False, _V100, None, 32),
    Sheet("V100S PCIe", ("Tesla V100S-PCIE-32GB",), 130, 16.4, 1134, False, _V100, None, 32),
    Sheet("A100 PCIe 40GB", ("NVIDIA A100-PCIE-40GB",), 312, 19.5, 1555, True, _A100, 156, 40),
    Sheet("A100 PCIe 80GB", ("NVIDIA A100 80GB PCIe",), 312, 19.5, 1935, True, _A100, 156, 80),
    Sheet("A100 SXM 40GB", ("NVIDIA A100-SXM4-40GB",), 312, 19.5, 1555, True, _A100, 156, 40),
    Sheet("A100 SXM 80GB", ("NVIDIA A100-SXM4-80GB",), 312, 19.5, 2039, True, _A100, 156, 80),
    Sheet("A10", ("NVIDIA A10",), 125, 31.2, 600, True, "NVIDIA A10 Tensor Core GPU datasheet", 62.5, 24),
    Sheet("L4", ("NVIDIA L4",), 121, 30.3, 300, True, "NVIDIA L4 Tensor Core GPU datasheet", 60, 24),
    Sheet("L40", ("NVIDIA L40",), 181.05, 90.5, 864, True, "NVIDIA L40 GPU datasheet", 90.5, 48),
    Sheet("L40S", ("NVIDIA L40S",), 362.05, 91.6, 864, True, "NVIDIA L40S GPU datasheet", 183, 48),
    Sheet("H100 PCIe", ("NVIDIA H100 PCIe",), 756.5, 51, 2000, True, _H100, 378, 80),
    Sheet("H100 SXM", ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"), 989.5, 67, 3350, True, _H100, 494.5, 80),
    Sheet("H100 NVL", ("NVIDIA H100 NVL",), 835.5, 60, 3900, True, _H100, 417.5, 94),
    Sheet("H200 SXM", ("NVIDIA H200",), 989.5, 67, 4800, True, _H200, 494.5, 141),
    Sheet("H200 NVL", ("NVIDIA H200 NVL",), 835.5, 60, 4800, True, _H200, 417.5, 141),
    Sheet("RTX 3090", ("NVIDIA GeForce RTX 3090",), 71, 35.6, 936, True,
          "NVIDIA Ampere GA102 GPU architecture whitepaper (fp16 tensor, fp32 accumulate)", 35.6, 24),
    Sheet("RTX 4090", ("NVIDIA GeForce RTX 4090",), 165.2, 82.6, 1008, True,
          "NVIDIA Ada GPU architecture whitepaper (fp16 tensor, fp32 accumulate)", 82.6, 24),
)

# Short keys older code and plots use ("T4", "A100", "H100"): the most common form of each model.
DATASHEET: dict[str, Sheet] = {
    "T4": ROWS[0], "V100": ROWS[3], "A100": ROWS[8], "L4": ROWS[10], "H100": ROWS[14], "H200": ROWS[16],
}


def normalize(name: str) -> str:
    """Driver names differ only in case and spacing between tools; compare them without those."""
    return " ".join(name.upper().split())


def datasheet_for(gpu_name: str) -> Sheet | None:
    """The row whose names include this exact driver name, or None for a GPU we do not know."""
    wanted = normalize(gpu_name or "")
    for row in ROWS:
        if wanted in (normalize(n) for n in row.names):
            return row
    return None
