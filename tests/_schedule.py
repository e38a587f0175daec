"""How `make test` (pytest -n <cores + 1> --dist loadfile) shares its files between the workers (issue 29).

pytest-xdist's loadfile gives each test file to one worker whole (nbval needs a notebook's cells
together) and, by default, starts the files with the most tests first. Our slowest files have few
tests (each executes a whole notebook or starts real processes), so they started last and one worker
ran them alone while the other had finished: the run's tail. Here, instead:

- the files in RUN_FIRST start first, slowest first (docs/test-durations.md has the measured seconds);
  then the notebooks nbval runs (exercises/, 15-45 s each), then every other file in pytest's
  collection order, so the run ends on short files and the workers finish close together;
- the files in ONE_UNIT_PER_TEST are split: each of their tests is a unit of its own, so the
  workers share them (each test executes one notebook from scratch; a module fixture such as the
  browser suite's JupyterLab server then starts once per worker).
"""

from __future__ import annotations

# Slowest first, by the durations of a clean-clone run (docs/test-durations.md).
RUN_FIRST = (
    "tests/browser/test_lessons.py",
    "tests/test_english_mode.py",
    "tests/test_colab.py",
    "tests/test_capstone.py",
    "tests/test_english_mode_exercises.py",
    "tests/test_lessons_loaded.py",
)
ONE_UNIT_PER_TEST = ("tests/browser/test_lessons.py", "tests/test_english_mode.py")


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its own id in a split file, else its file."""
    return nodeid if file_of(nodeid) in ONE_UNIT_PER_TEST else file_of(nodeid)


def order_key(nodeid: str) -> int:
    """Where a test's file starts: its place in RUN_FIRST, then notebooks, then every other file."""
    path = file_of(nodeid)
    if path in RUN_FIRST:
        return RUN_FIRST.index(path)
    return len(RUN_FIRST) + (0 if path.endswith(".ipynb") else 1)


def make_scheduler(config, log):
    """loadfile with the two changes above; None (xdist's own) for any other --dist mode."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class HeavyFirst(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    config.option.loadscopereorder = False  # keep the order pytest_collection_modifyitems made
    return HeavyFirst(config, log)
