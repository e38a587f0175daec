"""Tools for people who write lessons (not used by students).

    python -m fastrain_lib.authoring sync      # badges, setup cells, exercises, stripped outputs
    python -m fastrain_lib.authoring sync solutions/03_amp.ipynb   # just these (and their exercises)
    python -m fastrain_lib.authoring check     # exit 1 if `sync` would change anything
    python -m fastrain_lib.authoring repoint   # the course's GitHub location := this checkout's `origin`

Where the course lives on GitHub (Colab badges, the Colab install, README clone commands) is
stored in one place, config.REPO_SLUG. `repoint` reads the `origin` remote of the checkout,
writes its owner/name into config.py and rewrites every badge, setup cell and README link;
`sync` does the same whenever `origin` exists and differs from config (without `origin` it
keeps config's value and says so).

- Every notebook's first cell (title, summary) ends with an "Open in Colab" badge pointing at its own path.
- Every notebook's second cell is the setup cell, generated from SETUP_CELL (one template).
- exercises/NN_*.ipynb is generated from solutions/NN_*.ipynb: the code between
  "# BEGIN SOLUTION" and "# END SOLUTION" is replaced by a TODO line ("# BEGIN SOLUTION: <task>"
  sets its text), plus any
  "# STUB: <code>" lines of the region turned into code (a harmless placeholder, so the
  exercise notebook still runs top to bottom and its check cell says what is missing).
- Outputs are stripped, except in cells marked "# NBVAL_CHECK_OUTPUT".
- Lesson cells marked "#@save" are copied into the library (saved_cells.py explains).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat

from fastrain_lib import saved_cells
from fastrain_lib.core import config

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


def pip_spec(slug: str | None = None) -> str:
    return f"fastrain_lib @ git+https://github.com/{slug or config.REPO_SLUG}@{config.BRANCH}"


def setup_cell_source(slug: str | None = None) -> str:
    return SETUP_CELL.format(pip_spec=pip_spec(slug))


def badge(relative_path: str, slug: str | None = None) -> str:
    """The Colab badge for a notebook at `relative_path` inside the repository."""
    url = f"https://colab.research.google.com/github/{slug or config.REPO_SLUG}/blob/{config.BRANCH}/{relative_path}"
    return f"{BADGE_PREFIX}(https://colab.research.google.com/assets/colab-badge.svg)]({url})"


# --- where the course lives: config.REPO_SLUG, taken from the checkout's `origin` remote ---

# Text files (besides notebooks) that name the course's repository.
LINK_FILES = ("README.bn.md", "README.md", "reference/README.md")
# Links that must point at the course's own repository: Colab notebook links, pip installs
# from git and clone commands. (Links to other projects, e.g. pytorch/pytorch issues, are not these.)
# Clone commands count in the README files only (a lesson may clone another project, e.g. NVIDIA/apex).
_SLUG = r"(?P<slug>[\w.-]+/[\w-]+(?:\.(?!git\b)[\w-]+)*)"
COURSE_LINK = re.compile(r"(?:colab\.research\.google\.com/github/|git\+https://github\.com/)" + _SLUG)
README_LINK = re.compile(r"(?:colab\.research\.google\.com/github/|git\+https://github\.com/"
                         r"|git clone https://github\.com/|git clone git@github\.com:)" + _SLUG)
_REMOTE = re.compile(r"^(?:https?://|ssh://git@|git@)github\.com[/:](?P<slug>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_SLUG_LINE = re.compile(r'^REPO_SLUG = "(?P<slug>[^"]*)"$', re.MULTILINE)


class RepoError(RuntimeError):
    """The checkout does not say where the course lives; the message says what to do (bn + en)."""


def slug_from_remote_url(url: str) -> str:
    """owner/name from a GitHub remote URL (https or ssh); RepoError for anything else."""
    match = _REMOTE.match(url.strip())
    if not match:
        raise RepoError(
            f"`origin` ({url.strip()}) GitHub-এর ঠিকানা নয়; Colab শুধু GitHub থেকে নোটবুক খোলে। "
            f"GitHub-এর ঠিকানা দাও: git remote set-url origin https://github.com/<owner>/<name>.git\n"
            f"`origin` ({url.strip()}) is not a GitHub address; Colab opens notebooks from GitHub only. "
            f"Point it at GitHub: git remote set-url origin https://github.com/<owner>/<name>.git")
    return match.group("slug")


def origin_slug(root: Path) -> str | None:
    """owner/name of the checkout's `origin` remote, or None when there is no such remote."""
    result = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                            capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout.strip():
        return None
    return slug_from_remote_url(result.stdout)


