"""A script that starts the course's processes without `if __name__ == "__main__":` (issue 41: the usual first
try under spawn, Windows' only start method) is told that cause in Bengali before any process starts, instead
of "rank 0 died without a message (exit code 1)". Real scripts, run by a real Python, both start methods."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types

import pytest

from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import launcher

WORKER = "def square(rank, world_size):\n    return rank * rank\n"
CALL = "from fastrain_lib.distributed import launcher\nimport work\nprint('RESULT', launcher.launch(work.square, 2, start_method={method!r}, timeout_s=60))\n"


def run_script(tmp_path, body: str) -> subprocess.CompletedProcess:
    (tmp_path / "work.py").write_text(WORKER)
    (tmp_path / "train.py").write_text(body)
    return subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=180,
                          env={**__import__("os").environ, "FASTRAIN_LANG": "en"})


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_an_unguarded_script_is_told_why_and_a_guarded_one_runs(tmp_path, method):
    unguarded = run_script(tmp_path, CALL.format(method=method))
    assert unguarded.returncode != 0
    assert 'is not under `if __name__ == "__main__":`' in unguarded.stderr and "train.py" in unguarded.stderr
    assert "died without a message" not in unguarded.stderr + unguarded.stdout
    if method != "spawn":
        return  # the guarded run, once: with spawn, as on Windows (each run starts two Pythons with torch)
    guarded_body = "if __name__ == \"__main__\":\n" + textwrap.indent(CALL.format(method=method), "    ")
    guarded = run_script(tmp_path, guarded_body)
    assert guarded.returncode == 0, guarded.stderr[-2000:]
    assert "RESULT [0, 1]" in guarded.stdout


def test_the_rule_over_main_modules(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print(1)\n")
    as_script = types.SimpleNamespace(__file__=str(script), __spec__=None)
    assert "s.py" in launcher.main_guard_problem(as_script)
    script.write_text("if __name__ == '__main__':\n    print(1)\n")
    assert launcher.main_guard_problem(as_script) is None
    script.write_text("print(1)\n")
    package_main = types.SimpleNamespace(__file__=str(script), __spec__=types.SimpleNamespace(name="benchmarks.__main__"))
    assert launcher.main_guard_problem(package_main) is None  # python -m package: not imported again
    assert launcher.main_guard_problem(types.SimpleNamespace()) is None  # a notebook or the REPL: no file
    assert "স্ক্রিপ্ট" in t("distributed.no_main_guard", lang="bn", script="s.py")
