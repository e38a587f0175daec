"""One rerun at the quieter setting (issue 38), for the lessons whose measurements start real processes.

A verdict that stood on a noisy measurement ends with offer(): "the next cell measures once more". That
next cell is one line calling once(): when nothing was noisy it says so and measures nothing; otherwise it
waits up to wait_s() for the cores the measurement needs (another program's burst may pass). When they are
still taken it says so and measures nothing: by noise.verdict's own load rule the new numbers would be noisy
too, so measuring would only cost the student the time (and make test's CPU). When they are free it measures
once more, says the verdict on the new numbers, and, when they are noisy again, says plainly that this machine
is too busy to conclude anything now. Never a second rerun by itself: a lab PC that stays busy gets an honest
answer in one extra step instead of a loop; the student may run the cell again later.
"""

from __future__ import annotations

from fastrain_lib.core import config
from fastrain_lib.core.verdicts import say
from fastrain_lib.measure import noise

WAIT_S = 10.0  # on a lab PC; ci mode (the tests, always beside other work: one look) waits CI_WAIT_S
CI_WAIT_S = 0.5


def wait_s() -> float:
    """How long a rerun waits for free cores in this run mode."""
    return config.by_mode(ci=CI_WAIT_S, lab=WAIT_S, full=WAIT_S)


def offer(noisy: bool, cores: int = 1) -> None:
    """The verdict cell's last line when it stood on a noisy measurement (a line standing on no timing). None
    when the rerun needs more cores than the machine has: the rerun cell then says why it measures nothing."""
    if noisy and cores <= noise.cores():
        say("rerun.offer", noise=(), wait_s=wait_s())


def cores_ready(cores: int) -> bool:
    """Wait up to wait_s() for `cores` free cores and say what was found: False, with the line that says why
    nothing is measured, when they are still taken. noise.wait_for_cores applies noise.verdict's load rule
    (other programs' cores against the cores left free, with the same tolerance), so "not free" here is
    exactly "a measurement now would be noisy for load". More cores than the machine has: no wait, and the line
    that says so (the new numbers would be noisy for "threads" whatever the other programs do)."""
    if cores > noise.cores():
        say("rerun.too_few_cores", noise=(), cores=cores, have=noise.cores())
        return False
    free = noise.wait_for_cores(cores, wait_s())
    if free < cores:
        say("rerun.still_busy", noise=(), cores=cores, free=max(0, free), wait_s=wait_s())
        return False
    say("rerun.started", noise=(), cores=cores)
    return True


def once(noisy: bool, remeasure, say_verdict, still_noisy, *, cores: int):
    """The rerun cell: `remeasure()` once when `noisy` and `cores` cores are free (cores_ready), then
    `say_verdict(new)`, then the give-up line when `still_noisy(new)`. Returns the new result, or None
    when nothing was measured (the first measurement was quiet, or the cores are still taken)."""
    if not noisy:
        say("rerun.not_needed", noise=())
        return None
    if not cores_ready(cores):
        return None
    new = remeasure()
    say_verdict(new)
    if still_noisy(new):
        say("rerun.gave_up", noise=())
    return new
