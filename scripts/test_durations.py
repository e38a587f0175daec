"""Where make test's minutes go (issue 29): read pytest's `--durations=0` table from a log and print it
grouped by file and by kind, as the markdown of docs/test-durations.md.

    PYTEST_ADDOPTS="--durations=0" make test 2>&1 | tee test.log
    .venv/bin/python scripts/test_durations.py test.log > docs/test-durations.md

The kind of a file is what its slow tests spend their time on (a file is listed under one kind):
notebook executions, real processes (gloo workers, subprocesses, a browser), compile (torch.compile,
Triton), timing (tests that measure), and pure (everything else).
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

KINDS = {
    "notebook executions": (
        "tests/test_lessons_loaded.py", "tests/test_english_mode.py", "tests/test_english_mode_exercises.py",
        "tests/browser/test_lessons.py", "tests/browser/test_notebook7.py", "tests/test_colab.py",
        "tests/test_capstone.py", "tests/test_notebook_stall.py", "tests/test_setup_env.py", "solutions/",
        "exercises/", "tests/test_routes.py", "tests/browser/"),
    "real processes": (
        "tests/test_lesson05", "tests/test_lesson06", "tests/test_distributed_launcher.py", "tests/test_ddp.py",
        "tests/test_dataparallel.py", "tests/test_pipeline.py", "tests/test_tensor_parallel.py",
        "tests/test_schedules.py", "tests/test_zero.py", "tests/test_hogwild.py", "tests/test_param_server.py",
        "tests/test_local_sgd.py", "tests/test_checks_lesson05", "tests/test_checks_lesson06.py",
        "tests/test_overlap.py", "tests/test_gpu_check.py", "tests/test_checkpoint.py", "tests/test_ring.py",
        "tests/test_async_sgd.py", "tests/test_dashboard.py", "tests/test_packaging.py"),
    "compile": ("tests/test_fused.py", "tests/test_triton", "tests/test_checks_lesson04", "tests/test_attention.py",
                "tests/test_benchmarks.py", "tests/test_gpt.py"),
    "timing": ("tests/test_bench.py", "tests/test_noise.py", "tests/test_regimes.py", "tests/test_roofline.py",
               "tests/test_transfer.py", "tests/test_checks_noise.py", "tests/test_checks_lesson01.py",
               "tests/test_checks_lesson02.py", "tests/test_lesson01_reference.py", "tests/test_train.py"),
}
LINE = re.compile(r"^([\d.]+)s (call|setup|teardown) +(\S+?)(?:::(.*))?$")


def kind_of(path: str) -> str:
    for kind, prefixes in KINDS.items():
        if path.startswith(prefixes):
            return kind
    return "pure"


def parse(text: str) -> list[tuple[float, str, str, str]]:
    """(seconds, phase, file, test) per line of pytest's durations table."""
    rows = []
    for line in text.splitlines():
        match = LINE.match(line.strip())
        if match:
            seconds, phase, path, test = match.groups()
            rows.append((float(seconds), phase, path, test or ""))
    return rows


def summary(text: str) -> str:
    """The run's own last line: '4 failed, 3862 passed, ... in 2551.34s (0:42:31)'."""
    found = re.findall(r"^=+ (.*\d+ passed.* in [\d.]+s.*?) =+$", text, re.M)
    return found[-1] if found else "(no summary line)"


def markdown(text: str, top: int = 40) -> str:
    rows = parse(text)
    total = sum(r[0] for r in rows)
    by_file, by_kind, count = collections.Counter(), collections.Counter(), collections.Counter()
    for seconds, _, path, _ in rows:
        by_file[path] += seconds
        by_kind[kind_of(path)] += seconds
    for _, phase, path, _ in rows:
        if phase == "call":
            count[path] += 1
    out = [f"Tests' own time, summed over the xdist workers: {total:.0f} s; the run: {summary(text)}.", "",
           "## By kind", "", "| kind | seconds | share |", "| --- | --- | --- |"]
    out += [f"| {kind} | {s:.0f} | {100 * s / total:.0f}% |" for kind, s in by_kind.most_common()]
    out += ["", "## By file (top 30)", "", "| file | kind | tests | seconds | share |", "| --- | --- | --- | --- | --- |"]
    out += [f"| {path} | {kind_of(path)} | {count[path]} | {s:.0f} | {100 * s / total:.1f}% |"
            for path, s in by_file.most_common(30)]
    out += ["", f"## Slowest {top} tests", "", "| seconds | phase | test |", "| --- | --- | --- |"]
    out += [f"| {s:.1f} | {phase} | {path}::{test} |" for s, phase, path, test in sorted(rows, reverse=True)[:top]]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(Path(sys.argv[1]).read_text(encoding="utf-8", errors="replace")), end="")
