"""`python -m fastrain_lib.ui.fontcheck`: is the bundled Bengali font usable by matplotlib?

Exit 0 and say which font file matplotlib will use; exit 1 with the reason otherwise.
"""

from __future__ import annotations

import sys

from matplotlib import font_manager

from fastrain_lib.ui import plots


def main() -> int:
    plots.register_fonts()
    try:
        path = font_manager.findfont(plots.FONT_FAMILY, fallback_to_default=False)
    except ValueError as exc:
        print(f"✗ {exc}")
        return 1
    ok = plots.shaping_ok()
    print(f"✓ {plots.FONT_FAMILY}: {path}" + ("" if ok else " (matplotlib < 3.11: English plot labels)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
