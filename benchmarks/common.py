"""What every benchmark family shares: the run context, skipping, record helpers."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import torch

from fastrain_lib import bench, config, hardware


class Skip(Exception):
    """Raised by a family that cannot run here; the message says why (Bengali first)."""


@dataclass
class Context:
    """Where and how the suite runs; `log` writes a line to the screen and the raw log."""

    device: str
    mode: str
    log: object = print
    notes: list[str] = field(default_factory=list)

    @property
    def on_gpu(self) -> bool:
        return self.device == "cuda"

    def size(self, ci, lab, full=None):
        return config.by_mode(ci=ci, lab=lab, full=full)


def make_context(log=print) -> Context:
    return Context(device=hardware.best_device().type, mode=config.mode(), log=log)


def tag(records: list[bench.Record], family: str) -> list[bench.Record]:
    """Mark each record with its family (params['family']) and make sure it has provenance."""
    for record in records:
        record.params.setdefault("family", family)
        if not record.meta:
            record.meta = bench.meta()
    return records


def from_times(name: str, times_s: list[float], params: dict, metrics: dict | None = None) -> bench.Record:
    """A Record from per-step times measured inside a loop (first step left out as warm-up)."""
    times = times_s[1:] if len(times_s) > 2 else times_s
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [0.0, 0.0, 0.0]
    return bench.Record(name=name, median_s=statistics.median(times), iqr_s=q[2] - q[0], times_s=list(times),
                        params=dict(params), metrics=dict(metrics or {}), meta=bench.meta())


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def need(module: str, what: str):
    """Import fastrain_lib.<module> or Skip with a message naming what is missing."""
    import importlib

    try:
        return importlib.import_module(f"fastrain_lib.{module}")
    except ImportError as exc:
        raise Skip(f"fastrain_lib.{module} নেই ({what}) / fastrain_lib.{module} is missing ({what}): {exc}") from exc
