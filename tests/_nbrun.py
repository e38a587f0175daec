"""Execute a course notebook in a fresh kernel and read what it showed (for the English-mode
and verdict tests). nbval checks that notebooks run; this module looks at *what they print*.

What counts as "shown": every output of every cell (stream text, text/plain, HTML, Markdown,
SVG, error text) and the state of every widget (labels, options, Output-widget contents).
Plots are rendered as SVG with real <text> elements (svg.fonttype = "none"), so a Bengali
title or axis label in a plot is visible to the test, not hidden inside a PNG.
"""

from __future__ import annotations

import html as _html
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
BENGALI = re.compile(r"[\u0980-\u09FF]+")
# A Bengali digit standing alone (not inside a Bengali word or number): a class name of the
# Bengali-digits dataset (fastrain_lib.data), which stays Bengali in every language.
LONE_BENGALI_DIGIT = re.compile(r"(?<![\u0980-\u09FF])[\u09E6-\u09EF](?![\u0980-\u09FF])")
# First line of a cell whose output may stay Bengali in English mode because Bengali text is
# what the cell is about (see tests/test_english_mode.py: only the notebooks listed there may use it).
BN_OUTPUT_OK = "# BN-OUTPUT-OK:"

# Runs first in the kernel: plots as SVG whose text stays text.
_PRELUDE = """\
import matplotlib
matplotlib.rcParams["svg.fonttype"] = "none"
get_ipython().run_line_magic("config", "InlineBackend.figure_formats = ['svg']")
"""

_TEXT_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex", "image/svg+xml", "application/json")


@dataclass
class CellShown:
    index: int          # index in the notebook file (the prelude is not counted)
    source: str
    text: str           # everything the cell showed, as text
    stdout: str         # printed lines only (verdicts are printed)
    outputs: list = field(default_factory=list)  # the cell's raw nbformat outputs
    execution_count: int | None = None  # as the notebook shows it (say()'s audit log names cells by it)


def _output_text(output) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return output.get("text", "")
    if kind == "error":
        return "\n".join([output.get("ename", ""), output.get("evalue", ""), *output.get("traceback", [])])
    data = output.get("data", {})
    parts = []
    for mime in _TEXT_TYPES:
        if mime in data:
            value = data[mime]
            parts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return "\n".join(parts)


