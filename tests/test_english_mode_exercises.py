"""English mode for every solution notebook (see test_english_mode.py for the rules).

Each exercise/solution pair runs once per language (issue 29): nbval runs exercises/ in Bengali, the
way a student opens them, and this file runs solutions/ in English. The exercise is the solution with
its answer regions replaced (authoring check, test_notebooks.py::test_exercises_are_generated_from_solutions),
so the two runs between them execute every cell of the pair; the answer-free path's English
(an unfinished answer's feedback) is tested per check and language in
test_checks_never_raise.py::test_an_unfinished_answer_is_told_in_the_students_language.
A file of its own so that `pytest -n 2 --dist loadfile` can run it beside the lessons' file."""

import pytest
from test_english_mode import check_english_run

from fastrain_lib import authoring

from _nbrun import ROOT

ASSIGNMENTS = [p for p in authoring.all_notebooks(ROOT) if p.parent.name == "solutions"]


@pytest.mark.slow
@pytest.mark.parametrize("path", ASSIGNMENTS, ids=[p.relative_to(ROOT).as_posix() for p in ASSIGNMENTS])
def test_assignment_in_english_shows_no_bengali_and_every_verdict(path):
    check_english_run(path)
