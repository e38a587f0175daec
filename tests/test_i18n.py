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
    assert i18n.t("widgets.run") == "Run"
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    assert i18n.t("widgets.run") == "চালাও"


def test_formatting_and_both():
    assert "2.5" in i18n.t("widgets.done", "en", seconds=2.5)
    text = i18n.both("setup_env.install_failed", what="x", log="y")
    assert "ইনস্টল" in text and "Install failed" in text


def test_unknown_key_fails_loudly():
    with pytest.raises(KeyError):
        i18n.t("no.such.key")


def test_duplicate_keys_are_rejected(monkeypatch, tmp_path):
    extra = tmp_path / "messages.py"
    extra.write_text('MESSAGES = {"widgets.run": {"bn": "চালাও", "en": "Run"}}\n', encoding="utf-8")
    files = i18n.message_files()
    monkeypatch.setattr(i18n, "message_files", lambda: [*files, extra])
    with pytest.raises(KeyError, match="defined twice"):
        i18n._load()


# --- every message in the catalog is one a user can see -------------------------------------------
# A message no code uses is not harmless: 'setup.cpu_only' kept promising "GPU results are shown from
# reference/" after the lessons stopped saying it (reference/ had none), and 22 others had been
# replaced by newer keys. A key counts as used only where it is written out in full: a key built in
# code (f"regimes.{regime}", "lesson05b.strategy_" + name) is invisible to this test and to a
# maintainer's grep, so the library writes such choices as dicts of full keys.
_QUOTED_KEY = re.compile(r"""["']([a-z0-9_]+\.[A-Za-z0-9_.]+)["']""")


def unused_keys(keys, sources: list[str]) -> list[str]:
    quoted = set(_QUOTED_KEY.findall("\n".join(sources)))
    return [k for k in keys if k not in quoted]


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
    sources = ['t("a.used", n=1)', 'plots.label(f"regimes.{kind}_short")', 'key = "lesson05b.strategy_" + name',
               'KEYS = {"memory": "regimes.memory_short"}']
    keys = ["a.used", "regimes.memory_short", "regimes.compute_short", "lesson05b.strategy_zero1", "a.forgotten"]
    # keys reachable only through a built prefix count as unused: nobody can find them by name
    assert unused_keys(keys, sources) == ["regimes.compute_short", "lesson05b.strategy_zero1", "a.forgotten"]


def test_every_catalog_message_is_used_somewhere():
    assert unused_keys(i18n.CATALOG, _product_sources()) == []


# --- one naming scheme: a key says where its text lives ---------------------------------------------
PKG = Path(__file__).resolve().parents[1] / "fastrain_lib"


def misnamed_keys(tables: dict[Path, list[str]], package_dir: Path, scripts: list[str]) -> list[str]:
    """Keys whose first word is not the package, a module beside the table, or (in a lesson package)
    the lesson: lessons/l05b_ddp_in_depth/messages.py holds lesson05b.*, measure/messages.py holds
    noise.*, regimes.*, hardware.*, ...; the top-level table also holds the scripts' messages. And
    a first word used by two tables (a maintainer would not know where to look)."""
    wrong, home = [], {}
    for path, keys in tables.items():
        folder = path.parent
        allowed = {p.stem for p in folder.glob("*.py")} - {"__init__", "messages"} | {folder.name}
        if folder.parent.name == "lessons" and folder.name[:1] == "l":
            allowed.add("lesson" + folder.name[1:].split("_", 1)[0])
        if folder == package_dir:
            allowed |= set(scripts)
        for key in keys:
            first = key.split(".", 1)[0]
            if first not in allowed:
                wrong.append(f"{path.relative_to(package_dir.parent)}: {key}")
            if home.setdefault(first, path) != path:
                wrong.append(f"{key}: '{first}.' is in {home[first].relative_to(package_dir.parent)} too")
    return wrong


