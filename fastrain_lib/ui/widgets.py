"""One reusable experiment panel: controls -> Run (চালাও) -> plot + table.

    panel = ExperimentPanel(
        title=t("lesson01.panel_title"),
        controls={"size": ipywidgets.IntSlider(value=256, min=64, max=2048, description="size")},
        run=my_experiment,           # my_experiment(size=...) -> Outcome
    )
    panel.show()                     # in ci mode this also runs once, so nbval tests the callback
    # next cell, after the student pressed Run (চালাও):
    panel.show_results()             # the last run's noise warning, plot, table and note as cell output

Slow experiments run only when the button is pressed, never on every slider move.
Results are cached per setting, so switching back to a setting is instant.
An error inside a run is shown in the panel in Bengali, not swallowed.
A run whose records are noisy (fastrain_lib.measure.noise: the machine was busy) says so under the
plot, in Bengali: what is wrong, by how much, what to do; the plot itself gets a warning.
A threads control (থ্রেড) lets a student on a busy machine measure with fewer threads: shown
from the start with threads_control=True, otherwise it appears as soon as a run is noisy
(threads_control=False: never; a panel with its own "threads" control keeps only that one).

Results that survive a saved notebook: widget state is not kept when a notebook is saved and
reopened, so a run's results are also written as the calling cell's ordinary output. `panel.run()`
called from code (and `panel.show()` in ci mode) displays the noise warning, the plot, the table
and the note below the cell, once per cell (the same result asked for twice in one cell is shown
once). A click on the button does not (its output has no cell); the student runs
`panel.show_results()` in the next cell, which shows the last run the same way, or says in
Bengali that nothing has run yet, or why the last run failed.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import re
import time
import traceback
from dataclasses import dataclass, field

import ipywidgets as w
import torch
from IPython.display import HTML, Image, display

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.ui import plots
from fastrain_lib.ui.tables import html_table, text_table


@dataclass
class Outcome:
    """What one run of an experiment produced."""

    figure: object | None = None  # a matplotlib Figure
    headers: list[str] = field(default_factory=list)  # table header
    rows: list[tuple] = field(default_factory=list)  # table rows
    records: list[bench.Record] = field(default_factory=list)  # measurements, for saving
    note: str = ""  # a sentence under the plot (Bengali)
    png: bytes | None = field(default=None, repr=False, compare=False)  # the figure as drawn, once


# html_table lives in ui/tables.py (the hardware report uses it too); re-exported here for callers.


def figure_png(figure) -> bytes:
    """A matplotlib figure as PNG bytes (what the panel shows as an <img>).

    The PNG carries the smallest text size drawn (points) and the dpi as tEXt chunks, so the
    browser suite can check plot text at the size the page really shows it (projector: >= 14 pt)."""
    import io
    import struct
    import zlib

    from matplotlib.text import Text

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi, bbox_inches="tight")
    png = buffer.getvalue()
    sizes = [text.get_fontsize() for text in figure.findobj(Text)  # after savefig: tick labels are set
             if text.get_visible() and text.get_text().strip()]
    if not sizes:
        return png
    chunks = b""
    for key, value in (("fastrain:min_font_pt", f"{min(sizes):g}"), ("fastrain:dpi", f"{figure.dpi:g}")):
        body = b"tEXt" + key.encode() + b"\0" + value.encode()
        chunks += struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    return png[:33] + chunks + png[33:]  # right after the 8-byte signature and the 25-byte IHDR chunk


def explain_error(exc: BaseException) -> str:
    """A Bengali explanation of an exception (fastrain_lib.core.errors when present)."""
    try:
        from fastrain_lib.core.errors import explain  # lesson 02's translator of common PyTorch errors
        return explain(exc)
    except ImportError:
        return t("widgets.error", kind=type(exc).__name__, message=str(exc)[:500])


def safe_name(text: str, limit: int = 40) -> str:
    """A file-name-safe version of a name, keeping Bengali whole: letters, their vowel signs
    and marks (ি, ্, ং: Unicode M*, which the regex \\w leaves out), digits, '-' and '_'."""
    import unicodedata

    text = unicodedata.normalize("NFC", text)
    kept = "".join(ch if unicodedata.category(ch)[0] in "LMN" or ch in "-_" else " " for ch in text)
    return "_".join(kept.split())[:limit] or "anon"


def set_outputs(output: w.Output, *objects) -> None:
    """Make an Output widget show exactly these display objects (Image, HTML, ...).

    Sets the widget's `outputs` instead of `clear_output()` + `with output: display(...)`.
    That capture context makes nbclient (nbconvert --execute, papermill, Voilà) emulate the
    Output widget and send comm_msg updates back to the kernel on the shell channel while the
    cell runs; afterwards the kernel often does not start the next cell until the client's
    per-cell timeout fires, and with nbconvert's default (no timeout) never: the "hang at the
    panel cell" of issue 14 (jupyter/nbclient#312; the same with ipykernel 6.31 and 7.4).
    Writing `outputs` sends one state update on iopub and nothing on the shell channel.
    JupyterLab, Notebook 7, Voilà and Colab show the result the same way.
    """
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    bundles = []
    for obj in objects:
        data, metadata = formatter.format(obj)
        bundles.append({"output_type": "display_data", "data": data, "metadata": metadata})
    output.outputs = tuple(bundles)


class ExperimentPanel:
    """Controls, a Run button, and an output area with the plot and a table."""

    def __init__(self, title: str, controls: dict[str, w.Widget], run, *, name: str | None = None,
                 threads_control: bool | None = None):
        self.title = title
        self.controls = controls
        self.experiment = run
        self.name = name or re.sub(r"\W+", "_", getattr(run, "__name__", "experiment"))
        self.cache: dict[tuple, Outcome] = {}
        self.last: Outcome | None = None
        self.last_error: BaseException | None = None
        self.runs = 0  # how many times the experiment itself ran (not served from cache)

        self.button = w.Button(description=t("widgets.run"), button_style="primary", icon="play")
        self.button.add_class("fastrain-run")
        self.button.on_click(lambda _: self._run({}, echo=False))  # a click's output has no cell
        self._echoed: tuple | None = None  # (cell, outcome) last written as cell output
        self.status = w.HTML()
        self.noise_note = w.HTML()  # the noise verdict of the last run, when it was noisy
        self.noise_note.add_class("fastrain-noise")
        self.output = w.Output()
        self.output.add_class("fastrain-output")
        self.save_name = w.Text(placeholder=t("widgets.save_name"), layout=w.Layout(width="14em"))
        self.save_button = w.Button(description=t("widgets.save"), icon="save")
        self.save_button.on_click(lambda _: self.save())
        for control in controls.values():
            control.style = {"description_width": "initial"}
            if isinstance(control, w.Checkbox):  # in its default fixed width the label is cut off with "…"
                control.indent, control.layout.width = False, "max-content"
            elif isinstance(control, (w.Dropdown, w.Text)) and not control.layout.width:
                control.layout.width = "max-content"  # a long label squeezed the list to a sliver (projector)
        self.threads = self._threads_widget(threads_control if "threads" not in controls else False)
        self.widget = w.VBox([
            w.HTML(f"<h3>{html.escape(title)}</h3>"),
            w.HBox(list(controls.values()) + ([self.threads] if self.threads else []),
                   layout=w.Layout(flex_flow="row wrap")),
            w.HBox([self.button, self.status]),
            self.noise_note,
            self.output,
            w.HBox([self.save_name, self.save_button]),
        ])
        self.widget.add_class("fastrain-panel")

    def _threads_widget(self, mode: bool | None) -> w.Dropdown | None:
        """The threads control: 'auto' is the course's policy (hardware.threads_for), or 1 … cores."""
        if mode is False:
            return None
        cores = noise.cores()
        options = [(f"{t('noise.threads_auto')} ({hardware.threads_for()})", 0)] + [(str(n), n) for n in range(1, cores + 1)]
        dropdown = w.Dropdown(options=options, value=0, description=t("core.threads"),
                              layout=w.Layout(width="max-content", display=None if mode else "none"))
        dropdown.style = {"description_width": "initial"}
        dropdown.add_class("fastrain-threads")
        return dropdown

    def threads_now(self) -> int | None:
        """Threads the next run uses: None = leave torch's setting alone (no control, or 'auto'
        before the student touched it and the control is hidden)."""
        if self.threads is None or (self.threads.value == 0 and self.threads.layout.display == "none"):
            return None
        return self.threads.value or hardware.threads_for()

    def settings(self) -> dict:
        """The current value of every control."""
        return {key: control.value for key, control in self.controls.items()}

    def run(self, **overrides) -> Outcome | None:
        """Run the experiment for the current settings (what the button does).

        Keyword arguments set controls first, e.g. panel.run(size=512). Called from a cell, the
        results are also displayed as that cell's ordinary output (see show_results)."""
        return self._run(overrides, echo=True)

    def _run(self, overrides: dict, *, echo: bool) -> Outcome | None:
        for key, value in overrides.items():
            self.controls[key].value = value
        settings = self.settings()
        threads = self.threads_now()
        # the control's own value, not threads_now(): revealing the control after a noisy run (it then says
        # 'auto' = hardware.threads_for) must not make the same setting a new run that prints its results again
        key = tuple(sorted(settings.items())) + (("__threads__", self.threads.value if self.threads else None),)
        self.button.disabled = True
        self.status.value = f"<i>{html.escape(t('widgets.running'))}</i>"
        start = time.perf_counter()
        before = torch.get_num_threads()
        try:
            cached = key in self.cache
            if not cached:
                if threads:
                    torch.set_num_threads(threads)  # restored in finally: the rest of the notebook is unaffected
                self.cache[key] = self._checked(self.experiment(**settings))
                self.runs += 1
            self.last, self.last_error = self.cache[key], None
            self._render(self.last)
            elapsed = time.perf_counter() - start
            message = t("widgets.cached") if cached else t("widgets.done", seconds=elapsed)
            self.status.value = html.escape(message)
            result = self.last
        except Exception as exc:  # noqa: BLE001 — any failure is shown to the student, kept for tests
            self.last_error = exc
            self.status.value = f'<span style="color:#b00">{html.escape(t("widgets.failed"))}</span>'
            self.noise_note.value = ""
            set_outputs(self.output, HTML(f'<div class="fastrain-error"><b>{html.escape(explain_error(exc))}</b>'
                                          f"<details><summary>{html.escape(t('widgets.details'))}</summary>"
                                          f"<pre>{html.escape(traceback.format_exc(limit=6))}</pre></details></div>"))
            result = None
        finally:
            torch.set_num_threads(before)
            self.button.disabled = False
        if echo:
            self._echo()
        return result

    @staticmethod
    def _checked(outcome) -> Outcome:
        if not isinstance(outcome, Outcome):
            raise TypeError(f"an experiment must return fastrain_lib.ui.widgets.Outcome, not {type(outcome).__name__}")
        return outcome

    def noise_sentence(self, outcome: Outcome | None = None) -> str:
        """The noise verdict of a run's records: '' when they are all quiet."""
        outcome = outcome or self.last
        return noise.summary(outcome.records) if outcome else ""

    def _render(self, outcome: Outcome) -> None:
        import matplotlib.pyplot as plt

        warning = self.noise_sentence(outcome)
        if warning and self.threads is not None:
            self.threads.layout.display = None  # the sentence points at it: show it now
        if warning and outcome.figure is not None:
            plots.mark_noisy_figure(outcome.figure, outcome.records)
        self.noise_note.value = (f'<div style="border-left:4px solid #d55e00;padding:4px 8px;background:#fff4e5">'
                                 f"{html.escape(warning)}</div>") if warning else ""
        shown = []
        if outcome.figure is not None:
            # An explicit PNG: display(figure) shows only "<Figure size …>" text when the
            # kernel's inline backend has not registered its formatter yet (and in Voilà).
            if outcome.png is None:
                outcome.png = figure_png(outcome.figure)
            shown.append(Image(data=outcome.png, format="png"))
            plt.close(outcome.figure)  # shown once here, not again at the end of the cell
        if outcome.rows:
            shown.append(HTML(html_table(outcome.headers, outcome.rows)))
        if outcome.note:
            shown.append(HTML(f"<p>{html.escape(outcome.note)}</p>"))
        set_outputs(self.output, *shown)

    def results_output(self) -> list[tuple[str, object]]:
        """What show_results writes, in order: ("text", a printed line) or ("display", a MIME
        bundle). The last run's noise warning, settings line, plot (PNG), table and note; the
        Bengali reason when the last run failed; a Bengali hint when nothing has run yet."""
        if self.last_error is not None:
            return [("text", t("widgets.results_failed", reason=explain_error(self.last_error)))]
        outcome = self.last
        if outcome is None:
            return [("text", t("widgets.no_results_yet"))]
        items: list[tuple[str, object]] = []
        warning = self.noise_sentence(outcome)
        if warning:
            items.append(("text", "⚠️ " + warning))
        settings = ", ".join(f"{getattr(control, 'description', '') or key}: {self._value_text(control)}"
                             for key, control in self.controls.items())
        items.append(("text", t("widgets.results_title", title=self.title, settings=settings)))
        if outcome.figure is not None:
            if outcome.png is None:
                outcome.png = figure_png(outcome.figure)
            items.append(("display", {"image/png": base64.b64encode(outcome.png).decode("ascii"),
                                      "text/plain": self._figure_words(outcome.figure)}))
        if outcome.rows:
            items.append(("display", {"text/html": html_table(outcome.headers, outcome.rows),
                                      "text/plain": text_table(outcome.headers, outcome.rows)}))
        if outcome.note:
            items.append(("text", outcome.note))
        return items

    @staticmethod
    def _value_text(control) -> str:
        """A control's value as the student sees it (a dropdown's label, not its value); several
        chosen (a SelectMultiple's tuple, a list) are joined with ", ", never shown as a raw tuple."""
        label = getattr(control, "label", None)
        if isinstance(label, str):
            return label
        value = label if isinstance(label, (tuple, list)) else control.value
        if isinstance(value, (tuple, list)):
            return ", ".join(str(v) for v in value) or "—"
        return str(value)

    @staticmethod
    def _figure_words(figure) -> str:
        """The plot's titles, as the text a saved notebook shows where it cannot draw the image."""
        titles = [figure._suptitle.get_text()] if getattr(figure, "_suptitle", None) is not None else []
        titles += [ax.get_title() for ax in figure.axes]
        return " · ".join(x for x in titles if x.strip()) or t("widgets.figure")

    def show_results(self) -> None:
        """Show the last run's results as this cell's ordinary output (run it after pressing
        চালাও): the noise warning, the plot, the table and the note stay in a saved notebook."""
        self._echo()

    def _echo(self) -> None:
        """Write results_output() below the calling cell, once per cell for the same result."""
        try:
            from IPython import get_ipython
            shell = get_ipython()
        except ImportError:  # pragma: no cover - IPython is a dependency
            shell = None
        cell = getattr(shell, "execution_count", None)
        key = (cell, id(self.last), id(self.last_error))
        if shell is not None and key == self._echoed:
            return  # already shown below this cell (show() in ci mode, then run() with the same setting)
        self._echoed = key
        for kind, payload in self.results_output():
            if kind == "text":
                print(payload)
            elif shell is None:  # plain Python (a script, a test): the text form
                print(payload["text/plain"])
            else:
                display(payload, raw=True)

    def save(self, student: str | None = None):
        """Save the last run's records as JSON in the results folder (for class results)."""
        if self.last is None or not self.last.records:
            self.status.value = html.escape(t("widgets.nothing_to_save"))
            return None
        student = safe_name(student or self.save_name.value or "anon")
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        for record in self.last.records:
            record.params.setdefault("panel", self.name)
            record.params["student"] = student  # the name given now, even for a run saved before
        path = config.results_dir() / f"{self.name}-{student}-{stamp}.json"
        copy = 1
        while path.exists():  # two saves in the same second must not overwrite each other
            copy += 1
            path = path.with_name(f"{self.name}-{student}-{stamp}-{copy}.json")
        path = bench.save_records(self.last.records, path)
        self.status.value = html.escape(t("widgets.saved", path=str(path)))
        return path

    def show(self):
        """Display the panel; in ci mode also run it once, as a click would."""
        display(self.widget)
        if config.is_ci():
            self.run()
