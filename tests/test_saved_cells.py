"""Cells marked #@save and their library copies (fastrain_lib/saved_cells.py): the library holds
only code the student has read in a lesson cell, and the two never drift apart."""

from __future__ import annotations

import ast
import importlib
import json
import re
import shutil
from pathlib import Path

import pytest

from fastrain_lib import authoring, saved_cells

ROOT = Path(__file__).resolve().parents[1]
SAVED = saved_cells.saved_files(ROOT)


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_lessons_save_cells_at_all():
    assert len(SAVED) >= 5, sorted(p.relative_to(ROOT).as_posix() for p in SAVED)


@pytest.mark.parametrize("path", sorted(SAVED), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_saved_module_equals_its_notebook_cells(path):
    assert path.exists(), f"{path.relative_to(ROOT)} missing: run make sync"
    assert path.read_text(encoding="utf-8") == SAVED[path], \
        f"{path.relative_to(ROOT)} differs from its notebook's #@save cells: run make sync"


@pytest.mark.parametrize("path", sorted(SAVED), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_saved_module_imports_and_holds_every_marked_cell(path):
    module = importlib.import_module(module_of(path))
    text = Path(module.__file__).read_text(encoding="utf-8")
    notebook = ROOT / text.split("Saved from ", 1)[1].split(" ", 1)[0]
    for target, code in saved_cells.marked_cells(notebook):
        if (target is None and path.name == "saved.py") or (target and path.as_posix().endswith(target)):
            assert code in text


def test_no_orphan_saved_module():
    """A lesson's saved.py with no marked cell behind it would be library code nobody reads."""
    orphans = [p for p in (ROOT / "fastrain_lib" / "lessons").glob("*/saved.py") if p not in SAVED]
    assert orphans == []


def mini_course(tmp_path: Path, code: str) -> Path:
    (tmp_path / "fastrain_lib" / "lessons" / "l09_demo").mkdir(parents=True)
    (tmp_path / "notebooks").mkdir()
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# demo"]},
                    {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                     "source": [f"#@save\n{code}"]},
                    {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                     "source": ["print('not saved')"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "notebooks" / "09_demo.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    return tmp_path / "notebooks" / "09_demo.ipynb"


def test_sync_writes_the_marked_cell_and_check_sees_a_change(tmp_path):
    notebook = mini_course(tmp_path, "def double(x):\n    return 2 * x")
    files = saved_cells.saved_files(tmp_path)
    target = tmp_path / "fastrain_lib" / "lessons" / "l09_demo" / "saved.py"
    assert list(files) == [target]
    assert "def double(x):\n    return 2 * x" in files[target] and "not saved" not in files[target]
    target.write_text(files[target], encoding="utf-8")
    # the student-facing cell changes; the library copy is now stale
    text = notebook.read_text(encoding="utf-8").replace("2 * x", "x + x")
    notebook.write_text(text, encoding="utf-8")
    assert saved_cells.saved_files(tmp_path)[target] != target.read_text(encoding="utf-8")


def test_a_target_path_goes_where_it_says(tmp_path):
    mini_course(tmp_path, "X = 1")
    nb_path = tmp_path / "notebooks" / "09_demo.ipynb"
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    nb["cells"][1]["source"] = ["#@save precision/demo_step.py\nY = 2"]
    nb_path.write_text(json.dumps(nb), encoding="utf-8")
    assert list(saved_cells.saved_files(tmp_path)) == [tmp_path / "fastrain_lib" / "precision" / "demo_step.py"]


def test_authoring_check_reports_a_stale_saved_module(tmp_path):
    """The real tree: change one marked cell in a copy and `authoring check` must name its module."""
    if not SAVED:
        pytest.skip("no saved cells yet")
    path = sorted(SAVED)[0]
    for folder in ("notebooks", "solutions", "exercises", "fastrain_lib"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "README.md").write_text("")
    assert path.relative_to(ROOT) not in [p.relative_to(tmp_path) for p in authoring.stale_files(tmp_path)]
    copy = tmp_path / path.relative_to(ROOT)
    copy.write_text(copy.read_text(encoding="utf-8") + "\n# edited by hand\n", encoding="utf-8")
    assert path.relative_to(ROOT) in [p.relative_to(tmp_path) for p in authoring.stale_files(tmp_path)]


# --- the techniques issue 24 names are written in the lessons' own cells ---------------------------
def code_cells(notebook: str) -> list[str]:
    nb = json.loads((ROOT / notebook).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


# (notebook, what a student must be able to read in one of its code cells)
TECHNIQUES = [
    ("notebooks/02_to_device.ipynb", [r"\.pin_memory\(\)", r"non_blocking=True", r"for .*:\n(.*\n)*.*\.item\(\)",
                                      r"Stream\(", r"wait_stream\("]),
    ("notebooks/03_mixed_precision.ipynb", [r"autocast\(", r"scaler\.scale\(.*\)\.backward\(\)", r"unscale_\(",
                                            r"clip_grad_norm_\(", r"scaler\.step\(", r"scaler\.update\(\)"]),
    ("notebooks/04_fused_kernels.ipynb", [r"foreach=False", r"foreach=True", r"fused=True", r"def bias_gelu\(",
                                          r"class NaiveLayerNorm", r"nn\.LayerNorm\(", r"torch\.compile\("]),
    ("notebooks/05_data_vs_model_parallel.ipynb", [r"DistributedDataParallel|DDP\(", r"set_epoch\(",
                                                   r"def ring_all_reduce\(", r"isend\("]),
    ("notebooks/05c_sharding_and_pipelines.ipynb", [r"def zero1_step\(", r"reduce_scatter", r"all_gather"]),
    ("notebooks/06_sync_vs_async_sgd.ipynb", [r"def hogwild_worker\("]),
    ("notebooks/07_capstone_bengali_gpt.ipynb", [r"for \w+, \w+ in (progress\(list\()?switches\.items\(\)", r"fused=s\[", r"amp_step\("]),
]


@pytest.mark.parametrize("notebook,patterns", TECHNIQUES, ids=[n for n, _ in TECHNIQUES])
def test_the_technique_is_written_in_a_lesson_cell(notebook, patterns):
    cells = code_cells(notebook)
    missing = [p for p in patterns if not any(re.search(p, c) for c in cells)]
    assert missing == [], f"{notebook}: no code cell shows {missing}"


def test_lesson_04_shows_its_code_not_the_librarys_source():
    assert not any("inspect.getsource(" in c and "bias_gelu" in c for c in code_cells("notebooks/04_fused_kernels.ipynb"))


def test_the_amp_step_is_defined_once_in_the_whole_course():
    defs = [n for n in sorted((ROOT / "notebooks").glob("*.ipynb"))
            for c in code_cells(f"notebooks/{n.name}") if re.search(r"^def amp_step\(", c, re.M)]
    assert [n.name for n in defs] == ["03_mixed_precision.ipynb"]


# the short versions that lessons 05-07 show before the library measures (<= 20 lines each)
SHORT = [("notebooks/05_data_vs_model_parallel.ipynb", "main"),
         ("notebooks/05_data_vs_model_parallel.ipynb", "ring_all_reduce"),
         ("notebooks/05c_sharding_and_pipelines.ipynb", "zero1_step"),
         ("notebooks/06_sync_vs_async_sgd.ipynb", "hogwild_worker")]


@pytest.mark.parametrize("notebook,name", SHORT, ids=[n for _, n in SHORT])
def test_the_short_version_in_the_cell_is_short(notebook, name):
    for cell in code_cells(notebook):
        for node in ast.parse(cell).body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                assert node.end_lineno - node.lineno + 1 <= 20
                return
    pytest.fail(f"{notebook}: no cell defines {name}")


def test_the_capstone_loop_over_switches_is_short():
    for cell in code_cells("notebooks/07_capstone_bengali_gpt.ipynb"):
        for node in ast.parse(cell).body:
            if isinstance(node, ast.For) and "switches" in ast.unparse(node.iter):
                assert node.end_lineno - node.lineno + 1 <= 20
                return
    pytest.fail("lesson 07 has no loop over its switches in a cell")
