"""The library's layout rules (docs/architecture.md), enforced: where a maintainer finds a lesson's
parts, how big a module may grow, which way imports point, where a training step lives, one message
convention, and that the code a lesson teaches is written in the lesson's own cells.

Each rule is checked on the real tree, and each checker is also given a small wrong example, so a
rule that could never fail would be noticed."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from fastrain_lib import lessons

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fastrain_lib"
MAX_LINES = 400


def lesson_dirs() -> dict[str, Path]:
    """{'02': fastrain_lib/lessons/l02_to_device, ...}"""
    return {p[1:].split("_", 1)[0]: PKG / "lessons" / p for p in lessons.lesson_packages()}


def notebook_numbers(folder: str) -> set[str]:
    return {p.name.split("_", 1)[0] for p in (ROOT / folder).glob("[0-9]*.ipynb")}


def code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


# --- one package per lesson --------------------------------------------------------------------

def test_every_lesson_has_its_package_with_panel_and_messages():
    lessons_here = {n for n in notebook_numbers("notebooks") if not n.startswith("9")}
    dirs = lesson_dirs()
    assert lessons_here <= set(dirs), f"lessons without a package: {sorted(lessons_here - set(dirs))}"
    for folder in dirs.values():
        assert (folder / "panel.py").exists(), f"{folder.name}: no panel.py"
        assert (folder / "messages.py").exists(), f"{folder.name}: no messages.py"


def test_every_exercise_has_its_checks_in_its_lesson_package():
    dirs = lesson_dirs()
    for number in notebook_numbers("solutions"):
        folder = dirs[number]
        assert (folder / "checks.py").exists() or (folder / "checks").is_dir(), \
            f"solutions/{number}_*: no checks in {folder.name}/"


def verdicts_outside_verdicts(folder: Path) -> list[str]:
    """Public functions named *verdict* in a lesson package, outside its verdicts module(s)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        if path.stem.startswith("verdicts") or path.name == "messages.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and "verdict" in node.name and not node.name.startswith("_"):
                found.append(f"{path.relative_to(folder).as_posix()}:{node.name}")
    return found


def test_verdict_rules_live_in_each_lessons_verdicts_module():
    misplaced = [f"{d.name}/{x}" for d in lesson_dirs().values() for x in verdicts_outside_verdicts(d)]
    assert misplaced == [], "verdict rules outside verdicts.py: " + ", ".join(misplaced)


def test_the_verdict_rule_sees_a_misplaced_verdict(tmp_path):
    (tmp_path / "panel.py").write_text("def make():\n    pass\n\n\ndef speed_verdicts(rows):\n    return []\n")
    (tmp_path / "verdicts.py").write_text("def amp_verdicts(rows):\n    return []\n")
    assert verdicts_outside_verdicts(tmp_path) == ["panel.py:speed_verdicts"]


# --- small modules -----------------------------------------------------------------------------

def long_modules(files: list[Path], limit: int = MAX_LINES) -> list[str]:
    """Modules over `limit` lines; message tables (messages.py) are data, not code."""
    return [f"{p.name} ({n})" for p in files if p.name != "messages.py"
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > limit]


def test_no_module_is_over_400_lines():
    assert long_modules(sorted(PKG.rglob("*.py"))) == []


def test_the_size_rule_sees_a_long_module(tmp_path):
    (tmp_path / "big.py").write_text("x = 1\n" * 401)
    (tmp_path / "messages.py").write_text("x = 1\n" * 900)
    (tmp_path / "small.py").write_text("x = 1\n" * 400)
    assert long_modules(sorted(tmp_path.glob("*.py"))) == ["big.py (401)"]


# --- arrows point down: no import circles --------------------------------------------------------

def import_graph(pkg: Path) -> dict[str, set[str]]:
    """module -> library modules it imports (at any depth of its code), from the source text."""
    files = {}
    for f in pkg.rglob("*.py"):
        parts = list(f.relative_to(pkg.parent).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    graph = {}
    for name, f in files.items():
        base = name.split(".") if f.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                mod = ".".join(base[: len(base) - node.level + 1] + [node.module or ""]).strip(".") \
                    if node.level else (node.module or "")
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                # a package's __init__ is not an edge to its own modules, nor they to it
                if target and target != name and not name.startswith(target + ".") \
                        and not target.startswith(name + "."):
                    deps.add(target)
        graph[name] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    def reaches(a, b, seen):
        for d in graph.get(a, ()):
            if d == b or (d not in seen and not seen.add(d) and reaches(d, b, seen)):
                return True
        return False
    return sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if reaches(b, a, set())})


def test_no_import_circles_in_the_library():
    assert circles(import_graph(PKG)) == []


def test_the_circle_check_sees_a_circle(tmp_path):
    pkg = tmp_path / "lib"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text("from lib.ui import b\n")
    (pkg / "ui").mkdir()
    (pkg / "ui" / "__init__.py").write_text("")
    (pkg / "ui" / "b.py").write_text("def f():\n    from ..core import a\n")
    (pkg / "ui" / "c.py").write_text("from lib.core import a\n")
    assert circles(import_graph(pkg)) == [("lib.core.a", "lib.ui.b")]


