"""Cells a lesson writes once and the library reuses: d2l's `#@save`, for fastrain.

The technique a lesson teaches is written in the lesson's own code cell. When later code (a
panel, a check, another lesson) needs the same function, the cell starts with a marker line

    #@save                         -> fastrain_lib/lessons/lNN_<topic>/saved.py
    #@save precision/amp_step.py   -> fastrain_lib/precision/amp_step.py

and `make sync` (python -m fastrain_lib.authoring sync) copies every marked cell of that notebook,
in order, into the target module. `authoring check` (and tests/test_saved_cells.py) fails when a
notebook and its copy differ, so the library holds only code the student has read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MARKER = "#@save"
_MARKER_LINE = re.compile(r"^#@save(?:[ \t]+(\S+))?[ \t]*$")


def lesson_package(notebook: Path, package_dir: Path) -> Path | None:
    """fastrain_lib/lessons/l02_to_device for notebooks/02_to_device.ipynb (None: no such package)."""
    number = notebook.name.split("_", 1)[0]
    found = sorted((package_dir / "lessons").glob(f"l{number}_*"))
    return found[0] if found else None


def marked_cells(notebook: Path) -> list[tuple[str | None, str]]:
    """[(target or None for the lesson's saved.py, code without the marker line), ...] in order."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        first, _, rest = source.partition("\n")
        match = _MARKER_LINE.match(first.strip())
        if match:
            out.append((match.group(1), rest.strip("\n")))
    return out


def module_text(notebook_rel: str, cells: list[str]) -> str:
    header = (f'"""Saved from {notebook_rel} by `make sync`: code the lesson writes in its own cells\n'
              f'(marked {MARKER}). Edit the notebook, then run `make sync`; never edit this file."""\n')
    future = "from __future__ import annotations\n"
    body = [c for c in cells]
    if not any(c.startswith(future.strip()) for c in body):
        header += "\n" + future
    return header + "".join(f"\n\n{c}\n" for c in body)


def saved_files(root: Path, only: list[Path] | None = None) -> dict[Path, str]:
    """{target module path: its text as `sync` writes it} for every marked cell of notebooks/
    (of the notebooks in `only`, when given)."""
    package_dir = root / "fastrain_lib"
    grouped: dict[Path, tuple[str, list[str]]] = {}
    notebooks = sorted((root / "notebooks").glob("*.ipynb"))
    if only is not None:
        wanted = {p.resolve() for p in only}
        notebooks = [p for p in notebooks if p.resolve() in wanted]
    for notebook in notebooks:
        rel = notebook.relative_to(root).as_posix()
        for target, code in marked_cells(notebook):
            if target is None:
                package = lesson_package(notebook, package_dir)
                if package is None:
                    raise ValueError(f"{rel}: {MARKER} without a target, and no lessons/l{notebook.name[:2]}_* package")
                path = package / "saved.py"
            else:
                path = package_dir / target
            source, cells = grouped.setdefault(path, (rel, []))
            if source != rel:
                raise ValueError(f"{path}: saved from both {source} and {rel}; one notebook per module")
            cells.append(code)
    return {path: module_text(rel, cells) for path, (rel, cells) in grouped.items()}
