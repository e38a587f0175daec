import re
import unicodedata
from pathlib import Path

import pytest

from fastrain_lib.core import i18n

BENGALI = re.compile(r"[\u0980-\u09FF]")
PLACEHOLDER = re.compile(r"{(\w+)[^}]*}")


@pytest.mark.parametrize("key", sorted(i18n.CATALOG))
def test_every_message_has_both_languages(key):
    texts = i18n.CATALOG[key]
    assert set(texts) == {"bn", "en"}, f"{key}: needs exactly bn and en"
    assert texts["bn"].strip() and texts["en"].strip()
    # Bengali text is really Bengali, unless it is a term kept in Latin script (GPU, CPU).
    if len(texts["en"]) > 12 and texts["en"] != texts["bn"]:
        assert BENGALI.search(texts["bn"]), f"{key}: the Bengali text has no Bengali letters"
    assert unicodedata.normalize("NFC", texts["bn"]) == texts["bn"], f"{key}: not NFC"
    assert "\u200b" not in texts["bn"]
    # Both languages take the same placeholders, so formatting never fails in one of them.
    assert set(PLACEHOLDER.findall(texts["bn"])) == set(PLACEHOLDER.findall(texts["en"])), key


def test_language_switch(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    assert i18n.t("panel.run") == "Run"
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    assert i18n.t("panel.run") == "চালাও"


def test_formatting_and_both():
    assert "2.5" in i18n.t("panel.done", "en", seconds=2.5)
    text = i18n.both("install.failed", what="x", log="y")
    assert "ইনস্টল" in text and "Install failed" in text


def test_unknown_key_fails_loudly():
    with pytest.raises(KeyError):
        i18n.t("no.such.key")


def test_duplicate_keys_are_rejected(monkeypatch, tmp_path):
    extra = tmp_path / "messages.py"
    extra.write_text('MESSAGES = {"panel.run": {"bn": "চালাও", "en": "Run"}}\n', encoding="utf-8")
    files = i18n.message_files()
    monkeypatch.setattr(i18n, "message_files", lambda: [*files, extra])
    with pytest.raises(KeyError, match="defined twice"):
        i18n._load()


# --- every message in the catalog is one a user can see -------------------------------------------
# A message no code uses is not harmless: 'setup.cpu_only' kept promising "GPU results are shown from
# reference/" after the lessons stopped saying it (reference/ had none), and 22 others had been
# replaced by newer keys. Keys are found as quoted literals, or as the literal start of a key built
# in code: f"regimes.{regime}" or "lesson05b.strategy_" + name.
_QUOTED_KEY = re.compile(r"""["']([a-z0-9_]+\.[A-Za-z0-9_.]+)["']""")
_KEY_PREFIX = re.compile(r"""f["']([a-z0-9_]+\.[A-Za-z0-9_.]*)\{|["']([a-z0-9_]+\.[A-Za-z0-9_.]*)["']\s*\+""")


def unused_keys(keys, sources: list[str]) -> list[str]:
    text = "\n".join(sources)
    quoted = set(_QUOTED_KEY.findall(text))
    prefixes = {a or b for a, b in _KEY_PREFIX.findall(text)}
    return [k for k in keys if k not in quoted and not any(k.startswith(p) for p in prefixes)]


def _product_sources() -> list[str]:
    import nbformat

    root = Path(__file__).resolve().parents[1]
    sources = [p.read_text(encoding="utf-8") for folder in ("fastrain_lib", "benchmarks", "scripts")
               for p in sorted((root / folder).rglob("*.py")) if p.name != "messages.py"]
    for folder in ("notebooks", "solutions", "exercises"):
        for path in sorted((root / folder).glob("*.ipynb")):
            sources += [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    return sources


def test_the_unused_key_scan_itself():
    sources = ['t("a.used", n=1)', 'plots.label(f"regimes.{kind}_short")', 'key = "lesson05b.strategy_" + name']
    keys = ["a.used", "regimes.memory_short", "lesson05b.strategy_zero1", "a.forgotten", "regimes2.x"]
    assert unused_keys(keys, sources) == ["a.forgotten", "regimes2.x"]


def test_every_catalog_message_is_used_somewhere():
    assert unused_keys(i18n.CATALOG, _product_sources()) == []
