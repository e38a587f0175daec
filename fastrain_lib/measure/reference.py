"""Reading reference/ results: benchmark runs that `python -m benchmarks` made on named hardware.

One run file = one series. Two runs on the same machine stay two series (the machine may have
been busy during one of them), each labelled with its hardware, date and mode, so a plot never
mixes runs or passes off one run's number as another's.

    from fastrain_lib.measure import reference
    for run in reference.runs(family="matmul"):
        run.label, run.records
    reference.roof(run)             (fp32 matmul GFLOP/s, copy GB/s) of that run, or None
    reference.has_gpu_results()     False → a lesson says "no GPU results yet"

Every lesson panel, the capstone and the fused-kernel lesson read reference/ through here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fastrain_lib.measure import bench
from fastrain_lib.core import config
from fastrain_lib.core.i18n import t

ABLATION_EXPERIMENT = "lesson04_ablation"  # params["experiment"] of lesson 04's ablation records


@dataclass
class Run:
    """The records of one reference/ run file and what they ran on."""

    path: Path
    records: list = field(default_factory=list)  # bench.Record
    meta: dict = field(default_factory=dict)  # the run's hardware report (first record's meta)

    @property
    def hardware(self) -> str:
        return hardware_name(self.meta, fallback=self.path.stem)

    @property
    def date(self) -> str:
        """Day and minute ('2026-12-01 07:51'): two runs on one machine on one day stay two series."""
        return str(self.meta.get("date") or "")[:16].replace("T", " ")

    @property
    def mode(self) -> str:
        return str(self.meta.get("mode") or "")

    @property
    def label(self) -> str:
        """'NVIDIA H200 · 2026-12-01 05:00 · full': one series' name on a plot or in a table."""
        return " · ".join(part for part in (self.hardware, self.date, self.mode) if part)

    @property
    def on_gpu(self) -> bool:
        return any(used_gpu(r) for r in self.records)


def hardware_name(meta: dict, fallback: str = "") -> str:
    """What a run ran on: the GPU (with ×count for several), else the CPU with its cores and, where the run
    recorded it, whether it has bf16 in hardware: one CPU name ("AMD EPYC") covers chips with and without it,
    and a lesson's bf16 row differs between them (lesson 03).

    Reads the keys the hardware report writes (gpu_name, cpu_name, cpu_bf16); never '?': without a name
    it is the run file's name."""
    if meta.get("gpu_name"):
        count = meta.get("gpu_count") or 1
        return meta["gpu_name"] + (f" ×{count}" if count > 1 else "")
    if meta.get("cpu_name"):
        details = [f"{meta['cpu_cores']} {t('hardware.cores')}"] if meta.get("cpu_cores") else []
        if isinstance(meta.get("cpu_bf16"), bool):
            details.append(t("hardware.cpu_bf16" if meta["cpu_bf16"] else "hardware.cpu_no_bf16"))
        return meta["cpu_name"] + (f" ({', '.join(details)})" if details else "")
    return fallback or t("reference.unnamed")


def used_gpu(record) -> bool:
    """The record measured a GPU (its device parameter, else its hardware had one)."""
    device = str(record.params.get("device", ""))
    return device.startswith("cuda") if device else bool(record.meta.get("gpu_name"))


def runs(folder: Path | str | None = None, family: str | None = None) -> list[Run]:
    """Every reference/*.json run, oldest first (file names start with hardware, then date).

    `family` keeps only that benchmark family's records (runs without any are left out).
    Files that are not results files are skipped: tests/test_benchmarks.py reports them; a
    lesson must not crash on them."""
    folder = Path(folder) if folder is not None else config.reference_dir()
    found = []
    for path in sorted(folder.glob("*.json")) if folder and folder.is_dir() else []:
        try:
            records = bench.load_records(path)
        except (ValueError, OSError):
            continue
        if family is not None:
            records = [r for r in records if r.params.get("family") == family]
        if records:
            found.append(Run(path, records, dict(records[0].meta or {})))
    return found


def records(family: str | None = None, folder: Path | str | None = None) -> list:
    """All records of all runs (of one family), run after run."""
    return [r for run in runs(folder, family) for r in run.records]


def has_gpu_results(folder: Path | str | None = None) -> bool:
    """True when reference/ holds at least one run measured on a GPU."""
    return any(run.on_gpu for run in runs(folder))


def _is_fp32(record) -> bool:
    fmt = record.params.get("format") or record.params.get("dtype")
    return fmt in ("fp32", "float32")


def roof(run: Run) -> tuple[float, float] | None:
    """(GFLOP/s, GB/s) of one run: its best fp32 matmul and its best copy, or None without both.

    Only fp32 matmuls: a bf16 matmul on tensor cores is a different (higher) roof, and a roofline
    drawn in fp32 must not borrow it."""
    gflops = [r.metrics.get("gflops", 0.0) for r in run.records
              if r.params.get("family", r.name.split(" ")[0]) == "matmul" and _is_fp32(r)]
    gbs = [r.metrics.get("gbs", 0.0) for r in run.records if r.params.get("family", r.name.split(" ")[0]) == "copy"]
    if not gflops or not gbs or max(gflops) <= 0 or max(gbs) <= 0:
        return None
    return max(gflops), max(gbs)


def ablations(folder: Path | str | None = None) -> dict[str, list]:
    """Lesson 04's ablation records in reference/, one series per run: {run label: records}."""
    found = {}
    for run in runs(folder):
        chosen = [r for r in run.records if r.params.get("experiment") == ABLATION_EXPERIMENT]
        if chosen:
            label = run.label if run.label not in found else f"{run.label} ({run.path.stem})"
            found[label] = chosen
    return found
