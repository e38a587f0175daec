"""The three regimes of a training step: overhead-bound, memory-bound, compute-bound.

Where does the time of one operation go? (Horace He, "Making Deep Learning Go Brrrr From
First Principles", 2022.) Three places:

- **overhead**: everything that is not the work itself — the Python interpreter, PyTorch's
  dispatcher, allocating the output, launching a kernel. A fixed cost per call.
- **memory**: moving the bytes the operation reads and writes (bytes / bandwidth).
- **compute**: the arithmetic (FLOPs / peak FLOP/s).

A simple model of one call:  time ≈ overhead + max(bytes / bandwidth, FLOPs / peak).
The largest of the three terms is the *regime*: the one thing worth attacking.
Later lessons name the regime each technique attacks: CUDA Graphs / torch.compile's
"reduce-overhead" -> overhead; fusion and mixed precision's smaller bytes -> memory;
tensor cores (fp16/bf16) -> compute.

Two ways to tell the regime, and this module does both:

1. **Predict** from the machine's measured limits (`Machine`: overhead per call, peak
   GFLOP/s, bandwidth GB/s) and the operation's counted FLOPs, bytes and calls (`predict`).
2. **Observe** without a model (`observe`): double the work and time it again. If the time
   barely changes (and neither limit is near), the fixed cost dominates: overhead-bound. If it doubles, the work itself
   dominates; then whichever limit the operation gets closer to (share of the bandwidth vs
   share of the peak) says memory-bound or compute-bound.

The three examples (`examples`): many tiny ops in a Python loop; a chain of elementwise ops
on a large tensor (each op reads and writes the whole tensor); one large matmul.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from fastrain_lib.measure import bench, roofline
from fastrain_lib.core import config
from fastrain_lib.ui import plots
from fastrain_lib.core.i18n import t

OVERHEAD, MEMORY, COMPUTE = "overhead", "memory", "compute"
REGIMES = (OVERHEAD, MEMORY, COMPUTE)
NAME_KEYS = {OVERHEAD: "regimes.overhead", MEMORY: "regimes.memory", COMPUTE: "regimes.compute"}
SHORT_KEYS = {OVERHEAD: "regimes.overhead_short", MEMORY: "regimes.memory_short", COMPUTE: "core.compute"}
# Doubling the work: below this time ratio the fixed cost dominates (2.0 = all work, 1.0 = all overhead).
GROWTH_LIMIT = 1.4
# Reaching this share of the bandwidth or of the peak means the op is bound by that limit, not by overhead.
NEAR_LIMIT = 0.25
# Above this share of the measured bandwidth the op's data partly stayed in a cache (said in the verdict).
ABOVE_ROOF = 1.05


# ---------------------------------------------------------------- the machine's three limits


@dataclass
class Machine:
    """One device's measured limits: seconds of fixed cost per op call, peak GFLOP/s, GB/s."""

    device: str
    overhead_s: float
    peak_gflops: float
    bandwidth_gbs: float
    records: list = field(default_factory=list)  # the measurements behind the numbers

    @property
    def noisy(self) -> bool:
        return any(getattr(r, "noisy", False) for r in self.records)

    def times(self, flops: float, bytes_moved: float, calls: int = 1) -> dict[str, float]:
        """Seconds each of the three would take alone: {'overhead', 'memory', 'compute'}."""
        return {OVERHEAD: calls * self.overhead_s, MEMORY: bytes_moved / (self.bandwidth_gbs * 1e9),
                COMPUTE: flops / (self.peak_gflops * 1e9)}

    def predicted_s(self, flops: float, bytes_moved: float, calls: int = 1) -> float:
        """The model's time: overhead + max(memory, compute)."""
        parts = self.times(flops, bytes_moved, calls)
        return parts[OVERHEAD] + max(parts[MEMORY], parts[COMPUTE])

    def border_numel(self, bytes_per_element: int = 4) -> float:
        """Elements where one elementwise op (read + write each element) stops being
        overhead-bound: its memory time equals the overhead of its one call."""
        return self.overhead_s * self.bandwidth_gbs * 1e9 / (2 * bytes_per_element)


def predict(machine: Machine, flops: float, bytes_moved: float, calls: int = 1) -> str:
    """The regime the model predicts: the largest of the three times."""
    parts = machine.times(flops, bytes_moved, calls)
    return max(REGIMES, key=lambda k: parts[k])


def shares(machine: Machine, flops: float, bytes_moved: float, calls: int = 1) -> dict[str, float]:
    """Each term's share of the three together (sums to 1): for a stacked bar."""
    parts = machine.times(flops, bytes_moved, calls)
    total = sum(parts.values()) or 1.0
    return {k: v / total for k, v in parts.items()}


