"""The technique in the cell, the evidence in one line (issue 37).

A reader of a lesson's core path (the sections whose heading is marked 🟢) must be able to copy the
technique from code, not from a string, a comment or a library call that hides it. The table below
names, per lesson, what a student would copy into their own training script; each entry must appear
as code (a call, a keyword argument, a decorator, an import, a `with`) in a core-path code cell. The
code is parsed, so a name inside a string or a comment does not count. A `# VERDICT` cell is one call
that judges this run's numbers: at most four lines, its marker included; its sentences live in the
lesson's verdicts.py.

Each checker is also shown a wrong notebook it must reject."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE, OPTIONAL = "🟢", "⚪"
VERDICT_MARK = "# VERDICT"
MAX_VERDICT_LINES = 4

# What a student copies, per lesson: alternatives separated by "|". A bare name is a call, an
# attribute, an imported name or a decorator; "name=value" is a keyword argument with that value
# ("name=" any value); "kernel[grid](...)" is a Triton launch (a call of a subscripted name).
TECHNIQUE = {
    "01": ["synchronize|Timer", "set_num_threads"],
    "02": ["DataLoader", "pin_memory=True", "num_workers=", "non_blocking=True", "synchronize"],
    "03": ["autocast", "GradScaler", "scale", "update"],
    "04": ["triton.jit", "program_id", "kernel[grid](...)", "foreach=True", "fused=True", "torch.compile"],
    "05": ["init_process_group", "DistributedSampler", "set_epoch", "DistributedDataParallel",
           "destroy_process_group"],
    "05b": ["no_sync", "bucket_cap_mb=", "register_post_accumulate_grad_hook|register_hook", "all_reduce"],
    "05c": ["fully_shard", "parallelize_module", "PipelineStage", "ScheduleGPipe|Schedule1F1B|ScheduleInterleaved1F1B"],
    "06": ["rpc_sync|rpc_async", "share_memory"],
    # lesson 07's loop calls lesson 03's one AMP step (autocast, scaled backward) by its name
    "07": ["torch.save", "torch.load", "autocast|amp_step", "GradScaler", "fused=", "torch.compile"],
}


def _cells(nb: dict) -> list[dict]:
    return [{"type": c["cell_type"], "source": "".join(c["source"]) if isinstance(c["source"], list) else c["source"]}
            for c in nb["cells"]]


def core_code_cells(nb: dict) -> list[str]:
    """Code cells under a '## ' heading marked 🟢 (its '###' subsections included); cells before the
    first marked heading (title, setup) and under ⚪ headings are not the core path."""
    section = None
    found = []
    for cell in _cells(nb):
        if cell["type"] == "markdown":
            for line in cell["source"].splitlines():
                if line.startswith("## "):
                    section = CORE if CORE in line else OPTIONAL if OPTIONAL in line else section
        elif cell["type"] == "code" and section == CORE:
            found.append(cell["source"])
    return found


def _python(source: str) -> ast.AST | None:
    text = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def code_tokens(source: str) -> set[str]:
    """What a cell's code uses: names and dotted names, each suffix of a dotted name, imported
    names, keyword arguments as 'name=value' and 'name=', and 'kernel[grid](...)' for a Triton launch."""
    tree = _python(source)
    if tree is None:
        return set()
    tokens: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)):
            dotted = _dotted(node)
            parts = dotted.split(".")
            tokens.update(".".join(parts[i:]) for i in range(len(parts)))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                tokens.add(alias.name.split(".")[-1])
        elif isinstance(node, ast.keyword) and node.arg:
            tokens.add(f"{node.arg}=")
            if isinstance(node.value, ast.Constant):
                tokens.add(f"{node.arg}={node.value.value!r}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            tokens.add("kernel[grid](...)")
    return tokens


def missing_technique(nb: dict, wanted: list[str]) -> list[str]:
    """Entries of `wanted` that no core-path code cell of `nb` uses as code."""
    used = set().union(*(code_tokens(s) for s in core_code_cells(nb))) if core_code_cells(nb) else set()
    return [entry for entry in wanted if not any(alt in used for alt in entry.split("|"))]


def verdict_cells_too_long(nb: dict) -> list[tuple[int, int]]:
    """(cell index, lines) of every # VERDICT cell with more than MAX_VERDICT_LINES non-blank lines, its marker
    line included (the marker, a comment and two lines of call at most)."""
    found = []
    for index, cell in enumerate(_cells(nb)):
        lines = cell["source"].strip().splitlines()
        if cell["type"] == "code" and lines and lines[0].strip().startswith(VERDICT_MARK):
            body = [line for line in lines if line.strip()]
            if len(body) > MAX_VERDICT_LINES:
                found.append((index, len(body)))
    return found


def _lesson(number: str) -> Path:
    return next((ROOT / "notebooks").glob(f"{number}_*.ipynb"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("number", sorted(TECHNIQUE))
def test_the_core_path_shows_the_technique_as_code(number):
    path = _lesson(number)
    assert missing_technique(_load(path), TECHNIQUE[number]) == [], (
        f"{path.name}: what a student would copy is not code in a 🟢 cell")


NOTEBOOKS = [p for folder in ("notebooks", "solutions", "exercises") for p in sorted((ROOT / folder).glob("*.ipynb"))]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(ROOT).as_posix() for p in NOTEBOOKS])
def test_a_verdict_cell_is_one_call(path):
    assert verdict_cells_too_long(_load(path)) == [], (
        f"{path.name}: # VERDICT cells longer than {MAX_VERDICT_LINES} lines (move the sentences and their "
        "conditions into the lesson's verdicts.py and call one function)")


def _nb(*cells: tuple[str, str]) -> dict:
    return {"cells": [{"cell_type": kind, "source": text} for kind, text in cells]}


def test_the_technique_check_reads_code_not_words():
    wanted = ["DataLoader", "pin_memory=True", "kernel[grid](...)", "triton.jit", "synchronize|Timer"]
    good = _nb(("markdown", "# title"), ("code", "setup()"),
               ("markdown", "## ১. মূল — 🟢 মূল · ~৫ মিনিট"),
               ("code", "import triton\n@triton.jit\ndef k(x): pass\nk[(4,)](x)\n"),
               ("markdown", "### আরও"),
               ("code", "from torch.utils.data import DataLoader\nloader = DataLoader(ds, pin_memory=True)\n"
                        "%time run()\ntorch.cuda.synchronize()\n"))
    assert missing_technique(good, wanted) == []
    in_words = _nb(("markdown", "## ১. — 🟢 মূল"),
                   ("code", "# DataLoader(ds, pin_memory=True)\nprint('use @triton.jit and k[grid](x)')\n"
                            "show(inspect.getsource(lib.loader))\nx = dict(pin_memory=False)\n"))
    assert missing_technique(in_words, wanted) == wanted
    optional_only = _nb(("markdown", "## ১. — 🟢 মূল"), ("code", "x = 1"),
                        ("markdown", "## ২. — ⚪ ঐচ্ছিক"),
                        ("code", "loader = DataLoader(ds, pin_memory=True)\ntorch.cuda.synchronize()\n"))
    assert missing_technique(optional_only, ["DataLoader", "synchronize|Timer"]) == ["DataLoader", "synchronize|Timer"]


def test_the_verdict_rule_counts_every_line_after_the_marker():
    short = "# VERDICT\n# কোন রানটি দ্রুত\n\nlesson_verdicts.compare(dp, ddp)\n"
    long = "# VERDICT\n" + "\n".join(f"x{i} = {i}" for i in range(4)) + "\n"
    nb = _nb(("code", short), ("code", long), ("code", "x = 1\n" * 9))
    assert verdict_cells_too_long(nb) == [(1, 5)]
