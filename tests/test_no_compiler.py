"""A lab PC without a C++ compiler (issue 41): torch.compile is switched off with a Bengali reason, found the
way Inductor finds its compiler. The lessons run that way in tests/test_english_mode.py (fake_windows_env: a faked Windows PC)."""

from __future__ import annotations

import pytest
from torch._inductor import config as inductor_config

from fastrain_lib.measure import hardware, probe


@pytest.fixture
def no_compiler():
    # torch's own patch (monkeypatch cannot put a torch config value back: it deletes it)
    with inductor_config.patch({"cpp.cxx": (None, "/nonexistent/no-c++-compiler")}):
        probe.compiler_problem.cache_clear()
        yield
    probe.compiler_problem.cache_clear()


def test_compile_is_off_with_its_reason_without_a_compiler_even_when_asked_for(no_compiler, monkeypatch, capsys):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    for asked in ("", "all", "compile"):
        monkeypatch.setenv("FASTRAIN_OPTIONAL", asked)
        assert hardware.run_optional("compile") is False
        out = capsys.readouterr().out
        assert out.startswith("⚠️ torch.compile cannot run on this machine") and "build-essential" in out
    monkeypatch.setenv("FASTRAIN_OPTIONAL", "all")
    assert hardware.run_optional("profiler") is True  # only compile needs the compiler
    assert capsys.readouterr().out == ""


def test_with_the_compiler_here_nothing_changes(monkeypatch, capsys):
    probe.compiler_problem.cache_clear()
    assert probe.compiler_problem() is None  # this machine (and CI) has g++
    monkeypatch.setenv("FASTRAIN_OPTIONAL", "compile")
    assert hardware.run_optional("compile") is True and capsys.readouterr().out == ""


def test_each_platform_is_told_what_to_install(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    assert "Build Tools for Visual Studio" in probe.no_compiler_message("win32") and "(cl)" in probe.no_compiler_message("win32")
    assert "xcode-select --install" in probe.no_compiler_message("darwin")
    assert "build-essential" in probe.no_compiler_message("linux") and "(g++)" in probe.no_compiler_message("linux")
    assert "(clang++)" in probe.no_compiler_message("linux", "clang++")
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    assert "কম্পাইলার" in probe.no_compiler_message("win32")


# --- A lab PC without Triton either (PyPI's torch on Windows brings none) ------------------------------

def test_exercise_04_runs_to_the_end_without_triton_and_without_a_compiler(tmp_path):
    """The exercise stopped at `import triton` (ModuleNotFoundError). Run as on such a PC, in Bengali (what
    a student opens): triton cannot be imported (sys.modules["triton"] = None, set before anything runs,
    so importlib.util.find_spec answers None as where it is not installed) and Inductor finds no compiler.
    Every cell runs; the Triton task says why it cannot run, where the import was, and again at its check."""
    from _nbrun import ROOT, execute

    from fastrain_lib.core.i18n import t

    (tmp_path / "sitecustomize.py").write_text('import sys\nsys.modules["triton"] = None  # no Triton here\n')
    cells, _ = execute(ROOT / "exercises" / "04_fused_kernels.ipynb", lang="bn", mode="ci",
                       env={"PYTHONPATH": str(tmp_path), "CXX": "/nonexistent/no-c++-compiler"})
    said = t("lesson04.tsm_no_triton", lang="bn")
    importing = next(c for c in cells if "import triton" in c.source)
    checking = next(c for c in cells if c.source.strip().startswith("lesson04.check_triton_softmax(softmax)"))
    for cell in (importing, checking):
        assert said in cell.text, (cell.index, cell.text[:300])
    assert not any("Traceback" in c.text or "ModuleNotFoundError" in c.text for c in cells)
