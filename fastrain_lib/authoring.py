"""Tools for people who write lessons (not used by students).

    python -m fastrain_lib.authoring sync      # badges, setup cells, exercises, stripped outputs
    python -m fastrain_lib.authoring sync solutions/03_amp.ipynb   # just these (and their exercises)
    python -m fastrain_lib.authoring check     # exit 1 if `sync` would change anything

- Every notebook's first cell (title, summary) ends with an "Open in Colab" badge pointing at its own path.
- Every notebook's second cell is the setup cell, generated from SETUP_CELL (one template).
- exercises/NN_*.ipynb is generated from solutions/NN_*.ipynb: the code between
  "# BEGIN SOLUTION" and "# END SOLUTION" is replaced by a TODO line, plus any
  "# STUB: <code>" lines of the region turned into code (a harmless placeholder, so the
  exercise notebook still runs top to bottom and its check cell says what is missing).
- Outputs are stripped, except in cells marked "# NBVAL_CHECK_OUTPUT".
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from . import config

NOTEBOOK_DIRS = ("notebooks", "solutions", "exercises")
BADGE_PREFIX = "[![Open In Colab]"
SETUP_TAG = "setup"
CHECK_OUTPUT = "NBVAL_CHECK_OUTPUT"
BEGIN, END, STUB = "# BEGIN SOLUTION", "# END SOLUTION", "# STUB: "
TODO_LINE = "# TODO: তোমার কোড এখানে লেখো"

SETUP_CELL = '''# প্রস্তুতি (setup): Colab-এ fastrain_lib ইনস্টল হয়; অন্য জায়গায় শুধু import হয়।
import importlib.util, subprocess, sys
if "google.colab" in sys.modules and importlib.util.find_spec("fastrain_lib") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "{pip_spec}"], check=True)
from fastrain_lib.setup_env import prepare
setup = prepare()'''


def pip_spec() -> str:
    return f"fastrain_lib @ git+{config.REPO_URL}@{config.BRANCH}"


def setup_cell_source() -> str:
    return SETUP_CELL.format(pip_spec=pip_spec())


def badge(relative_path: str) -> str:
    """The Colab badge for a notebook at `relative_path` inside the repository."""
    url = f"https://colab.research.google.com/github/{config.REPO_SLUG}/blob/{config.BRANCH}/{relative_path}"
    return f"{BADGE_PREFIX}(https://colab.research.google.com/assets/colab-badge.svg)]({url})"


def all_notebooks(root: Path) -> list[Path]:
    return sorted(p for d in NOTEBOOK_DIRS for p in (root / d).glob("*.ipynb"))


def _with_badge(source: str, relative_path: str) -> str:
    """Title and summary first, the badge on the last line of the first cell."""
    text = "\n".join(line for line in source.splitlines() if not line.startswith(BADGE_PREFIX)).rstrip()
    return f"{text}\n\n{badge(relative_path)}" if text else badge(relative_path)


def normalise(nb, relative_path: str) -> None:
    """Badge in the first cell, the setup cell second, outputs stripped (in place)."""
    first = nb.cells[0]
    if first.cell_type != "markdown":
        raise ValueError(f"{relative_path}: the first cell must be the Markdown title cell")
    first.source = _with_badge(first.source, relative_path)
    setup = [i for i, c in enumerate(nb.cells) if SETUP_TAG in c.metadata.get("tags", [])]
    cell = nb.cells.pop(setup[0]) if setup else nbformat.v4.new_code_cell()
    cell.source = setup_cell_source()
    cell.metadata["tags"] = [SETUP_TAG]
    nb.cells.insert(1, cell)
    for c in nb.cells:
        if c.cell_type == "code" and CHECK_OUTPUT not in c.source:
            c.outputs, c.execution_count = [], None


def exercise_source(source: str) -> str:
    """A solution cell's source with every solution region replaced by TODO + stubs."""
    out, region = [], None
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == BEGIN:
            region = line[: len(line) - len(line.lstrip())]  # indentation of the marker
            out.append(region + TODO_LINE)
        elif stripped == END:
            if region is None:
                raise ValueError("END SOLUTION without BEGIN SOLUTION")
            region = None
        elif region is not None:
            if stripped.startswith(STUB):
                out.append(region + stripped[len(STUB):])
        else:
            out.append(line)
    if region is not None:
        raise ValueError("BEGIN SOLUTION without END SOLUTION")
    return "\n".join(out)


def make_exercise(solution_nb):
    """The exercise notebook generated from a solution notebook."""
    nb = nbformat.reads(nbformat.writes(solution_nb), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = exercise_source(cell.source)
    return nb


def _dump(nb) -> str:
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids: regenerating does not churn the diff
    return nbformat.writes(nb) + "\n"


def expected_files(root: Path, only: list[Path] | None = None) -> dict[Path, str]:
    """Every notebook's text as `sync` would write it (exercises generated from solutions).

    `only`: limit to these source notebooks (notebooks/ or solutions/ paths)."""
    files: dict[Path, str] = {}
    sources = sorted(p for d in ("notebooks", "solutions") for p in (root / d).glob("*.ipynb"))
    if only is not None:
        wanted = {p.resolve() for p in only}
        sources = [p for p in sources if p.resolve() in wanted]
    for path in sources:
        nb = nbformat.read(path, as_version=4)
        rel = path.relative_to(root).as_posix()
        normalise(nb, rel)
        files[path] = _dump(nb)
        if path.parent.name == "solutions":
            exercise = make_exercise(nb)
            exercise_path = root / "exercises" / path.name
            normalise(exercise, exercise_path.relative_to(root).as_posix())
            files[exercise_path] = _dump(exercise)
    return files


def stale_files(root: Path) -> list[Path]:
    """Notebooks whose content differs from what `sync` would write, plus orphan exercises."""
    expected = expected_files(root)
    stale = [p for p, text in expected.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    orphans = [p for p in (root / "exercises").glob("*.ipynb") if p not in expected]
    return stale + orphans


def sync(root: Path, only: list[Path] | None = None) -> list[Path]:
    changed = []
    for path, text in expected_files(root, only).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str]) -> int:
    root = config.REPO_DIR or Path.cwd()
    command = argv[0] if argv else "sync"
    if command == "sync":
        only = [Path(a) for a in argv[1:]] or None
        for path in sync(root, only):
            print("updated", path.relative_to(root))
        return 0
    if command == "check":
        stale = stale_files(root)
        for path in stale:
            print("out of date (run: python -m fastrain_lib.authoring sync):", path.relative_to(root))
        return 1 if stale else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
