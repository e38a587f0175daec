"""docs/test-properties.md (issue 29): every test it names as the proof of a property exists.

A row whose test was renamed, moved or deleted would claim a property nobody proves any more."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "test-properties.md"
# `tests/x.py`, `tests/x.py::test_y` (an optional [param] ignored), and `::test_z` after a named file
NAMED = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?(?:\[[^\]]*\])?`|`::(\w+)`")


def named_tests(text: str) -> list[tuple[str, str | None]]:
    """(file, test function or None) for every test the doc names; `::name` belongs to the file before it."""
    found, last_file = [], None
    for match in NAMED.finditer(text):
        if match[1]:
            last_file = match[1]
            found.append((match[1], match[2]))
        elif last_file:
            found.append((last_file, match[3]))
    return found


def functions_in(path: Path) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef)}


def test_every_test_the_doc_names_exists():
    named = named_tests(DOC.read_text(encoding="utf-8"))
    assert len(named) >= 20
    missing = [f"{file}::{name}" if name else file for file, name in named
               if not (ROOT / file).exists() or (name and name not in functions_in(ROOT / file))]
    assert not missing, f"docs/test-properties.md names tests that do not exist: {missing}"


def test_the_reader_catches_a_renamed_test():
    text = "`tests/test_capstone.py::test_no_such_thing` and `::test_sizes_and_bad_options`, `tests/nothing.py`"
    named = named_tests(text)
    assert named == [("tests/test_capstone.py", "test_no_such_thing"), ("tests/test_capstone.py", "test_sizes_and_bad_options"),
                     ("tests/nothing.py", None)]
    functions = functions_in(ROOT / "tests" / "test_capstone.py")
    assert "test_no_such_thing" not in functions and "test_sizes_and_bad_options" in functions
