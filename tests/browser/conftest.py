"""Real-browser tests: a JupyterLab (or Voilà) server we start ourselves + Debian's Chromium.

Everything here is started once per pytest session (per xdist worker) and stopped at the
end, even when a test fails: the server's own PID and process group are killed, and so are
the kernels it started (they run in their own sessions, so we collect them with psutil).
Playwright never downloads a browser: we always launch /usr/bin/chromium.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("FASTRAIN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]
ARTIFACTS = REPO / "artifacts" / "screenshots"
LOGS = REPO / "artifacts" / "logs"
START_TIMEOUT_S = 120
VOILA_CELL_TIMEOUT_S = 240  # ci mode: the dashboard's slowest cell takes < 60 s alone

# JupyterLab settings for a clean, quiet browser session: no news pop-up, no update check,
# and no autosave (running the notebooks must never write outputs into the files).
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    # Render every cell: with windowing, cells scrolled out of view are not laid out and
    # their text reads as empty to the test (seen with lesson 05's panel).
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.browser)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return  # it answered (Voilà has no status page): the server is up
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"server did not answer {url} in {timeout} s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(proc: subprocess.Popen, log: Path | None = None) -> None:
    """Stop the server, its process group and every process it started (kernels); keep its
    log in artifacts/logs/ (git-ignored) for whoever reads a failed CI run."""
    import psutil

    if log is not None and log.exists():
        LOGS.mkdir(parents=True, exist_ok=True)
        shutil.copy(log, LOGS / log.name)

    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)  # start_new_session=True: the group id is the server's pid
        except ProcessLookupError:
            break
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue
    for child in children:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(children, timeout=5)


def _start(cmd: list[str], env: dict, cwd: Path, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _base_env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update(
        FASTRAIN_MODE="ci",
        FASTRAIN_RESULTS=str(tmp / "results"),
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTER_PLATFORM_DIRS="1",
        IPYTHONDIR=str(tmp / "ipython"),
        PYTHONUNBUFFERED="1",
    )
    # tests/conftest.py sets MPLBACKEND=Agg for the unit tests; a student's kernel has the
    # inline backend, so the browser must see that one.
    for var in ("JPY_SESSION_NAME", "MPLBACKEND"):
        env.pop(var, None)
    return env


def _root_flag() -> list[str]:
    return ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


def _course_copy(tmp: Path) -> Path:
    """The repository seen by the server: notebooks/ copied (so nothing can write into the real
    files), every other top-level entry linked (lessons may read reference/, data, ...)."""
    root = tmp / "course"
    root.mkdir()
    for entry in REPO.iterdir():
        if entry.name.startswith(".") or entry.name == "notebooks":
            continue
        (root / entry.name).symlink_to(entry)
    shutil.copytree(REPO / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return root


@pytest.fixture(scope="session")
def server_tools():
    """The helpers that start, wait for and stop a server, for tests that start their own (through
    `make lab` / `make demo`, tests/browser/test_first_paint.py)."""
    import types

    return types.SimpleNamespace(start=_start, stop=_stop, wait_http=_wait_http, base_env=_base_env,
                                 course_copy=_course_copy, free_port=free_port, root_flag=_root_flag,
                                 overrides=LAB_OVERRIDES)


# The lesson test also reads what Run All showed (tests/browser/test_lessons.py, issue 29): the saved
# notebook keeps the widgets' state, say()'s audit log and the text of every plot go to files.
LESSON_RUN_OVERRIDES = {**LAB_OVERRIDES, "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}
VERDICT_LOG = "verdicts.jsonl"
PLOT_TEXT_LOG = "plot-text.jsonl"
# An IPython start-up file of the test server's kernels: once a cell has imported matplotlib, every
# text a figure draws (title, labels, ticks, legend; inline plots and panel PNGs alike) is logged
# with the cell's execution count. The page still shows the PNG a student sees.
PLOT_TEXT_STARTUP = """\
import json as _json, os as _os, sys as _sys

