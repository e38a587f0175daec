"""Can this timing be trusted? Noise measured beside every measurement, and a verdict.

A timing is only as good as the machine was quiet while it ran. Two things spoil it:

- **Other work on the same cores.** While we measure, other programs (or the hypervisor,
  as "steal" time on a virtual machine) use some cores. If they need more cores than our
  measurement leaves free, our threads wait. With OpenMP (PyTorch's CPU threads) it is
  worse than a fair share: a thread team waits for its slowest thread, so one
  descheduled thread stalls all of them (on a 2-core machine a small matmul went from
  345 to 4.6 GFLOP/s beside a light test run).
- **Repeats that disagree.** torch.utils.benchmark times the work in repeated blocks; when
  the blocks differ a lot (IQR / median), the median is not a stable number.

`Window` reads the CPU counters of the whole machine (Linux /proc/stat through psutil:
busy and steal time) and of our own process tree at the start and end of a measurement;
the difference is the load others put on the machine *during* the window, in cores.
(The 1-minute load average is recorded too, but it lags by a minute, so it decides nothing.)
`verdict()` turns those numbers into "quiet" or "noisy" with the reasons: a pure function,
tested on tables of numbers. `sentence()` says in Bengali (or English) what is wrong, by how
much and what to do. `hog()` starts a real background load, for the lesson and the tests.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import psutil

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t

# Other load (cores) tolerated beyond the cores the measurement leaves free: a quarter of a
# core covers the short bursts every desktop has (a clock tick, a terminal redraw).
CORE_TOLERANCE = 0.25
# Blocks may differ this much (IQR / median) before the median stops meaning much.
SPREAD_LIMIT = 0.25
# why a record is noisy -> its sentence ("rounds" is the merged verdict of interleaved records)
REASON_KEYS = {"load": "noise.reason.load", "threads": "noise.reason.threads", "spread": "noise.reason.spread",
               "rounds": "noise.reason.rounds", "recompile": "noise.reason.recompile"}
# Fewer repeats than this say nothing about spread (an IQR of 2 numbers is not a spread).
MIN_REPEATS = 4
# Per-step times are judged in about this many blocks of consecutive steps (from_steps).
STEP_BLOCKS = 8

QUIET, NOISY = "quiet", "noisy"


def cores() -> int:
    """Logical CPUs the OS schedules on (what 'load' is measured against)."""
    return psutil.cpu_count(logical=True) or os.cpu_count() or 1


# ---------------------------------------------------------------- reading the counters


@dataclass(frozen=True)
class Sample:
    """CPU seconds counted so far: the whole machine, and our own process tree."""

    wall: float  # time.monotonic()
    busy: float  # all cores: user + nice + system + irq + softirq (guest is inside user)
    steal: float  # time a hypervisor gave our virtual CPUs to someone else
    own: float  # this process, its finished children, and its live descendants
    tree: tuple  # ((pid, create_time, cpu seconds), ...) of live descendants


def _proc_seconds(proc: psutil.Process) -> float:
    """A live descendant's CPU seconds, with those of the children it has reaped: a forkserver (the
    launcher's default on Linux) forks the ranks and reaps them, so a rank that ended inside the window
    is only in its forkserver's children_* times; without them every finished rank counted as another
    program's load, and every multi-process measurement was noisy on a quiet machine (issue 38)."""
    times = proc.cpu_times()
    return times.user + times.system + getattr(times, "children_user", 0.0) + getattr(times, "children_system", 0.0)


def _descendants(root: psutil.Process) -> tuple:
    """Live child processes (DDP workers, compile workers), except our own hogs: a hog
    stands for somebody else's program, so its load counts as 'other'."""
    found = []
    hogs = {proc.pid for proc in _live_hogs}
    for child in root.children(recursive=True):
        if child.pid in hogs:
            continue
        with contextlib.suppress(psutil.Error):
            found.append((child.pid, child.create_time(), _proc_seconds(child)))
    return tuple(found)


def sample(root: psutil.Process | None = None) -> Sample:
    """Read the counters now (a few /proc reads: cheap next to any measurement). `root`: the process
    whose tree counts as ours (default: this one; the tests' background load counts a test's tree)."""
    root = root or psutil.Process()
    total = psutil.cpu_times()
    busy = total.user + total.nice + total.system + getattr(total, "irq", 0.0) + getattr(total, "softirq", 0.0)
    mine = root.cpu_times()
    own = mine.user + mine.system + mine.children_user + mine.children_system  # finished children included
    tree = _descendants(root)
    return Sample(time.monotonic(), busy, getattr(total, "steal", 0.0), own + sum(c[2] for c in tree), tree)


