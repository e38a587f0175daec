"""A 2–3 hour route through each lesson (issue 27, the route convention; docs/instructor.md lists the routes).

Static, for every lesson notebook (notebooks/0N*_*.ipynb, found by glob):
- a markdown cell tagged `route-toc` after the learning-outcomes cell, before the next section;
- every `## ` section heading ends with its badge, `— 🟢 মূল · ~N মিনিট` or `— ⚪ ঐচ্ছিক · ~N মিনিট`
  (N in Bengali digits: it is prose). The learning-outcomes heading may go without one (the table
  of contents comes after it); when it has one, it is a row of the table like any section;
- the table `| অংশ | পথ | সময় (মিনিট) |` has one row per badged section, in order, with the same
  badge and minutes (a row names its section by the section's number, "৩." or "৪ক.", or by the
  start of its title);
- the core minutes add up to 25–60 (about 40 of reading and running);
- every cell of an optional section is tagged `optional`, and no core cell is;
- no core code cell uses a name that only optional cells define (a def/use check on the AST), so
  the core route runs with every optional cell skipped.

Dynamic (`labmode`, left out of `make test` like tests/test_english_mode.py's lab-mode run):
execute only the cells without the `optional` tag, FASTRAIN_MODE=lab, and require under 120 s of
compute (the cells' own run time, kernel start excluded) on this machine when it is quiet:
    .venv/bin/python -m pytest -m labmode tests/test_routes.py -s
prints the measured seconds per lesson.
"""

from __future__ import annotations

import ast
import os
import re
import time
from datetime import datetime
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted(p for p in (ROOT / "notebooks").glob("0*.ipynb") if re.match(r"0\d[a-z]?_", p.name))
IDS = [p.stem for p in LESSONS]

CORE, OPTIONAL = "🟢 মূল", "⚪ ঐচ্ছিক"
BN_DIGITS = "০১২৩৪৫৬৭৮৯"
BADGE = re.compile(r"\s+[—–-]\s*(🟢 মূল|⚪ ঐচ্ছিক)\s*·\s*~\s*([০-৯]+)\s*মিনিট\s*$")
BADGE_ANY_DIGITS = re.compile(r"(🟢 মূল|⚪ ঐচ্ছিক)\s*·\s*~\s*([0-9০-৯]+)\s*মিনিট")
OUTCOMES = "শিখনফল"
TOC_HEADER = ("অংশ", "পথ", "সময় (মিনিট)")
CORE_MINUTES = (25, 60)
CORE_SECONDS = 120
# a section's number at the start of its title: "৩.", "৪ক.", "3." (a badge-less number is still a number)
NUMBER = re.compile(r"^\s*([০-৯0-9]+[\u0995-\u09B9]?)\s*[.)]")


def bn_int(text: str) -> int:
    return int(text.translate(str.maketrans(BN_DIGITS, "0123456789")))


def load(path: Path):
    return nbformat.read(path, as_version=4)


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def is_toc(cell) -> bool:
    return cell.cell_type == "markdown" and "route-toc" in tags(cell)


def headings(cell) -> list[str]:
    """The `## ` headings of a markdown cell (not ### and deeper, not inside code fences)."""
    if cell.cell_type != "markdown" or is_toc(cell):
        return []
    text = re.sub(r"```.*?```", "", cell.source, flags=re.DOTALL)
    return [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]


def split_badge(heading: str) -> tuple[str, str | None, int | None]:
    """(title, route, minutes) of a heading; route and minutes None without a badge."""
    m = BADGE.search(heading)
    if not m:
        return heading.strip(), None, None
    return heading[:m.start()].strip(), m.group(1), bn_int(m.group(2))


def sections(nb) -> list[dict]:
    """Every `## ` section in order: title, route, minutes, the cell indices it covers."""
    found = []
    for index, cell in enumerate(nb.cells):
        for heading in headings(cell):
            title, route, minutes = split_badge(heading)
            found.append({"heading": heading, "title": title, "route": route, "minutes": minutes,
                          "cell": index, "cells": [], "outcomes": OUTCOMES in title})
        if found and not is_toc(cell):
            found[-1]["cells"].append(index)
    return found