def _fastrain_test_plot_text(*_args):
    text = _sys.modules.get("matplotlib.text")
    if text is None or getattr(text.Text.draw, "_fastrain_logged", False):
        return
    draw = text.Text.draw

    def logged(self, renderer, *args, **kwargs):
        if self.get_visible() and self.get_text().strip():
            with open(_os.environ["FASTRAIN_PLOT_TEXT_LOG"], "a", encoding="utf-8") as out:
                # IPython counts the running cell as one more than the number the notebook shows
                cell = get_ipython().execution_count - 1
                out.write(_json.dumps({"cell": cell, "text": self.get_text()},
                                      ensure_ascii=False) + "\\n")
        return draw(self, renderer, *args, **kwargs)

    logged._fastrain_logged = True
    text.Text.draw = logged

get_ipython().events.register("post_execute", _fastrain_test_plot_text)
"""


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1: yields (base_url, token, course_root); the logs of what its
    kernels said and drew (VERDICT_LOG, PLOT_TEXT_LOG) are next to course_root."""
    tmp = tmp_path_factory.mktemp("lab")
    root = _course_copy(tmp)
    settings = tmp / "app-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(LESSON_RUN_OVERRIDES))
    startup = tmp / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-fastrain-test-plot-text.py").write_text(PLOT_TEXT_STARTUP, encoding="utf-8")
    env = {**_base_env(tmp), "FASTRAIN_VERDICT_LOG": str(tmp / VERDICT_LOG), "FASTRAIN_PLOT_TEXT_LOG": str(tmp / PLOT_TEXT_LOG)}
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.app_settings_dir={settings}", f"--LabApp.user_settings_dir={tmp / 'user-settings'}",
           f"--LabApp.workspaces_dir={tmp / 'workspaces'}", "--LabApp.news_url=", *_root_flag()]
    log = tmp / "jupyterlab.log"
    proc = _start(cmd, env, root, log)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_http(f"{base}/api/status?token={token}", proc, log)
        yield base, token, root
    finally:
        _stop(proc, log)


@pytest.fixture(scope="session")
def lab_run_logs(lab_server):
    """The files lab_server's kernels write: say()'s audit log and the text their plots drew."""
    import types

    tmp = lab_server[2].parent
    return types.SimpleNamespace(verdicts=tmp / VERDICT_LOG, plot_text=tmp / PLOT_TEXT_LOG)


def _notebook7_schemas(tmp: Path) -> Path | None:
    """Notebook 7 reads its settings schemas from JupyterLab's app dir; where `notebook` was
    installed elsewhere (pip --target), its own schemas are beside the package instead: give the
    server one folder with both. None when the defaults already hold them."""
    import notebook
    from jupyterlab.commands import get_app_dir

    lab = Path(get_app_dir()) / "schemas"
    own = Path(notebook.__file__).resolve().parents[1] / "share" / "jupyter" / "lab" / "schemas"
    if not own.is_dir() or (lab / "@jupyter-notebook").exists():
        return None
    merged = tmp / "schemas"
    merged.mkdir()
    for folder in (lab, own):
        for entry in folder.iterdir():
            if not (merged / entry.name).exists():
                (merged / entry.name).symlink_to(entry)
    return merged


