"""How lesson 04's verdict cells print their sentences (issue 38's sentence rule): `_say` takes the
(key, values, stands_on) lines a rule in verdicts.py picks and prints them with verdicts.say, one noisy
line per cell naming its rows by `row_label`."""

from __future__ import annotations

from fastrain_lib.lessons.l04_fused_kernels.tables import shown_name
from fastrain_lib.measure import noise


def _flat(items) -> list:
    if isinstance(items, (list, tuple, set)):
        return [x for item in items for x in _flat(item)]
    return [] if items is None else [items]


def noisy(items) -> bool:
    return any(noise.is_noisy(i) for i in items)


def _name(key: str) -> str:
    from fastrain_lib.core.i18n import t

    return t(key)


def row_label(record) -> str:
    """How a noisy line names one of this lesson's rows: short, in the names the tables use
    ('লুপ × 64', 'FP32 (TF32 বন্ধ)', 'হাতে-লেখা T=512'), not every parameter of the record."""
    from fastrain_lib.lessons.l04_fused_kernels.tables import stage_label, variant_label

    params = getattr(record, "params", None) or {}
    if "stage" in params:
        return stage_label(record) + (" (" + _name("lesson04.alone_short") + ")" if params.get("alone") else "")
    if "variant" in params and "seq" in params:
        return f"{variant_label(record)} T={params['seq']}"
    if "mode" in params and "batch" in params:
        return f"{params['mode']}, batch {params['batch']}"
    if "kernel" in params:
        return _name("lesson04.roof_row") + f" ({params['kernel']})"
    impl, _, n = str(getattr(record, "name", "")).partition(" × ")
    return f"{shown_name(impl)} × {n}" if n else str(getattr(record, "name", "?"))


def _infos(stands_on) -> list:
    """stands_on with each Record turned into its noise dict named by row_label (dicts pass as they are)."""
    out = []
    for item in _flat(stands_on):
        info = getattr(item, "noise", None) if not isinstance(item, dict) else item
        if isinstance(info, dict) and "verdict" in info:
            out.append({**info, "row": info.get("row") if isinstance(item, dict) else row_label(item)})
    return out


def _say(lines) -> None:
    """Print each (key, values, stands_on) with verdicts.say (issue 38's sentence rule):
    - a sentence standing on a noisy row gives way to ONE noisy line for the whole cell, which names
      every noisy row the cell's sentences stood on; later such sentences (and no_cause) add nothing;
    - when the cell printed that line, a sentence from quiet rows only carries the quiet mark on its line;
    - a sentence on no timing (a count, a formula) is printed as it is."""
    from fastrain_lib.core import verdicts
    from fastrain_lib.core.i18n import t

    every_item = list({id(item): item for _, _, stands_on in lines for item in _flat(stands_on)}.values())
    every_row = _infos(every_item)  # each measurement once, however many sentences stood on it
    noisy_rows = [i for i in every_row if noise.is_noisy(i)]
    lines = [(key, values, _infos(stands_on) if stands_on else ()) for key, values, stands_on in lines]
    warned = False
    for key, values, infos in lines:
        if infos and noisy(infos):
            if not warned:  # the one noisy line: all the rows the cell's sentences stood on, the noisy ones named
                verdicts.say(key, noise=every_row, **values)
                warned = True
            continue
        if infos and noisy_rows:  # a finding from quiet rows beside noisy ones says so on its line
            verdicts.say(t(key, **values) + f" ({t('noise.quiet_word')})", noise=infos)
        else:
            verdicts.say(key, noise=infos, **values)
