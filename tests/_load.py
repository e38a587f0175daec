"""One busy core beside a lesson run, counting the work the machine already does (issue 29).

The loaded-lesson checks (tests/browser/test_lessons.py, tests/test_lessons_loaded.py) run a lesson
beside other work, as on a busy lab PC, so that its measurements come out noisy and the verdicts
must say so. noise.hog(1) burns a whole core for the whole run. In `make test` the other xdist worker
is already running a lesson or a test beside it, so the hog made a third load on two cores: a
lesson's 2-thread ops waited for a descheduled thread at every step (lesson 04: 25 s alone, 91 s
beside hog(1)), and the hogs of both workers took a core each for a third of the run.

`busy_core_beside()` starts one process that keeps the load of everything *outside this test's own
process tree* (the other worker, other programs, the hypervisor's steal) at one core at least: every
tick it burns the part of a core that the others left idle in the tick before, and sleeps when the
others already keep a core busy. Alone on a quiet machine it is noise.hog(1); beside a busy worker
it mostly sleeps, and the lesson still runs beside a busy core.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

TICK_S = 0.1

# The top-up process: python -c TOP_UP <root pid> <max seconds> <cores wanted> <tick seconds>.
TOP_UP = r"""
import os, sys, time
import psutil
from fastrain_lib.measure import noise

root, deadline, wanted = int(sys.argv[1]), time.monotonic() + float(sys.argv[2]), float(sys.argv[3])
tick, parent = float(sys.argv[4]), os.getppid()
tree = psutil.Process(root)  # the test's tree, this process included: what it burns is not "others"
before = noise.sample(tree)
while os.getppid() == parent and time.monotonic() < deadline:
    now = noise.sample(tree)
    load = noise.load_between(before, now)
    before = now
    burn = min(1.0, max(0.0, wanted - load["other_cores"] - load["steal_cores"])) * tick
    start = time.monotonic()
    while time.monotonic() - start < burn:
        pass
    time.sleep(max(0.0, tick - (time.monotonic() - start)))
"""


@contextlib.contextmanager
def busy_core_beside(*, max_seconds: float = 900.0, root: int | None = None, cores: float = 1.0):
    """Keep at least `cores` of other load on the machine while the block runs (see the module's text).

    `root`: the process whose tree is "ours" and not counted as load (default: this process, whose
    tree holds the kernel, the notebook server and the browser). Yields the top-up process; it stops
    when the block ends, after `max_seconds`, or when this process ends."""
    root = os.getpid() if root is None else root
    proc = subprocess.Popen([sys.executable, "-c", TOP_UP, str(root), str(max_seconds), str(cores), str(TICK_S)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield proc
        if proc.poll() is not None and proc.returncode != 0:  # crashed: the block ran without its load
            raise RuntimeError(f"the top-up load failed: {proc.stderr.read().decode()[-500:]}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        proc.stderr.close()
