"""The instructor dashboard: every lesson's experiment panel in one place, large and fast.

    from fastrain_lib import dashboard
    dashboard.show()          # notebooks/99_instructor_dashboard.ipynb; `make demo` serves it with Voilà

- One tab per lesson, found through fastrain_lib/lessons/ (a new lesson appears by itself).
- Presentation style for a projector: plot text 1.5× larger, the accessible colour cycle,
  larger widget text.
- A switch shows results from reference/ (measured by the benchmark scripts on named
  hardware the room may not have), each labelled with its machine. A panel module may say
  which benchmark families belong to it: REFERENCE_FAMILIES = ("amp",).
- A lesson whose panel cannot be built shows the reason in its tab; the others still work.
- Noisy reference records (measured on a busy machine) are never ranked among the others:
  the plot leaves them out and the table lists them last with their verdict.
"""

from __future__ import annotations

import html
import importlib

import ipywidgets as w
from IPython.display import HTML, display

from fastrain_lib.ui import class_results, plots
from fastrain_lib.core import config
from fastrain_lib.measure import noise
from fastrain_lib.core.i18n import t
from fastrain_lib.ui.widgets import html_table

# Tab bar classes: lm-* is ipywidgets 8 (Lumino), p-* is 7.x (PhosphorJS, Colab's front end).
SCALE = 1.5  # plot text size on a projector, relative to the notebooks
MAX_REFERENCE_BARS = 12
MAX_REFERENCE_ROWS = 40
STYLE = """<style>
.fastrain-dashboard { font-size: 130%; }
.fastrain-dashboard .widget-label, .fastrain-dashboard .widget-button, .fastrain-dashboard select,
.fastrain-dashboard .widget-toggle-button { font-size: 120%; }
.fastrain-dashboard .lm-TabBar-content, .fastrain-dashboard .p-TabBar-content { flex-wrap: wrap; }
.fastrain-dashboard .lm-TabBar-tab, .fastrain-dashboard .p-TabBar-tab { flex: 0 0 auto !important; min-width: 5em; max-width: none; font-size: 110%; }
.fastrain-dashboard .lm-TabBar, .fastrain-dashboard .p-TabBar { min-height: max-content; overflow: visible; }
.fastrain-dashboard img { max-width: 100%; height: auto; }
.fastrain-dashboard table.fastrain-table { font-size: 110%; }
</style>"""


def panel_modules() -> dict[str, object]:
    """{'lesson00': module or the exception that importing it raised} for every lesson's panel."""
    from fastrain_lib import lessons

    found: dict[str, object] = {}
    for name, module in lessons.panel_names().items():
        try:
            found[name] = importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 — one broken lesson must not take the whole demo down
            found[name] = exc
    return found


def reference_results(folder=None) -> class_results.ClassResults:
    """Every record in reference/ (an empty result when the folder is missing or empty)."""
    folder = folder or config.reference_dir()
    if folder is None:
        return class_results.ClassResults()
    return class_results.load_folder(folder)


def records_for(records, panel_name: str, module=None) -> list:
    """The reference records that belong to one panel: saved by it, or of its benchmark families."""
    families = set(getattr(module, "REFERENCE_FAMILIES", ()))
    return [r for r in records if r.params.get("panel") == panel_name or r.params.get("family") in families]


def verdict_word(record) -> str:
    """'শান্ত' / 'গোলমেলে', or '—' for a record from before noise was measured."""
    if not record.noise:
        return "—"
    return t("noise.noisy_word") if noise.is_noisy(record.noise) else t("noise.quiet_word")


def reference_figure(records):
    """Bars of reference median times, each labelled with its experiment and its machine
    (noisy records are not drawn among them: class_results.quiet)."""
    shown = sorted(class_results.quiet(records), key=lambda r: r.median_s)[:MAX_REFERENCE_BARS]
    fig, ax = plots.new_figure(figsize=(12, max(3.0, 0.55 * len(shown) + 1.5)))
    names = [f"{r.name} — {class_results.hardware_label(r.meta)}" for r in shown]
    values = [r.median_s * 1e3 for r in shown]
    drawn = ax.barh(range(len(shown)), values, color=plots.accessible_colors()[1])
    ax.bar_label(drawn, labels=[f"{v:.0f}" if v >= 100 else f"{v:.3g}" for v in values], padding=3)
    ax.set_yticks(range(len(shown)), names)
    ax.invert_yaxis()
    ax.set_xlabel(plots.label("core.median_ms"))
    ax.set_title(plots.label("dashboard.ref_title"))
    return fig


def tab_titles(tabs) -> list[str]:
    """The titles a Tab sends to the page, read from its synced state: `titles` (ipywidgets 8) or
    `_titles` ({"0": ...}, 7.x). Under 7.7.1 a title given only as Tab(titles=...) is not there."""
    state = tabs.get_state()
    if "titles" in state:
        return list(state["titles"])
    given = state.get("_titles", {})
    return [given.get(str(index), "") for index in range(len(tabs.children))]


