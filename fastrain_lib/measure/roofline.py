"""The roofline model: how fast can an operation possibly run on a machine?

A machine has two limits: how many FLOPs per second it can compute (the flat "roof")
and how many bytes per second its memory can deliver (the slanted part). An operation
doing I FLOPs per byte moved (its arithmetic intensity) can reach at most

    attainable GFLOP/s = min(peak GFLOP/s, bandwidth GB/s x I)

Left of the ridge point (I = peak / bandwidth) an operation is memory-bound, right of
it compute-bound. Williams, Waterman & Patterson, "Roofline", CACM 52(4), 2009.

Roofs come from three places, and the plot says which: measured here now
(`measured_roof`), loaded from one reference/ run each
(`panels.lesson01.reference_roofs`, through `reference.roof`), or a vendor
datasheet (`datasheet_roofs`, labelled "ডেটাশিট" with its source).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from fastrain_lib.measure import bench, hardware
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.ui.progress import progress


@dataclass
class Roof:
    """One machine's two limits, and where the numbers came from."""

    label: str
    peak_gflops: float
    bandwidth_gbs: float
    kind: str = "measured"  # "measured", "reference" or "datasheet"
    records: list = field(default_factory=list)  # the measurements behind a measured roof

    @property
    def noisy(self) -> bool:
        """True when a measurement behind this roof was noisy (the machine was busy)."""
        return any(getattr(r, "noisy", False) for r in self.records)

    @property
    def ridge(self) -> float:
        """FLOPs per byte where memory stops being the limit."""
        return self.peak_gflops / self.bandwidth_gbs

    def attainable(self, intensity: float) -> float:
        """The most GFLOP/s an operation of this intensity can reach here."""
        return min(self.peak_gflops, self.bandwidth_gbs * intensity)


# ---------------------------------------------------------------- counting FLOPs and bytes


def matmul_flops(n: int) -> int:
    """n x n times n x n: n² outputs, each n multiplies and n adds."""
    return 2 * n**3


def matmul_bytes(n: int, bytes_per_element: int = 4) -> int:
    """Read A and B, write C, each n² elements (the least traffic possible)."""
    return 3 * n**2 * bytes_per_element


def matmul_intensity(n: int, bytes_per_element: int = 4) -> float:
    """2n³ / 3n²b = 2n / 3b: grows with n, so big matmuls are compute-bound."""
    return matmul_flops(n) / matmul_bytes(n, bytes_per_element)


def add_intensity(bytes_per_element: int = 4) -> float:
    """c = a + b: one FLOP per element, three elements moved: tiny, always memory-bound."""
    return 1 / (3 * bytes_per_element)


def bound(intensity: float, peak_gflops: float, bandwidth_gbs: float) -> str:
    """'compute' or 'memory': which limit an operation of this intensity hits first."""
    return "compute" if intensity >= peak_gflops / bandwidth_gbs else "memory"


# ---------------------------------------------------------------- where roofs come from


def peak_sizes(device: str) -> tuple[int, int]:
    """(largest matmul n, copy elements) big enough to approach the peaks, by run mode and device."""
    if torch.device(device).type == "cuda":
        return config.by_mode(ci=1024, lab=4096, full=8192), config.by_mode(ci=2**22, lab=2**26, full=2**28)
    return config.by_mode(ci=256, lab=1024, full=2048), config.by_mode(ci=2**20, lab=2**24, full=2**26)


def measured_roof(device: str = "cpu", dtype: torch.dtype = torch.float32, label: str | None = None) -> Roof:
    """This machine's roof from its measured ceilings, as the benchmark suite measures them:
    the best GFLOP/s of matmuls up to the largest size (a single size can miss the peak:
    too small and call overhead dominates), and the best GB/s of the four streaming kernels
    over a large tensor (bench.stream_bandwidth: a copy alone reads low on many CPUs). Each
    measurement carries its noise verdict; roof.noisy says whether the machine was busy."""
    n, numel = peak_sizes(device)
    jobs = [lambda size=size: [bench.matmul(size, device=device, dtype=dtype)] for size in (n // 2, n)]
    jobs.append(lambda: bench.stream_bandwidth(numel, device=device, dtype=dtype))
    done = [job() for job in progress(jobs, "roofline.progress", device=device)]  # ~20 s on a busy 2-core PC
    matmuls, streams = done[0] + done[1], done[2]
    name = label or plots.label("roofline.measured", device=device)
    peak = max(m.metrics["gflops"] for m in matmuls)
    return Roof(name, peak, max(r.metrics["gbs"] for r in streams), "measured", matmuls + streams)


def datasheet_roofs(keys=("T4", "A100", "H100"), precision: str = "fp32") -> list[Roof]:
    """Vendor peaks from hardware.DATASHEET, labelled as datasheet figures with their source."""
    roofs = []
    for key in keys:
        peak = hardware.DATASHEET[key]
        tflops = peak.tflops_fp32 if precision == "fp32" else peak.tflops_fp16
        label = plots.label("roofline.datasheet", gpu=key, precision=precision, source=peak.source)
        roofs.append(Roof(label, tflops * 1000, peak.bandwidth_gbs, "datasheet"))
    return roofs


# ---------------------------------------------------------------- the plot

_STYLE = {"measured": "-", "reference": "-.", "datasheet": ":"}


def plot(ax, roofs: list[Roof], points: list[tuple[str, float, float]] = (), *, title: str | None = None,
         marked: list[bool] | None = None):
    """Draw each roof (log-log) and the measured operations as points (label, FLOP/byte, GFLOP/s).
    marked: one bool per point; a marked point (noisy, or above its own roof) is ringed in red and
    its label gets a ⚠."""
    import numpy as np

    intensities = [p[1] for p in points] + [r.ridge for r in roofs]
    low = min([0.01] + intensities) / 2
    high = max([1000.0] + intensities) * 2
    x = np.logspace(np.log10(low), np.log10(high), 200)
    colors = plots.accessible_colors()
    for i, roof in enumerate(roofs):
        y = np.minimum(roof.peak_gflops, roof.bandwidth_gbs * x)
        width = 2.5 if roof.kind == "measured" else 1.5
        name = f"⚠ {roof.label} ({plots.label('noise.noisy_word')})" if roof.noisy else roof.label
        ax.plot(x, y, _STYLE.get(roof.kind, "-"), lw=width, color=colors[i % len(colors)], label=name)
    flags = list(marked) if marked is not None else [False] * len(points)
    ringed = False
    for (name, intensity, gflops), flag in zip(points, flags):
        ax.plot([intensity], [gflops], "o", ms=7, color="black")
        if flag:
            ax.plot([intensity], [gflops], "o", ms=14, markerfacecolor="none", markeredgecolor=plots.NOISY_COLOR,
                    markeredgewidth=2, label=None if ringed else plots.label("roofline.marked_point"))
            ringed = True
        ax.annotate(("⚠ " if flag else "") + name, (intensity, gflops), textcoords="offset points", xytext=(5, -12),
                    fontsize=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(plots.label("roofline.xlabel"))
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title or plots.label("roofline.title"))
    plots.figure_legend(ax.figure, (ax,))  # outside: points stay visible, the plot keeps its width
    return ax
