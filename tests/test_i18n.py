import re
import unicodedata

import pytest

from fastrain_lib import i18n

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
    import sys
    import types

    fake = types.ModuleType("fastrain_lib.catalog.zz_duplicate")
    fake.MESSAGES = {"panel.run": {"bn": "চালাও", "en": "Run"}}
    monkeypatch.setitem(sys.modules, "fastrain_lib.catalog.zz_duplicate", fake)
    (tmp_path / "zz_duplicate.py").write_text("")
    monkeypatch.setattr(i18n._catalog_pkg, "__path__", [*i18n._catalog_pkg.__path__, str(tmp_path)])
    with pytest.raises(KeyError, match="defined twice"):
        i18n._load()