def execute(path: Path, *, lang: str, mode: str, cell_timeout: int = 600,
            env: dict[str, str] | None = None) -> tuple[list[CellShown], str]:
    """Run `path` top to bottom (FASTRAIN_LANG=lang, FASTRAIN_MODE=mode, and `env` for the kernel);
    return what each cell showed and the text of all widget states. A cell that raises fails the
    run (CellExecutionError)."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_PRELUDE))
    env = dict(env or {})
    env_before = {k: os.environ.get(k) for k in ("FASTRAIN_LANG", "FASTRAIN_MODE", "MPLBACKEND", *env)}
    os.environ.update(FASTRAIN_LANG=lang, FASTRAIN_MODE=mode, **env)
    os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend, as in Jupyter
    try:
        client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3", allow_errors=False,
                                store_widget_state=True, resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    finally:
        for key, value in env_before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    nb.cells.pop(0)  # the prelude
    return shown(nb)


def shown(nb) -> tuple[list[CellShown], str]:
    """What each code cell of an executed notebook showed, and the text of all widget states
    (an nbclient run, or a notebook JupyterLab saved after Run All with widget state saving on)."""
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        text = "\n".join(_output_text(o) for o in outputs)
        stdout = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout")
        cells.append(CellShown(index, cell.source, text, stdout, outputs, cell.get("execution_count")))
    widgets = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    return cells, json.dumps(widgets, ensure_ascii=False)


# What a widget says about itself (not what it displays): labels of controls and buttons.
LABEL_KEYS = ("description", "_options_labels", "placeholder", "tooltip", "description_tooltip")


def widget_labels(widget_text: str) -> str:
    """The labels (LABEL_KEYS) of every widget in a widget-state JSON text from `execute`."""
    labels = []
    for model in json.loads(widget_text or "{}").values():
        state = model.get("state", {})
        labels += [json.dumps(state[key], ensure_ascii=False) for key in LABEL_KEYS if key in state]
    return "\n".join(labels)


def bengali_left(text: str) -> list[str]:
    """Bengali runs in `text`, after removing the lone Bengali digits (dataset class names)."""
    return BENGALI.findall(LONE_BENGALI_DIGIT.sub(" ", text))



# --- the reverse direction: English left in a Bengali-mode run (issue 27) -------------------------------
# What a reader sees of an output: stdout text, and of a display the richest form a front end
# draws (HTML, SVG, Markdown, else text/plain), with tags, styles and SVG metadata removed.
# A link's text is a cited title (a datasheet, a paper): it keeps its own language.
_TAGS = re.compile(r"<(style|script|metadata|defs|a)\b.*?</\1>|<!--.*?-->|<[^>]+>", re.DOTALL)
_BLOCK_END = re.compile(r"</(td|th|tr|p|div|li|h\d|pre)>|<br\s*/?>", re.IGNORECASE)  # one line per table cell
# A cited source (a table cell or line that starts "ডেটাশিট:", "উৎস:", "সূত্র:") keeps its title's language.
_CITATION = re.compile(r"^\s*(ডেটাশিট|উৎস|সূত্র)\s*:")
# "গোলমেলে (noisy)": the course's rule for a term's first use, English in brackets after the Bengali.
_GLOSS = re.compile(r"(?<=[\u0980-\u09FF]) ?\([A-Za-z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*){0,2}\)")  # 1-3 words
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
# A token that is code, a unit, a number or a name, not an English word: it holds one of these
# characters, or a digit, or it is an acronym (GPU, MFU) or a CamelCase name (PyTorch, DataLoader).
_CODE_CHARS = re.compile(r"[_./=:()\[\]<>{}@#`\\*+^|~$%&0-9µ×]")
_STRIP = "\"'«»“”‘’,;:!?।—–…()[]"
UNITS = {"s", "ms", "us", "ns", "x", "b", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "flop", "flops", "gflop",
         "tflop", "gflops", "tflops", "bit", "bits", "byte", "bytes", "hz", "ghz", "mhz", "w", "it", "e", "px", "pt",
         "dpi"}


def visible_text(output) -> str:
    """The text a reader sees in one nbformat output (see above)."""

    kind = output.get("output_type")
    if kind == "stream":
        return output.get("text", "")
    if kind == "error":
        return "\n".join([output.get("ename", ""), output.get("evalue", "")])
    data = output.get("data", {})
    for mime in ("text/html", "image/svg+xml", "text/markdown"):
        if mime in data:
            value = data[mime] if isinstance(data[mime], str) else "".join(data[mime])
            return _html.unescape(_TAGS.sub(" ", _BLOCK_END.sub("\n", value)))
    if any(mime in data for mime in ("image/png", "image/jpeg", "image/gif")):
        return ""  # the front end draws the picture, not its "<Figure size ...>" fallback
    return data.get("text/plain", "") if isinstance(data.get("text/plain", ""), str) else ""


def glossary_latin(root: Path = ROOT) -> set[str]:
    """Latin words of the glossary's English and Bengali columns (fastrain_lib/glossary.md), lower case:
    the terms the course keeps in Latin script or names in brackets."""
    words = set()
    for line in (root / "fastrain_lib" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cols) >= 2 and not set(cols[0]) <= set("- "):
            words |= {part.lower() for c in cols[:2] for w in _LATIN_WORD.findall(c) for part in [w, *w.split("-")]}
    return words


# A line with no Bengali that reads as code: a printed kernel, a generated C file, a shell command.
_CODE_LINE = re.compile(r"^\s*(def|class|return|if|elif|else|for|while|import|from|with|try|except|del|pass|raise|assert|yield|lambda|global|@|#|extern|const|"
                        r"static|void|auto|pip|conda|python|\$|!)(\b|\s|$)|[;{}:\\(,]\s*$| [-+*/=<>!]=? |==|->|\w\(")


# An install command inside a Bengali sentence: code up to the next Bengali word.
_COMMAND = re.compile(r"\b(?:pip3?|conda|apt-get|apt|python -m pip)\s+install\b[^\u0980-\u09FF]*|\bconda-forge\b"
                      r"|\b[A-Za-z_]\w*(?= ?= ?[-\w.])")  # and a name in "lr = 0.1": a setting as code writes it


def looks_like_code(line: str) -> bool:
    """A line without Bengali letters that reads as code (see _CODE_LINE)."""
    return not BENGALI.search(line) and bool(_CODE_LINE.search(line))
# A menu path as the app shows it ("Runtime → Change runtime type → T4 GPU"): Colab's and Jupyter's
# menus are English, so the student must read the names as they are on the screen.
_MENU_PATH = re.compile(r"\b[A-Z][A-Za-z]* ?→ ?[A-Za-z0-9]+(?: [A-Za-z0-9]+)*(?: ?→ ?[A-Za-z0-9]+(?: [A-Za-z0-9]+)*)*")


_TABLE_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.IGNORECASE | re.DOTALL)


def table_cells(output: dict) -> list[str]:
    """The text of each cell of the HTML tables in a display output (a row's label "eager - baseline" is
    prose in a table, though as a line it reads like code: english_left(..., code_lines=False) reads it)."""
    value = output.get("data", {}).get("text/html", "")
    value = value if isinstance(value, str) else "".join(value)
    return [_html.unescape(_TAGS.sub(" ", cell)).strip() for cell in _TABLE_CELL.findall(value)
            if not re.search(r"<(code|pre)\b", cell, re.IGNORECASE)]


def english_left(text: str, allowed: set[str], *, code_lines: bool = True) -> list[str]:
    """English words in `text` (Bengali mode) that are not code, units, numbers, acronyms, CamelCase
    names, single letters (math: T, q, k, v), menu paths (A → B) or `allowed` (lower case). Lines that read as code
    (looks_like_code) are skipped whole, unless code_lines=False (a table cell's text is never a code line)."""
    found = []
    text = "\n".join(line for line in text.splitlines()
                     if not (code_lines and looks_like_code(line)) and not _CITATION.match(line))
    for chunk in _GLOSS.sub(" ", _COMMAND.sub(" ", _MENU_PATH.sub(" ", text))).split():
        token = chunk.strip(_STRIP)
        if not token or _CODE_CHARS.search(token) or re.search(r"\w\(", chunk) or not _LATIN_WORD.search(token) or token.startswith("-"):
            continue
        for word in re.split(r"[-'’]", token):
            word = word.strip(_STRIP)
            if len(word) < 2 or not word.isascii() or not word.isalpha():
                continue
            if word.isupper() and len(word) > 1 or any(c.isupper() for c in word[1:]):
                continue  # GPU, MFU, PyTorch, DataLoader: names and acronyms
            if word.lower() in allowed or word.lower() in UNITS:
                continue
            found.append(word)
    return found



# A dataclass's repr in a cell's output: a cell ended with an expression that returned one of the
# library's results, and the student sees "Outcome(figure=<Figure ...>, headers=[...], ...)" (once 4 KB
# of it in lesson 05) instead of a table or a sentence.
RAW_REPR = re.compile(r"\b(Outcome|Record|Result|Finding|Roof|Machine|Facts|Workload|LaunchCount|LoopProfile|Fit)\((?=\w+=)")
# matplotlib's and IPython's object reprs: "Text(0.5, 1.0, 'title')", "[<matplotlib.lines.Line2D at 0x…>]",
# "<Figure size 640x480 with 1 Axes>", "<IPython.core.display.HTML object>"
OBJECT_REPR = re.compile(r"\bText\(-?\d|<matplotlib\.|<Figure size|<IPython\.core\.display\.|<Axes:|\bLine2D\("
                         r"|<[\w.]+ object at 0x[0-9a-f]+>")  # any object's default repr


def raw_values(cell: CellShown) -> list[str]:
    """What a cell shows as a raw Python value: a dict/list/tuple/str as its result (or a printed
    line that is one, with strings or dicts inside), a library dataclass repr, a matplotlib object."""
    import ast as _ast

    found = []
    for output in cell.outputs:
        kind = output.get("output_type")
        if kind == "execute_result":
            plain = output.get("data", {}).get("text/plain", "")
            try:
                value = _ast.literal_eval(plain)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                value = None
            if isinstance(value, (dict, list, tuple, set, str)):
                found.append(f"the cell's value is a raw {type(value).__name__}: {plain[:80]!r}")
        if kind == "stream" and output.get("name") == "stdout":
            for line in output.get("text", "").splitlines():
                stripped = line.strip().rstrip(",")
                if not stripped[:1] in "{[(" or len(stripped) < 3:
                    continue
                try:
                    value = _ast.literal_eval(stripped)
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                    continue
                if isinstance(value, dict) or (isinstance(value, (list, tuple, set)) and any(
                        isinstance(v, (str, dict, list, tuple)) for v in value)):
                    found.append(f"a printed raw {type(value).__name__}: {stripped[:80]!r}")
        text = visible_text(output) if kind != "error" else ""
        for pattern in (RAW_REPR, OBJECT_REPR):
            match = pattern.search(text)
            if match:
                found.append(f"a raw repr: {text[match.start():match.start() + 60]!r}")
    return found
