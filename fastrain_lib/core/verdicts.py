"""Sentences that state what *this run* measured, so a lesson's words match its numbers.

A lesson never tells the student what a measurement "shows" in static prose that might be
contradicted on their machine. Instead a verdict cell computes the sentence from the numbers:

    # VERDICT
    from fastrain_lib.core import verdicts
    speedup = for_loop.median / fused.median
    verdicts.say(pick(bn=f"এখানে fused {speedup:.1f} গুণ দ্রুত", en=f"fused is {speedup:.1f}x faster here"),
                 noise=[for_loop, fused])

A notebook cell writes its sentence inline (pick), so the reader sees it; library code passes a
catalog key and its values (verdicts.say("lesson05.v_ring", ...)).

**No cause from a noisy measurement.** A sentence that explains timings (X is faster *because*
...) is only true when those timings were taken on a quiet machine. `noise=` names the
measurements the sentence stands on (bench Records, or noise-information dicts from
`measure.noise.Window.assess`, or a list of them); when any of them is noisy, `say` prints the
noisy-measurement sentence instead of the explanation. `noise=()` declares a sentence that
stands on no timing (a count, a formula). Every `Window.assess` notes its verdict here; a
sentence said without `noise=` after a noisy measurement is written to the audit log
(FASTRAIN_VERDICT_LOG, a JSON-lines file) so the loaded-machine test can find it.

Conventions (tests rely on them):
- a verdict cell's source starts with the line `# VERDICT`;
- it prints at least one line starting with PREFIX, produced by `say` (or `line`);
- `say` prints once and returns None (a returned string would print again as the cell's value);
  two sentences of one cell that both stood on noisy measurements print the same warning once.
Catalog keys for verdicts live in the lesson's catalog file, in both languages.
"""

from __future__ import annotations

import json
import os
import re

from fastrain_lib.core.i18n import t

PREFIX = "➤ "
NOISY_MARK = "⚠️ "  # a verdict line that starts PREFIX + NOISY_MARK explains nothing: its data were noisy
CELL_MARK = "# VERDICT"
LOG_ENV = "FASTRAIN_VERDICT_LOG"

_KEY = re.compile(r"[a-z0-9_]+(\.[A-Za-z0-9_]+)+")
# measure.noise's reason codes, in words
_REASONS = {"load": "core.noise_reason_load", "threads": "core.noise_reason_threads",
            "spread": "core.noise_reason_spread", "recompile": "core.noise_reason_recompile",
            "rounds": "core.noise_reason_rounds"}
_pending: list[dict] = []  # noise information of the measurements taken since the last verdict


def note_measurement(info: dict | None) -> None:
    """Called by measure.noise for every assessed measurement (quiet or noisy); written to the audit
    log with its cell, so a test can find a cell that printed a finding beside a noisy measurement."""
    if info and "verdict" in info:
        _pending.append(info)
        cell = _cell()
        if _is_noisy(info) and cell is not None:
            _noisy_measured.add(cell)
        _log({"measurement": info["verdict"], "cell": cell})


def _infos(noise) -> list[dict]:
    """The noise-information dicts inside `noise`: Records, dicts, or (nested) lists of them. An info
    taken from a Record carries the record's name as its "row" (the noisy line names its rows)."""
    if noise is None:
        return []
    if isinstance(noise, dict):
        return [noise] if "verdict" in noise else []
    if isinstance(noise, (list, tuple, set)):
        return [info for item in noise for info in _infos(item)]
    infos = _infos(getattr(noise, "noise", None))
    name = getattr(noise, "name", None)
    return [{**info, "row": info.get("row") or row_name(name, getattr(noise, "params", None))} for info in infos] \
        if name else infos


# Record params that say where a record came from, not what was measured ('panel=lesson05_pipeline').
_NOT_A_SETTING = {"panel", "student"}


def row_name(name: str, params: dict | None = None) -> str:
    """How a noisy line names a row: the record's name and the settings it does not already show
    ('fused (n=64)'; 'pipeline K=2 M=4 (width=512)', not '... (stages=2, micro_batches=4, ...)')."""
    shown = set(re.findall(r"[\w.]+", str(name)))
    settings = ", ".join(f"{k}={v}" for k, v in (params or {}).items()
                         if isinstance(v, (int, float, str)) and not isinstance(v, bool) and k not in _NOT_A_SETTING
                         and str(v) not in shown)
    return f"{name} ({settings})" if settings and settings not in name else str(name)


def _is_noisy(info: dict) -> bool:
    return info.get("verdict") == "noisy"


