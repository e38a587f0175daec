"""English mode for every solution and exercise notebook (see test_english_mode.py for the rules).

A file of its own so that `pytest -n 2 --dist loadfile` can run it beside the lessons' file."""

import pytest
from test_english_mode import check_english_run

from fastrain_lib import authoring

from _nbrun import ROOT

ASSIGNMENTS = [p for p in authoring.all_notebooks(ROOT) if p.parent.name in ("solutions", "exercises")]


@pytest.mark.slow
@pytest.mark.parametrize("path", ASSIGNMENTS, ids=[p.relative_to(ROOT).as_posix() for p in ASSIGNMENTS])
def test_assignment_in_english_shows_no_bengali_and_every_verdict(path):
    check_english_run(path)