@pytest.fixture(scope="session")
def notebook7_server(tmp_path_factory):
    """Plain Jupyter Notebook 7 (`jupyter notebook`) on 127.0.0.1: yields (base_url, token)."""
    pytest.importorskip("notebook.app", reason="Jupyter Notebook 7 is not installed (pip install 'notebook>=7')")
    tmp = tmp_path_factory.mktemp("nb7")
    root = _course_copy(tmp)
    settings = tmp / "app-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES))
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "notebook", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--JupyterNotebookApp.app_settings_dir={settings}",
           f"--JupyterNotebookApp.user_settings_dir={tmp / 'user-settings'}",
           f"--JupyterNotebookApp.workspaces_dir={tmp / 'workspaces'}", *_root_flag()]
    schemas = _notebook7_schemas(tmp)
    if schemas is not None:
        cmd.append(f"--JupyterNotebookApp.schemas_dir={schemas}")
    log = tmp / "notebook7.log"
    proc = _start(cmd, _base_env(tmp), root, log)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_http(f"{base}/api/status?token={token}", proc, log)
        yield base, token
    finally:
        _stop(proc, log)


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory):
    """Voilà serving the instructor dashboard on 127.0.0.1 as `make demo` does (through
    scripts/course_jupyter.py: the course's template with the Bengali font in the page's head):
    yields the page URL (with token)."""
    tmp = tmp_path_factory.mktemp("voila")
    notebook = REPO / "notebooks" / "99_instructor_dashboard.ipynb"
    if not notebook.exists():
        pytest.skip("notebooks/99_instructor_dashboard.ipynb is missing")
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, str(REPO / "scripts" / "course_jupyter.py"), "--dir", str(tmp / "course-jupyter"), "voila",
           "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}",
           "--Voila.port_retries=0", f"--token={token}", "--show_tracebacks=True",
           # a cell that hangs becomes an error on the page within minutes, never an endless wait
           f"--VoilaExecutor.timeout={VOILA_CELL_TIMEOUT_S}", str(notebook)]
    log = tmp / "voila.log"
    proc = _start(cmd, _base_env(tmp), REPO, log)
    try:
        url = f"http://127.0.0.1:{port}/?token={token}"
        _wait_http(f"http://127.0.0.1:{port}/voila/static/", proc, log)
        yield url
    finally:
        _stop(proc, log)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium through Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="bn-BD")
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


# --- Is Bengali text DRAWN with the course's font? (issue 14) -------------------------------
# The page's text can contain Bengali while the screen shows empty boxes ("tofu"): that happens
# on every machine without a Bengali system font unless the page brings its own. So EVERY visible
# element under the root that shows Bengali (a text node's parent, a dropdown's chosen option, an
# input's value or placeholder) is checked, none is sampled away: its first Bengali word, in the
# element's own computed font (style, weight, family), is drawn on a canvas and the pixels are
# compared with (a) the same word in the course's font, loaded by the test itself from
# fastrain_lib/fonts/ as "FastrainProbe" (must be equal: the page draws Bengali with the course's
# font, bold with the bold face), and (b) the same word forced into a font without Bengali glyphs
# (monospace) and into the element's font list without the course's family (both must differ: no
# tofu). It also checks the element's computed font-family, document.fonts.check() for the
# page's own face, and that the width the page itself laid the word out at is the course font's
# width (the canvas alone missed a Voilà heading drawn as boxes). Elements that share font and word share one drawing (cache), so a whole lesson
# page takes seconds.
FONT_DIR = REPO / "fastrain_lib" / "fonts"
COURSE_FAMILY = "Noto Sans Bengali"