def toc_rows(cell) -> list[tuple[str, str, str]]:
    """The table's rows (cells stripped), header and separator left out; [] without a table."""
    rows = []
    for line in cell.source.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        parts = tuple(part.strip() for part in line.strip("|").split("|"))
        rows.append(parts)
    if not rows or rows[0][:3] != TOC_HEADER:
        return []
    return [r for r in rows[1:] if not all(set(p) <= set("-: ") for p in r)]


def _norm(title: str) -> str:
    return re.sub(r"[\s`*_\"'“”«»:;,.()\[\]—–-]+", " ", title).strip().lower()


def same_section(row_title: str, title: str) -> bool:
    """A row names its section by the section's number, or by the start of its title."""
    a, b = NUMBER.match(row_title), NUMBER.match(title)
    if a or b:
        digits = str.maketrans(BN_DIGITS, "0123456789")
        return bool(a and b and a.group(1).translate(digits) == b.group(1).translate(digits))
    row, head = _norm(row_title), _norm(title)
    return bool(row) and (head.startswith(row) or row.startswith(head) or row.split()[:2] == head.split()[:2])


def route_problems(path: Path) -> list[str]:
    """Every way `path` breaks the route convention (empty: it keeps it)."""
    nb = load(path)
    problems: list[str] = []
    secs = sections(nb)
    toc = [i for i, c in enumerate(nb.cells) if is_toc(c)]
    outcomes = next((s for s in secs if s["outcomes"]), None)

    # 1. the table of contents: one, after the outcomes cell, before the next section
    if len(toc) != 1:
        problems.append(f"{len(toc)} cells tagged route-toc (one is needed, after the learning-outcomes cell)")
    if outcomes is None:
        problems.append("no '## শিখনফল' (learning outcomes) section")
    elif toc:
        nxt = next((s["cell"] for s in secs if s["cell"] > outcomes["cell"]), len(nb.cells))
        if not outcomes["cell"] < toc[0] < nxt or nb.cells[toc[0]].cell_type != "markdown":
            problems.append(f"the route-toc cell (cell {toc[0]}) is not a markdown cell between the outcomes "
                            f"cell ({outcomes['cell']}) and the next section (cell {nxt})")

    # 2. badges
    for s in secs:
        if s["route"] is None and not s["outcomes"]:
            wrong_digits = BADGE_ANY_DIGITS.search(s["heading"])
            problems.append(f"cell {s['cell']}: '## {s['heading']}' has no badge '— 🟢 মূল · ~N মিনিট' / "
                            f"'— ⚪ ঐচ্ছিক · ~N মিনিট'" + (" (minutes need Bengali digits)" if wrong_digits else ""))
    badged = [s for s in secs if s["route"] is not None]

    # 3. the table's rows match the badged sections, in order
    if len(toc) == 1:
        rows = toc_rows(nb.cells[toc[0]])
        if not rows:
            problems.append("the route-toc cell has no table '| অংশ | পথ | সময় (মিনিট) |'")
        else:
            for k in range(max(len(rows), len(badged))):
                row = rows[k] if k < len(rows) else None
                sec = badged[k] if k < len(badged) else None
                if row is None:
                    problems.append(f"table: no row for section '{sec['title']}' (row {k + 1})")
                    continue
                if sec is None:
                    problems.append(f"table: row {k + 1} '{row[0]}' has no badged section")
                    continue
                if len(row) < 3:
                    problems.append(f"table: row {k + 1} '{row[0]}' has {len(row)} columns, not 3")
                    continue
                if not same_section(row[0], sec["title"]):
                    problems.append(f"table: row {k + 1} '{row[0]}' is not section {k + 1} '{sec['title']}' (order?)")
                    continue
                if row[1] != sec["route"]:
                    problems.append(f"table: row '{row[0]}' says {row[1]!r}, the heading {sec['route']!r}")
                if not re.fullmatch(r"[০-৯]+", row[2]):
                    problems.append(f"table: row '{row[0]}' minutes {row[2]!r} (Bengali digits needed)")
                elif bn_int(row[2]) != sec["minutes"]:
                    problems.append(f"table: row '{row[0]}' says {row[2]} minutes, the heading "
                                    f"~{sec['minutes']}")

    # 4. core minutes
    core = sum(s["minutes"] for s in badged if s["route"] == CORE)
    if badged and not CORE_MINUTES[0] <= core <= CORE_MINUTES[1]:
        problems.append(f"core sections add up to {core} minutes (between {CORE_MINUTES[0]} and {CORE_MINUTES[1]} needed)")

    # 5. optional tags follow the sections
    route_of = {}
    for s in secs:
        for i in s["cells"]:
            route_of.setdefault(i, set()).add(s["route"] or CORE)
    for i, cell in enumerate(nb.cells):
        routes = route_of.get(i, {CORE})
        if len(routes) > 1:
            problems.append(f"cell {i} holds both a core and an optional section heading")
            continue
        optional_cell = OPTIONAL in routes
        tagged = "optional" in tags(cell)
        if optional_cell and not tagged:
            problems.append(f"cell {i} ({cell.cell_type}, optional section) lacks the 'optional' tag: {cell.source[:50]!r}")
        if tagged and not optional_cell:
            problems.append(f"cell {i} ({cell.cell_type}, core section) has the 'optional' tag: {cell.source[:50]!r}")

    # 6. core code never needs a name only optional code defines
    problems += [f"core cell {i} uses {name!r}, defined only in optional cells ({where})"
                 for i, name, where in core_uses_optional_names(nb)]
    return problems


