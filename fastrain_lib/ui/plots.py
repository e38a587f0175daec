"""Plots with correctly shaped Bengali: the bundled font, the course style, standard charts.

Bengali needs text shaping (conjuncts such as ক্ষ, vowel signs that sit before
their consonant). matplotlib >= 3.11 shapes text with libraqm/HarfBuzz; older
versions draw broken conjuncts. On an old matplotlib we warn once, in Bengali,
and draw English labels instead of broken Bengali (`label()` does the switch).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
from matplotlib import font_manager

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.ui.tables import number

FONT_DIR = Path(__file__).resolve().parents[1] / "fonts"
FONT_FAMILY = "Noto Sans Bengali"
MIN_SHAPING_VERSION = (3, 11)
FIGSIZE = (8, 4.5)

_warned = False


def _version_tuple(version: str) -> tuple[int, int]:
    parts = []
    for piece in version.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def shaping_ok(version: str | None = None) -> bool:
    """True when this matplotlib shapes Bengali correctly (>= 3.11)."""
    return _version_tuple(version or matplotlib.__version__) >= MIN_SHAPING_VERSION


def plot_lang(version: str | None = None) -> str:
    """The language plot text is drawn in: FASTRAIN_LANG, or English on an old matplotlib."""
    global _warned
    if shaping_ok(version):
        return config.lang()
    if not _warned and config.lang() == "bn":
        warnings.warn(t("plots.old_matplotlib", "bn", version=version or matplotlib.__version__)
                      + "\n" + t("plots.old_matplotlib", "en", version=version or matplotlib.__version__),
                      stacklevel=2)
        _warned = True
    return "en"


def label(key: str, **values) -> str:
    """A catalog message for use inside a plot (English if Bengali cannot be shaped)."""
    return t(key, plot_lang(), **values)


def pick(bn: str, en: str) -> str:
    """For plot text written inline in a notebook cell (i18n.pick for plots): the Bengali text,
    or the English one in English mode and where this matplotlib cannot shape Bengali."""
    return bn if plot_lang() == "bn" else en


def register_fonts() -> list[str]:
    """Add the bundled Bengali font files to matplotlib; returns the files added."""
    added = []
    for path in sorted(FONT_DIR.glob("*.ttf")):
        font_manager.fontManager.addfont(str(path))
        added.append(path.name)
    return added


def accessible_colors() -> list[str]:
    """A colour-blind-friendly sequence (matplotlib's 'petroff10' where it exists)."""
    sequences = getattr(matplotlib, "color_sequences", {})
    for name in ("petroff10", "tab10"):
        if name in sequences:
            return list(sequences[name])
    return ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def apply_style(scale: float = 1.0) -> None:
    """The course look: Bengali font with Latin fallback, large text, accessible colours.

    scale=1.5 gives the projector style used by the instructor dashboard."""
    from cycler import cycler

    matplotlib.rcParams.update({
        "font.family": [FONT_FAMILY, "DejaVu Sans"],
        "font.size": 12 * scale,
        "axes.titlesize": 14 * scale,
        "axes.labelsize": 12 * scale,
        "legend.fontsize": 11 * scale,
        "xtick.labelsize": 11 * scale,
        "ytick.labelsize": 11 * scale,
        "figure.figsize": FIGSIZE,
        "figure.dpi": 100,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=accessible_colors()),
        "axes.unicode_minus": False,
    })


def setup(scale: float = 1.0) -> None:
    register_fonts()
    apply_style(scale)


def new_figure(ncols: int = 1, nrows: int = 1, **kwargs):
    """A figure in the course style; returns (fig, ax) or (fig, axes)."""
    import matplotlib.pyplot as plt

    width, height = FIGSIZE
    kwargs.setdefault("figsize", (width * max(1, ncols * 0.75), height * max(1, nrows * 0.8)))
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, **kwargs)


def figure_legend(fig, axes, ncol: int = 1) -> None:
    """One legend for the whole figure, under the plots (a constrained-layout figure: new_figure), each label
    once: a legend inside the axes hides measured points, and a reference run's label (hardware · date · mode)
    is wider than half a figure. At most `ncol` columns, fewer where they would not fit the figure's width."""
    handles, labels = [], []
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            if text not in labels:
                handles.append(handle)
                labels.append(text)
    for columns in range(max(1, ncol), 0, -1):  # fewer columns while it is wider than the figure (long labels)
        legend = fig.legend(handles, labels, loc="outside lower center", ncol=columns, fontsize="small", frameon=False)
        if columns == 1 or legend.get_window_extent(fig.canvas.get_renderer()).width <= fig.bbox.width:
            return
        legend.remove()


NOISY_HATCH = "///"
NOISY_COLOR = "#d55e00"  # vermilion: visible to colour-blind readers too


