"""GPU branches run on a CPU up to their first real CUDA call (issue 26). So far: lesson 04's exercise
timing cell, which timed the student's stub Triton softmax (returning None) on a GPU."""

import json
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _timing_cell(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = ["".join(c["source"]) for c in nb["cells"]
             if c["cell_type"] == "code" and "lesson04.tsm_no_timing" in "".join(c["source"])]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("folder", ["exercises", "solutions"])
def test_a_stub_triton_softmax_is_not_timed_on_a_gpu(folder, monkeypatch):
    """Old cell: on a GPU it called bench.measure(softmax(x_big)) with the stub and printed µs and GB/s."""
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    from fastrain_lib.core.i18n import t
    from fastrain_lib.lessons.l04_fused_kernels import checks as lesson04

    measured, printed = [], []
    fake_triton = types.SimpleNamespace(available=lambda: True, interpreted=lambda: False)  # "a GPU"
    fake_bench = types.SimpleNamespace(measure=lambda fn, name: measured.append(name),
                                       fresh_random=lambda *a, **k: measured.append("cuda tensor"))
    scope = {"triton_kernels": fake_triton, "bench": fake_bench, "lesson04": lesson04, "t": t,
             "softmax": lambda x: None, "print": lambda *a: printed.append(" ".join(map(str, a)))}
    exec(_timing_cell(ROOT / folder / "04_fused_kernels.ipynb"), scope)
    assert measured == [], "a stub returning None was timed"
    assert printed == [t("lesson04.tsm_not_timed")]
