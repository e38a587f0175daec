"""What a results file of the suite must contain; used by tests/test_benchmarks.py and
`python -m benchmarks --check FILE...` (run it before contributing a file to reference/)."""

from __future__ import annotations

import json
import math
import re
import socket
from pathlib import Path

from . import FAMILIES

NAME = re.compile(r"^[a-z0-9-]+_\d{8}-\d{4}_(ci|lab|full)\.json$")
META_KEYS = {"os", "python", "torch", "cuda_version", "cpu_name", "cpu_cores", "devices", "mode", "date", "schema"}
RUN_KEYS = {"suite_version", "command", "argv", "started", "duration_s", "device", "mode", "families", "meta", "log"}
STATUSES = {"ok", "skipped", "failed"}
ALLOWED_IN_REFERENCE = {".json", ".log"}


def problems(path: str | Path) -> list[str]:
    """Everything wrong with one results file ([] when it is valid)."""
    from .suite import hardware_slug

    path = Path(path)
    found: list[str] = []
    if not NAME.match(path.name):
        found.append(f"file name {path.name!r} is not <hardware>_<YYYYmmdd-HHMM>_<mode>.json")
    try:
        text = path.read_text(encoding="utf-8")
        payload = json.loads(text)
    except (OSError, ValueError) as exc:
        return found + [f"not readable JSON: {exc}"]
    if payload.get("schema") != 1:
        found.append(f"schema is {payload.get('schema')!r}, expected 1")
    run = payload.get("run")
    if not isinstance(run, dict):
        return found + ["no 'run' provenance section"]
    found += [f"run lacks {key!r}" for key in sorted(RUN_KEYS - run.keys())]
    meta = run.get("meta", {})
    found += [f"run.meta lacks {key!r}" for key in sorted(META_KEYS - meta.keys())]
    if meta.get("gpu_name") and not meta.get("driver"):
        found.append("a GPU run must name its driver (run.meta.driver)")
    if not re.search(r"(^|\s)python -m benchmarks(\s|$)", str(run.get("command", ""))):
        found.append("run.command is not a 'python -m benchmarks' command")
    if meta and not path.name.startswith(hardware_slug(meta) + "_"):
        found.append(f"file name does not start with the hardware {hardware_slug(meta)!r}")
    if meta.get("mode") != run.get("mode") or (NAME.match(path.name) and not path.name.endswith(f"_{run.get('mode')}.json")):
        found.append("the mode differs between file name, run and run.meta")
    families = run.get("families", {})
    for name, info in families.items():
        if name not in FAMILIES:
            found.append(f"unknown family {name!r}")
        if info.get("status") not in STATUSES:
            found.append(f"family {name!r} has status {info.get('status')!r}")
    for key in ("hostname", "host", "node", "user"):
        if key in meta or key in run:
            found.append(f"provenance must not hold {key!r}")
    host = socket.gethostname()
    if len(host) > 3 and host in text:
        found.append("the file contains this machine's host name")
    log = path.with_name(str(run.get("log", "")))
    if not run.get("log") or not log.is_file() or log.stat().st_size == 0:
        found.append(f"the raw log {run.get('log')!r} is missing beside the file")
    records = payload.get("records")
    if not isinstance(records, list) or not records:
        return found + ["no records"]
    for i, r in enumerate(records):
        where = f"record {i} ({r.get('name')!r})"
        median = r.get("median_s")
        if not isinstance(r.get("name"), str) or not r["name"]:
            found.append(f"{where}: no name")
        if not isinstance(median, (int, float)) or not math.isfinite(median) or median <= 0:
            found.append(f"{where}: median_s must be a positive number, got {median!r}")
        family = r.get("params", {}).get("family")
        if families.get(family, {}).get("status") != "ok":
            found.append(f"{where}: family {family!r} is not an 'ok' family of this run")
        rmeta = r.get("meta", {})
        if not {"torch", "date", "mode"} <= rmeta.keys() or rmeta.get("mode") != run.get("mode"):
            found.append(f"{where}: meta lacks torch/date/mode or its mode differs")
        if rmeta.get("torch") != meta.get("torch"):
            found.append(f"{where}: torch version differs from the run's")
    return found


def stray_files(folder: str | Path) -> list[str]:
    """Files in reference/ that are neither suite output nor its README."""
    return sorted(p.name for p in Path(folder).iterdir()
                  if p.is_file() and p.suffix not in ALLOWED_IN_REFERENCE and p.name != "README.md")
