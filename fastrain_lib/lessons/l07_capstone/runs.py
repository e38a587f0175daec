"""The capstone's runs on disk: a fresh folder per run, its log, and earlier runs told as earlier.

A run folder holds the checkpoints (fastrain_lib.checkpoint) and capstone_log.json: when the
run started and finished, its validation curve and samples, and what it measured. The lesson
opens a new folder every time (new_run_dir), so a notebook executed again never shows the
previous run's numbers as its own; describe_earlier names an earlier run with its date.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

from fastrain_lib.core.i18n import t


def _log_path(checkpoint_dir) -> Path | None:
    return Path(checkpoint_dir) / "capstone_log.json" if checkpoint_dir else None


def now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def read_log(checkpoint_dir) -> dict:
    path = _log_path(checkpoint_dir)
    if path is None or not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # a log cut short by a crash: the checkpoints still hold the training state


def write_log(checkpoint_dir, log: dict) -> None:
    path = _log_path(checkpoint_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)  # never a half-written log


def log_finish(checkpoint_dir, result) -> None:
    """Record when the run finished and what was measured then (a later look at the folder reads it)."""
    log = read_log(checkpoint_dir)
    if result.measured_steps:
        log["finished"] = now()
        log["measured"] = {"tokens_per_s": result.tokens_per_s, "mfu": result.mfu if result.mfu_ok else None,
                           "steps": result.steps, "measured_steps": result.measured_steps,
                           "device": result.settings["device"], "precision": result.settings["precision"],
                           "peak_flops": result.peak.flops, "peak_kind": result.peak.kind,  # MFU's divisor, kept beside it
                           "noise": dict(result.noise or {}), "peak_noise": dict(result.peak_noise or {})}
        write_log(checkpoint_dir, log)


RUN_PREFIX = "run-"


def new_run_dir(parent, keep: int = 3) -> Path:
    """A new, empty folder for one capstone run under `parent` (named by the UTC time), so a
    notebook executed again never mistakes the previous run's checkpoints for its own.
    Only the newest `keep` earlier runs are kept (checkpoints take disk space)."""
    import datetime
    import shutil

    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    for old in run_dirs(parent)[:-keep] if keep > 0 else run_dirs(parent):
        shutil.rmtree(old, ignore_errors=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    for n in itertools.count(1):
        folder = parent / f"{RUN_PREFIX}{stamp}{'' if n == 1 else f'-{n}'}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue  # two runs in the same second


def run_dirs(parent) -> list[Path]:
    """The run folders under `parent`, oldest first."""
    parent = Path(parent)
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir() if p.is_dir() and p.name.startswith(RUN_PREFIX))


def earlier_run(folder) -> dict | None:
    """What a run folder holds: when it started and finished, its steps, what it measured then."""
    from fastrain_lib import checkpoint

    log = read_log(folder)
    ckpts = checkpoint.list_checkpoints(folder)
    if not log and not ckpts:
        return None
    step = int(checkpoint.PATTERN.match(ckpts[0].name).group(1)) if ckpts else 0
    return {"folder": str(folder), "started": log.get("started"), "finished": log.get("finished"),
            "checkpoint_step": step, "measured": log.get("measured")}


def describe_earlier(info: dict) -> str:
    """One line on an earlier run found on disk, labelled with its date: never as this run's result."""
    measured = info.get("measured")
    if info.get("finished") and measured:
        return t("capstone.earlier_finished", date=_date(info["finished"]), folder=Path(info["folder"]).name,
                 steps=measured["steps"], tokens=f"{measured['tokens_per_s']:,.0f}",
                 device=measured["device"], precision=measured["precision"])
    return t("capstone.earlier_unfinished", date=_date(info.get("started")), folder=info["folder"],
             step=info["checkpoint_step"])


def _date(iso: str | None) -> str:
    return (iso or "?").replace("T", " ")[:16] + (" UTC" if iso else "")
