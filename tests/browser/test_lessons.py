"""Every lesson notebook, clicked through in a real browser as a student would.

For each notebooks/0N_*.ipynb (found by glob, so a new lesson is covered without editing
anything): open it with File → Open from Path in the JupyterLab page this worker keeps open (which starts
a fresh kernel; the lesson before it was closed), Run All Cells, wait until every cell ran, fail on any error output; then change one control of the
lesson's experiment panel, press চালাও and check that a new plot appeared and no error.
Run All happens beside one busy core of other work (tests/_load.py: a real busy process tops up whatever
the other test worker already burns), and what it showed is checked as
tests/test_lessons_loaded.py checks its own executions (issue 29: this Run All is the lesson's one
execution in Bengali): the notebook is saved from the page (outputs, widget state) and read with
say()'s audit log and the text every plot drew (browser/conftest.py) — no cause from a noisy
measurement, no verdict twice, no raw value, no English in Bengali output, plot text included.
A screenshot of each lesson's panel goes to artifacts/screenshots/; with
FASTRAIN_README_SCREENSHOTS=1 lesson 04's panel also goes to docs/img/lesson-panel.png (README.bn.md).
Bengali must be drawn with the course's font (conftest.check_bengali_drawn), not as empty boxes.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest
from _load import busy_core_beside
from _nbrun import shown
from _sentences import hygiene_problems, unmarked_findings
from test_lessons_loaded import (
    BROWSER_LESSONS,
    doubled_verdicts,
    english_problems,
    raw_problems,
    undeclared_after_noise,
)

REPO = Path(__file__).resolve().parents[2]
LESSONS = sorted(p for p in (REPO / "notebooks").glob("*.ipynb") if BROWSER_LESSONS.match(p.name))
BENGALI = re.compile(r"[\u0980-\u09FF]{3,}")
# a ci-mode notebook takes 5–170 s alone; here beside a busy core, and CI runs other tests beside us
RUN_TIMEOUT_MS = 600_000
CLICK_TIMEOUT_MS = 120_000
README_LESSON = "04_fused_kernels"
README_IMG = REPO / "docs" / "img"

# Progress of "run all" read from the page in one go: the prompts of every code cell
# ("[3]:" ran, "[*]:" running/queued, "[ ]:" not yet) and the error outputs. JupyterLab 4
# renders a traceback as application/vnd.jupyter.stderr, like a warning; what tells them
# apart is the traceback itself.
STATE_JS = r"""(panel) => {
  const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim());
  const errors = [...panel.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"], '
    + '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
    .map(e => e.innerText)
    .filter(text => text.includes('Traceback (most recent call last)')
                 || (text.includes('Cell In[') && /^\w*Error: /m.test(text)))  // SyntaxError
    .map(text => text.slice(0, 3000));
  return {prompts, errors};
}"""


def _api(base: str, token: str, path: str, method: str = "GET"):
    request = urllib.request.Request(f"{base}{path}", method=method, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else None


def _shutdown_kernels(base: str, token: str) -> None:
    """Free the CPU and memory for the next lesson: stop every kernel this server runs."""
    for kernel in _api(base, token, "/api/kernels") or []:
        try:
            _api(base, token, f"/api/kernels/{kernel['id']}", "DELETE")
        except OSError:
            pass


def _menu(page, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}")).click()


def _run_all(page, notebook) -> None:
    """Run → Run All Cells in the fresh kernel that opening the notebook started (a student's Restart Kernel
    would give the same: nothing has run in it). A request sent while the page is still connecting to the
    kernel can be lost, so a Run All that started no cell in 15 s is asked again, twice at most."""
    for _attempt in range(3):
        _menu(page, "Run", "Run All Cells")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if any(p != "[ ]:" for p in notebook.evaluate(STATE_JS)["prompts"]):
                return
            time.sleep(0.3)
    pytest.fail("Run All Cells did not start running the cells")


def _wait_all_ran(page, notebook) -> dict:
    """Wait until Run All has finished (no cell running or queued, the kernel idle, twice in a
    row) — all cells ran, or an error stopped it; returns the final state."""
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    state, quiet = {}, 0
    idle = notebook.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    while time.monotonic() < deadline:
        state = notebook.evaluate(STATE_JS)
        ran = [p for p in state["prompts"] if re.fullmatch(r"\[\d+\]:", p)]
        finished = ran and "[*]:" not in state["prompts"] and idle.count()
        quiet = quiet + 1 if finished else 0
        if quiet >= 2:
            return state
        time.sleep(1.0)
    pytest.fail(f"the notebook did not finish in {RUN_TIMEOUT_MS // 1000} s; prompts: {state.get('prompts')}")


def _saved_notebook(page, notebook, base: str, token: str, name: str):
    """Save the notebook from the page (its toolbar's save button, as a student would; Ctrl+S if the
    button is not found) and read the file back. A widget that has the keyboard focus swallows Ctrl+S
    (lesson 02's panel did, in CI), so the keyboard's try leaves it first; three tries of 30 s on a busy machine."""
    path = f"/api/contents/notebooks/{name}"
    before = _api(base, token, path + "?content=0")["last_modified"]
    button = notebook.locator('.jp-Toolbar [data-command="docmanager:save"]')
    dirty = page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty")  # the open tab's unsaved mark
    for attempt in range(3):
        if button.count() and attempt != 1:  # the second try is the keyboard's
            button.first.click()
        else:
            page.keyboard.press("Escape")
            page.keyboard.press("Control+s")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if dirty.count():  # the page has not heard "saved" yet: reading now would race the write
                time.sleep(0.5)
                continue
            model = _read_while_saving(base, token, path)
            if model is not None and model["last_modified"] != before:
                return nbformat.reads(json.dumps(model["content"]), as_version=4)
            time.sleep(0.5)
    pytest.fail(f"{name}: the notebook was not saved after three tries of 30 s")


def _read_while_saving(base: str, token: str, path: str):
    """The notebook's model, or None while the server is still writing it: jupyter_server's
    "atomic" save writes the file in place (the backup copy is what makes it safe), so a read
    in between finds half a notebook and answers 400 Unreadable Notebook (CI clone, lessons 03, 07)."""
    try:
        return _api(base, token, path + "?content=1")
    except urllib.error.HTTPError as err:
        if err.code == 400:
            return None
        raise


def _with_plot_text(cells, nb, plot_log: Path) -> list:
    """Each cell's outputs plus the text its plots drew (PLOT_TEXT_LOG, by execution count), as an SVG
    output holding that text: what the loaded test sees in its SVG plots."""
    import html

    drawn = {}
    if plot_log.exists():
        for line in plot_log.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            drawn.setdefault(record["cell"], []).append(record["text"])
    plotted = [c.index for c in cells if any("image/png" in o.get("data", {}) for o in c.outputs)]
    if plotted and not drawn:  # the start-up hook did not run: plot text would go unchecked
        pytest.fail(f"cells {plotted} show plots but {plot_log.name} logged no text they drew")
    counts = {index: cell.get("execution_count") for index, cell in enumerate(nb.cells)}
    for cell in cells:
        texts = drawn.get(counts.get(cell.index), [])
        if texts:
            svg = "<svg>" + "".join(f"<text>{html.escape(t)}</text><br/>" for t in texts) + "</svg>"
            cell.outputs.append({"output_type": "display_data", "metadata": {},
                                 "data": {"image/svg+xml": svg, "text/plain": "<plot text>"}})
    return cells


def _run_all_problems(page, notebook, base, token, logs, notebook_path: Path) -> list[str]:
    """What the loaded-machine test would find in this Run All (tests/test_lessons_loaded.py)."""
    nb = _saved_notebook(page, notebook, base, token, notebook_path.name)
    cells, widget_text = shown(nb)
    cells = _with_plot_text(cells, nb, logs.plot_text)
    log = logs.verdicts
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return (undeclared_after_noise(records, cells) + doubled_verdicts(cells) + raw_problems(cells)
            + english_problems(cells, widget_text) + unmarked_findings(records, cells) + hygiene_problems(cells))


def _change_one_control(panel) -> str:
    """Change one control as a student would; returns what was done (for the failure message)."""
    selects = panel.locator("select")
    for i in range(selects.count()):  # the first dropdown that offers another choice
        select = selects.nth(i)
        current = select.input_value()
        values = select.locator("option:not([disabled])").evaluate_all("os => os.map(o => o.value)")
        others = [v for v in values if v != current]
        if others:
            select.select_option(others[0])
            return f"dropdown -> {others[0]}"
    toggles = panel.locator(".widget-toggle-button:not(.mod-active)")
    if toggles.count():
        label = toggles.first.inner_text()
        toggles.first.click()
        return f"toggle -> {label}"
    handle = panel.locator(".noUi-handle")
    if handle.count():
        before = handle.first.get_attribute("aria-valuenow")
        handle.first.focus()
        handle.first.press("ArrowRight")
        if handle.first.get_attribute("aria-valuenow") == before:  # already at the right end
            handle.first.press("ArrowLeft")
        return f"slider {before} -> {handle.first.get_attribute('aria-valuenow')}"
    checkbox = panel.locator("input[type=checkbox]")
    if checkbox.count():
        checkbox.first.click()
        return "checkbox"
    pytest.fail("the panel has no control a student could change (dropdown, toggle, slider, checkbox)")


@pytest.fixture(scope="module")
def lab_page(browser, lab_server):
    """One JupyterLab page for every lesson this worker runs, as a student keeps one tab open through a lab
    session: loading the app cost about 6 CPU-seconds per lesson (renderer), more than some lessons' own run."""
    base, token, _root = lab_server
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="bn-BD")
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{base}/lab/workspaces/t{uuid.uuid4().hex[:10]}?reset&token={token}")
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^File$")).wait_for()
    try:
        yield page
    finally:
        context.close()