FONT_PROBE_JS = r"""async ([root, regular, bold, family]) => {
  const b64 = s => Uint8Array.from(atob(s), c => c.charCodeAt(0));
  if (!window.__fastrainProbe) {
    // the same weight ranges as the page's faces should have: regular below 550, bold from 550
    for (const [data, weight] of [[regular, '1 549'], [bold, '550 1000']]) {
      const face = new FontFace('FastrainProbe', b64(data), {weight});
      await face.load();
      document.fonts.add(face);
    }
    window.__fastrainProbe = true;
  }
  await document.fonts.ready;
  const canvas = document.createElement('canvas');
  canvas.width = 1200; canvas.height = 90;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  // How far right a word's ink reaches when drawn at x = 4 in `font` (the canvas's own measure).
  const reach = async (font, word) => {
    await document.fonts.load(font, word);
    ctx.font = font;
    const m = ctx.measureText(word);
    return 4 + Math.max(m.width, m.actualBoundingBoxRight || 0);
  };
  // The word drawn in `font` (loaded by reach()); only the first `width` columns are read back: all
  // four drawings of a word are compared on the same columns, wide enough for the widest one's ink
  // (reading the whole 1200-px canvas four times per word was most of this probe's time).
  const draw = (font, word, width) => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.font = font; ctx.fillStyle = '#000'; ctx.textBaseline = 'alphabetic';  // same baseline whatever the first font
    ctx.fillText(word, 4, 62);
    return ctx.getImageData(0, 0, width, canvas.height).data;
  };
  const differing = (a, b) => { let n = 0; for (let i = 3; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) > 16) n++; return n; };
  const inked = a => { let n = 0; for (let i = 3; i < a.length; i += 4) if (a[i] > 16) n++; return n; };
  const kindOf = el => el.closest('.fastrain-error') ? 'error box'
    : el.matches('select') ? 'dropdown'
    : el.matches('input, textarea') ? 'text input'
    : el.closest('td, th') ? 'table cell'
    : el.closest('button, .jupyter-button, .lm-TabBar-tab') ? 'button/tab'
    : el.closest('.widget-label, .widget-label-basic, label, .widget-checkbox') ? 'widget label'
    : el.closest('.widget-html, .widget-html-content') ? 'panel status/html'
    : el.closest('.jp-MarkdownOutput, .jp-RenderedMarkdown') ? 'markdown'
    : el.closest('.cm-content, .jp-InputArea-editor') ? 'code'
    : el.closest('.jp-OutputArea-output') ? 'output'
    : 'other';
  const visible = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const bengali = /[\u0980-\u09FF][\u0980-\u09FF\u200C\u200D]*/;
  const shown = [];  // [element, word, width the page laid the word out at (text nodes)]
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const m = node.textContent.match(bengali);
    const el = node.parentElement;
    // mjx-assistive-mml: MathJax's hidden copy of a formula for screen readers (clipped to 1 px)
    if (!m || !el || el.closest('script, style, option, title, noscript, mjx-assistive-mml') || !visible(el)) continue;
    const range = document.createRange();
    range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
    const rects = range.getClientRects();
    shown.push([el, m[0], rects.length === 1 && m[0].length <= 24 ? rects[0].width : null]);
  }
  // A dropdown draws its chosen option itself (an <option> has no box of its own); a text box
  // draws its value or, when empty, its placeholder.
  for (const el of root.querySelectorAll('select, input, textarea')) {
    const text = el.matches('select') ? ((el.selectedOptions[0] || {}).text || '') : (el.value || el.placeholder || '');
    const m = text.match(bengali);
    if (m && visible(el)) shown.push([el, m[0], null]);
  }
  const pageFaces = [...document.fonts].filter(f => f.family.replace(/["']/g, '') === family);
  const pageFaceLoaded = pageFaces.some(f => f.status === 'loaded');
  const groups = new Map();  // one drawing per (font, word)
  // What the PAGE drew: a canvas draws with the element's font list afresh, but the page's own
  // layout can still pick another font for the same text (a heading after the Voilà dashboard
  // drew boxes while a canvas in its font drew Bengali). So the width the page laid the word out
  // at must equal the course font's width for that word at the element's size and weight.
  const measure = (style, word) => {
    ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} FastrainProbe`;
    return ctx.measureText(word).width;
  };
  for (const [el, fullWord, laidOut] of shown) {
    const style = getComputedStyle(el);
    const word = [...fullWord].slice(0, 24).join('');
    const font = `${style.fontStyle} ${style.fontWeight} 40px ${style.fontFamily}`;
    const key = font + '|' + word;
    if (!groups.has(key)) groups.set(key, {word, style: style.fontStyle, weight: style.fontWeight,
                                           fontFamily: style.fontFamily, kinds: new Set(), count: 0, where: [],
                                           laidOutWrong: 0, wrongWhere: []});
    const g = groups.get(key);
    const kind = kindOf(el);
    g.kinds.add(kind); g.count++;
    if (laidOut !== null && style.letterSpacing === 'normal') {
      const course = measure(style, fullWord);
      if (Math.abs(laidOut - course) > Math.max(1, 0.03 * course)) {
        g.laidOutWrong++;
        if (g.wrongWhere.length < 3) g.wrongWhere.push(`${kind}: ${fullWord} laid out ${laidOut.toFixed(1)} px, `
          + `course font ${course.toFixed(1)} px at ${style.fontWeight} ${style.fontSize}`);
      }
    }
    if (g.where.length < 3) g.where.push(`${kind}: <${el.tagName.toLowerCase()} class="${(el.className.baseVal ?? el.className) || ''}"> `
                                         + (el.innerText || el.value || el.placeholder || '').trim().slice(0, 60));
  }
  const results = [];
  for (const g of groups.values()) {
    const prefix = `${g.style} ${g.weight} 40px `;
    // Two pictures of tofu: the word in a font without Bengali glyphs (monospace), and the word
    // in the element's own font list without the course's family (what the page would draw
    // without it; on a machine with no Bengali system font that is empty boxes).
    const without = g.fontFamily.split(',').filter(f => f.replace(/["']/g, '').trim() !== family).join(',');
    const fonts = [prefix + g.fontFamily, prefix + 'FastrainProbe', prefix + 'monospace', prefix + (without || 'monospace')];
    let width = 0;
    for (const font of fonts) width = Math.max(width, await reach(font, g.word));
    width = Math.min(canvas.width, Math.ceil(width) + 16);  // + slack for anti-aliasing and overhangs
    const [drawn, course, tofu, own] = fonts.map(font => draw(font, g.word, width));
    results.push({kinds: [...g.kinds], count: g.count, where: g.where, word: g.word, weight: g.weight,
      laidOutWrong: g.laidOutWrong, wrongWhere: g.wrongWhere,
      fontFamily: g.fontFamily, familyListed: g.fontFamily.includes(family), pageFaceLoaded,
      fontsCheck: pageFaces.length > 0 && document.fonts.check(`${g.style} ${g.weight} 16px "${family}"`, g.word),
      inked: inked(drawn), differsFromCourse: differing(drawn, course), differsFromTofu: Math.min(differing(drawn, tofu), differing(drawn, own))});
  }
  return results;
}"""