# Which way imports point (the layers of docs/architecture.md): tests/test_layers.py.
# One AMP step, one dtype map, one launcher, one DDP worker (found by the AST): tests/test_one_of_each.py.


# --- one message convention: notebooks say their sentences inline ---------------------------------

# t("key"), verdicts.say("key") and plots.label("key"): a reader of the cell would see a key
KEYED_CALL = re.compile(r"(?:(?<![\w.])t|verdicts\.say|plots\.label)\(\s*f?[\"'][a-z0-9_]+\.")


def keyed_calls(cells: list[str]) -> list[str]:
    return [m.group(0) for cell in cells for line in cell.splitlines()
            for m in KEYED_CALL.finditer(line.split("#", 1)[0])]


def test_notebook_cells_use_pick_not_catalog_keys():
    found = {}
    for folder in ("notebooks", "solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            calls = keyed_calls(code_cells(path))
            if calls:
                found[f"{folder}/{path.name}"] = len(calls)
    assert found == {}, f"t('key') calls in notebook cells (use pick(bn=..., en=...)): {found}"


def test_the_convention_check_sees_a_keyed_call():
    assert keyed_calls(['print(t("lesson02.same_device", n=2))', 'pick(bn="x", en="y")  # t("a.b")',
                        'x = bench.t("a")', 'print(t(f"lesson04.v_{k}"))', 'verdicts.say("lesson01.v", x=1)',
                        'verdicts.say(pick(bn="ক", en="a"))', 'ax.set_title(plots.label("lesson03.title"))',
                        'plots.pick(bn="খ", en="b")']) == \
        ['t("lesson02.', 't(f"lesson04.', 'verdicts.say("lesson01.', 'plots.label("lesson03.']


# --- issue 27: every verdict names what it stands on; no cell shows a raw value ----------------------
# verdicts.say(sentence, noise=...) prints the noisy-measurement sentence in place of an explanation
# when what it stands on was noisy; a say() without noise= cannot. A cell whose last line is an
# expression shows that value: a dict or list as Python prints it, a string in quotes (a verdict said
# twice), "Text(0.5, 1.0, ...)" or "[<matplotlib.lines.Line2D ...>]", an Outcome's repr.
NOTEBOOK_FOLDERS = ("notebooks", "solutions", "exercises")


def _say_calls(tree: ast.AST, bare_say: bool) -> list[ast.Call]:
    """verdicts.say(...) calls (and say(...) where the module imported say from verdicts)."""
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "say" and isinstance(func.value, ast.Name)
                    and func.value.id == "verdicts") or (bare_say and isinstance(func, ast.Name) and func.id == "say"):
                calls.append(node)
    return calls


def says_without_noise(source: str, where: str) -> list[str]:
    """'where:line: <call>' for every verdicts.say call in `source` that does not pass noise=."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    bare = any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith("verdicts")
               and any(a.name == "say" for a in n.names) for n in ast.walk(tree))
    return [f"{where}:{call.lineno}: {ast.unparse(call)[:90]}" for call in _say_calls(tree, bare)
            if not any(k.arg == "noise" for k in call.keywords)]


def verdict_cells_without_noise(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for index, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and source.lstrip().startswith("# VERDICT"):
            found += says_without_noise(_python_only(source), f"cell {index} ({cell.get('id', '?')})")
    return found


def _python_only(source: str) -> str:
    """A cell's source with IPython's magics and shell lines blanked (line numbers kept)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _notebooks() -> list[Path]:
    return [p for folder in NOTEBOOK_FOLDERS for p in sorted((ROOT / folder).glob("*.ipynb"))]


def _nb_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", _notebooks(), ids=_nb_id)
def test_every_verdict_cell_says_what_it_stands_on(path):
    found = verdict_cells_without_noise(path)
    assert found == [], (f"{_nb_id(path)}: verdicts.say without noise= in a # VERDICT cell (pass the Records / "
                         "noise infos it stands on, or noise=() for a sentence on no timing):\n  " + "\n  ".join(found))


