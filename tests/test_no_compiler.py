"""A lab PC without a C++ compiler (issue 41): torch.compile is switched off with a Bengali reason, found the
way Inductor finds its compiler. The lessons run that way in tests/test_english_mode.py (WITHOUT_COMPILER)."""

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
