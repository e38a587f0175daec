"""A lesson in plain Jupyter Notebook 7 (`jupyter notebook`), in a real browser.

Notebook 7 is the classic one-document interface built from JupyterLab's parts; students who
start `jupyter notebook` get it. Open one lesson, run all cells, and check that every visible
Bengali text on the page — markdown, the setup cell's messages, the experiment panel's labels,
buttons and table — is drawn with the course's font (conftest.check_bengali_drawn), not as
boxes. Skipped where the `notebook` package is not installed (it is in the dev extras).
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LESSON = "00_setup.ipynb"  # the first lesson a student opens; short in ci mode
RUN_TIMEOUT_S = 240

# Prompts of every code cell ("[3]:" ran, "[*]:" running or queued, "[ ]:" not yet) and the
# tracebacks among the outputs (the same reading as test_lessons.STATE_JS).
STATE_JS = r"""(panel) => {
  const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim());
  const errors = [...panel.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"], '
    + '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
    .map(e => e.innerText).filter(text => text.includes('Traceback (most recent call last)')).map(t => t.slice(0, 3000));
  return {prompts, errors};
}"""


def _kernels(base: str, token: str) -> list[dict]:
    request = urllib.request.Request(f"{base}/api/kernels", headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _wait_kernel_idle(base: str, token: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            kernels = _kernels(base, token)
        except urllib.error.HTTPError as error:  # CI: a 500 from /api/kernels while the kernel was starting
            if error.code < 500:
                raise
            kernels = []
        if kernels and all(k.get("execution_state") == "idle" for k in kernels):
            return
        time.sleep(0.5)
    pytest.fail(f"the lesson's kernel was not idle within {timeout_s} s: {_kernels(base, token)}")


def test_lesson_in_notebook7(notebook7_server, page, screenshots, bengali_drawn):
    base, token = notebook7_server
    page.goto(f"{base}/notebooks/notebooks/{LESSON}?token={token}")
    notebook = page.locator(".jp-NotebookPanel").first
    notebook.locator(".jp-Cell").first.wait_for(timeout=120_000)
    passed = False
    try:
        _wait_kernel_idle(base, token)
        time.sleep(2.0)  # let the page's connection to the new kernel settle
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Run All Cells")).click()
        deadline, quiet, state = time.monotonic() + RUN_TIMEOUT_S, 0, {}
        while time.monotonic() < deadline and quiet < 3:
            state = notebook.evaluate(STATE_JS)
            done = state["prompts"] and all(re.fullmatch(r"\[\d+\]:", p) for p in state["prompts"])
            quiet = quiet + 1 if done or state["errors"] else 0
            time.sleep(1.0)
        assert quiet >= 3, f"{LESSON} did not finish in {RUN_TIMEOUT_S} s in Notebook 7; prompts: {state.get('prompts')}"
        assert not state["errors"], f"{LESSON}: error output in Notebook 7:\n" + "\n---\n".join(state["errors"])
        panel = notebook.locator(".fastrain-panel").first
        panel.wait_for(timeout=60_000)
        panel.locator(".fastrain-output img").first.wait_for(timeout=60_000)  # ci mode: show() ran it once
        panel.scroll_into_view_if_needed()
        checked = bengali_drawn(page, page.locator("body"), f"Notebook 7, {LESSON}",
                                min_kinds=("markdown", "widget label", "button/tab"))
        assert sum(r["count"] for r in checked) >= 20  # the whole lesson's text, not a sample
        page.screenshot(path=str(screenshots / f"notebook7-{Path(LESSON).stem}.png"))
        passed = True
    finally:
        if not passed:
            page.screenshot(path=str(screenshots / f"notebook7-{Path(LESSON).stem}-FAILED.png"), full_page=True)
