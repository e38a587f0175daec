"""Run the benchmark families and write one JSON record file + its raw log per run."""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import re
import shlex
import sys
import time
import traceback
from pathlib import Path

from . import FAMILIES

SUITE_VERSION = 1


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description="fastrain benchmark suite (see benchmarks/__init__.py)")
    parser.add_argument("--out", default=None, help="folder for the .json and .log (default: reference/ in a checkout)")
    parser.add_argument("--only", default="", help="comma-separated families, e.g. matmul,copy")
    parser.add_argument("--skip", default="", help="comma-separated families to leave out")
    parser.add_argument("--mode", choices=("ci", "lab", "full"), default=None,
                        help="workload sizes (default: FASTRAIN_MODE, else lab)")
    parser.add_argument("--list", action="store_true", help="list the families and exit")
    parser.add_argument("--check", nargs="+", metavar="FILE", help="validate results files and exit")
    return parser.parse_args(argv)


def selected(only: str, skip: str) -> list[str]:
    names = [n.strip() for n in only.split(",") if n.strip()] or list(FAMILIES)
    unknown = [n for n in names + [s.strip() for s in skip.split(",") if s.strip()] if n not in FAMILIES]
    if unknown:
        raise SystemExit(f"অচেনা family: {', '.join(unknown)}। এগুলোর মধ্যে বেছে নাও: {', '.join(FAMILIES)}\n"
                         f"unknown family: {', '.join(unknown)}. Choose from: {', '.join(FAMILIES)}")
    skipped = {s.strip() for s in skip.split(",")}
    return [n for n in names if n not in skipped]


def hardware_slug(meta: dict) -> str:
    """'nvidia-h100-80gb-hbm3' or 'cpu-intel-xeon-platinum-8481c-2c': what ran, no host name."""
    if meta.get("gpu_name"):
        name = meta["gpu_name"] + (f" x{meta['gpu_count']}" if meta.get("gpu_count", 1) > 1 else "")
    else:
        name = f"cpu {meta.get('cpu_name', 'unknown')} {meta.get('cpu_cores', '?')}c"
    name = re.sub(r"\((r|tm)\)|cpu @.*?ghz", " ", name.lower())
    return re.sub(r"[^a-z0-9]+", "-", name).strip("-")[:60]


def default_out() -> Path:
    from fastrain_lib import config

    return config.reference_dir() or (config.results_dir() / "benchmarks")


def command_line(argv: list[str]) -> str:
    """The exact command, as a reader would type it again."""
    mode = os.environ.get("FASTRAIN_MODE")
    prefix = f"FASTRAIN_MODE={mode} " if mode else ""
    return prefix + shlex.join(["python", "-m", "benchmarks", *argv])


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    if args.list:
        for name, module in FAMILIES.items():
            doc = (importlib.import_module(module).__doc__ or "").strip().splitlines()[0]
            print(f"{name:10s} {doc}")
        return 0
    if args.check:
        from .schema import problems

        bad = {path: problems(path) for path in args.check}
        for path, found in bad.items():
            print(("✓ " if not found else "✗ ") + path + "".join(f"\n    - {p}" for p in found))
        return 1 if any(bad.values()) else 0
    command = command_line(argv)  # before --mode changes the environment
    if args.mode:
        os.environ["FASTRAIN_MODE"] = args.mode
    names = selected(args.only, args.skip)

    from fastrain_lib import bench

    from .common import Skip, make_context, tag

    started = dt.datetime.now(dt.timezone.utc)
    meta = bench.meta()
    out = Path(args.out) if args.out else default_out()
    stem = f"{hardware_slug(meta)}_{started:%Y%m%d-%H%M}_{meta['mode']}"
    out.mkdir(parents=True, exist_ok=True)
    log_lines: list[str] = []

    def log(line: str) -> None:
        stamp = f"[{time.monotonic() - t0:7.1f}s] "
        print(stamp + line, flush=True)
        log_lines.append(stamp + line)

    t0 = time.monotonic()
    ctx = make_context(log)
    log(f"fastrain benchmarks {SUITE_VERSION}: {command}")
    log(f"device={ctx.device} mode={ctx.mode} torch={meta['torch']} cuda={meta['cuda_version']} "
        f"cpu={meta['cpu_name']} ({meta['cpu_cores']} cores, {meta['torch_threads']} threads)"
        + (f" gpu={meta['gpu_name']} x{meta['gpu_count']} driver={meta.get('driver')}" if meta.get("gpu_name") else ""))
    records, families = [], {}
    json_path, log_path = out / f"{stem}.json", out / f"{stem}.log"

    def save() -> None:
        """Write both files now: after every family, so a run cut short still leaves its results."""
        run_info = {
            "suite_version": SUITE_VERSION,
            "command": command,
            "argv": argv,
            "started": started.isoformat(timespec="seconds"),
            "duration_s": round(time.monotonic() - t0, 2),
            "device": ctx.device,
            "mode": meta["mode"],
            "families": families,
            "meta": meta,
            "log": log_path.name,
        }
        payload = {"schema": bench.SCHEMA_VERSION, "run": run_info, "records": [r.to_dict() for r in records]}
        for path, text in ((log_path, "\n".join(log_lines) + "\n"),
                           (json_path, json.dumps(payload, ensure_ascii=False, indent=1, default=str))):
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)  # atomic: never a half-written file under the real name

    for name in names:
        log(f"--- {name}")
        begin = time.monotonic()
        try:
            module = importlib.import_module(FAMILIES[name])
            found = tag(module.run(ctx), name)
            records += found
            families[name] = {"status": "ok", "records": len(found)}
        except Skip as exc:
            families[name] = {"status": "skipped", "reason": str(exc)}
            log(f"skipped: {exc}")
        except Exception as exc:  # noqa: BLE001 - one broken family must not lose the others' results
            families[name] = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"[:500]}
            log(f"FAILED: {type(exc).__name__}: {exc}")
            log_lines.append(traceback.format_exc())
        families[name]["seconds"] = round(time.monotonic() - begin, 2)
        log(f"{name}: {families[name]['status']} in {families[name]['seconds']} s")
        if records:
            save()
    log(f"wrote {len(records)} records: {json_path}")
    save()
    return 0 if all(f["status"] != "failed" for f in families.values()) else 1
