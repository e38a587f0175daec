import warnings

import matplotlib
import pytest
from matplotlib import font_manager

from fastrain_lib.ui import plots


def test_bundled_font_and_licence_ship_with_the_package():
    assert (plots.FONT_DIR / "NotoSansBengali-Regular.ttf").stat().st_size > 100_000
    licence = (plots.FONT_DIR / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE" in licence.upper() or "Open Font License" in licence


def test_font_is_registered_with_matplotlib():
    names = {f.name for f in font_manager.fontManager.ttflist}
    assert plots.FONT_FAMILY in names
    assert matplotlib.rcParams["font.family"][0] == plots.FONT_FAMILY


def test_bengali_is_really_shaped():
    # Shaped, the conjunct ক্ষ is one glyph, clearly narrower than ক + visible hasanta + ষ.
    # A matplotlib (or font set-up) that does not shape draws the same glyphs for both.
    joined, apart = plots.shaping_widths("ক্ষ")
    assert plots.shaping_ok(), "matplotlib >= 3.11 is required by pyproject.toml"
    assert joined < 0.85 * apart


def test_pre_base_vowel_sign_wraps_its_consonant():
    # In "কি" the sign ি is drawn before ক and its stroke arches over it, so the pair is
    # much narrower than the two glyphs set side by side (what an unshaped renderer draws).
    joined = plots.shaping_widths("কি")[0]
    consonant = plots.shaping_widths("ক")[0]
    sign = plots.shaping_widths("ি")[0]
    assert joined < 0.85 * (consonant + sign)


@pytest.mark.parametrize("version,ok", [("3.10.8", False), ("3.11.0", True), ("3.12.0rc1", True), ("2.2.5", False)])
def test_version_gate(version, ok):
    assert plots.shaping_ok(version) is ok


def test_old_matplotlib_warns_once_in_bengali_and_falls_back_to_english(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    monkeypatch.setattr(plots, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert plots.plot_lang("3.8.0") == "en"
        assert plots.plot_lang("3.8.0") == "en"
    assert len(caught) == 1
    assert "matplotlib" in str(caught[0].message) and "যুক্তাক্ষর" in str(caught[0].message)
    assert plots.plot_lang() == "bn"


def test_label_uses_english_when_shaping_is_missing(monkeypatch):
    monkeypatch.setattr(plots, "_warned", True)
    monkeypatch.setattr(plots.matplotlib, "__version__", "3.9.0")
    assert plots.label("widgets.run") == "Run"


def test_standard_charts_draw(tmp_path):
    from fastrain_lib.measure import bench

    fig, ax = plots.new_figure()
    records = [bench.Record("ক", 0.2, 0.01), bench.Record("খ", 0.1, 0.02)]
    bars = plots.bar_records(ax, records, scale=1e3, ylabel="ms")
    assert [b.get_height() for b in bars] == pytest.approx([200, 100])
    _, ax2 = plots.new_figure()
    plots.lines(ax2, [1, 2, 4], {"a": [1, 2, 3], "b": [3, 2, 1]}, logx=True)
    assert len(ax2.get_lines()) == 2 and ax2.get_legend() is not None
    fig.savefig(tmp_path / "bars.png")
    assert (tmp_path / "bars.png").stat().st_size > 1000


def _record(name, seconds, noisy):
    from fastrain_lib.measure import bench

    return bench.Record(name, seconds, seconds / 10, noise={"verdict": "noisy" if noisy else "quiet",
                                                            "reasons": ["load"] if noisy else []})


def test_noisy_bars_are_hatched_and_explained():
    _, ax = plots.new_figure()
    records = [_record("quiet", 0.2, False), _record("busy", 0.1, True)]
    drawn = plots.bar_records(ax, records, scale=1e3, ylabel="ms")
    assert [b.get_hatch() for b in drawn] == [None, plots.NOISY_HATCH]
    assert [b.get_height() for b in drawn] == pytest.approx([200, 100])
    labels = [text.get_text() for text in ax.texts]
    assert labels[0] == "200" and labels[1].startswith("⚠")
    assert plots.label("noise.marked") in [text.get_text() for text in ax.get_legend().get_texts()]
    _, quiet_ax = plots.new_figure()
    plots.bars(quiet_ax, ["a"], [1.0])
    assert quiet_ax.get_legend() is None  # nothing to explain on a quiet plot


def test_noisy_points_on_lines_are_ringed():
    _, ax = plots.new_figure()
    plots.lines(ax, [1, 2, 4], {"cpu": [1.0, 2.0, 3.0]}, noisy={"cpu": [False, True, False]})
    rings = [line for line in ax.get_lines() if line.get_markeredgecolor() == plots.NOISY_COLOR]
    assert len(rings) == 1 and list(rings[0].get_xdata()) == [2] and list(rings[0].get_ydata()) == [2.0]
    assert plots.label("noise.marked_point") in [text.get_text() for text in ax.get_legend().get_texts()]


def test_figure_warning_once_and_only_when_noisy():
    fig, _ = plots.new_figure()
    assert not plots.mark_noisy_figure(fig, [_record("q", 0.1, False)]) and not fig.texts
    records = [_record("q", 0.1, False), _record("b", 0.1, True)]
    assert plots.mark_noisy_figure(fig, records) and plots.mark_noisy_figure(fig, records)
    assert len(fig.texts) == 1 and "1/2" in fig.texts[0].get_text()


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_reference_legends_sit_under_the_plots_and_hide_no_line(lang, monkeypatch):
    """Lesson 01's plots with every reference/ run (hardware · date · mode, as long as such a label gets, now with
    the CPU's bf16): the legend was inside the matmul axes and covered the AMD EPYC run's line, and the roofline's
    legend beside it squeezed the plot. Each figure's legend is now one, under every axes and inside the figure,
    and names each run once."""
    import matplotlib.pyplot as plt

    from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01
    from fastrain_lib.measure import bench, reference, roofline

    monkeypatch.setenv("FASTRAIN_LANG", lang)
    matmul = [bench.Record("matmul", 0.01, params={"size": n, "device": "cpu"}, metrics={"gflops": g})
              for n, g in ((256, 100.0), (512, 120.0), (1024, 130.0))]
    add = [bench.Record("add", 0.01, params={"numel": n, "device": "cpu"}, metrics={"gbs": g, "gflops": g / 12})
           for n, g in ((2**16, 20.0), (2**24, 8.0))]
    steps = [bench.Record("SimpleNN step", 0.01, params={"batch_size": b, "device": "cpu"},
                          metrics={"samples_per_s": s}) for b, s in ((1, 2e3), (256, 6e4))]
    roofs = [roofline.Roof("here", 140.0, 12.0, "measured")] + lesson01.reference_roofs()
    runs = [run.label for run in reference.runs()]
    assert len(runs) >= 2 and len(set(runs)) == len(runs), runs
    figures = [(lesson01.plot_sweeps(matmul, add), runs), (lesson01.plot_batch(steps), []),  # no run has steps
               (lesson01.roofline_figure(roofs, matmul, add), runs)]
    for fig, runs in figures:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        assert len(fig.legends) == 1 and not any(ax.get_legend() for ax in fig.axes)
        box = fig.legends[0].get_window_extent(renderer)
        texts = [text.get_text() for text in fig.legends[0].get_texts()]
        assert len(texts) == len(set(texts)) and all(any(run in text for text in texts) for run in runs), texts
        assert box.y1 <= min(ax.get_tightbbox(renderer).y0 for ax in fig.axes) + 1  # under the plots (and labels)
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.x1, (box, fig.bbox)  # and inside the figure
        plt.close(fig)


def test_a_figure_legend_takes_fewer_columns_where_its_labels_would_not_fit():
    """Lesson 05's three panels share one legend of three columns; with the suite's run labels (hardware with its
    bf16, workload, date) three columns were wider than the figure and cut off at both sides. Short labels keep
    the columns asked for."""
    import matplotlib.pyplot as plt

    def legend_for(labels):
        fig, axes = plots.new_figure(ncols=3)
        for ax, text in zip(list(axes) * 2, labels):
            ax.plot([1, 2], [1, 2], label=text)
        plots.figure_legend(fig, axes, ncol=3)
        fig.canvas.draw()
        legend = fig.legends[0]
        box = legend.get_window_extent(fig.canvas.get_renderer())
        plt.close(fig)
        return legend._ncols, box, fig.bbox

    long = [f"reference result: Intel(R) Xeon(R) Processor (2 cores, bf16 in hardware), GPT, run {i}" for i in range(4)]
    columns, box, page = legend_for(long)
    assert columns < 3 and box.x0 >= 0 and box.x1 <= page.x1, (columns, box, page)
    assert legend_for(["a", "b", "c"])[0] == 3
