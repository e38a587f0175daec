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
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["dev"]
    return {CONDA_NAMES.get(n, n): s for n, s in map(name_and_spec, reqs)}


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
