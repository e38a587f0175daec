"""One rerun at the quieter setting (issue 38), for the lessons whose measurements start real processes.

A verdict that stood on a noisy measurement ends with offer(): "the next cell measures once more". That
next cell is one line calling once(): when nothing was noisy it says so and measures nothing; otherwise it
waits up to wait_s() for the cores the measurement needs (another program's burst may pass), measures once
more, says the verdict on the new numbers, and, when they are noisy again, says plainly that this machine
is too busy to conclude anything now. Never a second rerun: a lab PC that stays busy gets an honest answer
in one extra step instead of a loop.
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


def offer(noisy: bool) -> None:
    """The verdict cell's last line when it stood on a noisy measurement (a line standing on no timing)."""
    if noisy:
        say("rerun.offer", noise=(), wait_s=wait_s())


def once(noisy: bool, remeasure, say_verdict, still_noisy, *, cores: int):
    """The rerun cell: `remeasure()` once (after waiting for `cores` free cores) when `noisy`, then
    `say_verdict(new)`, then the give-up line when `still_noisy(new)`. Returns the new result, or None
    when the first measurement was quiet (nothing measured)."""
    if not noisy:
        say("rerun.not_needed", noise=())
        return None
    free = noise.wait_for_cores(cores, wait_s())
    say("rerun.started", noise=(), cores=cores, free=max(0, min(free, cores)))
    new = remeasure()
    say_verdict(new)
    if still_noisy(new):
        say("rerun.gave_up", noise=())
    return new
