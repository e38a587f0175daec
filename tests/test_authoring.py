import nbformat
import pytest

from fastrain_lib import authoring
from fastrain_lib.core import config


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


# --- the course's GitHub location: one place (config), taken from the checkout's `origin` ---

ROOT = authoring.Path(__file__).resolve().parents[1]


def test_every_badge_setup_cell_and_readme_link_agrees_with_config():
    assert authoring.stored_slug(ROOT) == config.REPO_SLUG
    readme_links = authoring.course_links((ROOT / "README.bn.md").read_text(encoding="utf-8"), authoring.README_LINK)
    assert readme_links, "README.bn.md should tell contributors how to clone the course"
    assert authoring.link_disagreements(ROOT) == []


def test_link_check_catches_a_stale_badge_and_readme_link(tmp_path):
    _course(tmp_path, slug="old-owner/fastrain")
    nb = tmp_path / "notebooks" / "00_x.ipynb"
    nb.write_text(nb.read_text(encoding="utf-8").replace("old-owner/fastrain", "someone/else"), encoding="utf-8")
    wrong = authoring.link_disagreements(tmp_path)
    assert any(w.startswith("notebooks/00_x.ipynb: someone/else") for w in wrong)
    assert any(w.startswith("README.bn.md") for w in wrong) is False
    (tmp_path / "README.bn.md").write_text("git clone https://github.com/x/y.git\n", encoding="utf-8")
    assert "README.bn.md: x/y" in authoring.link_disagreements(tmp_path)


@pytest.mark.parametrize("url, slug", [
    ("https://github.com/dhaka-lab/fastrain.git", "dhaka-lab/fastrain"),
    ("https://github.com/dhaka-lab/fastrain", "dhaka-lab/fastrain"),
    ("git@github.com:dhaka-lab/fast.rain.git\n", "dhaka-lab/fast.rain"),
    ("ssh://git@github.com/dhaka-lab/fastrain.git", "dhaka-lab/fastrain"),
])
def test_slug_from_github_remotes(url, slug):
    assert authoring.slug_from_remote_url(url) == slug


def test_non_github_remote_is_a_clear_error():
    with pytest.raises(authoring.RepoError) as err:
        authoring.slug_from_remote_url("https://gitlab.com/a/b.git")
    assert "GitHub-এর ঠিকানা নয়" in str(err.value) and "not a GitHub address" in str(err.value)


def _git(root, *args):
    import subprocess
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _course(root, slug):
    """A tiny course checkout: config.py, READMEs with links, one lesson and one solution."""
    (root / "fastrain_lib" / "core").mkdir(parents=True)
    text = (ROOT / "fastrain_lib" / "core" / "config.py").read_text(encoding="utf-8")
    text = text.replace(f'REPO_SLUG = "{config.REPO_SLUG}"', f'REPO_SLUG = "{slug}"')
    (root / "fastrain_lib" / "core" / "config.py").write_text(text, encoding="utf-8")
    (root / "README.bn.md").write_text(
        f"git clone https://github.com/{slug}.git && cd fastrain\n"
        "সমস্যা: https://github.com/pytorch/pytorch/issues/96755\n", encoding="utf-8")
    for d in ("notebooks", "solutions", "exercises"):
        (root / d).mkdir()
    for rel in ("notebooks/00_x.ipynb", "solutions/01_x.ipynb"):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# শিরোনাম"),
                                             nbformat.v4.new_code_cell("x = 1")])
        nbformat.write(nb, root / rel)
    authoring.sync(root, slug=slug)
    return root


def test_sync_repoints_everything_to_the_origin_remote(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(config, "REPO_SLUG", config.REPO_SLUG)  # restored after the test
    monkeypatch.setattr(config, "REPO_URL", config.REPO_URL)
    root = _course(tmp_path, slug="old-owner/fastrain")
    _git(root, "init", "-q")
    _git(root, "remote", "add", "origin", "git@github.com:dhaka-lab/fastrain-course.git")
    assert authoring.main(["sync"], root=root) == 0
    new = "dhaka-lab/fastrain-course"
    assert authoring.stored_slug(root) == new
    readme = (root / "README.bn.md").read_text(encoding="utf-8")
    assert f"git clone https://github.com/{new}.git" in readme
    assert "pytorch/pytorch/issues/96755" in readme  # other projects' links stay
    for rel in ("notebooks/00_x.ipynb", "solutions/01_x.ipynb", "exercises/01_x.ipynb"):
        nb = nbformat.read(root / rel, as_version=4)
        assert authoring.badge(rel, new) in nb.cells[0].source
        assert nb.cells[1].source == authoring.setup_cell_source(new)
        assert f"git+https://github.com/{new}@" in nb.cells[1].source
    assert authoring.link_disagreements(root) == []
    assert "old-owner" not in "".join(p.read_text(encoding="utf-8") for p in root.rglob("*") if p.is_file()
                                      and ".git" not in p.parts)


def test_without_origin_repoint_fails_clearly_and_sync_keeps_config(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(config, "REPO_SLUG", config.REPO_SLUG)
    monkeypatch.setattr(config, "REPO_URL", config.REPO_URL)
    root = _course(tmp_path, slug="old-owner/fastrain")
    _git(root, "init", "-q")
    before = {p: p.read_text(encoding="utf-8") for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert authoring.main(["repoint"], root=root) == 1
    err = capsys.readouterr().err
    assert "`origin` নামের git remote নেই" in err and "has no git remote called `origin`" in err
    assert "git remote add origin" in err
    assert authoring.main(["sync"], root=root) == 0  # lesson authors can still sync
    err = capsys.readouterr().err
    assert "keeping old-owner/fastrain" in err and "old-owner/fastrain রাখা হলো" in err
    after = {p: p.read_text(encoding="utf-8") for p in before}
    assert after == before


def test_repoint_with_explicit_slug(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "REPO_SLUG", config.REPO_SLUG)
    monkeypatch.setattr(config, "REPO_URL", config.REPO_URL)
    root = _course(tmp_path, slug="old-owner/fastrain")
    assert authoring.main(["repoint", "lab-cse/fastrain"], root=root) == 0
    assert authoring.stored_slug(root) == "lab-cse/fastrain"
    assert authoring.link_disagreements(root) == []


def test_a_region_can_name_its_own_todo():
    src = "def f():\n    # BEGIN SOLUTION: নিচের লুপের ভুলটি ঠিক করো\n    # STUB: return 1\n    return 2\n    # END SOLUTION"
    out = authoring.exercise_source(src).splitlines()
    assert out == ["def f():", "    # TODO: নিচের লুপের ভুলটি ঠিক করো", "    return 1"]
    assert authoring.TODO_LINE not in out
