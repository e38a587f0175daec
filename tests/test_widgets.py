import ipywidgets as w
import pytest

from fastrain_lib import bench, plots
from fastrain_lib.widgets import ExperimentPanel, Outcome, html_table


def make_panel(experiment):
    return ExperimentPanel("পরীক্ষা", {"n": w.IntSlider(value=2, min=1, max=10)}, experiment, name="test")


def square(n):
    fig, ax = plots.new_figure()
    ax.plot([0, n], [0, n * n])
    return Outcome(figure=fig, headers=["n", "n²"], rows=[(n, n * n)],
                   records=[bench.Record(f"sq {n}", 0.001, params={"n": n})])


def test_run_uses_current_settings_and_caches():
    calls = []

    def experiment(n):
        calls.append(n)
        return square(n)

    panel = make_panel(experiment)
    first = panel.run()
    assert first.rows == [(2, 4)] and calls == [2]
    panel.run(n=3)
    assert calls == [2, 3] and panel.controls["n"].value == 3
    again = panel.run(n=2)  # switching back is served from the cache
    assert again is first and calls == [2, 3]
    assert panel.runs == 2
    assert panel.status.value == "আগের ফল (এই সেটিং আগেই মাপা হয়েছে)"


def test_errors_are_shown_not_swallowed():
    def broken(n):
        raise RuntimeError("বাজে কিছু হয়েছে")

    panel = make_panel(broken)
    assert panel.run() is None
    assert isinstance(panel.last_error, RuntimeError)
    assert "ব্যর্থ" in panel.status.value
    assert not panel.button.disabled  # the student can try again


def test_wrong_return_type_is_an_error():
    panel = make_panel(lambda n: {"n": n})
    panel.run()
    assert isinstance(panel.last_error, TypeError)


def test_show_runs_once_in_ci_mode(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    panel = make_panel(square)
    panel.show()
    assert panel.runs == 1 and panel.last.rows == [(2, 4)]
    monkeypatch.setenv("FASTRAIN_MODE", "lab")
    panel2 = make_panel(square)
    panel2.show()
    assert panel2.runs == 0  # a slow experiment waits for the Run button


def test_button_click_runs(monkeypatch):
    panel = make_panel(square)
    panel.button.click()
    assert panel.runs == 1


def test_save_writes_records(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTRAIN_RESULTS", str(tmp_path))
    panel = make_panel(square)
    assert panel.save("x") is None  # nothing measured yet
    panel.run()
    path = panel.save("রহিম ল্যাব/1")
    loaded = bench.load_records(path)
    assert loaded[0].params["panel"] == "test" and loaded[0].params["student"]
    assert path.parent == tmp_path and "/" not in path.name.replace(str(tmp_path), "")


def test_html_table_escapes():
    html = html_table(["<a>"], [("<script>", 1.23456)])
    assert "<script>" not in html and "&lt;script&gt;" in html and "1.235" in html


@pytest.mark.parametrize("module", ["lesson00"])
def test_lesson_panels_build(module):
    from fastrain_lib.panels import all_panels

    panels = all_panels()
    assert module in panels
    panel = panels[module].make()
    assert isinstance(panel, ExperimentPanel)
