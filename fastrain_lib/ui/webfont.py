"""The course's Bengali font in the browser: JupyterLab, Notebook 7, Voilà (and Colab's output frames).

Lab PCs and CI often have no Bengali system font; then the browser draws every Bengali letter
as an empty box ("tofu"), although matplotlib's plots are fine (they use the bundled font).
`inject()` fixes the page: it displays one <style> that

- defines the bundled Noto Sans Bengali (regular 400 and bold 700, fonts/ beside this module)
  with @font-face, embedded as data URLs, so no server, extension or route is needed and it
  works the same in JupyterLab, Notebook 7 and Voilà;
- puts that family FIRST in the theme's font stacks (--jp-ui-font-family,
  --jp-content-font-family, --jp-code-font-family). unicode-range limits the face to Bengali, so
  Latin text still falls through to the theme's fonts, and every Bengali letter — markdown, widget
  labels and buttons, tables, status lines, error boxes, code comments — is drawn with the course's
  font. (With the family last, Chromium drew the Voilà dashboard's "কীভাবে চালাবে" heading in a
  system font as empty boxes although the same font list on a canvas drew Bengali: issue 14.)

The setup cell (setup_env.prepare) calls it, and so does the instructor dashboard's notebook.
`page_css()` is the same CSS for the page itself, loaded before any cell runs (issue 27: without
it a lesson opened from `make lab` is tofu until the setup cell has run): scripts/course_jupyter.py
writes it as JupyterLab's custom CSS (`custom/custom.css` in a course-local config dir, served with
`--LabApp.custom_css=True`) and into a Voilà template ("fastrain", based on "lab") for `make demo`.
Colab draws each cell's output in its own frame: there the style reaches only the setup cell's
own output; Colab's markdown uses the student's system fonts (README.bn.md says so).
"""

from __future__ import annotations

import base64
import functools
import io
from pathlib import Path

FONT_DIR = Path(__file__).resolve().parents[1] / "fonts"
FAMILY = "Noto Sans Bengali"
FACES = {400: "NotoSansBengali-Regular.ttf", 700: "NotoSansBengali-Bold.ttf"}
# The weights each face answers, as one continuous range: regular up to 549, bold from 550. Without
# ranges a weight between the two (JupyterLab's headings are 500) is left to the browser's nearest-
# weight rule, and Chromium drew such a heading as empty boxes in Voilà (issue 14).
WEIGHT_RANGES = {400: "1 549", 700: "550 1000"}
# The Bengali block, the dandas (shared with other Indic scripts), ZWNJ/ZWJ and the dotted circle
# that shows a lone vowel sign: only these code points are drawn with the course's font.
UNICODE_RANGE = "U+0980-09FF, U+0964-0965, U+200C-200D, U+25CC"
# JupyterLab 4's own stacks (theme-light/dark, Voilà's labvariables.css), the course's font last.
UI_STACK = ('system-ui, -apple-system, blinkmacsystemfont, "Segoe UI", helvetica, arial, sans-serif, '
            '"Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol"')
CODE_STACK = 'menlo, consolas, "DejaVu Sans Mono", monospace'
STYLE_ID = "fastrain-webfont"


@functools.cache
def font_data(weight: int) -> tuple[str, str]:
    """(mime type, base64) of the face for this weight: WOFF (zlib, half the size) when
    fontTools (a matplotlib dependency) can write it, else the TTF as it is."""
    raw = (FONT_DIR / FACES[weight]).read_bytes()
    try:
        from fontTools.ttLib import TTFont

        font = TTFont(io.BytesIO(raw))
        font.flavor = "woff"
        buffer = io.BytesIO()
        font.save(buffer)
        return "font/woff", base64.b64encode(buffer.getvalue()).decode("ascii")
    except Exception:  # noqa: BLE001 — any fontTools trouble: the TTF works in every browser too
        return "font/ttf", base64.b64encode(raw).decode("ascii")


def font_face_css() -> str:
    """@font-face rules for the bundled regular and bold faces."""
    rules = []
    for weight in sorted(FACES):
        mime, data = font_data(weight)
        fmt = "woff" if mime == "font/woff" else "truetype"
        rules.append(f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: {WEIGHT_RANGES[weight]}; '
                     f"font-display: block; unicode-range: {UNICODE_RANGE}; "
                     f'src: url(data:{mime};base64,{data}) format("{fmt}"); }}')
    return "\n".join(rules)


def stack_css() -> str:
    """The theme's font stacks with the course's font first (JupyterLab, Notebook 7, Voilà),
    and the same for plain pages (Colab's output frames, nbconvert's HTML)."""
    ui, code = f'"{FAMILY}", {UI_STACK}', f'"{FAMILY}", {CODE_STACK}'
    return (f":root, body, .jp-ThemedContainer {{ --jp-ui-font-family: {ui}; --jp-content-font-family: {ui}; "
            f"--jp-code-font-family-default: {code}; --jp-code-font-family: {code}; }}\n"
            f".fastrain-panel, .fastrain-dashboard {{ font-family: var(--jp-ui-font-family, {ui}); }}\n"
            # widget buttons, toggles, dropdowns and tab labels name their own fonts (Voilà: Helvetica,
            # Arial): give them the stack with the course's font too
            f".jupyter-widgets button, .jupyter-widgets select, .jupyter-widgets input, .jupyter-widgets textarea, "
            f".jupyter-widgets .lm-TabBar-tab, .jupyter-button, .widget-tab .lm-TabBar-tab "
            f"{{ font-family: var(--jp-ui-font-family, {ui}); }}\n"
            # MathJax draws a letter it has no glyph for (Bengali in \text{…}) in an mjx-utext
            # element whose inline style names its own fonts (MJXZERO, serif): no Bengali there
            f'mjx-utext {{ font-family: "{FAMILY}", serif !important; }}')


def style_html() -> str:
    """The <style> element inject() displays."""
    return f'<style id="{STYLE_ID}">\n{font_face_css()}\n{stack_css()}\n</style>'


def page_css() -> str:
    """The whole stylesheet for a page that loads it in its <head> (JupyterLab's custom.css, the
    Voilà template of `make demo`): the faces and the stacks, the same rules inject() displays."""
    return ("/* The course's Bengali font (fastrain_lib/fonts, SIL Open Font License), generated by\n"
            "   fastrain_lib.ui.webfont.page_css(); scripts/course_jupyter.py writes it again at each launch. */\n"
            f"{font_face_css()}\n{stack_css()}\n")


def inject() -> None:
    """Display the style (in a notebook or Voilà); does nothing outside IPython."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        return
    if get_ipython() is None:
        return
    display(HTML(style_html()))