def tab_title(number: str, title: str) -> str:
    """A short tab label: the lesson number and the panel title up to its colon."""
    return f"{number} · {title.split(':')[0].strip()}"


class Dashboard:
    """Tabs of experiment panels plus the reference switch."""

    def __init__(self, scale: float = SCALE, reference_folder=None):
        plots.apply_style(scale)
        self.panels: dict[str, object] = {}  # lesson name -> ExperimentPanel
        self.modules = panel_modules()
        self.reference = reference_results(reference_folder)
        self.reference_boxes: dict[str, w.HTML] = {}
        children, titles = [], []
        for lesson, module in self.modules.items():
            number = lesson.removeprefix("lesson")
            try:
                if isinstance(module, Exception):
                    raise module
                panel = module.make()
            except Exception as exc:  # noqa: BLE001 — shown in the tab, the other lessons still work
                children.append(w.HTML(f'<div class="fastrain-error">{html.escape(t("dashboard.broken", lesson=number, error=repr(exc)[:300]))}</div>'))
                titles.append(f"{number} ✗")
                continue
            self.panels[lesson] = panel
            box = w.HTML(layout=w.Layout(display="none"))
            box.add_class("fastrain-reference")
            self.reference_boxes[lesson] = box
            children.append(w.VBox([panel.widget, box]))
            titles.append(tab_title(number, panel.title))
        self.tabs = w.Tab(children=children)
        # set_title works on ipywidgets 7.7 (Colab's front end) and 8; Tab(titles=...) exists only
        # in 8, and under 7.7.1 its tabs had no titles at all (issue 25).
        for index, title in enumerate(titles):
            self.tabs.set_title(index, title)
        self.overlay = w.ToggleButton(value=False, description=t("dashboard.overlay"), icon="clone",
                                      tooltip=t("dashboard.overlay_tip"), layout=w.Layout(width="max-content"))
        self.overlay.add_class("fastrain-overlay")
        self.overlay.observe(lambda change: self.show_reference(change["new"]), names="value")
        header = w.HTML(f"<h2>{html.escape(t('dashboard.title'))}</h2><p>{html.escape(t('dashboard.subtitle'))}</p>")
        self.widget = w.VBox([header, self.overlay, self.tabs])
        self.widget.add_class("fastrain-dashboard")

    def show_reference(self, on: bool = True) -> None:
        """Fill (or hide) every tab's reference box."""
        self.overlay.value = on
        for lesson, box in self.reference_boxes.items():
            box.layout.display = None if on else "none"
            if on and not box.value:
                box.value = self.reference_html(lesson)

    def reference_html(self, lesson: str) -> str:
        """The reference/ results of one lesson's panel as HTML (plot, table, skipped files)."""
        import base64

        import matplotlib.pyplot as plt

        from fastrain_lib.ui.widgets import figure_png

        parts = []
        mine = records_for(self.reference.records, self.panels[lesson].name, self.modules[lesson])
        if not self.reference.records:
            parts.append(f'<p class="fastrain-note">{html.escape(t("dashboard.no_reference"))}</p>')
        else:
            if not mine:  # nothing tied to this panel: show everything reference/ has, said so
                parts.append(f'<p class="fastrain-note">{html.escape(t("dashboard.no_reference_here"))}</p>')
                mine = self.reference.records
            fig = reference_figure(mine)
            png = base64.b64encode(figure_png(fig)).decode("ascii")
            plt.close(fig)
            parts.append(f'<img src="data:image/png;base64,{png}" alt="{html.escape(t("dashboard.ref_title"))}">')
            ordered = sorted(mine, key=lambda r: noise.is_noisy(r.noise))  # noisy ones last, never ranked
            rows = [(r.name, class_results.hardware_label(r.meta), r.median_s * 1e3, verdict_word(r),
                     r.meta.get("torch", "?"), str(r.meta.get("date", "?"))[:10]) for r in ordered[:MAX_REFERENCE_ROWS]]
            parts.append(html_table([t("dashboard.experiment"), t("class_results.machine"), t("core.median_ms"),
                                     t("noise.verdict_col"), "PyTorch", t("dashboard.date")], rows))
            dropped = [r for r in mine if noise.is_noisy(r.noise)]
            if dropped:
                parts.append(f'<p class="fastrain-note">{html.escape(t("noise.dropped", count=len(dropped)))}</p>')
        parts += [f"<p>{html.escape(t('class_results.skipped', name=s.path.name, reason=s.reason))}</p>"
                  for s in self.reference.skipped]
        return "\n".join(parts)

    def show(self):
        """Display the dashboard; in ci mode also run the first panel once, as a click would."""
        display(HTML(STYLE))
        display(self.widget)
        if config.is_ci() and self.panels:
            next(iter(self.panels.values())).run()


def show(scale: float = SCALE) -> Dashboard:
    """Build and display the dashboard; returns it (dashboard.panels, .tabs, .show_reference())."""
    board = Dashboard(scale)
    board.show()
    return board