def _tiny_loop(x: torch.Tensor, ops: int) -> torch.Tensor:
    for _ in range(ops):
        x = x * 1.0001  # one small op: a new tensor, one kernel, almost no work
    return x


def overhead_per_call(device: str = "cpu", ops: int = 100, **kwargs) -> bench.Record:
    """The fixed cost of one op call: `ops` multiplications of a one-element tensor, timed
    together; metrics['overhead_s'] = median / ops. On a GPU this includes launching the kernel."""
    x = bench.fresh_random(1, device=device, seed=1)
    record = bench.measure(lambda: _tiny_loop(x, ops), f"overhead {ops} ops",
                           params={"device": str(device), "ops": ops}, **kwargs)
    record.metrics["overhead_s"] = record.median_s / ops
    return record


def machine(device: str = "cpu", roof: roofline.Roof | None = None) -> Machine:
    """Measure the three limits of `device` now (a measured roof can be passed to reuse it)."""
    roof = roof or roofline.measured_roof(device)
    over = overhead_per_call(device)
    return Machine(str(device), over.metrics["overhead_s"], roof.peak_gflops, roof.bandwidth_gbs,
                   list(getattr(roof, "records", [])) + [over])


# ---------------------------------------------------------------- the three examples


@dataclass(frozen=True)
class Workload:
    """An operation to time, with its counted work: FLOPs, bytes read + written, op calls."""

    name: str
    kind: str  # the regime it is meant to show
    size: int
    flops: float
    bytes_moved: float
    calls: int


def tiny_ops(numel: int = 16, ops: int = 200) -> Workload:
    """`ops` multiplications of a `numel`-element tensor in a Python loop."""
    return Workload(f"tiny ops ×{ops}", OVERHEAD, numel, ops * numel, ops * 2 * numel * 4, ops)


CHAIN = 8  # elementwise ops in the chain


def elementwise_chain(numel: int) -> Workload:
    """relu, +b, ·a, +b, ... (8 ops, unfused, in place): each op reads and writes the whole tensor."""
    return Workload(f"elementwise ×{CHAIN}", MEMORY, numel, CHAIN * numel, CHAIN * 2 * numel * 4, CHAIN)


def big_matmul(n: int) -> Workload:
    """One n × n float32 matmul: 2n³ FLOPs over 3n² numbers."""
    return Workload(f"matmul {n}", COMPUTE, n, roofline.matmul_flops(n), roofline.matmul_bytes(n), 1)