def _open(page, name: str):
    """File → Open from Path… → notebooks/<name>, as a student opens the next lesson; its panel once shown."""
    _menu(page, "File", "Open from Path")
    field = page.locator(".jp-Dialog input").first
    field.fill(f"notebooks/{name}")
    field.press("Enter")
    tab = page.locator(".lm-TabBar-tab.jp-mod-current", has_text=name)
    tab.wait_for()
    notebook = page.locator(".jp-NotebookPanel:visible").first
    notebook.locator(".jp-Cell").first.wait_for()
    return notebook


def _close_all(page) -> None:
    """File → Close All Tabs, discarding what the run changed (the test already read the saved notebook): the
    next lesson starts in an empty main area, as after a fresh page load."""
    _menu(page, "File", "Close All Tabs")
    deadline = time.monotonic() + 30
    while page.locator(".jp-NotebookPanel").count() and time.monotonic() < deadline:
        discard = page.locator(".jp-Dialog .jp-mod-warn")  # "Discard" in the save-your-work dialog
        if discard.count():
            discard.first.click()
        time.sleep(0.2)
    if page.locator(".jp-NotebookPanel").count():
        pytest.fail("the lesson's tab did not close: the next lesson would share the page with it")


@pytest.mark.parametrize("notebook_path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_in_browser(notebook_path, lab_server, lab_run_logs, lab_page, screenshots, bengali_drawn):
    base, token, _root = lab_server
    page = lab_page
    notebook = _open(page, notebook_path.name)
    passed = False
    try:
        # Wait until the kernel that opening the notebook started is connected and idle, then run all.
        page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\| Idle")).first.wait_for(timeout=120_000)
        for log in (lab_run_logs.verdicts, lab_run_logs.plot_text):  # this lesson's run only
            log.unlink(missing_ok=True)
        with busy_core_beside(max_seconds=RUN_TIMEOUT_MS / 1000 + 120):
            _run_all(page, notebook)
            state = _wait_all_ran(page, notebook)
        assert not state["errors"], f"{notebook_path.name}: error output after Run All:\n" + "\n---\n".join(
            state["errors"])
        not_run = [i + 1 for i, p in enumerate(state["prompts"]) if not re.fullmatch(r"\[\d+\]:", p)]
        assert not not_run, f"{notebook_path.name}: code cells {not_run} did not run"
        problems = _run_all_problems(page, notebook, base, token, lab_run_logs, notebook_path)
        assert not problems, (f"{notebook_path.name} (Run All in the browser, Bengali, ci mode, one busy core "
                              "beside it):\n  " + "\n  ".join(problems))
        assert BENGALI.search(notebook.inner_text()), f"{notebook_path.name}: no Bengali text is visible"

        panel = notebook.locator(".fastrain-panel").first
        assert panel.count(), f"{notebook_path.name}: no experiment panel (.fastrain-panel) was displayed"
        panel.scroll_into_view_if_needed()
        image = panel.locator(".fastrain-output img").first
        image.wait_for(timeout=CLICK_TIMEOUT_MS)  # ci mode: show() ran the panel once
        before = image.get_attribute("src")
        assert BENGALI.search(panel.text_content() or ""), f"{notebook_path.name}: the panel shows no Bengali text"

        action = _change_one_control(panel)
        run = panel.locator("button.fastrain-run")
        assert "চালাও" in run.inner_text()
        run.click()
        # Done when the figure changed (a new PNG) or the panel reported an error.
        page.wait_for_function(
            """([panel, before]) => panel.querySelector('.fastrain-error') !== null ||
                 ((panel.querySelector('.fastrain-output img') || {}).src || before) !== before""",
            arg=[panel.element_handle(), before], timeout=CLICK_TIMEOUT_MS)
        errors = panel.locator(".fastrain-error")
        assert not errors.count(), f"{notebook_path.name}: the panel failed after '{action}':\n{errors.first.inner_text()}"
        after = panel.locator(".fastrain-output img").first.get_attribute("src")
        assert after.startswith("data:image/png") and after != before, f"no new plot after '{action}'"
        # What is DRAWN: markdown, the panel's labels, buttons and table in the course's font.
        bengali_drawn(page, notebook, notebook_path.name,
                      min_kinds=("markdown", "widget label", "button/tab", "table cell"))
        panel.locator(".fastrain-output img").first.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"{notebook_path.stem}.png"))
        if os.environ.get("FASTRAIN_README_SCREENSHOTS") and notebook_path.stem == README_LESSON:
            README_IMG.mkdir(parents=True, exist_ok=True)  # README.bn.md's picture of a lesson panel
            panel.screenshot(path=str(README_IMG / "lesson-panel.png"))
        passed = True
    finally:
        if not passed:  # what the student would have seen, for the CI log
            page.screenshot(path=str(screenshots / f"{notebook_path.stem}-FAILED.png"), full_page=True)
        _shutdown_kernels(base, token)
        _close_all(page)
