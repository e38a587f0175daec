"""The instructor dashboard as `make demo` serves it: Voilà + Chromium, read from the back of a room.

Open the page, check there is one tab per lesson panel and that every visible Bengali text on
the page (the notebook's markdown above and below the dashboard too) is drawn with the course's
font; visit every tab (the same check on the whole page, a screenshot each,
artifacts/screenshots/dashboard-NN.png) and check that no widget label is cut off with "…" and no
table is clipped; press চালাও on another tab's panel and check the plot, its text size at the
rendered size (>= 14 pt) and the table; then turn on the reference/ switch (its Bengali too).

FASTRAIN_README_SCREENSHOTS=1 also writes docs/img/dashboard.png for README.bn.md.
"""

from __future__ import annotations

import base64
import io
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENGALI = re.compile(r"[\u0980-\u09FF]{3,}")
from fastrain_lib.lessons import panel_names  # noqa: E402

PANEL_MODULES = sorted(panel_names())  # ['lesson00', 'lesson01', ..., 'lesson05b', ...]: one tab each
MIN_PLOT_PT = 14  # projector: the smallest plot text, at the size the browser draws the image
README_IMG = REPO / "docs" / "img"

# Labels cut off with an ellipsis (text-overflow) and tables wider than the area that shows them.
LAYOUT_JS = r"""(panel) => {
  const cut = [...panel.querySelectorAll('*')].filter(el => {
    const s = getComputedStyle(el);
    return el.getClientRects().length && s.textOverflow === 'ellipsis' && el.textContent.trim()
           && el.scrollWidth > el.clientWidth + 1;
  }).map(el => el.textContent.trim());
  const clipped = [...panel.querySelectorAll('table')].filter(table => {
    const box = table.getBoundingClientRect();
    for (let up = table.parentElement; up && up !== panel.parentElement; up = up.parentElement) {
      const s = getComputedStyle(up), r = up.getBoundingClientRect();
      const hides = s.overflowX !== 'visible';
      if (hides && (box.right > r.right + 1 || box.left < r.left - 1 || up.scrollWidth > up.clientWidth + 1)) return true;
    }
    return box.right > document.documentElement.clientWidth + 1;
  }).map(t => t.innerText.slice(0, 80));
  // a dropdown squeezed by its long label: narrower than the value it has to show (+ its arrow)
  const ctx = document.createElement('canvas').getContext('2d');
  const squeezed = [...panel.querySelectorAll('select')].filter(el => {
    if (!el.getClientRects().length) return false;
    const s = getComputedStyle(el);
    ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    const text = (el.selectedOptions[0] || {}).text || '';
    return el.getBoundingClientRect().width < ctx.measureText(text).width + 16;
  }).map(el => (el.closest('.widget-inline-hbox') || el).innerText.trim().slice(0, 60));
  return {cut, clipped, squeezed};
}"""


def _check_layout(panel, where: str) -> None:
    layout = panel.evaluate(LAYOUT_JS)
    assert not layout["cut"], f"{where}: widget labels cut off with '…': {layout['cut']}"
    assert not layout["clipped"], f"{where}: tables clipped: {layout['clipped']}"
    assert not layout["squeezed"], f"{where}: controls squeezed too narrow by their labels: {layout['squeezed']}"


def _smallest_plot_pt(image) -> float:
    """The smallest text of the plot in points as the browser draws it: the font size matplotlib
    used (the panel's PNG carries it, widgets.figure_png) scaled by pixels drawn / pixels in the PNG."""
    from PIL import Image

    src = image.get_attribute("src")
    png = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    smallest, dpi = float(png.text["fastrain:min_font_pt"]), float(png.text["fastrain:dpi"])
    drawn_px = image.evaluate("img => img.getBoundingClientRect().width")
    px_per_pt_in_png = dpi / 72
    css_px_per_pt = 96 / 72
    return smallest * px_per_pt_in_png * (drawn_px / png.width) / css_px_per_pt


