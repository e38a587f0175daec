"""Run the benchmark families and write one JSON record file + its raw log per run.

Order of a run: the threads are set by the course's one policy (hardware.threads_for: the
physical cores, for one process); the ceilings (matmul, copy) are measured first; then
the other families, each inside a noise window. At the end every record gets its share
of the ceilings, the run gets a verdict (noisy if any record is), and a compact table of
the headline figures is printed. A noisy run is never written into reference/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import shlex
import sys
import time
import traceback
from pathlib import Path

from . import FAMILIES, budget, headlines, schema
from .schema import hardware_slug  # part of this module's interface (tests, docs)

SUITE_VERSION = 2
CEILING_FAMILIES = ("matmul", "copy")  # measured first: every later figure is also a share of them
EXIT_NOISY = 3


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description="fastrain benchmark suite (see benchmarks/__init__.py)")
    parser.add_argument("--out", default=None, help="folder for the .json and .log (default: reference/ in a checkout)")
    parser.add_argument("--only", default="", help="comma-separated families, e.g. matmul,copy")
    parser.add_argument("--skip", default="", help="comma-separated families to leave out")
    parser.add_argument("--mode", choices=("ci", "lab", "gpu", "full"), default=None,
                        help="workload sizes (default: FASTRAIN_MODE, else lab). gpu: sized from this GPU's "
                             "ceilings to fit make gpu-check, nothing compiled (benchmarks/budget.py); full: long runs")
    parser.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                        help="leave out (with the reason) every family whose estimate no longer fits: the run "
                             "is never cut off half-way (make gpu-check passes its slot here)")
    parser.add_argument("--allow-noisy", action="store_true",
                        help="a noisy run aimed at reference/ is kept in results/benchmarks/ (marked noisy) "
                             "and exits 0; without it the suite exits 3. reference/ never gets a noisy run")
    parser.add_argument("--list", action="store_true", help="list the families and exit")
    parser.add_argument("--check", nargs="+", metavar="FILE", help="validate results files and exit")
    parser.add_argument("--rederive-mfu", nargs="+", metavar="FILE",
                        help="recompute the MFU of training records from the file's own ceiling and exit "
                             "(for files whose peak was timed on one thread; see benchmarks/rederive.py)")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="print how two results files agree on every headline figure and exit")
    return parser.parse_args(argv)


def selected(only: str, skip: str) -> list[str]:
    names = [n.strip() for n in only.split(",") if n.strip()] or list(FAMILIES)
    unknown = [n for n in names + [s.strip() for s in skip.split(",") if s.strip()] if n not in FAMILIES]
    if unknown:
        raise SystemExit(f"অচেনা family: {', '.join(unknown)}। এগুলোর মধ্যে বেছে নাও: {', '.join(FAMILIES)}\n"
                         f"unknown family: {', '.join(unknown)}. Choose from: {', '.join(FAMILIES)}")
    skipped = {s.strip() for s in skip.split(",")}
    chosen = [n for n in names if n not in skipped]
    if any(n not in CEILING_FAMILIES for n in chosen):  # the ceilings come first, unless skipped on purpose
        chosen = [n for n in CEILING_FAMILIES if n not in skipped and n not in chosen] + chosen
    return sorted(chosen, key=lambda n: (n not in CEILING_FAMILIES, list(FAMILIES).index(n)))


def staging_dir() -> Path:
    """Where a run aimed at reference/ is written while it runs (and stays if it is noisy)."""
    from fastrain_lib.core import config

    return config.results_dir() / "benchmarks"


def default_out() -> Path:
    from fastrain_lib.core import config

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
        bad = {path: schema.problems(path) for path in args.check}
        for path, found in bad.items():
            print(("✓ " if not found else "✗ ") + path + "".join(f"\n    - {p}" for p in found))
        return 1 if any(bad.values()) else 0
    if args.rederive_mfu:
        from .rederive import rederive_mfu

        for path in args.rederive_mfu:
            print(f"{path}: " + (", ".join(rederive_mfu(path)) or "nothing to re-derive"))
        return 0
    if args.compare:
        return headlines.compare(*args.compare)
    command = command_line(argv)  # before --mode changes the environment
    if args.mode:  # gpu mode: the library's sizes are lab's; the suite sets the device-dependent ones
        os.environ["FASTRAIN_MODE"] = "lab" if args.mode == "gpu" else args.mode
    names = selected(args.only, args.skip)
    if args.mode == "gpu" and not args.only:
        names = [n for n in names if n in budget.GPU_FAMILIES]
    return _run(argv, args, names, command)


def run_family(name: str, ctx) -> list:
    """One family's records, tagged with the family, each with noise information (records a
    family measured in its own loop get the window of the whole family)."""
    from fastrain_lib.measure import noise

    from .common import tag, with_window_noise

    module = importlib.import_module(FAMILIES[name])
    with noise.Window() as window:
        found = tag(module.run(ctx), name)
    for record in found:
        with_window_noise(record, window, ctx.threads)
    return found


def _run(argv: list[str], args: argparse.Namespace, names: list[str], command: str) -> int:
    import torch

    from fastrain_lib.measure import bench, hardware, noise
    from fastrain_lib.core.i18n import both

    from . import ceilings
    from .common import Skip, make_context

    threads = hardware.threads_for(local_processes=1)
    torch.set_num_threads(threads)  # the course's one thread policy, for every family
    started = dt.datetime.now(dt.timezone.utc)
    meta = bench.meta()
    target = Path(args.out) if args.out else default_out()
    to_reference = schema.is_reference_dir(target)
    out = staging_dir() if to_reference else target
    stem = f"{hardware_slug(meta)}_{started:%Y%m%d-%H%M}_{meta['mode']}"
    out.mkdir(parents=True, exist_ok=True)
    log_lines: list[str] = []

    def log(line: str) -> None:
        stamp = f"[{time.monotonic() - t0:7.1f}s] "
        print(stamp + line, flush=True)
        log_lines.append(stamp + line)

    t0 = time.monotonic()
    ctx = make_context(log)
    ctx.threads = threads
    estimates: dict[str, float] = {}
    if args.mode == "gpu":
        ctx.gpu_mode = True
        if ctx.on_gpu:
            f = hardware.facts(ctx.device)
            dev = budget.from_facts(f, hardware.datasheet_for(f.name))
            ctx.gpu_sizes = budget.sizes(dev)
            estimates = budget.estimate(dev, names)
            log(f"gpu mode: sizes {ctx.gpu_sizes} for {dev.name}; estimate {budget.total(dev, names)} s "
                f"({', '.join(f'{k} {v:.0f} s' for k, v in estimates.items())})")
    log(f"fastrain benchmarks {SUITE_VERSION}: {command}")
    log(f"device={ctx.device} mode={ctx.mode} torch={meta['torch']} cuda={meta['cuda_version']} "
        f"cpu={meta['cpu_name']} ({meta['cpu_cores']} cores, {threads} threads: hardware.threads_for)"
        + (f" gpu={meta['gpu_name']} x{meta['gpu_count']} driver={meta.get('driver')}" if meta.get("gpu_name") else ""))
    with noise.Window() as before:
        time.sleep(0.5)
    idle = before.assess(threads=threads)
    log(f"before the run: other programs use {idle['other_cores']:.2f} of {idle['cores']} cores, "
        f"steal {idle['steal_cores']:.2f}, 1-min load average {idle['loadavg_1m']}"
        + ("" if idle["verdict"] == "quiet" else " — the machine is busy: expect a noisy verdict"))
    records, families = [], {}
    run_info: dict = {}

    def save(stem_now: str, folder: Path) -> tuple[Path, Path]:
        """Write both files now: after every family, so a run cut short still leaves its results."""
        json_path, log_path = folder / f"{stem_now}.json", folder / f"{stem_now}.log"
        run_info.update({
            "suite_version": SUITE_VERSION, "command": command, "argv": argv,
            "started": started.isoformat(timespec="seconds"), "duration_s": round(time.monotonic() - t0, 2),
            "device": ctx.device, "mode": meta["mode"], "families": families, "meta": meta, "log": log_path.name,
            "threads": threads, "ceilings": ctx.ceilings, "sizing": "gpu" if ctx.gpu_mode else meta["mode"],
            "gpu_sizes": ctx.gpu_sizes, "estimates_s": estimates,
        })
        payload = {"schema": bench.SCHEMA_VERSION, "run": run_info, "records": [r.to_dict() for r in records]}
        folder.mkdir(parents=True, exist_ok=True)
        for path, text in ((log_path, "\n".join(log_lines) + "\n"),
                           (json_path, json.dumps(payload, ensure_ascii=False, indent=1, default=str))):
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)  # atomic: never a half-written file under the real name
        return json_path, log_path

    for name in names:
        log(f"--- {name}")
        begin = time.monotonic()
        left = None if args.time_budget is None else args.time_budget - (begin - t0)
        if left is not None and (left <= 0 or estimates.get(name, 0.0) > left):
            reason = (f"সময় বাকি {max(0, left):.0f} s, এই family-র আনুমানিক {estimates.get(name, 0):.0f} s: চালানো হয়নি / "
                      f"{max(0, left):.0f} s left of --time-budget, this family's estimate is "
                      f"{estimates.get(name, 0):.0f} s: not started")
            families[name] = {"status": "skipped", "reason": reason, "seconds": 0.0}
            log(f"skipped: {reason}")
            continue
        try:
            found = run_family(name, ctx)
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
        if name in CEILING_FAMILIES:
            ctx.ceilings = ceilings.from_records(records, ctx.device)
            if ctx.ceilings:
                log(f"ceilings: {ctx.ceilings}")
        if records:
            save(stem, out)

    ceilings.apply(records, ctx.ceilings)
    noisy = [r for r in records if r.noisy]
    verdict = noise.NOISY if noisy else noise.QUIET
    run_info["verdict"] = verdict
    run_info["noise"] = {"records": len(records), "noisy": len(noisy), "noisy_records": [r.name for r in noisy][:30],
                         "reasons": sorted({x for r in noisy for x in r.noise.get("reasons", [])}),
                         "before_run": idle}
    dicts = [r.to_dict() for r in records]
    log("headline figures (share of this machine's measured ceiling):\n" + headlines.table(dicts))
    if noisy:
        log(both("noise.run_noisy", noisy=len(noisy), total=len(records)))
        log(noise.summary(records, "bn") + "\n" + noise.summary(records, "en"))
    else:
        log(f"noise verdict: quiet ({len(records)} records)")
    final_stem = stem + ("-noisy" if noisy else "")
    # A run with no record (every family failed or was skipped) is no reference run: it stays out of reference/
    folder = target if (to_reference and not noisy and records) else out
    json_path = folder / f"{final_stem}.json"
    if to_reference and not records:
        log(f"কোনো রেকর্ড নেই, তাই {target}-এ লেখা হলো না / no records, so nothing written to {target}: {json_path}")
    elif noisy and to_reference:
        log(both("noise.refused", target=str(target), path=str(json_path)))
    else:
        log(f"writing {len(records)} records ({verdict}): {json_path}")
    json_path, log_path = save(final_stem, folder)
    for leftover in (out / f"{stem}.json", out / f"{stem}.log"):  # the provisional files of this run
        if leftover not in (json_path, log_path) and leftover.exists():
            leftover.unlink()
    code = 0 if all(f["status"] != "failed" for f in families.values()) else 1
    if noisy and to_reference and not args.allow_noisy:
        return code or EXIT_NOISY
    return code
