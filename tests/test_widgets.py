import html

import ipywidgets as w
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastrain_lib.measure import bench
from fastrain_lib.ui import plots
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome, html_table


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
    panel = make_panel(measured)
    assert panel.save("x") is None  # nothing measured yet
    panel.run()
    path = panel.save("রহিম ল্যাব/1")
    loaded = bench.load_records(path)
    assert loaded[0].params["panel"] == "test" and loaded[0].params["student"] == "রহিম_ল্যাব_1"
    assert path.parent == tmp_path and "/" not in path.name.replace(str(tmp_path), "")
    # the saved numbers are the panel's numbers: time, spread, every repeat, metrics and noise
    [shown] = panel.last.records
    assert loaded[0].median_s == shown.median_s and loaded[0].times_s == shown.times_s
    assert loaded[0].metrics == shown.metrics and loaded[0].noise == shown.noise
    assert loaded[0].metrics["gflops"] == pytest.approx(2 * 32**3 / loaded[0].median_s / 1e9)


def measured(n):
    """A real (tiny) measurement, so the saved record has real numbers and noise information."""
    record = bench.matmul(32, min_run_time=0.01)
    return Outcome(headers=["n"], rows=[(n,)], records=[record])


def noisy_record(name="mm"):
    return bench.Record(name, 0.01, 0.004, [0.01] * 5, noise={
        "verdict": "noisy", "reasons": ["load"], "cores": 2, "threads": 2, "other_cores": 1.7, "steal_cores": 0.0,
        "cores_free": 0.3, "spread": 0.05, "repeats": 5})


def test_a_noisy_run_says_so_in_the_panel_and_on_the_plot(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "bn")

    def busy(n):
        fig, ax = plots.new_figure()
        ax.plot([0, 1], [0, n])
        return Outcome(figure=fig, records=[noisy_record(), bench.Record("quiet", 0.01, noise={"verdict": "quiet"})])

    panel = make_panel(busy)
    assert panel.threads is not None and panel.threads.layout.display == "none"  # hidden until needed
    outcome = panel.run()
    sentence = panel.noise_sentence()
    assert sentence.startswith("2টি মাপের মধ্যে 1টি গোলমেলে") and "1.7" in sentence
    assert "torch.set_num_threads(1)" in sentence  # what to do, with a number that fits
    assert panel.threads.layout.display is None  # the control the sentence points at is now visible
    assert html.escape(sentence) in panel.noise_note.value  # shown in the panel, above the plot
    texts = [txt.get_text() for txt in outcome.figure.texts]
    assert any("1/2" in x for x in texts)
    panel.run(n=3)
    panel.run(n=2)  # served from the cache: the warning is not drawn twice
    assert sum("1/2" in txt.get_text() for txt in outcome.figure.texts) == 1


def test_a_quiet_run_shows_no_warning():
    panel = make_panel(lambda n: Outcome(records=[bench.Record("q", 0.01, noise={"verdict": "quiet"})]))
    panel.run()
    assert panel.noise_sentence() == "" and panel.threads.layout.display == "none"
    assert panel.noise_note.value == ""


def test_threads_control_runs_with_fewer_threads_and_restores(monkeypatch):
    import torch

    before = torch.get_num_threads()
    seen = []

    def experiment(n):
        seen.append(torch.get_num_threads())
        return square(n)

    panel = ExperimentPanel("পরীক্ষা", {"n": w.IntSlider(value=2)}, experiment, name="t", threads_control=True)
    assert panel.threads.layout.display is None
    panel.threads.value = 1
    panel.run()
    panel.threads.value = 0  # auto: the course's policy
    panel.run()
    from fastrain_lib.measure import hardware

    assert seen == [1, hardware.threads_for()]
    assert torch.get_num_threads() == before
    assert panel.runs == 2  # a different thread count is a different measurement, not a cache hit
    # a panel with its own "threads" control keeps only that one
    own = ExperimentPanel("x", {"threads": w.IntSlider(value=1)}, lambda threads: square(2), name="o")
    assert own.threads is None
    off = ExperimentPanel("x", {"n": w.IntSlider(value=1)}, square, name="f", threads_control=False)
    assert off.threads is None


def test_html_table_escapes():
    html = html_table(["<a>"], [("<script>", 1.23456)])
    assert "<script>" not in html and "&lt;script&gt;" in html and "1.235" in html


