"""The message catalog: every user-facing string of the library, Bengali first.

Messages live in fastrain_lib/catalog/*.py, one file per area, each defining
MESSAGES = {"key": {"bn": "...", "en": "..."}}. They are merged here into one
catalog; a key defined twice is an error (tests/test_i18n.py checks both languages).

    from fastrain_lib.i18n import t
    t("device.none")                      # in the language of FASTRAIN_LANG
    t("bench.median", value=1.5)          # str.format placeholders
"""

from __future__ import annotations

import importlib
import pkgutil

from . import catalog as _catalog_pkg
from . import config


def _load() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(_catalog_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_catalog_pkg.__name__}.{info.name}")
        for key, texts in module.MESSAGES.items():
            if key in merged:
                raise KeyError(f"message key {key!r} is defined twice (catalog/{info.name}.py)")
            merged[key] = texts
    return merged


CATALOG: dict[str, dict[str, str]] = _load()


def t(key: str, lang: str | None = None, **values) -> str:
    """The message `key` in `lang` (default: FASTRAIN_LANG), formatted with `values`.

    An unknown key raises KeyError: a typo should fail a test, not show a blank."""
    texts = CATALOG[key]
    text = texts.get(lang or config.lang()) or texts["en"]
    return text.format(**values) if values else text


def both(key: str, **values) -> str:
    """Bengali and English together, for messages that must reach everyone (install errors)."""
    return f"{t(key, 'bn', **values)}\n{t(key, 'en', **values)}"


def pick(bn: str, en: str) -> str:
    """For a string written inline in a notebook cell: the Bengali or the English text,
    following FASTRAIN_LANG, so English mode has no Bengali left in it.

        print(pick(bn="মধ্যমা সময়", en="median time"))
    Library code keeps using the catalog (t); this is for short strings in lesson cells."""
    return bn if config.lang() == "bn" else en