def _noisy_flags(noisy, n: int) -> list[bool]:
    """Bools from bools or bench Records (record.noisy); all False when not given."""
    if noisy is None:
        return [False] * n
    return [bool(getattr(item, "noisy", item)) for item in noisy]


def bars(ax, names: list[str], values: list[float], errors: list[float] | None = None, *,
         ylabel: str = "", title: str = "", colors: list[str] | None = None, fmt: str = "{:.3g}",
         noisy: list | None = None):
    """A bar chart with optional error bars and the value written on each bar.

    noisy: one bool (or bench Record) per bar; a noisy bar is hatched, its value gets a ⚠,
    and the legend says what hatching means."""
    colors = colors or accessible_colors()
    positions = range(len(names))
    flags = _noisy_flags(noisy, len(names))
    drawn = ax.bar(positions, values, yerr=errors, capsize=4 if errors else 0,
                   color=[colors[i % len(colors)] for i in positions])
    for bar, flag in zip(drawn, flags):
        if flag:
            bar.set_hatch(NOISY_HATCH)
            bar.set_edgecolor(NOISY_COLOR)
    ax.set_xticks(list(positions), names)
    ax.bar_label(drawn, labels=[("⚠ " if f else "") + number(v, fmt) for v, f in zip(values, flags)], padding=2)
    if any(flags):
        _noisy_legend(ax)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return drawn


def _noisy_legend(ax) -> None:
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    marker = Patch(facecolor="white", edgecolor=NOISY_COLOR, hatch=NOISY_HATCH, label=label("noise.marked"))
    ax.legend(handles=handles + [marker], labels=labels + [marker.get_label()], fontsize="small")


def bar_records(ax, records, *, metric: str | None = None, scale: float = 1.0, ylabel: str = "",
                title: str = "", names: list[str] | None = None):
    """Bars for bench Records: median time (or records' metrics[metric]) with IQR error bars;
    noisy records are hatched."""
    if metric is None:
        values = [r.median_s * scale for r in records]
        errors = [r.iqr_s * scale for r in records]
    else:
        values = [r.metrics[metric] * scale for r in records]
        errors = None
    return bars(ax, names or [r.name for r in records], values, errors, ylabel=ylabel, title=title,
                noisy=records)


def lines(ax, x, series: dict[str, list[float]], *, xlabel: str = "", ylabel: str = "", title: str = "",
          logx: bool = False, logy: bool = False, marker: str = "o", noisy: dict[str, list] | None = None):
    """Several named curves over the same x values.

    noisy: {series name: one bool (or bench Record) per point}; noisy points get a large
    hollow ring, and the legend says what it means."""
    marked = False
    for name, ys in series.items():
        ax.plot(x, ys, marker=marker, label=name)
        flags = _noisy_flags((noisy or {}).get(name), len(ys))
        points = [(xi, yi) for xi, yi, f in zip(x, ys, flags) if f]
        if points:
            ax.plot(*zip(*points), linestyle="none", marker="o", markersize=14, markerfacecolor="none",
                    markeredgecolor=NOISY_COLOR, markeredgewidth=2,
                    label=None if marked else label("noise.marked_point"))
            marked = True
    if logx:
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(x), [str(v) for v in x])  # 64, 128, … reads easier than 2⁶, 2⁷, …
        ax.minorticks_off()
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(series) > 1 or marked:
        ax.legend()


def mark_noisy_figure(fig, records) -> bool:
    """Write a warning across the top of `fig` when any of `records` is noisy (once per figure).

    ExperimentPanel calls this for every run, so each lesson's plot is marked without the
    lesson doing anything; the sentence under the plot says what to do."""
    noisy = [r for r in records if getattr(r, "noisy", False)]
    if not noisy or getattr(fig, "_fastrain_noise_marked", False):
        return bool(noisy)
    fig.text(0.5, 1.0, label("noise.figure_warning", noisy=len(noisy), total=len(records)), ha="center",
             va="bottom", color=NOISY_COLOR, fontsize="large", fontweight="bold", transform=fig.transFigure)
    fig._fastrain_noise_marked = True
    return True


setup()


def shaping_widths(text: str = "ক্ষ", size: int = 40) -> tuple[float, float]:
    """Rendered widths (pixels) of a conjunct and of the same letters kept apart by ZWNJ,
    drawn with the bundled font. Shaped text joins ক্ষ into one narrower glyph; a
    matplotlib that does not shape draws the same glyphs for both, so the widths match."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    font = font_manager.FontProperties(fname=str(FONT_DIR / "NotoSansBengali-Regular.ttf"), size=size)
    apart = text.replace("\u09cd", "\u09cd\u200c")  # virama + ZWNJ: the visible-hasanta form
    fig = Figure()
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    widths = [fig.text(0, 0, s, fontproperties=font).get_window_extent(renderer).width for s in (text, apart)]
    return widths[0], widths[1]
