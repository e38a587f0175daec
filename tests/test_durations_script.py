"""scripts/test_durations.py reads pytest's --durations table the way docs/test-durations.md shows it."""

import importlib.util

from _nbrun import ROOT

spec = importlib.util.spec_from_file_location("test_durations", ROOT / "scripts" / "test_durations.py")
durations = importlib.util.module_from_spec(spec)
spec.loader.exec_module(durations)

LOG = """\
....F [100%]
============================== slowest durations ===============================
170.96s call     tests/test_lessons_loaded.py::test_lesson_on_a_loaded_machine[notebooks/05b_ddp_in_depth.ipynb]
20.83s call     exercises/05b_ddp_in_depth.ipynb::Cell 2
19.13s setup    tests/test_schedules.py::test_both_schedules_train_like_one_process
2.00s call     tests/test_ddp.py::test_a
1.00s call     tests/test_i18n.py::test_b
0.50s teardown tests/test_i18n.py::test_b
===== 1 failed, 5 passed in 200.00s (0:03:20) =====
"""


def test_rows_kinds_and_sums():
    rows = durations.parse(LOG)
    assert len(rows) == 6 and rows[1] == (20.83, "call", "exercises/05b_ddp_in_depth.ipynb", "Cell 2")
    assert [durations.kind_of(r[2]) for r in rows] == ["notebook executions", "notebook executions", "real processes",
                                                      "real processes", "pure", "pure"]
    text = durations.markdown(LOG)
    assert "| notebook executions | 192 | 89% |" in text  # 170.96 + 20.83 of 214.42
    assert "| real processes | 21 | 10% |" in text and "| pure | 2 | 1% |" in text
    assert "| tests/test_i18n.py | pure | 1 | 2 | 0.7% |" in text  # one call; setup/teardown time counted
    assert "1 failed, 5 passed in 200.00s (0:03:20)" in text
