"""Re-derive the MFU of a results file's training records from the run's own measured ceiling.

Why this exists: until 2026-12-01 fastrain_lib.measure.hardware.measured_peak timed its matmul with
torch.utils.benchmark.Timer's default of ONE thread, while training used every core, so the
capstone and DDP records of CPU runs divided their FLOP rate by a one-core peak and their `mfu`
read about 2× too high on 2 cores. The same file holds what the run measured with all its
threads (`run.ceilings.matmul_gflops`), so the right MFU follows from numbers already measured
on that machine: peak = the better of the record's format and fp32 (hardware.peak's rule),
mfu = tokens_per_s × flops_per_token ÷ peak. Nothing measured (times, tokens/s) is changed, and
`run.rederived` says what was recomputed, when and why. A run that can be repeated should be
measured again instead (reference/README.md); this is for files whose machine is gone.

    python -m benchmarks --rederive-mfu reference/<file>.json
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from . import schema

WHY = ("MFU re-derived from this run's own measured matmul ceiling (all threads): the original peak_flops "
       "was timed on one thread (torch.utils.benchmark.Timer's default), which made the MFU read about "
       "2x too high on 2 cores")


def rederive_mfu(path: str | Path) -> list[str]:
    """Rewrite `path`'s measured-peak MFUs that disagree with its ceiling; returns the records changed."""
    path = Path(path)
    payload = json.loads(path.read_text(encoding="utf-8"))
    peaks = payload["run"].get("ceilings", {}).get("matmul_gflops", {})
    changed = []
    for record in payload["records"]:
        metrics, params = record.get("metrics", {}), record.get("params", {})
        if not schema.mfu_problems("", params, metrics, peaks):
            continue
        peak = schema.training_peak_gflops(params, peaks) * 1e9
        metrics["peak_flops"] = peak
        metrics["mfu"] = metrics["tokens_per_s"] * metrics["flops_per_token"] / peak
        changed.append(record["name"])
    if changed:
        stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        payload["run"].setdefault("rederived", []).append({"date": stamp, "metrics": ["peak_flops", "mfu"],
                                                           "records": changed, "why": WHY})
        path.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")  # as the suite writes
    return changed
