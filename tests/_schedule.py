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

# Slowest first, by the durations of a clean-clone run (docs/test-durations.md). The Colab file is one unit of
# about 100 s (its two tests, 74 + 24 s on 2026-12-06): the longest unit of the run, so it starts first.
RUN_FIRST = (
    "tests/test_colab.py",
    "tests/browser/test_lessons.py",
    "tests/test_english_mode.py",
    "tests/test_capstone.py",
    "tests/test_english_mode_exercises.py",
    "tests/test_lessons_loaded.py",
)
ONE_UNIT_PER_TEST = ("tests/browser/test_lessons.py", "tests/test_english_mode.py")
# The longest single tests of a split file (2026-12-06: 89, 66 and 48 s, the process lessons started
# spawn-only as on Windows): they start right after the Colab file, before the browser lessons (30-51 s),
# so that no worker starts one of them last.
_ENGLISH = "tests/test_english_mode.py::test_lesson_in_english_shows_no_bengali_and_every_verdict[notebooks/"
LONGEST_TESTS = (_ENGLISH + "05_", _ENGLISH + "05b_", _ENGLISH + "05c_")


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its own id in a split file, else its file."""
    return nodeid if file_of(nodeid) in ONE_UNIT_PER_TEST else file_of(nodeid)


def order_key(nodeid: str) -> tuple[int, int]:
    """Where a test starts: the Colab file, then LONGEST_TESTS, then the rest of RUN_FIRST in its order,
    then notebooks, then every other file."""
    path = file_of(nodeid)
    longest = [i for i, prefix in enumerate(LONGEST_TESTS) if nodeid.startswith(prefix)]
    if longest:
        return 1, longest[0]
    if path in RUN_FIRST:
        index = RUN_FIRST.index(path)
        return (0, 0) if index == 0 else (2, index)
    return 3, (0 if path.endswith(".ipynb") else 1)


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