def _chain(y: torch.Tensor) -> torch.Tensor:
    """8 elementwise ops in place (no allocation to time): each reads and writes all of y."""
    for i in range(CHAIN // 2):
        if i % 2:
            y.mul_(0.5)
        else:
            y.relu_()
        y.add_(0.25)
    return y


def runner(workload: Workload, device: str = "cpu"):
    """A function that runs `workload` once on `device` (inputs made now, never all zeros)."""
    if workload.kind == OVERHEAD:
        x = bench.fresh_random(workload.size, device=device, seed=2)
        ops = workload.calls
        return lambda: _tiny_loop(x, ops)
    if workload.kind == MEMORY:
        y = bench.fresh_random(workload.size, device=device, seed=3)
        return lambda: _chain(y)
    a = bench.fresh_random(workload.size, workload.size, device=device, seed=4)
    b = bench.fresh_random(workload.size, workload.size, device=device, seed=5)
    return lambda: a @ b


def measure(workload: Workload, device: str = "cpu", **kwargs) -> bench.Record:
    """Time a workload; metrics: seconds per call, achieved GFLOP/s and GB/s."""
    record = bench.measure(runner(workload, device), workload.name,
                           params={"device": str(device), "kind": workload.kind, "size": workload.size,
                                   "flops": workload.flops, "bytes": workload.bytes_moved,
                                   "calls": workload.calls}, **kwargs)
    record.metrics.update(gflops=record.per_second(workload.flops) / 1e9,
                          gbs=record.per_second(workload.bytes_moved) / 1e9,
                          us_per_call=record.median_s / workload.calls * 1e6)
    return record


def doubled(workload: Workload) -> Workload:
    """The same operation with twice the work (the matmul: n × 2^(1/3), so 2n³ doubles)."""
    if workload.kind == OVERHEAD:
        return tiny_ops(2 * workload.size, workload.calls)
    if workload.kind == MEMORY:
        return elementwise_chain(2 * workload.size)
    return big_matmul(round(workload.size * 2 ** (1 / 3)))


def example_sizes(device: str = "cpu") -> dict[str, int]:
    """Sizes for the three examples by run mode: big enough to leave the overhead regime. The
    elementwise chain has as many elements as the roof's bandwidth measurement
    (roofline.peak_sizes), so its share of that bandwidth compares data of the same size: a chain
    of 16 MB, in a 32 MB L3 cache, once reached "669% of the bandwidth" measured over 64 MB."""
    gpu = torch.device(device).type == "cuda"
    return {OVERHEAD: 16, MEMORY: roofline.peak_sizes(device)[1],
            COMPUTE: config.by_mode(ci=256, lab=768, full=1024) * (4 if gpu else 1)}


def examples(device: str = "cpu") -> list[Workload]:
    sizes = example_sizes(device)
    return [tiny_ops(sizes[OVERHEAD]), elementwise_chain(sizes[MEMORY]), big_matmul(sizes[COMPUTE])]


# ---------------------------------------------------------------- observing the regime


def observe(growth: float, gbs_share: float, gflops_share: float, limit: float = GROWTH_LIMIT) -> str:
    """The regime from measurements alone: `growth` = time with twice the work ÷ time before;
    the shares = achieved GB/s ÷ bandwidth and achieved GFLOP/s ÷ peak.

    An op that gets near one of the two limits (NEAR_LIMIT of it) is bound by that limit, whatever
    one noisy growth ratio says; otherwise a time that barely grows with the work is overhead."""
    if max(gbs_share, gflops_share) < NEAR_LIMIT and growth < limit:
        return OVERHEAD
    return MEMORY if gbs_share >= gflops_share else COMPUTE


@dataclass
class Finding:
    """One example measured at two sizes, with the model's prediction and the observation."""

    workload: Workload
    record: bench.Record  # at the example's size
    bigger: bench.Record  # with twice the work
    predicted: str
    observed: str
    growth: float
    gbs_share: float
    gflops_share: float
    shares: dict

    @property
    def noisy(self) -> bool:
        return self.record.noisy or self.bigger.noisy


def study(workload: Workload, mach: Machine, **kwargs) -> Finding:
    """Measure `workload` and its doubled twin on the machine's device; predict and observe."""
    return conclude(workload, measure(workload, mach.device, **kwargs),
                    measure(doubled(workload), mach.device, **kwargs), mach)


def conclude(workload: Workload, record: bench.Record, bigger: bench.Record, mach: Machine) -> Finding:
    """The finding from two measurements of `workload` (its size and twice the work), measured now or
    recorded (tests/test_regimes.py decides on a recorded quiet run): the prediction and the observation."""
    growth = bigger.median_s / record.median_s
    gbs_share = record.metrics["gbs"] / mach.bandwidth_gbs
    gflops_share = record.metrics["gflops"] / mach.peak_gflops
    return Finding(workload, record, bigger, predict(mach, workload.flops, workload.bytes_moved, workload.calls),
                   observe(growth, gbs_share, gflops_share), growth, gbs_share, gflops_share,
                   shares(mach, workload.flops, workload.bytes_moved, workload.calls))


def study_all(mach: Machine, **kwargs) -> list[Finding]:
    return [study(w, mach, **kwargs) for w in examples(mach.device)]


def display_name(workload: Workload) -> str:
    """The example's name in the reader's language (for tables, plots and sentences)."""
    if workload.kind == OVERHEAD:
        return t("regimes.name_tiny", ops=workload.calls)
    if workload.kind == MEMORY:
        return t("regimes.name_chain", ops=workload.calls)
    return t("regimes.name_matmul", n=workload.size)


def above_ceiling(f: Finding) -> bool:
    """The example beat a ceiling measured next to it (bandwidth or peak): a measurement problem."""
    return f.gbs_share > ABOVE_ROOF or f.gflops_share > ABOVE_ROOF


def finding_verdicts(f: Finding, mach: Machine) -> list[tuple[str, dict, list]]:
    """(catalog key, values, noise) lines of the lesson's verdict on one example: what was measured,
    and whether it showed the regime it was chosen for. `noise` is what the sentence stands on (the
    example's two records and the machine's ceilings), for verdicts.say(key, noise=..., **values).

    - when any of those measurements is noisy, only the measured line is given (say() prints the
      noisy-measurement sentence in its place): no regime is concluded from a noisy row;
    - a share of a ceiling above 100% (a point above its own roof, measured next to it) is flagged as
      a measurement problem and no regime is concluded either (measured here, same size: the chain
      42-93 GB/s, the best streaming kernel 43-63; a matmul at "288% of the peak" beside a busy roof)."""
    stand = [f.record, f.bigger, *mach.records]
    lines = [("regimes.verdict_example",
              {"name": display_name(f.workload), "us": f.record.metrics["us_per_call"], "growth": f.growth,
               "bw": f.gbs_share, "peak": f.gflops_share, "observed": t(NAME_KEYS[f.observed]),
               "predicted": t(NAME_KEYS[f.predicted])}, stand)]
    if f.noisy or mach.noisy:
        return lines
    if f.gbs_share > ABOVE_ROOF:
        lines.append(("regimes.above_roof", {"gbs": f.record.metrics["gbs"], "roof": mach.bandwidth_gbs,
                                             "share": f.gbs_share}, []))
    if f.gflops_share > ABOVE_ROOF:
        lines.append(("regimes.above_peak", {"gflops": f.record.metrics["gflops"], "peak": mach.peak_gflops,
                                             "share": f.gflops_share}, []))
    if above_ceiling(f):
        return lines
    intended = t(NAME_KEYS[f.workload.kind])
    if f.observed == f.workload.kind:
        lines.append(("regimes.as_intended", {"intended": intended}, stand))
    else:
        lines.append(("regimes.not_as_intended", {"intended": intended, "observed": t(NAME_KEYS[f.observed])}, stand))
    return lines


# ---------------------------------------------------------------- a sweep and the plot


def sweep_sizes(device: str = "cpu") -> list[int]:
    top = config.by_mode(ci=20, lab=24, full=26) + (2 if torch.device(device).type == "cuda" else 0)
    return [2**k for k in range(2, top + 1, 2)]


def elementwise_sweep(device: str = "cpu", sizes: list[int] | None = None, **kwargs) -> list[bench.Record]:
    """One op (x · 1.0001) over tensors of growing size: flat (overhead), then a slope (memory)."""
    records = []
    for numel in sizes or sweep_sizes(device):
        work = Workload(f"x*a {numel}", MEMORY, numel, numel, 2 * numel * 4, 1)
        x = bench.fresh_random(numel, device=device, seed=6)
        record = bench.measure(lambda x=x: x * 1.0001, work.name,
                               params={"device": str(device), "numel": numel, "bytes": work.bytes_moved}, **kwargs)
        record.metrics["us_per_call"] = record.median_s * 1e6
        records.append(record)
    return records


COLORS = {OVERHEAD: "#e69f00", MEMORY: "#0072b2", COMPUTE: "#009e73"}  # colour-blind friendly (Okabe-Ito)


def plot(mach: Machine, sweep: list[bench.Record], findings: list[Finding]):
    """Left: µs per call of one elementwise op vs size, measured and the model's line, the two
    regimes shaded. Right: the model's shares (overhead / memory / compute) of each example,
    with the observed regime written above each bar."""
    fig, (left, right) = plots.new_figure(ncols=2)
    sizes = [r.params["numel"] for r in sweep]
    measured = [r.metrics["us_per_call"] for r in sweep]
    model = [mach.predicted_s(n, 2 * n * 4, 1) * 1e6 for n in sizes]
    left.plot(sizes, measured, "o-", lw=2.5, color="black", label=plots.label("core.measured_here"))
    left.plot(sizes, model, "--", color="gray", label=plots.label("regimes.model_line"))
    noisy = [(n, us) for n, us, r in zip(sizes, measured, sweep) if r.noisy]
    if noisy:  # a noisy point is ringed: the line there is load, not the regime
        left.plot(*zip(*noisy), linestyle="none", marker="o", markersize=14, markerfacecolor="none",
                  markeredgecolor=plots.NOISY_COLOR, markeredgewidth=2, label=plots.label("noise.marked_point"))
    # where the model's memory time passes its overhead: the border between the two regimes
    border = mach.border_numel()
    left.axvspan(min(sizes), max(min(border, max(sizes)), min(sizes)), color=COLORS[OVERHEAD], alpha=0.15,
                 label=plots.label("regimes.overhead"))
    if border < max(sizes):
        left.axvspan(max(border, min(sizes)), max(sizes), color=COLORS[MEMORY], alpha=0.15,
                     label=plots.label("regimes.memory"))
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel(plots.label("regimes.numel_axis"))
    left.set_ylabel(plots.label("regimes.us_axis"))
    left.set_title(plots.label("regimes.sweep_title", device=mach.device), fontsize=11)
    left.legend(fontsize=9)

    names = [display_name(f.workload) for f in findings]
    bottom = [0.0] * len(findings)
    for regime in REGIMES:
        values = [f.shares[regime] for f in findings]
        right.bar(names, values, bottom=bottom, color=COLORS[regime], label=plots.label(NAME_KEYS[regime]))
        bottom = [b + v for b, v in zip(bottom, values)]
    for i, f in enumerate(findings):
        mark = "⚠ " if f.noisy or above_ceiling(f) else ""
        right.annotate(mark + plots.label(SHORT_KEYS[f.observed]) + f"\n×{f.growth:.2f}", (i, 1.0),
                       textcoords="offset points", xytext=(0, 4), ha="center", fontsize=9)
    right.set_ylim(0, 1.3)
    right.set_ylabel(plots.label("regimes.share_axis"))
    right.set_title(plots.label("regimes.shares_title"), fontsize=11)
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3)  # below: bars stay visible
    return fig
