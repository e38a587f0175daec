"""Notebook hygiene: names, badges, setup cells, structure, Bengali prose, clean text.

Every notebook under notebooks/, solutions/ and exercises/ is checked; a new one is
picked up without editing a list."""

import re
import unicodedata
from pathlib import Path

import nbformat
import pytest

from fastrain_lib import authoring

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = authoring.all_notebooks(ROOT)
LESSONS = [p for p in NOTEBOOKS if p.parent.name == "notebooks" and re.match(r"0\d[a-z]?_", p.name)]
BENGALI = re.compile(r"[\u0980-\u09FF]")
LATIN_WORDS = re.compile(r"[A-Za-z]{3,}")
IDS = [p.relative_to(ROOT).as_posix() for p in NOTEBOOKS]


def load(path):
    return nbformat.read(path, as_version=4)


def prose(markdown: str) -> str:
    """Markdown without code, URLs and link targets: what a student reads as sentences."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"https?://\S+", " ", text)


def test_there_are_lessons():
    assert LESSONS, "no lesson notebooks found"
    assert (ROOT / "notebooks" / "00_setup.ipynb") in LESSONS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_file_name_is_ascii_and_numbered(path):
    assert path.name.isascii()
    assert re.fullmatch(r"\d\d[a-z]?_[a-z0-9_]+\.ipynb", path.name), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_badge_points_at_own_path_and_setup_cell_is_the_template(path):
    nb = load(path)
    rel = path.relative_to(ROOT).as_posix()
    assert authoring.badge(rel) in nb.cells[0].source
    assert nb.cells[0].source.count(authoring.BADGE_PREFIX) == 1
    setup = nb.cells[1]
    assert setup.cell_type == "code" and setup.source == authoring.setup_cell_source()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_outputs_are_stripped(path):
    for cell in load(path).cells:
        if cell.cell_type == "code" and "NBVAL_CHECK_OUTPUT" not in cell.source:
            assert not cell.get("outputs"), f"{path.name}: committed outputs in: {cell.source[:60]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_text_is_nfc_without_stray_invisible_characters(path):
    text = path.read_text(encoding="utf-8")
    assert unicodedata.normalize("NFC", text) == text
    for ch, name in (("\u200b", "zero-width space"), ("\ufeff", "BOM"), ("\u00ad", "soft hyphen")):
        assert ch not in text, f"{path.name}: contains a {name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_markdown_prose_is_bengali(path):
    for cell in load(path).cells:
        if cell.cell_type != "markdown":
            continue
        text = prose(cell.source)
        english = " ".join(LATIN_WORDS.findall(text))
        if len(english) > 60:
            assert BENGALI.search(text), f"{path.name}: English-only prose: {cell.source[:80]!r}"


@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_lesson_structure(path):
    cells = load(path).cells
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert cells[0].source.lstrip().startswith("# "), "the first cell is the title"
    for heading in ("শিখনফল", "পূর্বশর্ত", "আনুমানিক সময়", "সারসংক্ষেপ", "পরিভাষা", "আরও পড়ুন"):
        assert heading in markdown, f"{path.name}: missing '{heading}'"
    assert "ভেবে দেখো" in markdown, f"{path.name}: no 'ভেবে দেখো' question"


@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_lesson_uses_its_panel(path):
    number = path.name[:2]
    code = "\n".join(c.source for c in load(path).cells if c.cell_type == "code")
    assert f"lesson{number}" in code and ".show()" in code, f"{path.name}: does not show panels.lesson{number}"


def test_exercises_are_generated_from_solutions():
    stale = authoring.stale_files(ROOT)
    assert not stale, f"run `python -m fastrain_lib.authoring sync`: {[p.name for p in stale]}"
    assert {p.name for p in (ROOT / "solutions").glob("*.ipynb")} == {p.name for p in (ROOT / "exercises").glob("*.ipynb")}


def test_no_solution_leaks_into_exercises():
    for path in (ROOT / "exercises").glob("*.ipynb"):
        for cell in load(path).cells:
            assert authoring.BEGIN not in cell.source and authoring.END not in cell.source
