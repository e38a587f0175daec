"""The instructor dashboard: one tab per lesson panel, the reference switch, broken lessons contained."""

from __future__ import annotations

import matplotlib
import pytest

from fastrain_lib import dashboard
from fastrain_lib.measure import bench
from fastrain_lib import lessons as panels
from fastrain_lib.core.i18n import t


@pytest.fixture(autouse=True)
def _restore_style():
    """The dashboard switches matplotlib to projector style; other tests expect the normal one."""
    with matplotlib.rc_context():
        yield


def test_one_tab_per_panel_module(tmp_path):
    board = dashboard.Dashboard(reference_folder=tmp_path)
    # every lesson package with a panel.py gets its tab (ten today: 00-07 with 05b and 05c)
    assert len(board.tabs.children) == len(dashboard.panel_modules()) == len(panels.panel_names()) == 10
    assert set(board.panels) == set(panels.panel_names())
    first = next(iter(board.panels.values()))
    assert dashboard.tab_titles(board.tabs)[0] == f"00 · {first.title.split(':')[0]}"
    # What the page receives: one title per tab, read from the widget's synced state (ipywidgets 8
    # here; tests/test_colab.py reads the same under Colab's 7.7.1).
    titles = dashboard.tab_titles(board.tabs)
    assert len(titles) == len(board.tabs.children) and all(titles)
    assert [board.tabs.get_title(i) for i in range(len(titles))] == titles
    assert dashboard.tab_title("03", "মিশ্র নির্ভুলতা: fp16 বনাম bf16") == "03 · মিশ্র নির্ভুলতা"
    assert matplotlib.rcParams["font.size"] == 12 * dashboard.SCALE  # presentation style


def test_reference_switch_without_reference_files(tmp_path):
    board = dashboard.Dashboard(reference_folder=tmp_path)
    board.show_reference(True)
    box = next(iter(board.reference_boxes.values()))
    assert box.layout.display is None
    assert t("dashboard.no_reference") in box.value
    board.show_reference(False)
    assert box.layout.display == "none"


def test_reference_records_are_labelled_with_their_machine(tmp_path):
    meta = {"gpu_name": "NVIDIA H100 80GB HBM3", "gpu_count": 1, "torch": "2.14.1", "date": "2026-11-01T00:00:00"}
    bench.save_records([bench.Record("matmul 4096", 0.002, params={"panel": "lesson00_matmul"}, meta=meta)],
                       tmp_path / "h100.json")
    (tmp_path / "broken.json").write_text("{")
    board = dashboard.Dashboard(reference_folder=tmp_path)
    board.show_reference(True)
    html = board.reference_boxes["lesson00"].value
    assert "NVIDIA H100 80GB HBM3" in html and "broken.json" in html
    assert '<img src="data:image/png;base64,' in html
    assert t("dashboard.no_reference_here") not in html
    other = board.reference_boxes["lesson01"].value  # nothing tied to lesson 01: all of reference/, said so
    assert t("dashboard.no_reference_here") in other and "NVIDIA H100 80GB HBM3" in other


def test_records_for_matches_panel_or_family():
    records = [bench.Record("a", 1.0, params={"panel": "p"}), bench.Record("b", 1.0, params={"family": "amp"}),
               bench.Record("c", 1.0, params={"family": "ddp"})]

    class Module:
        REFERENCE_FAMILIES = ("amp",)

    assert [r.name for r in dashboard.records_for(records, "p", Module)] == ["a", "b"]
    assert [r.name for r in dashboard.records_for(records, "x")] == []


def test_a_broken_lesson_does_not_break_the_dashboard(monkeypatch, tmp_path):
    modules = dict(dashboard.panel_modules())
    modules["lesson99"] = ImportError("no module named 'missing_dependency'")
    monkeypatch.setattr(dashboard, "panel_modules", lambda: modules)
    board = dashboard.Dashboard(reference_folder=tmp_path)
    assert dashboard.tab_titles(board.tabs)[-1] == "99 ✗"
    assert "missing_dependency" in board.tabs.children[-1].value
    assert "lesson99" not in board.panels


def test_noisy_reference_records_are_flagged_not_ranked(tmp_path):
    meta = {"gpu_name": "NVIDIA H100 80GB HBM3", "gpu_count": 1, "torch": "2.14.1", "date": "2026-11-01T00:00:00"}
    quiet = bench.Record("matmul 4096", 0.002, params={"panel": "lesson00_matmul"}, meta=meta,
                         noise={"verdict": "quiet", "reasons": []})
    busy = bench.Record("matmul 4096 busy", 0.0001, params={"panel": "lesson00_matmul"}, meta=meta,
                        noise={"verdict": "noisy", "reasons": ["load"]})
    bench.save_records([busy, quiet], tmp_path / "h100.json")
    fig = dashboard.reference_figure([busy, quiet])
    labels = [tick.get_text() for tick in fig.axes[0].get_yticklabels()]
    assert len(labels) == 1 and labels[0].startswith("matmul 4096 —")  # the fast-looking noisy one is left out
    board = dashboard.Dashboard(reference_folder=tmp_path)
    board.show_reference(True)
    html = board.reference_boxes["lesson00"].value
    assert html.index(t("noise.quiet_word")) < html.index(t("noise.noisy_word"))  # listed last, with its verdict
    assert t("noise.dropped", count=1) in html
