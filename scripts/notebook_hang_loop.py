"""Execute lesson notebooks again and again with `jupyter nbconvert --execute` and count hangs.

    nice .venv/bin/python scripts/notebook_hang_loop.py --runs 10 --lang bn en            # every lesson
    nice .venv/bin/python scripts/notebook_hang_loop.py --runs 10 notebooks/07_*.ipynb   # one lesson

Why: a notebook run that never finishes is worse than one that fails (issue 14). Each run has a
per-cell timeout (--cell-timeout), so a hang becomes a recorded failure, never an endless wait.
Every run is one line of JSON in --out (default artifacts/hang-loop/runs.jsonl, git-ignored);
the summary at the end counts ok / hang (a cell timed out) / error per lesson, language and
ipykernel version. Runs in ci mode (FASTRAIN_MODE=ci), like nbval in `make test`.
Exit status 1 when any run hung or failed.

The committed record is --results (default docs/hang_loop_results.md): rewritten after every run
from ALL rows in --out, so lessons looped in separate invocations (one after another, as on a busy
2-core machine) add up; `--report` only rewrites it from the log, running nothing.

A hang does not always end in the timeout error: the stall of issue 14 (the kernel does not start
the next cell) ends when the client's per-cell timer fires, and then the run finishes. So every
executed notebook's cell timestamps (kernel side, recorded by nbclient) are read too: a gap of more
than --stall-s seconds between one cell's reply and the next cell's start counts as a hang. Without
a timeout (nbconvert's default) that run would have waited forever.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def worst_stall(executed: Path) -> tuple[float, str]:
    """(seconds, first line of the cell) of the longest wait between a cell's reply and the next
    cell's start, from the kernel-side timestamps nbclient records in each cell's metadata."""
    import nbformat

    worst, where, last_reply = 0.0, "", None
    for cell in nbformat.read(executed, 4).cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.status.busy" not in timing or "shell.execute_reply" not in timing:
            continue
        if last_reply is not None:
            gap = (_when(timing["iopub.status.busy"]) - last_reply).total_seconds()
            if gap > worst:
                worst, where = gap, (cell.source.strip().splitlines() or [""])[0][:120]
        last_reply = _when(timing["shell.execute_reply"])
    return worst, where


def run_once(notebook: Path, lang: str, cell_timeout: int, workdir: Path, stall_s: float = 5.0,
             debug: bool = False, keep: Path | None = None) -> dict:
    """One nbconvert run; with debug, nbconvert logs every message it receives, and the log of a
    run that was not ok is kept in `keep` (to find where it stopped)."""
    env = dict(os.environ, FASTRAIN_MODE="ci", FASTRAIN_LANG=lang, FASTRAIN_RESULTS=str(workdir / "results"),
               PYTHONUNBUFFERED="1")
    env.pop("MPLBACKEND", None)
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
           f"--ExecutePreprocessor.timeout={cell_timeout}", "--ExecutePreprocessor.kernel_name=python3",
           "--output-dir", str(workdir), "--output", f"{notebook.stem}-{lang}", str(notebook)]
    if debug:
        cmd.append("--debug")
    start = time.monotonic()
    # The outer limit only guards against a hang outside any cell (kernel start, shutdown).
    outer = cell_timeout * 4 + 300
    try:
        proc = subprocess.run(cmd, check=False, cwd=notebook.parent, env=env, capture_output=True, text=True, timeout=outer)
        code, err = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, err = None, (exc.stderr or b"").decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
    wall = time.monotonic() - start
    stall, stall_cell = 0.0, ""
    executed = workdir / f"{notebook.stem}-{lang}.ipynb"
    if code == 0 and executed.exists():
        stall, stall_cell = worst_stall(executed)
    if code == 0 and stall > stall_s:
        outcome, detail = "hang", f"the kernel started the next cell only after {stall:.0f} s | cell: {stall_cell}"
    elif code == 0:
        outcome, detail = "ok", ""
    elif code is None or "CellTimeoutError" in err or "timed out" in err or "Timeout waiting" in err:
        outcome = "hang"
        match = re.search(r"(?:CellTimeoutError|TimeoutError).*", err)
        detail = (match.group(0) if match else "outer timeout")[:200]
        # nbclient prints the source of the cell that timed out just after the error line
        src = re.search(r"-{5,}\n(.*?)\n-{5,}", err, re.DOTALL)
        if src:
            detail += " | cell: " + src.group(1).strip().splitlines()[0][:120]
    else:
        outcome, detail = "error", err.strip().splitlines()[-1][:300] if err.strip() else f"exit {code}"
    executed.unlink(missing_ok=True)
    if keep is not None and outcome != "ok":
        keep.mkdir(parents=True, exist_ok=True)
        kept = keep / f"{notebook.stem}-{lang}-{time.strftime('%Y%m%dT%H%M%S')}.log"
        kept.write_text(err or "")
        detail += f" | log: {kept}"
    return {"notebook": notebook.name, "lang": lang, "outcome": outcome, "wall_s": round(wall, 1), "detail": detail,
            "worst_gap_s": round(stall, 2),
            "ipykernel": metadata.version("ipykernel"), "nbclient": metadata.version("nbclient"),
            "ipywidgets": metadata.version("ipywidgets"), "time": time.strftime("%Y-%m-%dT%H:%M:%S")}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def results_markdown(rows: list[dict], command: str) -> str:
    """The committed record: per lesson runs (bn/en), ok, hang, error, durations and the longest
    wait between two cells; every run that was not ok, with its detail."""
    by_nb = collections.defaultdict(list)
    for row in rows:
        by_nb[row["notebook"]].append(row)
    versions = sorted({(r["ipykernel"], r["nbclient"], r["ipywidgets"]) for r in rows})
    times = sorted(r["time"] for r in rows)
    lines = [
        "# Notebook hang loop: results",
        "",
        "Written by `scripts/notebook_hang_loop.py` (issue 14) from its run log; do not edit by hand.",
        ("Each run: `jupyter nbconvert --to notebook --execute` of one lesson in ci mode, per-cell timeout; "
         "a wait of more than the stall limit between one cell's reply and the next cell's start counts as a hang."),
        "",
        f"- runs: {len(rows)}, from {times[0] if times else '-'} to {times[-1] if times else '-'} (local time of the machine)",
        "- versions (ipykernel, nbclient, ipywidgets): " + "; ".join(", ".join(v) for v in versions),
        f"- machine: {os.cpu_count()} CPU cores, shared with other work while it ran (durations are not benchmarks)",
        f"- last command: `{command}`",
        "",
        "| notebook | runs (bn/en) | ok | hang | error | median s | max s | longest wait between cells, s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for nb, mine in sorted(by_nb.items()):
        c = collections.Counter(r["outcome"] for r in mine)
        langs = collections.Counter(r["lang"] for r in mine)
        walls = [r["wall_s"] for r in mine]
        gaps = [r.get("worst_gap_s", 0.0) for r in mine]
        lines.append(f"| {nb} | {len(mine)} ({langs['bn']}/{langs['en']}) | {c['ok']} | {c['hang']} | {c['error']} | "
                     f"{_median(walls):.1f} | {max(walls):.1f} | {max(gaps):.2f} |")
    total = collections.Counter(r["outcome"] for r in rows)
    lines += ["", f"Total: {len(rows)} runs, {total['ok']} ok, {total['hang']} hang, {total['error']} error.", ""]
    failed = [r for r in rows if r["outcome"] != "ok"]
    if failed:
        lines += ["Runs that were not ok:", ""]
        lines += [f"- {r['time']} {r['notebook']} {r['lang']}: {r['outcome']} after {r['wall_s']} s — {r['detail']}"
                  for r in failed]
        lines.append("")
    return "\n".join(lines)


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summary(rows: list[dict]) -> str:
    counts = collections.defaultdict(collections.Counter)
    for row in rows:
        counts[(row["notebook"], row["lang"], row["ipykernel"])][row["outcome"]] += 1
    lines = [f"{'notebook':34} {'lang':4} {'ipykernel':9} {'runs':>4} {'ok':>3} {'hang':>4} {'error':>5}"]
    for (nb, lang, kernel), c in sorted(counts.items()):
        lines.append(f"{nb:34} {lang:4} {kernel:9} {sum(c.values()):4} {c['ok']:3} {c['hang']:4} {c['error']:5}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/0*.ipynb")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--lang", nargs="+", default=["bn", "en"], choices=["bn", "en"])
    parser.add_argument("--cell-timeout", type=int, default=180, help="seconds one cell may take (ci mode: < 60)")
    parser.add_argument("--stall-s", type=float, default=5.0,
                        help="a longer wait between one cell's reply and the next cell's start is a hang")
    parser.add_argument("--out", type=Path, default=REPO / "artifacts" / "hang-loop" / "runs.jsonl")
    parser.add_argument("--results", type=Path, default=REPO / "docs" / "hang_loop_results.md",
                        help="the committed record, rewritten from every row in --out")
    parser.add_argument("--report", action="store_true", help="only rewrite --results from --out, run nothing")
    parser.add_argument("--debug", action="store_true",
                        help="nbconvert --debug; the log of every run that is not ok is kept beside --out")
    args = parser.parse_args(argv)
    command = "python scripts/notebook_hang_loop.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.report:
        args.results.write_text(results_markdown(read_log(args.out), command))
        print(summary(read_log(args.out)))
        return 0
    notebooks = [p.resolve() for p in args.notebooks] or sorted((REPO / "notebooks").glob("0[0-9]*_*.ipynb"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hang-loop-") as tmp, open(args.out, "a") as log:
        for run in range(args.runs):  # round-robin: a slow spell of the machine hits every lesson alike
            for notebook in notebooks:
                for lang in args.lang:
                    row = run_once(notebook, lang, args.cell_timeout, Path(tmp), args.stall_s, args.debug,
                                   args.out.parent / "logs")
                    row["run"] = run
                    rows.append(row)
                    log.write(json.dumps(row, ensure_ascii=False) + "\n")
                    log.flush()
                    args.results.parent.mkdir(parents=True, exist_ok=True)
                    args.results.write_text(results_markdown(read_log(args.out), command))
                    print(f"[{run + 1}/{args.runs}] {notebook.name} {lang}: {row['outcome']} {row['wall_s']} s "
                          f"{row['detail']}", flush=True)
    print(summary(rows))
    return 0 if all(r["outcome"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
