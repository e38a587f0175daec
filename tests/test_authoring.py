import nbformat
import pytest

from fastrain_lib import authoring, config


def test_exercise_source_replaces_solution_with_todo_and_stub():
    src = (
        "def f(x):\n"
        "    # BEGIN SOLUTION\n"
        "    # STUB: return None\n"
        "    y = x * 2\n"
        "    return y\n"
        "    # END SOLUTION\n"
        "print(f)"
    )
    out = authoring.exercise_source(src)
    assert out.splitlines() == ["def f(x):", "    " + authoring.TODO_LINE, "    return None", "print(f)"]
    compile(out, "<exercise>", "exec")


def test_unbalanced_markers_fail():
    with pytest.raises(ValueError):
        authoring.exercise_source("# BEGIN SOLUTION\nx = 1\n")
    with pytest.raises(ValueError):
        authoring.exercise_source("x = 1\n# END SOLUTION\n")


def test_badge_and_setup_cell_use_the_one_repo_url():
    assert authoring.badge("notebooks/01_x.ipynb").endswith(
        f"github/{config.REPO_SLUG}/blob/{config.BRANCH}/notebooks/01_x.ipynb)")
    assert f"git+{config.REPO_URL}@{config.BRANCH}" in authoring.setup_cell_source()


def test_sync_builds_exercise_and_detects_drift(tmp_path):
    for d in ("notebooks", "solutions", "exercises"):
        (tmp_path / d).mkdir()
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# ০৯ · পরীক্ষা"),
        nbformat.v4.new_code_cell("answer = 1  # BEGIN SOLUTION\n# BEGIN SOLUTION\nanswer = 42\n# END SOLUTION"),
    ])
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="x")]
    nbformat.write(nb, tmp_path / "solutions" / "09_test.ipynb")
    changed = authoring.sync(tmp_path)
    assert {p.name for p in changed} == {"09_test.ipynb"} and len(changed) == 2
    solution = nbformat.read(tmp_path / "solutions" / "09_test.ipynb", as_version=4)
    exercise = nbformat.read(tmp_path / "exercises" / "09_test.ipynb", as_version=4)
    assert "solutions/09_test.ipynb" in solution.cells[0].source
    assert "exercises/09_test.ipynb" in exercise.cells[0].source
    assert solution.cells[1].source == authoring.setup_cell_source()
    assert "answer = 42" in solution.cells[2].source and not solution.cells[2].outputs
    assert "answer = 42" not in exercise.cells[2].source
    assert authoring.stale_files(tmp_path) == []
    assert authoring.sync(tmp_path) == []  # running it twice changes nothing
    # Editing the exercise by hand is drift that the check reports.
    path = tmp_path / "exercises" / "09_test.ipynb"
    path.write_text(path.read_text(encoding="utf-8").replace("TODO", "DONE"), encoding="utf-8")
    assert authoring.stale_files(tmp_path) == [path]
