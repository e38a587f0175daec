"""Progress bars with Bengali descriptions (tqdm.auto: a widget in Jupyter, text elsewhere)."""

from __future__ import annotations

from tqdm.auto import tqdm

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t


def progress(iterable=None, key: str = "progress.working", total: int | None = None, **values):
    """tqdm over `iterable`, described by the catalog message `key`.

    Quiet in ci mode unless asked: nbval output stays short."""
    return tqdm(iterable, desc=t(key, **values), total=total, leave=False, disable=config.is_ci())
