"""The message catalog: every user-facing string of the library, Bengali first.

Messages live beside the code that says them: every package of fastrain_lib has one
messages.py defining MESSAGES = {"key": {"bn": "...", "en": "..."}}. They are merged here
into one catalog; a key defined twice is an error (tests/test_i18n.py checks both languages).

    from fastrain_lib.core.i18n import t
    t("device.none")                      # in the language of FASTRAIN_LANG
    t("bench.median", value=1.5)          # str.format placeholders
"""

from __future__ import annotations

import importlib.util
import numbers
import string
from pathlib import Path

from fastrain_lib.core import config

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def message_files() -> list[Path]:
    """fastrain_lib/core/messages.py, ...: every message table of the package, in a fixed order."""
    return sorted(PACKAGE_DIR.rglob("messages.py"))


def _load() -> dict[str, dict[str, str]]:
    # Each table is loaded from its file without importing the package around it: i18n sits at
    # the bottom of the tree and must not run a package's __init__ (distributed/ imports
    # hardware, which imports i18n).
    merged: dict[str, dict[str, str]] = {}
    for path in message_files():
        spec = importlib.util.spec_from_file_location(f"_fastrain_messages_{len(merged)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for key, texts in module.MESSAGES.items():
            if key in merged:
                raise KeyError(f"message key {key!r} is defined twice ({path})")
            merged[key] = texts
    return merged


CATALOG: dict[str, dict[str, str]] = _load()


def t(key: str, /, lang: str | None = None, **values) -> str:
    """The message `key` in `lang` (default: FASTRAIN_LANG), formatted with `values`.

    An unknown key raises KeyError: a typo should fail a test, not show a blank."""
    texts = CATALOG[key]
    text = texts.get(lang or config.lang()) or texts["en"]
    return _PLAIN.format(text, **values) if values else text


class _PlainNumbers(string.Formatter):
    """str.format, except that no number is written in e+ notation: a student reads rates, counts and times as
    plain numbers (8,140 GFLOP/s on a T4, not 8.14e+03; a max difference of 0, not 0.0e+00), and a number too
    large to read digit by digit (float32's largest, 3.4e+38) as 3.4 × 10^38. Small values keep e-05."""

    def format_field(self, value, format_spec):
        text = super().format_field(value, format_spec)
        if not isinstance(value, numbers.Real) or "e+" not in text.lower():
            return text
        if value == 0:
            return "0"
        scientific = format_spec.endswith(("e", "E"))
        digits = _digits(format_spec) + (1 if scientific else 0)  # significant digits the spec asked for
        if abs(value) >= HUGE:  # the spec's digits, as a power of ten
            mantissa, exponent = format(value, f".{max(digits, 1) - 1}e").split("e")
            return f"{float(mantissa):g} × 10^{int(exponent)}"
        if scientific and abs(value) < 1000:  # 2.0e+00 -> 2
            return format(value, f".{digits}g")
        return format(value, ",.0f")


def _digits(format_spec: str) -> int:
    """The precision of a format spec ('.3g' -> 3), or Python's default of 6."""
    precision = format_spec.rsplit(".", 1)[-1].rstrip("eEgGf%") if "." in format_spec else ""
    return int(precision) if precision.isdigit() else 6


# Beyond this a number's digits say nothing to a reader (340,282,346,638,528,859,811,704,183,484,516,925,440).
HUGE = 1e15


_PLAIN = _PlainNumbers()


def plain(fmt: str, /, *args, **values) -> str:
    """fmt.format(...), with t()'s rule for large numbers: plain("{:.3g}", 8140.2) == "8,140"."""
    return _PLAIN.format(fmt, *args, **values)


def both(key: str, **values) -> str:
    """Bengali and English together, for messages that must reach everyone (install errors)."""
    return f"{t(key, 'bn', **values)}\n{t(key, 'en', **values)}"


def pick(bn: str, en: str) -> str:
    """For a string written inline in a notebook cell: the Bengali or the English text,
    following FASTRAIN_LANG, so English mode has no Bengali left in it.

        print(pick(bn="মধ্যমা সময়", en="median time"))
    Library code keeps using the catalog (t); this is for short strings in lesson cells."""
    return bn if config.lang() == "bn" else en