def _own_delta(start: Sample, end: Sample) -> float:
    """Our tree's CPU seconds between two samples. A child that started during the window
    counts all its time; one that ended was reaped into children_* (counted in `own`)."""
    before = {(pid, created): seconds for pid, created, seconds in start.tree}
    live_end = sum(s - before.get((pid, c), 0.0) for pid, c, s in end.tree)
    self_end = end.own - sum(s for _, _, s in end.tree)
    self_start = start.own - sum(s for _, _, s in start.tree)
    return max(0.0, (self_end - self_start) + live_end)


def load_between(start: Sample, end: Sample, *, n_cores: int | None = None) -> dict:
    """What happened on the machine between two samples, in cores (1.0 = one core busy)."""
    wall = max(end.wall - start.wall, 1e-6)
    n_cores = n_cores or cores()
    own = _own_delta(start, end) / wall
    busy = max(0.0, end.busy - start.busy) / wall
    steal = max(0.0, end.steal - start.steal) / wall
    # Counters tick 100 times a second: clip what rounding makes impossible.
    other = min(max(0.0, busy - own), float(n_cores))
    return {"window_s": round(wall, 4), "cores": n_cores, "own_cores": round(own, 3),
            "other_cores": round(other, 3), "steal_cores": round(min(steal, n_cores), 3)}


class Window:
    """Counters around a measurement:

        with noise.Window() as window:
            ...measure...
        info = window.assess(threads=2, spread=0.03, repeats=10)
    """

    def __enter__(self) -> Window:  # noqa: PYI034 - Python 3.10 has no typing.Self
        self.start = sample()
        self.end: Sample | None = None
        return self

    def __exit__(self, *exc) -> None:
        self.end = sample()

    def assess(self, *, threads: int, spread: float | None = None, repeats: int = 0,
               threads_wanted: int | None = None) -> dict:
        """The noise information of one measurement: load, threads, spread and the verdict.
        threads_wanted: torch's own thread count when the measurement used fewer to fit the free cores."""
        info = load_between(self.start, self.end or sample())
        if threads_wanted and threads_wanted > threads:
            info["threads_wanted"] = int(threads_wanted)
        info.update(threads=int(threads), repeats=int(repeats),
                    spread=None if spread is None else round(float(spread), 4),
                    loadavg_1m=round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None)
        info["cores_free"] = round(max(0.0, info["cores"] - info["other_cores"] - info["steal_cores"]), 3)
        info["verdict"], info["reasons"] = verdict(info)
        verdicts.note_measurement(info)  # a later verdict sentence must not explain it if it is noisy
        return info


# ---------------------------------------------------------------- the verdict (pure)


def verdict(info: dict) -> tuple[str, list[str]]:
    """("quiet" | "noisy", reasons) from the numbers of one measurement.

    Reasons: "load" — other work (other programs + steal) needed more cores than the
    measurement left free; "threads" — the measurement itself asked for more threads than
    there are cores; "spread" — the repeats disagree by more than SPREAD_LIMIT; "recompile" —
    torch.compile compiled again while the steps were being timed."""
    n_cores, threads = info.get("cores") or cores(), max(1, int(info.get("threads") or 1))
    reasons = []
    others = (info.get("other_cores") or 0.0) + (info.get("steal_cores") or 0.0)
    if others > max(0, n_cores - threads) + CORE_TOLERANCE:
        reasons.append("load")
    if threads > n_cores:
        reasons.append("threads")
    spread = info.get("spread")
    if spread is not None and info.get("repeats", 0) >= MIN_REPEATS and spread > SPREAD_LIMIT:
        reasons.append("spread")
    if info.get("recompiles"):
        reasons.append("recompile")
    return (NOISY if reasons else QUIET), reasons


def rejudge(info: dict) -> dict:
    """`info` (a run's load with a row's own spread) judged again, in place, and noted for say()'s audit log."""
    info["verdict"], info["reasons"] = verdict(info)
    verdicts.note_measurement(info)
    return info


def from_times(times_s: list[float]) -> tuple[float | None, int]:
    """(IQR / median, repeats) of per-step or per-block times (None when there are < 2)."""
    import statistics

    if len(times_s) < 2:
        return None, len(times_s)
    q = statistics.quantiles(times_s, n=4)
    median = statistics.median(times_s)
    return ((q[2] - q[0]) / median if median > 0 else None), len(times_s)


