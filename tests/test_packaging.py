"""pyproject.toml and environment.yml list the same packages; nothing says `pip install apex`."""

import re
import subprocess
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
CONDA_NAMES = {"torch": "pytorch"}  # where conda-forge names a package differently


def name_and_spec(requirement: str) -> tuple[str, str]:
    match = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", requirement)
    return match.group(1).lower(), match.group(2).replace(" ", "")


def pyproject_packages() -> dict[str, str]:
    """Runtime, lab and dev packages as one environment (environment.yml is `make install`'s
    .[lab,dev]): where an extra names a package again, its stricter range wins (ipywidgets)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    reqs = project["dependencies"] + extras["lab"] + extras["dev"]
    return {CONDA_NAMES.get(n, n): s for n, s in map(name_and_spec, reqs)}


def runtime_packages() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return dict(map(name_and_spec, project["dependencies"]))


def conda_packages() -> dict[str, str]:
    packages = {}
    text = (ROOT / "environment.yml").read_text()
    for line in text.split("dependencies:", 1)[1].splitlines():
        match = re.match(r"\s+-\s+([A-Za-z0-9_.\-]+.*)$", line)
        if match and not line.strip().startswith("#"):
            name, spec = name_and_spec(match.group(1))
            packages[name] = spec
    packages.pop("python", None)
    packages.pop("pip", None)
    return packages


def test_same_dependencies_in_both_files():
    assert pyproject_packages() == conda_packages()


def test_dependencies_are_ranges_not_pins():
    for name, spec in pyproject_packages().items():
        assert "==" not in spec, f"{name} is pinned: {spec}"
    assert pyproject_packages()["matplotlib"] == ">=3.11"  # Bengali shaping needs it


def test_the_package_alone_installs_beside_colabs_own_packages():
    """What Colab gets (issue 25): no Jupyter server, widgets Colab's front end draws (7.7.1), no
    floor on Colab's kernel packages; matplotlib is the one upgrade. tests/test_colab.py proves it
    with a real install into Colab's pinned versions; this names the rule for a reader."""
    runtime = runtime_packages()
    assert "jupyterlab" not in runtime and "voila" not in runtime and "notebook" not in runtime
    assert runtime["ipywidgets"] == ">=7.7"
    for name in ("ipykernel", "ipython", "traitlets", "tqdm", "numpy"):
        assert runtime.get(name, "") == "", f"{name} has a floor Colab may not meet: {runtime[name]}"
    lab = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lab"]
    assert {name_and_spec(r)[0] for r in lab} >= {"jupyterlab", "voila"}
    from fastrain_lib.cli import commands  # what make install and python -m fastrain_lib install run

    assert "EXTRAS ?= lab,dev" in (ROOT / "Makefile").read_text() and commands.DEFAULTS["extras"] == "lab,dev"
    assert commands.install("py", "lab,dev")[0].argv[-2:] == ["-e", ".[lab,dev]"]


def test_layout_matches_the_design():
    for entry in ("notebooks", "fastrain_lib", "exercises", "solutions", "tests", "benchmarks", "reference",
                  "environment.yml", "README.bn.md", "README.md", "pyproject.toml", "Makefile", ".ci/run"):
        assert (ROOT / entry).exists(), entry


def test_nobody_is_told_to_pip_install_the_wrong_apex():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    pattern = re.compile(r"pip install\s+(-\S+\s+)*apex\b")
    for name in files:
        path = ROOT / name
        if name.startswith("tests/") or path.suffix not in {".py", ".ipynb", ".md", ".yml", ".toml", ".txt", ""}:
            continue
        if path.is_file():
            assert not pattern.search(path.read_text(encoding="utf-8", errors="ignore")), name


def test_ci_calls_the_readme_test_command():
    readme = (ROOT / "README.bn.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make test" in ci