@given(st.floats(min_value=-1e40, max_value=1e40, allow_nan=False))
def test_a_table_number_is_never_in_e_plus_notation_and_keeps_its_value(value):
    """Lesson 04's ablation table showed '2.251e+04' tokens/s in a busy lab run (issue 38): any rate, count or
    time a table shows reads as a plain number (from 10^15 up as '3.403 × 10^38'), and still says the same
    value to 4 significant digits."""
    from _sentences import SCIENTIFIC

    from fastrain_lib.ui.tables import number, text_table

    def read(text):
        mantissa, _, power = text.replace(",", "").partition(" × 10^")
        return float(mantissa) * 10.0 ** int(power or 0)

    for text in (number(value), text_table(["x"], [(value,)]).splitlines()[-1]):
        assert not SCIENTIFIC.search(text) and "e+" not in text.lower(), text
        assert abs(read(text) - value) <= max(abs(value) * 5e-4, 1e-300) or abs(value) < 1e-4, text
        assert ("×" in text) == (abs(value) >= 1e15), text  # digit by digit below 10^15, a power of ten above


@pytest.mark.parametrize("module", ["lesson00"])
def test_lesson_panels_build(module):
    import importlib

    from fastrain_lib.lessons import panel_names

    panels = panel_names()
    assert module in panels
    panel = importlib.import_module(panels[module]).make()
    assert isinstance(panel, ExperimentPanel)


# --- results as the cell's ordinary output (issue 27: widget state is gone from a saved notebook) ---

class FakeShell:
    """Stands in for the kernel's shell: the cell being run is its execution_count."""
    execution_count = 7


@pytest.fixture
def cell_output(monkeypatch):
    """What a panel writes below the calling cell: printed lines and displayed MIME bundles, in order."""
    import IPython

    from fastrain_lib.ui import widgets

    shell = FakeShell()
    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    monkeypatch.setattr(widgets, "display", lambda obj, raw=False: shown.append(("display", obj, raw)))
    monkeypatch.setattr("builtins.print", lambda *a, **k: shown.append(("text", " ".join(map(str, a)), None)))
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    return shell, shown


def titled_square(n):
    fig, ax = plots.new_figure()
    ax.plot([0, n], [0, n * n])
    ax.set_title("বর্গের প্লট")
    return Outcome(figure=fig, headers=["n", "n²"], rows=[(n, n * n), (9, 0.123456)],
                   records=[bench.Record(f"sq {n}", 0.001, params={"n": n}, noise={"verdict": "quiet"})],
                   note=f"{n}-এর বর্গ {n * n}")


def test_run_from_a_cell_shows_plot_table_and_note_as_cell_output(cell_output):
    import base64

    _, shown = cell_output
    panel = ExperimentPanel("বর্গ পরীক্ষা", {"n": w.IntSlider(value=2, description="আকার")}, titled_square, name="t")
    panel.run()
    kinds = [kind for kind, *_ in shown]
    assert kinds == ["text", "display", "display", "text"]  # settings line, plot, table, note: in that order
    assert shown[0][1] == "বর্গ পরীক্ষা — শেষ রানের ফল (আকার: 2)"
    _, figure, raw = shown[1]
    assert raw and base64.b64decode(figure["image/png"]).startswith(b"\x89PNG")
    assert base64.b64decode(figure["image/png"]) == panel.last.png  # the plot the panel drew, not another one
    assert figure["text/plain"] == "বর্গের প্লট"  # no "<Figure size ...>" where the image cannot be drawn
    _, table, _ = shown[2]
    assert "<td>4</td>" in table["text/html"] and "<td>0.1235</td>" in table["text/html"]
    assert table["text/plain"].splitlines()[0].split() == ["n", "n²"] and "0.1235" in table["text/plain"]
    assert shown[3][1] == "2-এর বর্গ 4"
    assert not any("IPython.core.display" in str(x) or "Outcome(" in str(x) for x in shown)


def test_results_shown_once_per_cell_and_again_on_request(cell_output, monkeypatch):
    shell, shown = cell_output
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    panel = ExperimentPanel("বর্গ", {"n": w.IntSlider(value=2)}, titled_square, name="t")
    panel.show()  # ci mode: runs once and shows the results (and the widget)
    notes = lambda: [x for kind, x, _ in shown if kind == "text" and "-এর বর্গ" in x]
    assert notes() == ["2-এর বর্গ 4"]
    panel.run()  # same cell, same setting (from the cache): not shown a second time
    assert notes() == ["2-এর বর্গ 4"]
    panel.run(n=3)  # same cell, another setting: a new result, shown
    assert notes() == ["2-এর বর্গ 4", "3-এর বর্গ 9"]
    shell.execution_count += 1  # the next cell: the documented line shows the last run again
    panel.show_results()
    assert notes() == ["2-এর বর্গ 4", "3-এর বর্গ 9", "3-এর বর্গ 9"]


