"""tests/_load.py: the top-up load keeps one core busy beside a lesson, counting what others already burn.

Each assertion holds whatever else runs on the machine (CI runs another worker beside us): more
load from others only makes the top-up burn less, and the sum it guarantees is a lower bound."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest
from _load import busy_core_beside

from fastrain_lib.measure import noise

# A busy process outside our process tree: `sh` starts it in the background and exits, so it is
# re-parented away from us and counts as another program's load.
_BURNER = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"


def _outside_burner(seconds: float) -> psutil.Process:
    out = subprocess.run(["sh", "-c", f'{sys.executable} -c "{_BURNER.format(seconds=seconds)}" >/dev/null 2>&1 & echo $!'],
                         capture_output=True, text=True, check=True, start_new_session=True)
    burner = psutil.Process(int(out.stdout.strip()))
    assert burner.pid not in {c.pid for c in psutil.Process().children(recursive=True)}
    return burner


def _loads_over(top_up, seconds: float) -> tuple[float, float]:
    """(cores the top-up burned, cores everything outside our tree burned, the top-up included)."""
    top = psutil.Process(top_up.pid)
    top_before, start = sum(top.cpu_times()[:2]), noise.sample()
    time.sleep(seconds)
    top_after, end = sum(top.cpu_times()[:2]), noise.sample()
    load = noise.load_between(start, end)  # the top-up is our child: in our tree, not in "other"
    top_cores = (top_after - top_before) / load["window_s"]
    return top_cores, load["other_cores"] + load["steal_cores"] + top_cores


@pytest.mark.slow
def test_the_top_up_keeps_one_core_busy_and_sleeps_while_another_program_does():
    with busy_core_beside(max_seconds=60) as top_up:
        time.sleep(0.5)
        _top, total = _loads_over(top_up, 2.0)
        assert total >= 0.8, f"with the top-up, other work kept only {total:.2f} cores busy (wanted 1)"
        burner = _outside_burner(8)
        try:
            time.sleep(0.5)
            top_beside, total_beside = _loads_over(top_up, 2.0)
        finally:
            burner.kill()
        assert total_beside >= 0.8
        assert top_beside <= 0.35, (f"beside another program's busy core the top-up still burned "
                                    f"{top_beside:.2f} cores (it should mostly sleep)")
        time.sleep(0.5)
        _top, total_after = _loads_over(top_up, 2.0)
        assert total_after >= 0.8, f"after the other program stopped, the top-up kept only {total_after:.2f} cores busy"
    assert top_up.poll() is not None, "the top-up load outlived its block"