def _tables() -> dict[Path, list[str]]:
    import importlib.util

    out = {}
    for path in i18n.message_files():
        spec = importlib.util.spec_from_file_location("_m", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out[path] = list(module.MESSAGES)
    return out


def test_every_key_names_the_place_its_text_lives():
    scripts = [p.stem for p in (PKG.parent / "scripts").glob("*.py")]
    assert misnamed_keys(_tables(), PKG, scripts) == []


def test_the_naming_rule_sees_a_misplaced_key(tmp_path):
    pkg = tmp_path / "fastrain_lib"
    (pkg / "measure").mkdir(parents=True)
    (pkg / "lessons" / "l02_to_device").mkdir(parents=True)
    for f in ("measure/noise.py", "measure/messages.py", "lessons/l02_to_device/messages.py", "lessons/l02_to_device/transfer.py"):
        (pkg / f).write_text("")
    tables = {pkg / "measure/messages.py": ["noise.busy", "measure.x", "hw.gpu"],
              pkg / "lessons/l02_to_device/messages.py": ["lesson02.a", "transfer.b", "noise.c", "lesson03.d"]}
    assert sorted(misnamed_keys(tables, pkg, [])) == sorted([
        "fastrain_lib/measure/messages.py: hw.gpu",
        "noise.c: 'noise.' is in fastrain_lib/measure/messages.py too",
        "fastrain_lib/lessons/l02_to_device/messages.py: noise.c",
        "fastrain_lib/lessons/l02_to_device/messages.py: lesson03.d"])


def test_a_verdict_is_a_catalog_key_or_the_cells_own_sentence(capsys):
    from fastrain_lib.core import verdicts

    assert verdicts.say("core.yes") is None  # printed once; a returned string would print again
    sentence = "এখানে fused 2.0 গুণ দ্রুত।"
    verdicts.say(sentence)
    assert capsys.readouterr().out.splitlines() == [verdicts.PREFIX + i18n.t("core.yes"), verdicts.PREFIX + sentence]
    with pytest.raises(KeyError):  # a mistyped key still fails loudly instead of printing the key
        verdicts.line("lesson99.no_such_key")


def _g_messages():
    """(key, lang, text) of every catalog message with a float field in "g" format ({rate:.3g})."""
    import string

    found = []
    for key, texts in i18n.CATALOG.items():
        for lang, text in texts.items():
            fields = [f for _, f, spec, _ in string.Formatter().parse(text) if f is not None]
            specs = [spec for _, f, spec, _ in string.Formatter().parse(text) if f is not None]
            if any(s and s[-1] in "gG" for s in specs) and not any(c in f for f in fields for c in ".[") and all(fields):
                found.append((key, lang, text))
    return found


def test_a_large_rate_in_any_message_reads_as_a_plain_number():
    """A T4 multiplies at 8,140 GFLOP/s: lesson 01's "{rate:.3g} GFLOP/s" said "8.14e+03" there, and a CPU (as in
    make test) never shows it. Every message with a "g" field, given 8140.2 for its numbers, reads "8,140"."""
    import string

    messages = _g_messages()
    assert len(messages) > 20  # the rule reaches the catalog's rates, not one message
    for key, lang, text in messages:
        values = {}
        for _, field, spec, _ in string.Formatter().parse(text):
            if field is not None:
                values[field] = 8140 if spec.endswith("d") else (8140.2 if spec else "x")
        said = i18n.t(key, lang, **values)
        assert "e+" not in said, (key, lang, said)
    assert i18n.t("noise.reason.spread", "en", repeats=8, spread=0.4, limit=0.25).count("e") >= 1  # untouched text
    assert i18n._PLAIN.format("{a:.2g} {b:.3g} {c:.2e}", a=2.2e-8, b=12.345, c=12345.0) == "2.2e-08 12.3 12,345"


@pytest.mark.parametrize("fmt, value, want", [
    ("{:.3g}", 65504.0, "65,504"),                    # float16's largest value, as the lesson teaches it
    ("{:.3g}", 3.4028234663852886e38, "3.4 × 10^38"),  # float32's: its 39 digits would say nothing
    ("{:.4g}", 3.4028234663852886e38, "3.403 × 10^38"),  # the spec's significant digits
    ("{:.1e}", 3.39e38, "3.4 × 10^38"),
    ("{:.3g}", -2.5e20, "-2.5 × 10^20"),
    ("{:.1e}", 0.0, "0"),                             # a max difference of exactly 0, not 0.0e+00
    ("{:.2e}", 2.0, "2"),
    ("{:.1e}", 1.2e-7, "1.2e-07"),                    # small values keep e-
    ("{:.3g}", 8140.2, "8,140"),
    ("{:,.0f}", 1e20, "100,000,000,000,000,000,000"),  # asked for every digit: given
])
def test_no_number_is_written_in_e_plus_notation(fmt, value, want):
    assert i18n.plain(fmt, value) == want
    assert "e+" not in i18n.plain(fmt, value)
