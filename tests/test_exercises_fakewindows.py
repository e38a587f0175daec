"""exercises/conftest.py really starts nbval's kernels as on a Windows lab PC (issue 41), and only them.

nbval is run for real (a subprocess pytest, as `make test` runs the exercises) on two small notebooks that
ask their own kernel what it has: one beside a copy of the exercises' conftest, one without it. Without
this, a conftest that changed the environment too late (after the kernel started) or not at all would
leave the exercises running with triton, RPC and a compiler, and nothing would say so.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

ASKS = [
    "import os, sys\nprint('FAKEWINDOWS=' + os.environ.get('FAKEWINDOWS', '-'), 'CXX=' + os.environ.get('CXX', '-'))",
    "try:\n    import triton\n    print('triton: yes')\nexcept ModuleNotFoundError:\n    print('triton: no')",
    "import torch.distributed.rpc as rpc\nprint('rpc:', 'yes' if rpc.is_available() else 'no')",
]


def _notebook(folder: Path, expect: dict[str, str]) -> Path:
    nb = nbformat.v4.new_notebook()
    for code in ASKS:
        nb.cells.append(nbformat.v4.new_code_cell(code))
    # nbval compares these cells' outputs with what is stored: the stored lines are what must be seen.
    for count, (cell, line) in enumerate(zip(nb.cells, expect.values()), start=1):
        cell.execution_count = count
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line + "\n")]
    path = folder / "probe.ipynb"
    nbformat.write(nb, path)
    return path


def _nbval(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                           "--nbval-current-env", "--rootdir", str(folder), str(folder / "probe.ipynb")],
                          cwd=folder, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_exercises_kernel_has_no_triton_no_rpc_and_no_compiler(tmp_path):
    with_conftest, without = tmp_path / "exercises", tmp_path / "elsewhere"
    for folder in (with_conftest, without):
        folder.mkdir()
    conftest = (ROOT / "exercises" / "conftest.py").read_text(encoding="utf-8")
    line = 'FAKEWINDOWS_DIR = Path(__file__).resolve().parents[1] / "tests" / "fakewindows"'
    assert line in conftest
    (with_conftest / "conftest.py").write_text(
        conftest.replace(line, f"FAKEWINDOWS_DIR = Path({str(ROOT / 'tests' / 'fakewindows')!r})"), encoding="utf-8")

    faked = {"env": "FAKEWINDOWS=triton,rpc CXX=/nonexistent/no-c++-compiler", "triton": "triton: no", "rpc": "rpc: no"}
    _notebook(with_conftest, faked)
    done = _nbval(with_conftest)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]

    # The same probe without the conftest sees this machine as it is (triton and RPC are installed here):
    # the probe can tell the two apart, and the pytest process's own environment was not left changed.
    _notebook(without, {"env": "FAKEWINDOWS=- CXX=-", "triton": "triton: yes", "rpc": "rpc: yes"})
    done = _nbval(without)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