def no_origin_message(root: Path, keeping: str | None = None) -> str:
    """Bengali and English: there is no `origin`; what to do (and, for sync, which slug is kept)."""
    add = "git remote add origin https://github.com/<owner>/<name>.git"
    bn = (f"এই চেকআউটে ({root}) `origin` নামের git remote নেই, তাই কোর্সটি GitHub-এর কোথায় আছে জানা যায় না। "
          f"আগে যোগ করো: {add} — ")
    en = (f"This checkout ({root}) has no git remote called `origin`, so where the course lives on GitHub is unknown. "
          f"Add it first: {add} — ")
    if keeping:
        return (bn + f"ততক্ষণ fastrain_lib/core/config.py-র {keeping} রাখা হলো।\n"
                + en + f"keeping {keeping} from fastrain_lib/core/config.py for now.")
    return bn + "তারপর আবার চালাও।\n" + en + "then run this again."


def stored_slug(root: Path) -> str:
    """REPO_SLUG as written in root's fastrain_lib/core/config.py (the one place it is stored)."""
    match = _SLUG_LINE.search((root / "fastrain_lib" / "core" / "config.py").read_text(encoding="utf-8"))
    if not match:
        raise RepoError("fastrain_lib/core/config.py: no line REPO_SLUG = \"owner/name\"")
    return match.group("slug")


def course_links(text: str, pattern: re.Pattern = COURSE_LINK) -> list[str]:
    """Every owner/name that a course link in `text` points at."""
    return [m.group("slug") for m in pattern.finditer(text)]


def _repoint_text(text: str, new_slug: str) -> str:
    def swap(match):
        return match.group(0)[: match.start("slug") - match.start(0)] + new_slug
    return README_LINK.sub(swap, text)


def repoint(root: Path, slug: str) -> list[Path]:
    """Store `slug` in config.py and rewrite every README link and notebook to it; returns changed files."""
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", slug):
        raise RepoError(f"{slug!r}: owner/name চাই / expected owner/name")
    changed = []
    config_path = root / "fastrain_lib" / "core" / "config.py"
    text = config_path.read_text(encoding="utf-8")
    new_text = _SLUG_LINE.sub(f'REPO_SLUG = "{slug}"', text, count=1)
    if new_text != text:
        config_path.write_text(new_text, encoding="utf-8")
        changed.append(config_path)
    for name in LINK_FILES:
        path = root / name
        if path.exists():
            text = path.read_text(encoding="utf-8")
            new_text = _repoint_text(text, slug)
            if new_text != text:
                path.write_text(new_text, encoding="utf-8")
                changed.append(path)
    config.REPO_SLUG = slug  # this process too (badges and setup cells read it)
    config.REPO_URL = f"https://github.com/{slug}"
    return changed + sync(root, slug=slug)


def link_disagreements(root: Path, slug: str | None = None) -> list[str]:
    """'file: link' for every badge, setup-cell install or README link not pointing at `slug`."""
    slug = slug or stored_slug(root)
    files = [(root / name, README_LINK) for name in LINK_FILES] + [(p, COURSE_LINK) for p in all_notebooks(root)]
    wrong = []
    for path, pattern in files:
        if path.exists():
            for found in course_links(path.read_text(encoding="utf-8"), pattern):
                if found != slug:
                    wrong.append(f"{path.relative_to(root).as_posix()}: {found}")
    return wrong


def all_notebooks(root: Path) -> list[Path]:
    return sorted(p for d in NOTEBOOK_DIRS for p in (root / d).glob("*.ipynb"))


