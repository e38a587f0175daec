"""How many of each lesson's verdicts state a finding, and how many only say "noisy" (issue 38).

Executes each numbered lesson top to bottom (Bengali, lab mode by default: the core path a lab PC runs,
opt-in sections off) with say()'s audit log on, optionally beside one busy core (tests/_load.py), and
prints one Markdown row per lesson: the verdict sentences that stood on measurements, how many of them
stated their finding and how many printed the noisy form instead, and the seconds the run took.

    .venv/bin/python scripts/finding_count.py --busy          # beside one busy core (a busy lab PC)
    .venv/bin/python scripts/finding_count.py                 # as the machine is (run it when `uptime` is quiet)
    .venv/bin/python scripts/finding_count.py --mode ci 00 01 # ci sizes, some lessons
    .venv/bin/python scripts/finding_count.py --busy --save /tmp/busy   # and each lesson's output, to read
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _load import busy_core_beside  # noqa: E402
from _nbrun import execute  # noqa: E402
from _sentences import finding_counts  # noqa: E402

from fastrain_lib.core import verdicts  # noqa: E402


def lessons(prefixes: list[str]) -> list[Path]:
    found = sorted(p for p in (ROOT / "notebooks").glob("0*.ipynb"))
    return [p for p in found if not prefixes or any(p.name.startswith(x + "_") for x in prefixes)]


def count(path: Path, mode: str, busy: bool, save: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "verdicts.jsonl"
        started = time.monotonic()
        with busy_core_beside(max_seconds=3600) if busy else contextlib.nullcontext():
            cells, _ = execute(path, lang="bn", mode=mode, cell_timeout=1800, env={verdicts.LOG_ENV: str(log)})
        seconds = time.monotonic() - started
        rows = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    if save:  # what a student read, cell by cell (the notebook's cell numbers), for reading item by item
        save.mkdir(parents=True, exist_ok=True)
        (save / f"{path.stem}.txt").write_text("".join(f"=== cell {c.index}\n{c.text}\n" for c in cells), encoding="utf-8")
    return {"lesson": path.name.split("_")[0], **finding_counts(rows), "seconds": round(seconds, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers (00 01 05b ...); default: all")
    parser.add_argument("--mode", default="lab", choices=("lab", "ci"))
    parser.add_argument("--busy", action="store_true", help="run beside one busy core")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--save", type=Path, help="write what each lesson printed to DIR/<lesson>.txt")
    args = parser.parse_args(argv)
    os.environ.setdefault("FASTRAIN_DATA", tempfile.mkdtemp(prefix="fastrain-data-"))
    print(f"mode={args.mode} busy={args.busy} load={os.getloadavg()[0]:.2f}", flush=True)
    print("| lesson | verdicts on measurements | stated a finding | said only 'noisy' | measurements (noisy) | s |")
    print("| --- | --- | --- | --- | --- | --- |", flush=True)
    rows = []
    for path in lessons(args.lessons):
        row = count(path, args.mode, args.busy, args.save)
        rows.append(row)
        print(f"| {row['lesson']} | {row['verdicts']} | {row['stated']} | {row['noisy']} | "
              f"{row['measurements']} ({row['noisy_measurements']}) | {row['seconds']} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
