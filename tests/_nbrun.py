"""Execute a course notebook in a fresh kernel and read what it showed (for the English-mode
and verdict tests). nbval checks that notebooks run; this module looks at *what they print*.

What counts as "shown": every output of every cell (stream text, text/plain, HTML, Markdown,
SVG, error text) and the state of every widget (labels, options, Output-widget contents).
Plots are rendered as SVG with real <text> elements (svg.fonttype = "none"), so a Bengali
title or axis label in a plot is visible to the test, not hidden inside a PNG.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
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


def execute(path: Path, *, lang: str, mode: str, cell_timeout: int = 600) -> tuple[list[CellShown], str]:
    """Run `path` top to bottom (FASTRAIN_LANG=lang, FASTRAIN_MODE=mode); return what each cell
    showed and the text of all widget states. A cell that raises fails the run (CellExecutionError)."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_PRELUDE))
    env_before = {k: os.environ.get(k) for k in ("FASTRAIN_LANG", "FASTRAIN_MODE", "MPLBACKEND")}
    os.environ.update(FASTRAIN_LANG=lang, FASTRAIN_MODE=mode)
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
    cells = []
    for index, cell in enumerate(nb.cells[1:]):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        text = "\n".join(_output_text(o) for o in outputs)
        stdout = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout")
        cells.append(CellShown(index, cell.source, text, stdout))
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
