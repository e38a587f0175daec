"""One package per lesson: lNN_<topic>/ holds that lesson's panel, verdict rules, exercise
checks and messages (bn + en). See docs/architecture.md for the whole tree.

Each lesson's `panel.py` defines `make() -> ExperimentPanel`. The instructor dashboard finds
every panel through `panel_names()`, so a new lesson's panel appears there without editing a list.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path


def lesson_packages() -> list[str]:
    """['l00_setup', 'l01_gpu_vs_cpu', ...]: every lesson package, in lesson order."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__)
                  if info.ispkg and info.name[:1] == "l" and info.name[1:3].isdigit())


def panel_names() -> dict[str, str]:
    """{'lesson00': 'fastrain_lib.lessons.l00_setup.panel', ...} for every lesson with a panel."""
    here = Path(__file__).parent
    return {"lesson" + pkg[1:].split("_")[0]: f"{__name__}.{pkg}.panel"
            for pkg in lesson_packages() if (here / pkg / "panel.py").exists()}
