"""Bengali from the first paint (issue 27): a lesson opened from `python -m fastrain_lib lab` (what `make lab`
runs, and the command where there is no make), and the page `make demo` serves, draw Bengali with the
course's font BEFORE any cell runs.

Before this, on a PC without a Bengali system font (this machine, CI, most lab PCs) every heading and
paragraph of a freshly opened lesson was empty boxes until the student ran the setup cell, which
displays the font's <style> (webfont.inject) — and the sentence asking them to run it was boxes too.

The servers here are started the two ways a student or an instructor starts them: `python -m fastrain_lib
lab` (no make: its own install check finds the venv's stamp up to date) and the Makefile's `make demo`
(which calls `python -m fastrain_lib demo`), with only the port, the course-local Jupyter folder and the
token (JUPYTER_TOKEN, DEMO_TOKEN) set by the test, in a copy of the course (notebooks/ copied, nothing
written into the real files); `-o <stamp>` keeps make from reinstalling. The lessons are opened as committed (no outputs, no cell
run: checked), and every visible Bengali text is measured with conftest.check_bengali_drawn (the
page's font on a canvas against the course's font and against tofu, the width the page laid the word
out at, document.fonts.check).

Checked against the old launch: FASTRAIN_LAB_MAKEFILE=<the Makefile before this change> runs the demo
test with that Makefile; it failed there (the family is not in the page's font stacks, no face is
loaded: tofu) and pass with the current one.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAKEFILE = Path(os.environ.get("FASTRAIN_LAB_MAKEFILE") or REPO / "Makefile")
VENV = Path(sys.prefix)  # the .venv the tests run in: make's VENV
STAMP = VENV / ".fastrain-installed"
LESSONS = sorted(REPO.glob("notebooks/0[0-9]*_*.ipynb"))
# The page `make lab` opens first, and one later lesson (long markdown, tables, code comments).
FIRST_PAINT = [p for p in LESSONS if p.stem.startswith(("00_", "03_"))] or LESSONS[:1]
DEMO_PAGE = {
    "cells": [
        {"cell_type": "markdown", "id": "title", "metadata": {},
         "source": "# শিক্ষকের ড্যাশবোর্ড\n\nকোনো ঘর চালানোর আগেই এই লেখা বাংলা হরফে আঁকা হওয়া চাই।"},
        {"cell_type": "code", "id": "quiet", "metadata": {}, "execution_count": None, "outputs": [],
         "source": "x = 1  # no output, and no webfont.inject(): the font must come from the page itself"},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}
PROMPTS_JS = "(panel) => [...panel.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim())"


def _make_env(tools, tmp: Path) -> dict:
    env = tools.base_env(tmp)
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):  # under `make test`: a clean make
        env.pop(var, None)
    # The browser session's quiet settings (no news, no autosave, every cell rendered) as the
    # user's own settings: the same for the old and the new launch.
    settings = tmp / "user-settings"
    for key, values in tools.overrides.items():
        package, plugin = key.split(":")
        path = settings / package / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env.update(JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"))
    return env


def _make(target: str, tmp: Path, port: int, *assignments: str) -> list[str]:
    if not STAMP.exists():
        pytest.skip(f"{STAMP} is missing: the course is not installed with `make install` here")
    return ["make", "--no-print-directory", "-f", str(MAKEFILE), "-o", str(STAMP), target, f"VENV={VENV}",
            f"PORT={port}", f"COURSE_JUPYTER={tmp / 'course-jupyter'}", *assignments]


def _course_command(target: str, tmp: Path, port: int) -> list[str]:
    """`python -m fastrain_lib lab` as typed where there is no make, run with the venv's own install check."""
    if not STAMP.exists():
        pytest.skip(f"{STAMP} is missing: the course is not installed with `make install` here")
    return [sys.executable, "-m", "fastrain_lib", target, "--venv", str(VENV), f"--port={port}",
            f"--jupyter-dir={tmp / 'course-jupyter'}"]


@pytest.fixture(scope="module")
def make_lab(tmp_path_factory, server_tools):
    """`python -m fastrain_lib lab` (make lab's command) in a copy of the course: yields (base_url, token)."""
    tools = server_tools
    tmp = tmp_path_factory.mktemp("make-lab")
    root = tools.course_copy(tmp)
    port, token = tools.free_port(), secrets.token_hex(16)
    env = _make_env(tools, tmp)
    env["JUPYTER_TOKEN"] = token
    log = tmp / "make-lab.log"
    proc = tools.start(_course_command("lab", tmp, port), env, root, log)
    try:
        base = f"http://127.0.0.1:{port}"
        tools.wait_http(f"{base}/api/status?token={token}", proc, log)
        yield base, token
    finally:
        tools.stop(proc, log)