def test_dashboard_tabs_run_and_reference(voila_server, page, screenshots, bengali_drawn):
    # Voilà runs the whole notebook before it sends the page (20–60 s in ci mode). The panels no
    # longer write through an Output capture context, so the first kernel does not stall any
    # more (issue 14): no reload; a hang fails here, after Voilà's own per-cell timeout.
    page.goto(voila_server, wait_until="commit", timeout=240_000)
    board = page.locator(".fastrain-dashboard")
    board.wait_for(timeout=300_000)
    assert BENGALI.search(board.inner_text())
    tabs = board.locator(".lm-TabBar-tab")
    assert tabs.count() == len(PANEL_MODULES)
    assert not board.locator(".fastrain-error").count(), board.locator(".fastrain-error").first.inner_text()
    # with one tab per lesson (10 and more), every tab's label is readable in full: the bar wraps
    cut_tabs = board.locator(".lm-TabBar-tab").evaluate_all(
        "tabs => tabs.filter(t => [t, ...t.querySelectorAll('*')].some(el => el.scrollWidth > el.clientWidth + 1))"
        ".map(t => t.innerText.trim())")
    assert not cut_tabs, f"tab labels cut off: {cut_tabs}"
    bengali_drawn(page, page.locator("body"), "dashboard", min_kinds=("markdown", "widget label", "button/tab",
                                                                     "table cell"))

    for i in range(tabs.count()):  # every tab: readable, nothing cut off, a screenshot for the log
        tabs.nth(i).click()
        shown = board.locator(".fastrain-panel:visible")
        shown.wait_for()
        _check_layout(shown, f"tab {tabs.nth(i).inner_text()}")
        bengali_drawn(page, page.locator("body"), f"dashboard, tab {tabs.nth(i).inner_text()}")
        page.screenshot(path=str(screenshots / f"dashboard-{i:02d}.png"))

    index = 1 if tabs.count() > 1 else 0  # another tab than the one that ran at start
    tabs.nth(index).click()
    panel = board.locator(".fastrain-panel:visible")
    panel.wait_for()
    assert panel.count() == 1  # only the chosen tab's panel is on screen
    title = tabs.nth(index).inner_text()
    assert title.startswith(PANEL_MODULES[index].removeprefix("lesson"))
    images = panel.locator(".fastrain-output img")
    before = images.first.get_attribute("src") if images.count() else None
    panel.locator("button.fastrain-run").click()
    page.wait_for_function(
        """([panel, before]) => panel.querySelector('.fastrain-error') !== null ||
             ((panel.querySelector('.fastrain-output img') || {}).src || before) !== before""",
        arg=[panel.element_handle(), before], timeout=180_000)
    errors = panel.locator(".fastrain-error")
    assert not errors.count(), errors.first.inner_text()
    assert images.first.get_attribute("src").startswith("data:image/png")
    images.first.scroll_into_view_if_needed()
    smallest = _smallest_plot_pt(images.first)
    assert smallest >= MIN_PLOT_PT, f"{title}: plot text {smallest:.1f} pt at the drawn size (projector: >= {MIN_PLOT_PT})"
    _check_layout(panel, f"{title} after a run")
    bengali_drawn(page, panel, f"dashboard {title}", min_kinds=("table cell",))
    page.screenshot(path=str(screenshots / "99_instructor_dashboard.png"))
    if os.environ.get("FASTRAIN_README_SCREENSHOTS"):
        README_IMG.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(README_IMG / "dashboard.png"))

    board.locator(".fastrain-overlay").click()
    reference = panel.locator("xpath=..").locator(".fastrain-reference")
    reference.wait_for(state="visible")
    assert BENGALI.search(reference.inner_text()) or reference.locator("img").count()
    bengali_drawn(page, page.locator("body"), "dashboard with reference/ results")
