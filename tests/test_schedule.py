"""make test's scheduling (tests/_schedule.py): the slowest files start first, the notebook-per-test
files are shared by both workers, and nothing else changes how pytest-xdist groups a file."""

from pathlib import Path

import _schedule
import pytest

REPO = Path(__file__).resolve().parents[1]


def test_every_named_file_exists():
    """A renamed file would silently lose its place at the front (and the run its balance)."""
    for path in _schedule.RUN_FIRST + _schedule.ONE_UNIT_PER_TEST:
        assert (REPO / path).is_file(), path


def test_the_slowest_files_come_first_then_notebooks_then_the_rest_in_their_order():
    collected = ["tests/test_zero.py::test_a", "exercises/02_to_device.ipynb::Cell 0",
                 "tests/test_colab.py::test_fresh", "tests/browser/test_lessons.py::test_lesson_in_browser[00_setup]",
                 "tests/test_ddp.py::test_b", "tests/test_colab.py::test_loaded", "tests/test_zero.py::test_c"]
    ordered = sorted(collected, key=_schedule.order_key)  # stable, as list.sort in conftest
    assert ordered == ["tests/browser/test_lessons.py::test_lesson_in_browser[00_setup]",
                       "tests/test_colab.py::test_fresh", "tests/test_colab.py::test_loaded",
                       "exercises/02_to_device.ipynb::Cell 0",
                       "tests/test_zero.py::test_a", "tests/test_ddp.py::test_b", "tests/test_zero.py::test_c"]


@pytest.mark.parametrize("nodeid, unit", [
    ("tests/browser/test_lessons.py::test_lesson_in_browser[05b_ddp_in_depth]",
     "tests/browser/test_lessons.py::test_lesson_in_browser[05b_ddp_in_depth]"),
    ("tests/test_english_mode.py::test_lesson_in_english[notebooks/04_fused_kernels.ipynb]",
     "tests/test_english_mode.py::test_lesson_in_english[notebooks/04_fused_kernels.ipynb]"),
    ("tests/test_colab.py::test_fresh_colab_runtime", "tests/test_colab.py"),
    ("exercises/02_to_device.ipynb::Cell 3", "exercises/02_to_device.ipynb"),  # nbval: a notebook stays whole
    ("tests/test_ring.py::TestRing::test_two", "tests/test_ring.py"),
])
def test_only_the_named_files_are_split(nodeid, unit):
    assert _schedule.unit_of(nodeid) == unit


def test_two_real_workers_share_a_split_file_and_start_with_the_slowest(tmp_path):
    """A real `pytest -n 2 --dist loadfile` over a small tree laid out like ours: the split file's
    tests run on both workers, each worker starts with a RUN_FIRST file, and an ordinary file's
    tests all run on one worker, as loadfile promises."""
    pytest.importorskip("xdist")
    import os
    import subprocess
    import sys

    record = (
        "import os, time\n"
        "def _note(name):\n"
        "    with open(os.environ['RUN_LOG'], 'a') as f:\n"
        "        f.write(f\"{os.environ['PYTEST_XDIST_WORKER']} {name}\\n\")\n"
        "    time.sleep(0.3)\n")
    files = {"tests/browser/test_lessons.py": 4, "tests/test_colab.py": 2, "tests/test_ddp.py": 3, "tests/test_zero.py": 3}
    for path, count in files.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        tests = "".join(f"def test_{i}():\n    _note('{path}::{i}')\n" for i in range(count))
        target.write_text(record + tests)
    (tmp_path / "tests" / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\nimport pytest\nimport _schedule\n"
        "def pytest_collection_modifyitems(config, items):\n"
        "    items.sort(key=lambda item: _schedule.order_key(item.nodeid))\n"
        "@pytest.hookimpl(optionalhook=True)\n"
        "def pytest_xdist_make_scheduler(config, log):\n"
        "    return _schedule.make_scheduler(config, log)\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    log = tmp_path / "run.log"
    # only xdist: the installed plugins (nbval, playwright, hypothesis...) would triple the start-up
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist.plugin", "-n", "2",
                           "--dist", "loadfile", "tests"], cwd=tmp_path, check=False, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "RUN_LOG": str(log), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 0, done.stdout[-2000:]
    runs = [line.split(" ", 1) for line in log.read_text().splitlines()]

    def workers_of(prefix):
        return {w for w, name in runs if name.startswith(prefix)}

    assert workers_of("tests/browser/test_lessons.py") == {"gw0", "gw1"}  # split: both share it
    assert len(workers_of("tests/test_ddp.py")) == len(workers_of("tests/test_zero.py")) == 1  # whole files
    first = {w: name for w, name in reversed(runs)}  # each worker's first test
    assert all(name.startswith(_schedule.RUN_FIRST) for name in first.values()), first