@pytest.fixture(scope="module")
def make_demo(tmp_path_factory, server_tools):
    """`make demo` in a copy of the course whose dashboard notebook is a small page of Bengali
    markdown that never calls webfont.inject(): yields the page URL (with token)."""
    tools = server_tools
    tmp = tmp_path_factory.mktemp("make-demo")
    root = tools.course_copy(tmp)
    (root / "notebooks" / "99_instructor_dashboard.ipynb").write_text(json.dumps(DEMO_PAGE, ensure_ascii=False),
                                                                      encoding="utf-8")
    port, token = tools.free_port(), secrets.token_hex(16)
    log = tmp / "make-demo.log"
    proc = tools.start(_make("demo", tmp, port, f"DEMO_TOKEN={token}"), _make_env(tools, tmp), root, log)
    try:
        tools.wait_http(f"http://127.0.0.1:{port}/voila/static/", proc, log)
        yield f"http://127.0.0.1:{port}/?token={token}"
    finally:
        tools.stop(proc, log)


def _shutdown_kernels(base: str, token: str) -> None:
    headers = {"Authorization": f"token {token}"}
    with urllib.request.urlopen(urllib.request.Request(f"{base}/api/kernels", headers=headers), timeout=30) as r:
        kernels = json.loads(r.read() or b"[]")
    for kernel in kernels:
        try:
            urllib.request.urlopen(urllib.request.Request(f"{base}/api/kernels/{kernel['id']}", method="DELETE",
                                                          headers=headers), timeout=30).close()
        except OSError:
            pass


@pytest.mark.parametrize("lesson", FIRST_PAINT, ids=[p.stem for p in FIRST_PAINT])
def test_lesson_from_make_lab_draws_bengali_before_any_cell_runs(lesson, make_lab, page, screenshots, bengali_drawn):
    base, token = make_lab
    page.goto(f"{base}/lab/workspaces/t{uuid.uuid4().hex[:10]}/tree/notebooks/{lesson.name}?reset&token={token}")
    notebook = page.locator(".jp-NotebookPanel:visible").first
    passed = False
    try:
        notebook.locator(".jp-MarkdownCell .jp-RenderedMarkdown").first.wait_for()
        page.evaluate("() => document.fonts.ready.then(() => true)")
        time.sleep(0.5)  # the first screen of cells is rendered
        prompts = notebook.evaluate(PROMPTS_JS)
        assert prompts and all(not re.fullmatch(r"\[[\d*]+\]:", p) for p in prompts), (
            f"{lesson.name}: a cell has run or is running ({prompts[:5]}…): this test is about the page before that")
        assert page.locator("#fastrain-webfont").count() == 0, "the setup cell's <style> is on the page already"
        results = bengali_drawn(page, notebook, f"{lesson.name} opened from `make lab`, before any cell runs",
                                min_kinds=("markdown",))
        # more than the title: the first screen's paragraphs, headings and table of contents
        assert sum(r["count"] for r in results) >= 3, results
        page.screenshot(path=str(screenshots / f"first-paint-{lesson.stem}.png"))
        passed = True
    finally:
        if not passed:
            page.screenshot(path=str(screenshots / f"first-paint-{lesson.stem}-FAILED.png"))
        _shutdown_kernels(base, token)


def test_make_demo_draws_bengali_without_the_setup_cell(make_demo, page, screenshots, bengali_drawn):
    """Voilà: the page's own <head> brings the font (the notebook never injects it)."""
    page.goto(make_demo)
    cells = page.locator("#rendered_cells")
    passed = False
    try:
        cells.wait_for(state="visible", timeout=180_000)
        page.locator("#rendered_cells h1").first.wait_for()
        page.evaluate("() => document.fonts.ready.then(() => true)")
        assert page.locator("#fastrain-webfont").count() == 0
        bengali_drawn(page, cells, "`make demo` page, no webfont.inject()", min_kinds=("markdown",))
        page.screenshot(path=str(screenshots / "first-paint-demo.png"))
        passed = True
    finally:
        if not passed:
            page.screenshot(path=str(screenshots / "first-paint-demo-FAILED.png"))