def test_library_verdicts_say_what_they_stand_on():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name != "messages.py" and path != PKG / "core" / "verdicts.py":
            found += says_without_noise(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    assert found == [], "verdicts.say without noise= in library code:\n  " + "\n  ".join(found)


def test_the_noise_rule_sees_an_undeclared_say():
    source = ("verdicts.say(pick(bn='ক', en='a'))\nverdicts.say('x', noise=())\n"
              "verdicts.say('lesson01.v', noise=[r], n=1)\nverdicts.say('lesson01.w', n=2)\n")
    assert [x.split(": ", 1)[0] for x in says_without_noise(source, "c")] == ["c:1", "c:4"]
    bare = "from fastrain_lib.core.verdicts import say\nsay('a.b')\nsay('a.c', noise=())\n"
    assert says_without_noise(bare, "m") == ["m:2: say('a.b')"]
    assert says_without_noise("say('a.b')\n", "m") == []  # another module's say


# What a cell's last expression shows when it is not None (IPython prints it).
SHOWS_TEXT_CALLS = {"pick", "t", "str", "repr", "dict", "list", "tuple", "set", "sorted", "vars", "dumps", "line",
                    "format", "join", "items", "keys", "values", "tolist", "to_dict", "getsource"}
PLOT_CALLS = {"set_title", "set_xlabel", "set_ylabel", "title", "xlabel", "ylabel", "suptitle", "text", "annotate",
              "plot", "bar", "barh", "legend", "scatter", "hist", "imshow", "axhline", "axvline", "fill_between",
              "errorbar", "loglog", "semilogx", "semilogy", "figure", "subplots", "colorbar", "set_xticks",
              "set_yticks", "set_xticklabels", "set_yticklabels", "xticks", "yticks", "step", "stackplot"}
PLOT_OWNERS = re.compile(r"^(plt|ax\w*|axes|axs|fig\w*)$")
LITERALS = (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp, ast.JoinedStr)


def _shows(value: ast.AST, assigned: dict[str, ast.AST]) -> str | None:
    """What kind of raw value the expression `value` shows as a cell's result, or None."""
    if isinstance(value, LITERALS) or (isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes))):
        return "a raw " + type(value).__name__.lower().replace("joinedstr", "string").replace("constant", "string")
    if isinstance(value, ast.BinOp) and any(isinstance(v, (ast.JoinedStr, ast.Constant)) and
                                            isinstance(getattr(v, "value", ""), str) for v in (value.left, value.right)):
        return "a raw string"
    if isinstance(value, ast.Name) and value.id in assigned:
        kind = _shows(assigned[value.id], {})
        return f"variable {value.id} holding {kind.removeprefix('a ')}" if kind else None
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if name in PLOT_CALLS and (PLOT_OWNERS.match(owner) or not owner and name in {"figure", "subplots"}):
            return f"the matplotlib object {owner + '.' if owner else ''}{name}() returns (end with plt.show())"
        if name in SHOWS_TEXT_CALLS and not (name == "line" and owner != "verdicts"):
            return f"the value of {owner + '.' if owner else ''}{name}()"
        if name == "run" and owner.endswith("panel"):
            return f"{owner}.run()'s Outcome repr (use {owner}.run(); or {owner}.show_results())"
    return None


def _quiet(source: str) -> bool:
    """IPython shows nothing when the cell's last code token is ';'."""
    import io
    import tokenize

    try:
        tokens = [tok for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                  if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                      tokenize.DEDENT, tokenize.ENDMARKER)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return False
    return bool(tokens) and tokens[-1].string == ";"


def raw_value_cells(cells: list[tuple[str, str]]) -> list[str]:
    """'cell N (id): `last line` shows ...' for every cell (id, source) ending with an expression
    that prints a raw string/dict/list/tuple, a matplotlib object or an Outcome."""
    assigned: dict[str, ast.AST] = {}
    found = []
    for cell_id, source in cells:
        try:
            tree = ast.parse(_python_only(source))
        except SyntaxError:
            continue
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not _quiet(_python_only(source)):
            kind = _shows(tree.body[-1].value, assigned)
            if kind:
                found.append(f"cell {cell_id}: `{ast.unparse(tree.body[-1])[:70]}` shows {kind}")
        for node in tree.body:  # top-level names bound in this cell, for the next cells
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned[target.id] = node.value
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and node.value:
                assigned[node.target.id] = node.value
    return found


def _code_cells_with_ids(path: Path) -> list[tuple[str, str]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(f"{i} ({c.get('id', '?')})", "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
            for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", _notebooks(), ids=_nb_id)
def test_no_cell_ends_with_a_raw_value(path):
    found = raw_value_cells(_code_cells_with_ids(path))
    assert found == [], (f"{_nb_id(path)}: cells whose last line shows a raw value (show a sentence, a small table "
                         "via tables.html_table, or end plot cells with plt.show()):\n  " + "\n  ".join(found))


def test_the_raw_value_rule_sees_each_kind():
    cells = [("0", "x = {'fc1': False}\ny = [1, 2]\ns = 'a'"), ("1", "x"), ("2", "y  # the list"), ("3", "{'a': 1}"),
             ("4", "verdicts.say(pick(bn='ক', en='a'), noise=())"), ("5", "pick(bn='ক', en='a')"),
             ("6", "ax.set_title('t')"), ("7", "plt.plot([1], [2])\nplt.show()"), ("8", "ax.set_title('t');"),
             ("9", "panel.run()"), ("10", "ddp_panel.run();  # no repr"), ("11", "checks.lesson03.amp_step(fn)"),
             ("12", "s"), ("13", "f'{s}!'"), ("14", "%time x = 1\nprint(x)"), ("15", "plots.show(fig)"),
             ("16", "plt.legend()"), ("17", "n = 3\nn"), ("18", "verdicts.line('a.b')")]
    found = [x.split(":", 1)[0] for x in raw_value_cells(cells)]
    assert found == ["cell 1", "cell 2", "cell 3", "cell 5", "cell 6", "cell 9", "cell 12", "cell 13", "cell 16",
                     "cell 18"]
