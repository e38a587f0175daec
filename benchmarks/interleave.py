"""Compared variants measured interleaved, in rounds: A B C, A B C, A B C.

Measured one after another (all of A, then all of B), a burst of load that happens to fall
on B's turn makes B look slower and the speed-up wrong. Interleaved, each round sees every
variant under nearly the same conditions; the speed-up is the median of the per-round
ratios, and how much those ratios differ (their spread) says how far to trust it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from fastrain_lib.measure import bench, noise


def spread_of(values: list[float]) -> float | None:
    """(max - min) / median: with 3-5 rounds an IQR means little, the range says more."""
    if len(values) < 2:
        return None
    median = statistics.median(values)
    return (max(values) - min(values)) / median if median > 0 else None


def stable_spread(values: list[float]) -> float | None:
    """How much the round medians near *the* median differ: with 5 or more rounds the lowest
    and highest quarter are left out (one disturbed round cannot move a median of five, two
    cannot move a median of nine, so they should not make it noisy either); with fewer, the
    full range."""
    if len(values) >= 5:
        cut = len(values) // 4
        values = sorted(values)[cut:len(values) - cut]
    return spread_of(values)


def merge_noise(infos: list[dict], round_spread: float | None = None) -> dict:
    """One noise record for several rounds: the worst round's numbers (most other load) and
    every reason that occurred, with the count of noisy rounds.

    The record's value is the median of its round medians, which a minority of disturbed
    rounds cannot move (one burst in 1 of 5 rounds leaves the median where the 4 others put
    it). So the record is noisy when half of its rounds or more were noisy, or when its round
    medians themselves differ by more than noise.SPREAD_LIMIT (round_spread: stable_spread)."""
    infos = [i for i in infos if i]
    if not infos:
        return {}
    worst = dict(max(infos, key=lambda i: ((i.get("other_cores") or 0) + (i.get("steal_cores") or 0),
                                           i.get("spread") or 0)))
    noisy_rounds = sum(noise.is_noisy(i) for i in infos)
    reasons = sorted({r for i in infos for r in i.get("reasons", [])})
    unstable = round_spread is not None and round_spread > noise.SPREAD_LIMIT
    if unstable:
        reasons = sorted(set(reasons) | {"rounds"})
    noisy = 2 * noisy_rounds >= len(infos) or unstable
    worst["verdict"] = noise.NOISY if noisy else noise.QUIET
    worst["reasons"] = reasons if noisy else []
    worst["round_reasons"] = reasons  # what disturbed some rounds, even when the median held
    worst["rounds"] = len(infos)
    worst["noisy_rounds"] = noisy_rounds
    worst["round_spread"] = round_spread
    return worst


def combine(rounds: list[bench.Record]) -> bench.Record:
    """One record from the same variant's rounds: median of the round medians."""
    first = rounds[0]
    medians = [r.median_s for r in rounds]
    times = [t for r in rounds for t in r.times_s]
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [0.0, 0.0, 0.0]
    record = bench.Record(name=first.name, median_s=statistics.median(medians), iqr_s=q[2] - q[0], times_s=times,
                          params=dict(first.params), metrics=dict(first.metrics), meta=first.meta,
                          noise=merge_noise([r.noise for r in rounds], stable_spread(medians)))
    record.metrics["round_medians_s"] = medians
    record.metrics["round_spread"] = spread_of(medians)
    return record


def run(variants: dict[str, Callable[[], bench.Record]], rounds: int, *, baseline: str | None = None,
        log=None) -> dict[str, bench.Record]:
    """Measure every variant once per round, `rounds` times (A B C, A B C, ...).

    variants[name]() measures one round of one variant and returns its Record.
    With `baseline`: metrics['speedup'] = median over rounds of baseline time / variant time,
    'speedup_spread' = the range of those ratios over their median, 'speedup_rounds' = the ratios."""
    per_round: dict[str, list[bench.Record]] = {name: [] for name in variants}
    for index in range(max(1, rounds)):
        for name, measure_once in variants.items():
            per_round[name].append(measure_once())
        if log:
            log(f"  round {index + 1}/{rounds}: " + ", ".join(
                f"{name} {per_round[name][-1].median_s * 1e3:.3g} ms" for name in variants))
    combined = {name: combine(records) for name, records in per_round.items()}
    if baseline is not None:
        for name, record in combined.items():
            ratios = [b.median_s / v.median_s for b, v in zip(per_round[baseline], per_round[name])]
            record.metrics["speedup"] = statistics.median(ratios)
            record.metrics["speedup_spread"] = spread_of(ratios)
            record.metrics["speedup_rounds"] = ratios
            record.params["baseline"] = baseline
    return combined