def _python(source: str) -> ast.AST | None:
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def defined_names(tree: ast.AST) -> set[str]:
    """Names a cell binds anywhere (assignments, for/with targets, def, class, import, parameters,
    comprehension variables): generous, so a name a core cell binds itself is never blamed."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif hasattr(ast, "MatchAs") and isinstance(node, ast.MatchAs) and node.name:
            names.add(node.name)
    return names


def used_names(tree: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def core_uses_optional_names(nb) -> list[tuple[int, str, str]]:
    """(cell, name, where it is defined) for each core code cell's use of a name that only optional
    code cells define."""
    core_defs: set[str] = set()
    optional_defs: dict[str, list[int]] = {}
    trees = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tree = _python(cell.source)
        if tree is None:
            continue
        trees[i] = tree
        if "optional" in tags(cell):
            for name in defined_names(tree):
                optional_defs.setdefault(name, []).append(i)
        else:
            core_defs |= defined_names(tree)
    found = []
    for i, tree in trees.items():
        if "optional" in tags(nb.cells[i]):
            continue
        for name in sorted(used_names(tree)):
            if name in optional_defs and name not in core_defs:
                found.append((i, name, "cells " + ", ".join(map(str, optional_defs[name]))))
    return found


# --- the checker itself, on small notebooks ---------------------------------------------------

def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    for kind, source, cell_tags in cells:
        cell = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(source)
        if cell_tags:
            cell.metadata["tags"] = list(cell_tags)
        nb.cells.append(cell)
    return nb


TOC_OK = ("| অংশ | পথ | সময় (মিনিট) |\n| --- | --- | --- |\n| ১. শুরু | 🟢 মূল | ২০ |\n"
          "| ২. বাড়তি | ⚪ ঐচ্ছিক | ১৫ |\n| সারসংক্ষেপ | 🟢 মূল | ১০ |")
GOOD = [("md", "# ০৯ · পাঠ", ()), ("code", "import torch", ("setup",)),
        ("md", "## শিখনফল (learning outcomes)\n\n**আনুমানিক সময়:** ৪০ মিনিট", ()),
        ("md", "### এই পাঠের পথ\n\n" + TOC_OK, ("route-toc",)),
        ("md", "## ১. শুরু: প্রথম মাপ — 🟢 মূল · ~২০ মিনিট", ()), ("code", "x = torch.ones(3)\nprint(x)", ()),
        ("md", "## ২. বাড়তি কথা — ⚪ ঐচ্ছিক · ~১৫ মিনিট", ("optional",)),
        ("code", "y = x * 2\ndef helper(z):\n    return z", ("optional",)),
        ("md", "## সারসংক্ষেপ — 🟢 মূল · ~১০ মিনিট", ()), ("code", "print(x.sum())", ())]


def _problems(cells, tmp_path) -> list[str]:
    path = tmp_path / "09_t.ipynb"
    nbformat.write(_nb(*cells), path)
    return route_problems(path)


def test_checker_accepts_a_lesson_that_keeps_the_convention(tmp_path):
    assert _problems(GOOD, tmp_path) == []


@pytest.mark.parametrize("change, expected", [
    (lambda c: c.__setitem__(3, ("md", "### পথ\n\n" + TOC_OK, ())), "0 cells tagged route-toc"),
    (lambda c: c.insert(2, c.pop(3)), "is not a markdown cell between the outcomes"),
    (lambda c: c.__setitem__(4, ("md", "## ১. শুরু: প্রথম মাপ", ())), "has no badge"),
    (lambda c: c.__setitem__(4, ("md", "## ১. শুরু: প্রথম মাপ — 🟢 মূল · ~20 মিনিট", ())), "Bengali digits"),
    (lambda c: c.__setitem__(4, ("md", "## ১. শুরু: প্রথম মাপ — 🟢 মূল · ~২৫ মিনিট", ())), "says ২০ minutes"),
    (lambda c: c.__setitem__(6, ("md", "## ২. বাড়তি কথা — 🟢 মূল · ~১৫ মিনিট", ("optional",))), "says '⚪ ঐচ্ছিক'"),
    (lambda c: c.__setitem__(7, ("code", "y = x * 2", ())), "lacks the 'optional' tag"),
    (lambda c: c.__setitem__(5, ("code", "x = 1", ("optional",))), "core section) has the 'optional' tag"),
    (lambda c: c.__setitem__(9, ("code", "print(helper(y))", ())), "uses 'helper', defined only in optional"),
    (lambda c: c.insert(8, ("md", "## ৩. নতুন অংশ — 🟢 মূল · ~৫ মিনিট", ())), "no row for section 'সারসংক্ষেপ'"),
    (lambda c: c.__setitem__(3, ("md", TOC_OK + "\n| পরিভাষা | 🟢 মূল | ১ |", ("route-toc",))), "has no badged section"),
    (lambda c: c.__setitem__(3, ("md", TOC_OK.replace("২০ |", "৫০ |"), ("route-toc",))), "says ৫০ minutes"),
])
def test_checker_finds_each_break(tmp_path, change, expected):
    cells = list(GOOD)
    change(cells)
    problems = _problems(cells, tmp_path)
    assert any(expected in p for p in problems), problems


def test_checker_core_minutes_bounds(tmp_path):
    cells = [(k, s.replace("~২০ মিনিট", "~৮০ মিনিট"), t) for k, s, t in GOOD]
    cells[3] = ("md", TOC_OK.replace("| ২০ |", "| ৮০ |"), ("route-toc",))
    assert any("add up to 90 minutes" in p for p in _problems(cells, tmp_path))


def test_section_numbers_and_titles_match():
    assert same_section("২. টেনসরের `.to()`", "২. টেনসরের `.to()`: নতুন টেনসর")
    assert same_section("৬. GPU অ্যাসিঙ্ক্রোনাস, `loss.item()`", "৬. GPU অ্যাসিঙ্ক্রোনাস: কেন প্রতি ধাপে")
    assert not same_section("৬. GPU", "৭. DataLoader")
    assert same_section("৪ক. জমানো", "৪ক. গ্রেডিয়েন্ট জমানো")
    assert not same_section("৪. GradScaler", "৪ক. গ্রেডিয়েন্ট জমানো")
    assert same_section("দুই রকম ভাগাভাগি", "দুই রকম ভাগাভাগি")
    assert not same_section("সারসংক্ষেপ", "পরিভাষা")


# --- the lessons --------------------------------------------------------------------------------

def test_there_are_lessons():
    names = {p.stem[:3].rstrip("_") for p in LESSONS}
    assert {"00", "01", "02", "03", "04", "05", "05b", "05c", "06", "07"} <= names, names


@pytest.mark.parametrize("path", LESSONS, ids=IDS)
def test_lesson_keeps_the_route_convention(path):
    problems = route_problems(path)
    assert not problems, f"{path.name}: {len(problems)} problem(s):\n  " + "\n  ".join(problems[:40])


# --- lab mode: the core route runs, alone, in under two minutes of compute ----------------------

def core_only(nb):
    """The notebook without its optional cells (what a lab that skips them runs); each kept cell
    remembers its index in the lesson (metadata fastrain_cell)."""
    nb = nbformat.from_dict(nb)
    for i, cell in enumerate(nb.cells):
        cell.metadata["fastrain_cell"] = i
    nb.cells = [c for c in nb.cells if "optional" not in tags(c)]
    return nb


def _cell_seconds(cell) -> float:
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not start or not end:
        return 0.0
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(end) - parse(start)).total_seconds()


@pytest.mark.labmode
@pytest.mark.parametrize("path", LESSONS, ids=IDS)
def test_core_route_runs_alone_in_lab_mode_under_two_minutes(path):
    from nbclient import NotebookClient

    nb = core_only(load(path))
    assert any("optional" in tags(c) for c in load(path).cells), f"{path.name}: no optional cell (not converted?)"
    env_before = {k: os.environ.get(k) for k in ("FASTRAIN_MODE", "MPLBACKEND")}
    os.environ["FASTRAIN_MODE"] = "lab"
    os.environ.pop("MPLBACKEND", None)
    started = time.monotonic()
    try:
        client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False, record_timing=True,
                                resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute()
        except Exception as exc:  # noqa: BLE001 - a cell's error or timeout: say which cell, briefly
            ran = [c for c in nb.cells if c.cell_type == "code" and c.get("execution_count")]
            last = ran[-1].metadata.get("fastrain_cell") if ran else None
            done = sum(_cell_seconds(c) for c in ran)
            pytest.fail(f"{path.name}: the core route stopped at lesson cell {last} after {done:.0f} s of compute "
                        f"({type(exc).__name__}: {str(exc)[-600:]})", pytrace=False)
    finally:
        for key, value in env_before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    wall = time.monotonic() - started
    per_cell = sorted(((round(_cell_seconds(c), 1), c.metadata["fastrain_cell"]) for c in nb.cells
                       if c.cell_type == "code"), reverse=True)
    compute = sum(s for s, _ in per_cell)
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    slowest = ", ".join(f"cell {i}: {s:.1f} s" for s, i in per_cell[:5])
    print(f"\n{path.name}: core route {compute:.1f} s of cell compute ({wall:.1f} s with the kernel's start; "
          f"load average {load_avg:.1f} on {os.cpu_count()} cores), slowest: {slowest}")
    assert compute < CORE_SECONDS, (f"{path.name}: the core cells took {compute:.1f} s in lab mode "
                                    f"(< {CORE_SECONDS} s needed, on a quiet machine; load average here "
                                    f"{load_avg:.1f} on {os.cpu_count()} cores); slowest: {slowest}")


# --- the instructor page (docs/instructor.md) lists the routes ---------------------------------

PAGE = ROOT / "docs" / "instructor.md"


def test_instructor_page_is_linked_and_keeps_the_prose_rules():
    from test_prose_digits import western_digits_in_prose
    from test_terms import RETIRED

    text = PAGE.read_text(encoding="utf-8")
    assert "docs/instructor.md" in (ROOT / "README.bn.md").read_text(encoding="utf-8")
    assert "docs/instructor.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    bad = western_digits_in_prose(text)
    assert not bad, f"Western digits in the page's Bengali prose: {bad[:10]}"
    retired = [m.group(0) for pattern in RETIRED for m in re.finditer(pattern, text)]
    assert not retired, retired


def test_instructor_page_has_a_route_for_every_lesson():
    text = PAGE.read_text(encoding="utf-8")
    for path in LESSONS:
        number = path.stem.split("_")[0]  # 05b
        bn = number[:2].translate(str.maketrans("0123456789", BN_DIGITS)) + {"b": "খ", "c": "গ"}.get(number[2:], "")
        assert re.search(rf"^### পাঠ {bn}\b", text, flags=re.MULTILINE), f"no '### পাঠ {bn}' route for {path.name}"
