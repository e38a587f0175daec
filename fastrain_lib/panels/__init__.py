"""Every lesson's experiment panel, one module per lesson (lesson00.py, lesson01.py, ...).

Each module defines `make() -> ExperimentPanel`. The lesson notebook shows it
(`lesson01.make().show()`); the instructor dashboard collects all of them through
`all_panels()`, so a new lesson's panel appears there without editing any list.
"""

from __future__ import annotations

import importlib
import pkgutil


def all_panels() -> dict[str, object]:
    """{'lesson00': module, ...} for every panel module, in lesson order."""
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("lesson"):
            found[info.name] = importlib.import_module(f"{__name__}.{info.name}")
    return found
