"""Every lesson notebook, clicked through in a real browser as a student would.

For each notebooks/0N_*.ipynb (found by glob, so a new lesson is covered without editing
anything): open it in a fresh JupyterLab workspace, Kernel → Restart Kernel and Run All
Cells, wait until every cell ran, fail on any error output; then change one control of the
lesson's experiment panel, press চালাও and check that a new plot appeared and no error.
A screenshot of each lesson's panel goes to artifacts/screenshots/; with
FASTRAIN_README_SCREENSHOTS=1 lesson 04's panel also goes to docs/img/lesson-panel.png (README.bn.md).
Bengali must be drawn with the course's font (conftest.check_bengali_drawn), not as empty boxes.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LESSONS = sorted(REPO.glob("notebooks/0[0-9]*_*.ipynb"))
BENGALI = re.compile(r"[\u0980-\u09FF]{3,}")
RUN_TIMEOUT_MS = 240_000  # a ci-mode notebook takes 5–40 s alone; CI runs other tests beside us
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


def _restart_and_run_all(page, notebook) -> None:
    """Kernel → Restart Kernel…, confirm, wait until the new kernel is idle; then Run → Run All
    Cells. (Two steps, not "Restart Kernel and Run All Cells": requests sent while the
    browser is still reconnecting to the restarted kernel can be garbled and lost.)"""
    status = page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\| Idle"))
    for _attempt in range(2):
        _menu(page, "Kernel", "Restart Kernel…")
        page.locator(".jp-Dialog .jp-mod-accept").click()
        page.locator(".jp-Dialog").wait_for(state="detached")
        time.sleep(1.0)  # the status bar says "Restarting" only after a moment
        status.first.wait_for(timeout=120_000)
        _menu(page, "Run", "Run All Cells")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(p != "[ ]:" for p in notebook.evaluate(STATE_JS)["prompts"]):
                return
            time.sleep(0.3)
    pytest.fail("Restart Kernel + Run All Cells did not start running the cells")


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


@pytest.mark.parametrize("notebook_path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_in_browser(notebook_path, lab_server, page, screenshots, bengali_drawn):
    base, token, _root = lab_server
    workspace = f"t{uuid.uuid4().hex[:10]}"
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/notebooks/{notebook_path.name}?reset&token={token}")
    notebook = page.locator(".jp-NotebookPanel:visible").first
    notebook.locator(".jp-Cell").first.wait_for()
    passed = False
    try:
        # Wait until the kernel that opening the notebook started is connected and idle (a
        # restart while the first connection is still settling garbles the websocket), then
        # restart it and run all.
        page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\| Idle")).first.wait_for(timeout=120_000)
        time.sleep(2.0)
        _restart_and_run_all(page, notebook)
        state = _wait_all_ran(page, notebook)
        assert not state["errors"], f"{notebook_path.name}: error output after Run All:\n" + "\n---\n".join(
            state["errors"])
        not_run = [i + 1 for i, p in enumerate(state["prompts"]) if not re.fullmatch(r"\[\d+\]:", p)]
        assert not not_run, f"{notebook_path.name}: code cells {not_run} did not run"
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