def line(key_or_sentence: str, **values) -> str:
    """The verdict sentence: a catalog key formatted with the measured `values`, or a sentence
    the notebook cell already wrote (pick(bn=..., en=...)). A key that is not in the catalog
    still raises KeyError: a typo must fail a test, not print the key."""
    if _KEY.fullmatch(key_or_sentence):
        return PREFIX + t(key_or_sentence, **values)
    return PREFIX + key_or_sentence


MAX_ROWS_NAMED = 4  # a noisy line names this many noisy rows, then "+N"


def noisy_line(infos: list[dict]) -> str:
    """The sentence printed in place of an explanation whose measurements were noisy: how many,
    which rows (their names, when the measurements are Records or carry a "row"), and why."""
    noisy = [i for i in infos if _is_noisy(i)]
    reasons = sorted({r for i in noisy for r in i.get("reasons", [])})
    words = ", ".join(t(_REASONS[r]) if r in _REASONS else r for r in reasons)
    names = list(dict.fromkeys(str(i["row"]) for i in noisy if i.get("row")))
    rows = "; ".join(names[:MAX_ROWS_NAMED]) + (f" +{len(names) - MAX_ROWS_NAMED}" if len(names) > MAX_ROWS_NAMED else "")
    return PREFIX + NOISY_MARK + t("core.verdict_noisy", noisy=len(noisy), total=len(infos), reasons=words or "-",
                                   rows=t("core.verdict_noisy_rows", rows=rows) if rows else "")


def fewer_threads(infos: list[dict]) -> str:
    """' (measured with 1 thread: ...)' when a measurement used fewer CPU threads than torch's own
    because the other cores were busy (measure.bench), else ''. Said on the sentence's own line."""
    cut = [i for i in infos if i.get("threads_wanted") and (i.get("threads") or 0) < i["threads_wanted"]]
    if not cut:
        return ""
    return " " + t("core.verdict_fewer_threads", threads=min(i["threads"] for i in cut),
                   wanted=max(i["threads_wanted"] for i in cut))


def _log(record: dict) -> None:
    path = os.environ.get(LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def _audit(sentence: str, declared: bool, stood_on_noisy: bool, stood_on: int) -> None:
    if os.environ.get(LOG_ENV):
        _log({"sentence": sentence, "declared": declared, "printed_noisy_form": stood_on_noisy, "stood_on": stood_on,
              "pending": len(_pending), "pending_noisy": sum(_is_noisy(i) for i in _pending), "cell": _cell()})


_UNSET = object()


def say(key_or_sentence: str, /, *, noise=_UNSET, **values) -> None:
    """Print the verdict sentence once (returns None, so a cell does not print it twice).

    noise: the measurements the sentence stands on; when any is noisy the noisy-measurement
    sentence is printed instead. `noise=()` for a sentence that stands on no timing."""
    text = line(key_or_sentence, **values)
    declared = noise is not _UNSET
    infos = _infos(noise) if declared else []
    stood_on_noisy = any(_is_noisy(i) for i in infos)
    _audit(text, declared, stood_on_noisy, len(infos))
    _pending.clear()
    if stood_on_noisy:
        warning, cell = noisy_line(infos), _cell()
        if cell is not None:
            _noisy_measured.add(cell)  # (records from a cache were noted in an earlier cell)
        if cell != _noisy_printed["cell"]:
            _noisy_printed.update(cell=cell, lines=set())
        if cell is not None and warning in _noisy_printed["lines"]:
            return  # the same warning already stands under this cell, maybe above another: no new copy
        _noisy_printed["lines"].add(warning)
        print(warning)
        return
    print(text + quiet_beside_noisy(infos) + fewer_threads(infos))


_noisy_printed: dict = {"cell": None, "lines": set()}  # noisy-measurement sentences printed in the current cell
_noisy_measured: set = set()  # the cells (IPython's execution counts) in which a measurement was noisy


def beside(noise) -> None:
    """The sentences said next in this cell stand beside `noise`, all the measurements the cell's verdict
    reads. When one of them is noisy, a sentence on quiet rows says so on its own line even when it is
    printed before the noisy warning (a verdict that says the quiet matmul line, then the noisy addition)."""
    cell = _cell()
    if cell is not None and any(_is_noisy(i) for i in _infos(noise)):
        _noisy_measured.add(cell)


def quiet_beside_noisy(infos: list[dict]) -> str:
    """' (✓ on quiet measurements)' for a sentence that stands on quiet measurements in a cell where another
    measurement was noisy: the reader sees on the sentence's own line that it is not one of the noisy
    rows (tests/_sentences.py, the sentence rule). Nothing outside IPython, or in a cell without noise."""
    cell = _cell()
    return " " + t("core.verdict_quiet_rows") if infos and cell is not None and cell in _noisy_measured else ""


def _cell():
    """The notebook cell being run (IPython's execution count), None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return None if shell is None else getattr(shell, "execution_count", None)