def _font_b64(name: str) -> str:
    import base64

    return base64.b64encode((FONT_DIR / name).read_bytes()).decode("ascii")


def drawn_with_course_font(r: dict) -> bool:
    """The verdict on one drawing: the same pixels as the course's own face (a few anti-aliasing
    pixels of slack), clearly different from tofu, the family listed in the computed style, the
    page's face loaded and document.fonts.check() true."""
    same_as_course = r["differsFromCourse"] <= max(8, r["inked"] // 200)
    not_tofu = r["differsFromTofu"] > max(20, r["inked"] // 10)
    return (same_as_course and not_tofu and r["familyListed"] and r["pageFaceLoaded"] and r["fontsCheck"]
            and r["laidOutWrong"] == 0)


def check_bengali_drawn(page, root, where: str, *, min_kinds: tuple[str, ...] = ()) -> list[dict]:
    """Fail unless EVERY visible Bengali text under `root` (a Playwright locator) is drawn with
    the course's font; returns one entry per distinct (font, word) drawing, with how many
    elements drew it (count), their kinds and where they are."""
    results = page.evaluate(FONT_PROBE_JS, [root.element_handle(), _font_b64("NotoSansBengali-Regular.ttf"),
                                            _font_b64("NotoSansBengali-Bold.ttf"), COURSE_FAMILY])
    assert results, f"{where}: no visible Bengali text to check"
    bad = [r for r in results if not drawn_with_course_font(r)]
    kinds = {k for r in results for k in r["kinds"]}
    missing = [k for k in min_kinds if k not in kinds]
    elements = sum(r["count"] for r in results)
    assert not bad, (f"{where}: {sum(r['count'] for r in bad)} of {elements} visible Bengali text elements are not "
                     f"drawn with {COURSE_FAMILY} (tofu or another font):\n" + "\n".join(
        f"  {r['word']!r} weight {r['weight']} family [{r['fontFamily']}] listed={r['familyListed']} "
        f"page face loaded={r['pageFaceLoaded']} fonts.check={r['fontsCheck']} pixels differing from course font="
        f"{r['differsFromCourse']}/{r['inked']} from tofu={r['differsFromTofu']}; {r['count']} element(s), e.g. "
        + " | ".join(r["where"]) + (f"; laid out in another font: {r['laidOutWrong']}, e.g. " + " | ".join(r["wrongWhere"])
                                    if r["laidOutWrong"] else "") for r in bad[:12]))
    assert not missing, f"{where}: no Bengali {missing} found to check (found: {sorted(kinds)})"
    return results


@pytest.fixture(scope="session")
def bengali_drawn():
    """check_bengali_drawn, for the test modules (a conftest is not imported by name)."""
    return check_bengali_drawn
