"""Imports agree with the layers that docs/architecture.md draws (issue 37).

The diagram under "## The arrows" is read as it is written: each line of names is a layer, the top line
the highest. A module may import its own layer and the layers below it, never one above, and an
import inside a function counts as much as one at the top of a file (it runs all the same). Every
module of the library must belong to a layer of the diagram, so a new package cannot slip past it.
The checker is also given small wrong trees, so that a rule that could never fail would be noticed."""

from __future__ import annotations

import re
from pathlib import Path

from test_layout import import_graph

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fastrain_lib"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def diagram_layers(text: str) -> list[set[str]]:
    """[{'dashboard', ...}, ..., {'core', 'messages'}], top first, from the fenced block after '## The arrows'."""
    section = text.split("## The arrows", 1)[1]
    block = section.split("```", 2)[1]
    layers = []
    for line in block.splitlines():
        line = re.sub(r"\(.*?\)", "", line).strip()
        if not line or set(line) <= {"|", " "}:
            continue
        names = {name.strip().split("/")[0].removesuffix(".py") for name in line.split(",") if name.strip()}
        layers.append(names)
    return layers


def layer_of(module: str, layers: list[set[str]]) -> int | None:
    """Index of the layer (0 = top) of 'fastrain_lib.<top>...'; None for the package itself."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    for index, names in enumerate(layers):
        if parts[1] in names:
            return index
    return -1


def upward_imports(pkg: Path, layers: list[set[str]]) -> list[str]:
    """'a -> b' for every import from a lower layer to a higher one; 'a: in no layer' for strays."""
    problems = []
    graph = import_graph(pkg)
    for module, deps in sorted(graph.items()):
        mine = layer_of(module, layers)
        if mine == -1:
            problems.append(f"{module}: in no layer of the diagram")
            continue
        for dep in sorted(d for d in deps if not any(e.startswith(d + ".") for e in deps)):  # most precise name
            theirs = layer_of(dep, layers)
            if mine is not None and theirs is not None and theirs != -1 and theirs < mine:
                problems.append(f"{module} -> {dep}")
    return problems


def test_the_library_imports_only_its_own_layer_and_the_ones_below():
    layers = diagram_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(layers) >= 5, layers
    assert upward_imports(PKG, layers) == [], (
        "imports that point up the layers of docs/architecture.md (move the code, pass the thing in, "
        "or change the diagram so that it and the code agree)")


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "lib"
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pkg


DIAGRAM = """# x
## The arrows
```
lessons/lNN_*  (panel, verdicts)
   |
train, models
   |
fused, distributed          (techniques)
   |
measure, ui
   |
core, messages
```
"""


def test_the_diagram_is_read_as_written():
    assert diagram_layers(DIAGRAM) == [{"lessons"}, {"train", "models"}, {"fused", "distributed"},
                                       {"measure", "ui"}, {"core", "messages"}]


def test_the_layer_check_sees_each_wrong_import(tmp_path):
    pkg = _tree(tmp_path, {
        "__init__.py": "",
        "messages.py": "",
        "core/__init__.py": "", "core/a.py": "def f():\n    from lib.ui import b\n",   # inside a function
        "ui/__init__.py": "", "ui/b.py": "from lib.measure import c\n",                # same layer: fine
        "measure/__init__.py": "", "measure/c.py": "from ..fused import d\n",          # relative, upward
        "fused/__init__.py": "", "fused/d.py": "import lib.core.a\nfrom lib import models\n",
        "models.py": "from lib.core import a\n",                                     # downward: fine
        "stray/__init__.py": "", "stray/e.py": "",
    })
    layers = diagram_layers(DIAGRAM)
    assert upward_imports(pkg, layers) == [
        "lib.core.a -> lib.ui.b",
        "lib.fused.d -> lib.models",
        "lib.measure.c -> lib.fused.d",
        "lib.stray: in no layer of the diagram",
        "lib.stray.e: in no layer of the diagram",
    ]