def from_steps(times_s: list[float]) -> tuple[float | None, int, int]:
    """(spread, blocks, steps per block): IQR / median of the mean times of about STEP_BLOCKS blocks of consecutive
    steps, as torch.utils.benchmark judges its blocks. Single 3 ms DDP steps on a quiet 2-core PC spread 30-35% by
    scheduler ticks, blocks of 3 of the same run 6-18%; a slow stretch of the run still spreads the blocks."""
    times = list(times_s)
    per_block = max(1, len(times) // STEP_BLOCKS)
    blocks = [sum(times[i:i + per_block]) / per_block for i in range(0, len(times) - per_block + 1, per_block)]
    spread, count = from_times(blocks)
    return spread, count, per_block


def is_noisy(info: dict | None) -> bool:
    return bool(info) and info.get("verdict") == NOISY


def suggested_threads(info: dict) -> int:
    """The threads that would fit in the cores left free (at least 1)."""
    return max(1, min(int(info.get("threads") or 1), int(info.get("cores_free") or 0)))


def free_cores_now(seconds: float = 0.2) -> float:
    """The cores other programs leave free over a short look (`seconds`, not counted as a measurement), with
    the verdict's tolerance: a measurement needing k cores is noisy for load exactly when this is below k."""
    start = sample()
    time.sleep(seconds)
    other = load_between(start, sample())
    return other["cores"] - other["other_cores"] - other["steal_cores"] + CORE_TOLERANCE


def threads_that_fit(wanted: int, *, seconds: float = 0.2) -> int:
    """How many of `wanted` CPU threads fit beside the other work running now (at least 1). A thread team
    larger than the free cores waits for its descheduled member at every step (the capstone trained
    10× slower in a Jupyter kernel with 2 threads beside one busy core, 2026-12-02)."""
    return suggested_threads({"threads": wanted, "cores_free": free_cores_now(seconds)})


def wait_for_cores(needed: int, max_s: float = 10.0) -> int:
    """Wait (up to max_s) until `needed` cores are free beside other programs; the whole cores free at the
    end (0 to `needed`). A rerun waits here first: another program's burst may pass in a few seconds (issue 38)."""
    deadline = time.monotonic() + max_s
    free = int(max(0.0, free_cores_now()))
    while free < needed and time.monotonic() < deadline:
        free = int(max(0.0, free_cores_now(seconds=0.5)))
    return min(free, needed)


_LOOK_S, _LOOK_VALID_S = 0.1, 2.0  # one short look at the load serves the measurements of the next 2 s
_last_look: dict = {"at": -1e9, "free": None}


def free_threads(wanted: int) -> int:
    """threads_that_fit, looking again only when the last look is older than 2 s: bench.measure
    asks before every CPU measurement, and a lesson takes dozens of them in a few seconds."""
    now = time.monotonic()
    if now - _last_look["at"] > _LOOK_VALID_S:
        start = sample()
        time.sleep(_LOOK_S)
        other = load_between(start, sample())
        _last_look.update(at=time.monotonic(),
                          free=other["cores"] - other["other_cores"] - other["steal_cores"] + CORE_TOLERANCE)
    return suggested_threads({"threads": wanted, "cores_free": _last_look["free"]})


# ---------------------------------------------------------------- saying it


def sentence(info: dict | None, lang: str | None = None) -> str:
    """What is wrong, by how much, and what to do — or that the measurement was quiet.

    An empty string for a record without noise information (saved before schema 2)."""
    if not info or "verdict" not in info:
        return ""
    values = {"other": info.get("other_cores") or 0.0, "steal": info.get("steal_cores") or 0.0,
              "cores": info.get("cores"), "threads": info.get("threads"), "free": info.get("cores_free") or 0.0,
              "spread": info.get("spread") or 0.0, "limit": SPREAD_LIMIT, "repeats": info.get("repeats"),
              "recompiles": info.get("recompiles") or 0, "rounds": info.get("rounds") or 0,
              "round_spread": info.get("round_spread") or 0.0, "suggest": suggested_threads(info),
              "block_steps": info.get("block_steps") or 1}
    if info["verdict"] != NOISY:
        return t("noise.quiet", lang, **values)
    parts = [t("noise.noisy", lang)]
    for reason in info.get("reasons", []):
        key = "noise.reason.steal" if reason == "load" and values["steal"] >= values["other"] else REASON_KEYS[reason]
        key = "noise.reason.spread_blocks" if reason == "spread" and values["block_steps"] > 1 else key
        parts.append(t(key, lang, **values))
    parts.append(t("noise.todo", lang, **values))
    return " ".join(parts)


def summary(records, lang: str | None = None) -> str:
    """One sentence for a set of records: '' when all are quiet (or have no information),
    else how many are noisy and the sentence of the worst one (most load, then spread)."""
    noisy = [r for r in records if is_noisy(getattr(r, "noise", None))]
    if not noisy:
        return ""
    worst = max(noisy, key=lambda r: ((r.noise.get("other_cores") or 0) + (r.noise.get("steal_cores") or 0),
                                      r.noise.get("spread") or 0))
    head = t("noise.summary", lang, noisy=len(noisy), total=len(records), name=worst.name)
    return head + " " + sentence(worst.noise, lang)


def speed_words(speedup: float, lang: str | None = None) -> str:
    """A speed ratio (new speed / old speed) in words, right on both sides of 1: 1.4 -> "1.4× faster",
    0.7 -> "1.4× slower" (never "0.7× faster"), 0.98 -> "about as fast" (the same at one decimal)."""
    if not speedup > 0 or speedup == float("inf"):
        return "?"
    key, n = ("noise.ratio_faster", speedup) if speedup >= 1 else ("noise.ratio_slower", 1 / speedup)
    return t("noise.ratio_same", lang) if f"{n:.1f}" == "1.0" else t(key, lang, n=n)


def load_verdict(quiet_all, busy_all, quiet_one, busy_one) -> tuple[str, dict]:
    """(catalog key, values) for lesson 01's verdict on the same matmul measured quiet and
    beside a background load, with all threads and with one (bench Records with gflops).
    slow_all/slow_one: quiet speed / loaded speed; all_phrase/one_phrase say it in words
    (a ratio below 1 — faster beside the load — is said as "N× faster", never "0.7× slower")."""
    slow_all = quiet_all.metrics["gflops"] / busy_all.metrics["gflops"]
    slow_one = quiet_one.metrics["gflops"] / busy_one.metrics["gflops"]
    word = {QUIET: t("noise.quiet_word"), NOISY: t("noise.noisy_word")}
    values = {"threads": busy_all.noise.get("threads", 1), "slow_all": slow_all, "slow_one": slow_one,
              "all_phrase": speed_words(1 / slow_all), "one_phrase": speed_words(1 / slow_one),
              "busy_verdict": word.get(busy_all.noise.get("verdict"), "?"),
              "quiet_verdict": word.get(quiet_all.noise.get("verdict"), "?")}
    if values["threads"] <= 1:
        return "noise.verdict_one_core", values
    if is_noisy(quiet_all.noise) or is_noisy(quiet_one.noise):
        # busy before our load started: say so rather than explain a comparison that has no quiet side
        values["all_vs_one"] = quiet_one.metrics["gflops"] / quiet_all.metrics["gflops"]
        values["one_vs_all_phrase"] = speed_words(values["all_vs_one"])
        return "noise.verdict_busy_already", values
    if slow_all > 1.5 and slow_all > 1.5 * slow_one:
        return "noise.verdict_collapse", values
    return "noise.verdict_mild", values


# ---------------------------------------------------------------- a real background load

# The hog keeps one core busy until its parent goes away or its time is up, so it can
# never outlive the notebook or test that started it, even after a crash.
_HOG_CODE = """
import os, sys, time
parent, deadline = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while os.getppid() == parent and time.monotonic() < deadline:
    for _ in range(200_000):
        pass
"""
_live_hogs: list[subprocess.Popen] = []


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if proc in _live_hogs:
            _live_hogs.remove(proc)


atexit.register(lambda: _stop(list(_live_hogs)))


@contextlib.contextmanager
def hog(processes: int = 1, *, max_seconds: float = 300.0):
    """Keep `processes` cores busy with real processes while the block runs; always stops them.

        with noise.hog():          # one busy core, like a browser tab playing a video
            bench.matmul(512)      # measured beside it

    Yields the list of processes (Popen). Each stops by itself after `max_seconds` or when
    this Python process ends."""
    procs = [subprocess.Popen([sys.executable, "-c", _HOG_CODE, str(os.getpid()), str(max_seconds)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(max(1, int(processes)))]
    _live_hogs.extend(procs)
    try:
        _wait_until_busy(procs)
        yield procs
    finally:
        _stop(procs)


def _wait_until_busy(procs: list[subprocess.Popen], timeout: float = 10.0) -> None:
    """Return once every hog has really started burning CPU (Python takes a moment to start)."""
    deadline = time.monotonic() + timeout
    for proc in procs:
        while time.monotonic() < deadline:
            try:
                if _proc_seconds(psutil.Process(proc.pid)) >= 0.05 or proc.poll() is not None:
                    break
            except psutil.Error:
                break
            time.sleep(0.02)