def test_a_click_writes_nothing_outside_the_widget_then_show_results_does(cell_output):
    shell, shown = cell_output
    panel = ExperimentPanel("বর্গ", {"n": w.IntSlider(value=4)}, titled_square, name="t")
    panel.show_results()
    hint = "এখনো কোনো ফল নেই: আগে ওপরের প্যানেলে «চালাও» বোতাম চাপো, মাপা শেষ হলে এই সেলটি আবার চালাও।"
    assert shown == [("text", hint, None)]
    shown.clear()
    panel.button.click()
    assert panel.runs == 1 and shown == []  # a click's output belongs to no cell
    shell.execution_count += 1
    panel.show_results()
    assert ("text", "4-এর বর্গ 16", None) in shown


def test_show_results_puts_the_noise_warning_first(cell_output):
    _, shown = cell_output

    def busy(n):
        return Outcome(headers=["n"], rows=[(n,)], records=[noisy_record()], note="এটা ধীর কারণ ...")

    panel = make_panel(busy)
    panel.run()
    assert shown[0][0] == "text" and shown[0][1].startswith("⚠️ 1টি মাপের মধ্যে 1টি গোলমেলে")
    assert shown[0][1] == "⚠️ " + panel.noise_sentence()


def test_show_results_after_a_failed_run_says_why(cell_output):
    _, shown = cell_output

    def broken(n):
        raise RuntimeError("বাজে কিছু")

    panel = make_panel(broken)
    panel.run()
    [(_, text, _)] = shown
    assert text.startswith("শেষ রানটি ব্যর্থ হয়েছে") and "বাজে কিছু" in text


def test_panel_results_survive_a_saved_notebook(tmp_path):
    """A real kernel runs a panel in ci mode and the student's show_results line; the notebook is
    saved and read back with no widget state: the plot, the table and the note are still there."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import ipywidgets as w\n"
        "from fastrain_lib.ui import plots\n"
        "from fastrain_lib.ui.widgets import ExperimentPanel, Outcome\n"
        "def experiment(n):\n"
        "    fig, ax = plots.new_figure(); ax.plot([0, n], [0, n * n])\n"
        "    return Outcome(figure=fig, headers=['n', 'বর্গ'], rows=[(n, n * n)], note=f'{n}-এর বর্গ {n * n}')\n"
        "panel = ExperimentPanel('বর্গ', {'n': w.IntSlider(value=5)}, experiment, name='t')\n"
        "panel.show()"),
        nbformat.v4.new_code_cell("panel.show_results()")]
    import os

    env = {k: os.environ.get(k) for k in ("FASTRAIN_MODE", "FASTRAIN_LANG", "MPLBACKEND")}
    os.environ.update(FASTRAIN_MODE="ci", FASTRAIN_LANG="bn")
    os.environ.pop("MPLBACKEND", None)
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=False).execute()
    finally:
        for key, value in env.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    saved = nbformat.read(path, as_version=4)
    assert "widgets" not in saved.metadata
    for cell in saved.cells:  # both cells: the ci run's echo and the student's line
        outputs = cell.outputs
        text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
        assert text.count("5-এর বর্গ 25") == 1, text
        assert any("image/png" in o.get("data", {}) for o in outputs)
        assert any("<td>25</td>" in o.get("data", {}).get("text/html", "") for o in outputs)
        assert not any("IPython.core.display" in o.get("data", {}).get("text/plain", "") for o in outputs)


def test_a_multiple_choice_is_listed_in_the_results_heading_not_shown_as_a_tuple(monkeypatch):
    # A SelectMultiple's value is a tuple: the heading lists what was chosen, as the student sees it
    # (its labels), joined with ", " — never "('cpu',)" in Bengali output.
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    controls = {"n": w.IntSlider(value=2, description="আকার"),
                "dtype": w.Dropdown(options=[("ফ্লোট৩২", "float32")], value="float32", description="ডেটা টাইপ"),
                "devices": w.SelectMultiple(options=["cpu", "cuda"], value=("cpu",), description="ডিভাইস"),
                "threads": w.SelectMultiple(options=[("এক", 1), ("দুই", 2)], value=(1, 2), description="থ্রেড"),
                "none": w.SelectMultiple(options=["a"], value=(), description="কিছু না")}
    panel = ExperimentPanel("বর্গ", controls, lambda n, dtype, devices, threads, none: square(n), name="t")
    panel.run()
    heading = panel.results_output()[0][1]
    assert heading == "বর্গ — শেষ রানের ফল (আকার: 2, ডেটা টাইপ: ফ্লোট৩২, ডিভাইস: cpu, থ্রেড: এক, দুই, কিছু না: —)"
    assert "(" not in heading.split("(", 1)[1] and "'" not in heading
