"""Progress bars: described in Bengali (or English), silent in ci mode, counting every item."""

from fastrain_lib.ui import progress
from fastrain_lib.core.i18n import t


def test_description_follows_the_language(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "lab")
    for lang in ("bn", "en"):
        monkeypatch.setenv("FASTRAIN_LANG", lang)
        bar = progress.progress(range(3))
        assert bar.desc == t("progress.working", lang) and not bar.disable
        assert list(bar) == [0, 1, 2] and bar.n == 3
        bar.close()


def test_silent_in_ci_mode_but_still_iterates(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    bar = progress.progress(range(4), total=4)
    assert bar.disable and list(bar) == [0, 1, 2, 3]
