"""The exercises, as `make test` runs them (nbval, in Bengali), run as on a Windows lab PC (issue 41).

Each exercise's kernel starts with the faked-Windows folder on PYTHONPATH (tests/fakewindows: no `triton`,
no `torch.distributed.rpc`) and CXX naming a compiler that does not exist (Inductor then finds none, as on
a PC without MSVC or g++): every cell must still run without an error, and where a cell needs what is
missing it says why (exercise 04's Triton and torch.compile cells). Only the kernel's start is changed:
nbval starts it in the notebook's setup, from this process's environment, which is put back right after.
`spawn` is not taken away here (see tests/test_english_mode.py: the process lessons' spawn-only runs).
The solutions run with triton in tests/test_english_mode_exercises.py, so the Triton path is still
executed, and its checks still earn their ✅.
"""

import os
from pathlib import Path

import pytest

FAKEWINDOWS_DIR = Path(__file__).resolve().parents[1] / "tests" / "fakewindows"


def fake_windows_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(FAKEWINDOWS_DIR), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, "FAKEWINDOWS": "triton,rpc", "CXX": "/nonexistent/no-c++-compiler"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    env = fake_windows_env()
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield  # the notebook's setup starts its kernel with this environment
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