def _with_badge(source: str, relative_path: str, slug: str | None = None) -> str:
    """Title and summary first, the badge on the last line of the first cell."""
    text = "\n".join(line for line in source.splitlines() if not line.startswith(BADGE_PREFIX)).rstrip()
    return f"{text}\n\n{badge(relative_path, slug)}" if text else badge(relative_path, slug)


def normalise(nb, relative_path: str, slug: str | None = None) -> None:
    """Badge in the first cell, the setup cell second, outputs stripped (in place)."""
    first = nb.cells[0]
    if first.cell_type != "markdown":
        raise ValueError(f"{relative_path}: the first cell must be the Markdown title cell")
    first.source = _with_badge(first.source, relative_path, slug)
    setup = [i for i, c in enumerate(nb.cells) if SETUP_TAG in c.metadata.get("tags", [])]
    cell = nb.cells.pop(setup[0]) if setup else nbformat.v4.new_code_cell()
    cell.source = setup_cell_source(slug)
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
        if stripped == BEGIN or stripped.startswith(BEGIN + ":"):
            region = line[: len(line) - len(line.lstrip())]  # indentation of the marker
            # "# BEGIN SOLUTION: <task>" gives the exercise its own TODO line (e.g. "fix the loop below"),
            # for regions whose stub is existing code to repair rather than an empty place to write in.
            task = stripped[len(BEGIN) + 1:].strip()
            out.append(region + (f"# TODO: {task}" if task else TODO_LINE))
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


def expected_files(root: Path, only: list[Path] | None = None, slug: str | None = None) -> dict[Path, str]:
    """Every notebook's text as `sync` would write it (exercises generated from solutions).

    `only`: limit to these source notebooks (notebooks/ or solutions/ paths).
    `slug`: the repository the badges and setup cells point at (default: config.REPO_SLUG)."""
    files: dict[Path, str] = {}
    sources = sorted(p for d in ("notebooks", "solutions") for p in (root / d).glob("*.ipynb"))
    if only is not None:
        wanted = {p.resolve() for p in only}
        sources = [p for p in sources if p.resolve() in wanted]
    for path in sources:
        nb = nbformat.read(path, as_version=4)
        rel = path.relative_to(root).as_posix()
        normalise(nb, rel, slug)
        files[path] = _dump(nb)
        if path.parent.name == "solutions":
            exercise = make_exercise(nb)
            exercise_path = root / "exercises" / path.name
            normalise(exercise, exercise_path.relative_to(root).as_posix(), slug)
            files[exercise_path] = _dump(exercise)
    files.update(saved_cells.saved_files(root, only))
    return files


def stale_files(root: Path, slug: str | None = None) -> list[Path]:
    """Notebooks whose content differs from what `sync` would write, plus orphan exercises."""
    expected = expected_files(root, slug=slug)
    stale = [p for p, text in expected.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    orphans = [p for p in (root / "exercises").glob("*.ipynb") if p not in expected]
    return stale + orphans


def sync(root: Path, only: list[Path] | None = None, slug: str | None = None) -> list[Path]:
    changed = []
    for path, text in expected_files(root, only, slug).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str], root: Path | None = None) -> int:
    root = root or config.REPO_DIR or Path.cwd()
    command = argv[0] if argv else "sync"
    try:
        if command == "repoint":
            slug = argv[1] if len(argv) > 1 else origin_slug(root)
            if slug is None:
                print(no_origin_message(root), file=sys.stderr)
                return 1
            for path in repoint(root, slug):
                print("updated", path.relative_to(root))
            print(f"REPO_SLUG = {slug}")
            return 0
        if command == "sync":
            remote = origin_slug(root)
            if remote is None:
                print(no_origin_message(root, keeping=stored_slug(root)), file=sys.stderr)
            elif remote != stored_slug(root):
                for path in repoint(root, remote):
                    print("updated", path.relative_to(root))
            only = [Path(a) for a in argv[1:]] or None
            for path in sync(root, only, slug=stored_slug(root)):
                print("updated", path.relative_to(root))
            return 0
    except RepoError as err:
        print(err, file=sys.stderr)
        return 1
    if command == "check":
        stale = stale_files(root, slug=stored_slug(root))
        for path in stale:
            print("out of date (run: python -m fastrain_lib.authoring sync):", path.relative_to(root))
        return 1 if stale else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
