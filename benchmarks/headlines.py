"""The headline figures of a run, as a compact table, and how well two runs agree.

    python -m benchmarks --compare A.json B.json    # agreement per figure; exit 1 if any differs > 25%

Headlines (the numbers the course's claims rest on): the matmul peak per format, the memory
bandwidth (best streaming kernel), the AdamW and LayerNorm step times, and the AMP and ablation speed-ups. Two
back-to-back runs on a quiet machine should agree within AGREEMENT on every one of them.
"""

from __future__ import annotations

import json
from pathlib import Path

AGREEMENT = 1.25  # larger / smaller of the two runs' values


def _rows(records: list[dict]) -> list[tuple[str, float, str, float | None, bool]]:
    """(figure, value, unit, share of the ceiling or None, noisy) for one run's records."""
    rows: dict[str, tuple] = {}
    for r in records:
        params, metrics, family = r.get("params", {}), r.get("metrics", {}), r.get("params", {}).get("family")
        noisy = (r.get("noise") or {}).get("verdict") == "noisy"
        if family == "matmul" and params.get("format"):
            key = f"matmul peak {params['format']}"
            if key not in rows or metrics.get("gflops", 0) > rows[key][0]:
                rows[key] = (metrics.get("gflops", 0.0), "GFLOP/s", metrics.get("share_of_peak"), noisy)
        elif family == "copy" and "pinned" not in params:
            if "memory bandwidth" not in rows or metrics.get("gbs", 0) > rows["memory bandwidth"][0]:
                rows["memory bandwidth"] = (metrics.get("gbs", 0.0), "GB/s", metrics.get("share_of_bandwidth"), noisy)
        elif family == "optim":
            rows[f"adamw {params.get('impl')} time"] = (r["median_s"] * 1e3, "ms", metrics.get("share_of_bandwidth"), noisy)
        elif family == "layernorm":
            rows[f"layernorm {params.get('impl')} time"] = (r["median_s"] * 1e3, "ms",
                                                            metrics.get("share_of_bandwidth"), noisy)
        elif family == "amp" and params.get("precision") != params.get("baseline"):
            rows[f"amp {params.get('precision')} speed-up"] = (metrics.get("speedup"), "×",
                                                               metrics.get("share_of_peak"), noisy)
        elif family == "ablation" and params.get("stage") != params.get("baseline"):
            rows[f"ablation {params.get('stage')} speed-up"] = (metrics.get("speedup"), "×",
                                                                metrics.get("share_of_peak"), noisy)
    return [(name, *values) for name, values in rows.items() if isinstance(values[0], (int, float))]


def headlines(records: list[dict]) -> dict[str, float]:
    """{figure: value} of one run's records (dicts, as in the JSON file)."""
    return {name: value for name, value, *_ in _rows(records)}


def table(records: list[dict]) -> str:
    """A compact text table of the headline figures, with the share of this machine's ceiling."""
    lines = [f"{'figure':34s} {'value':>12s} {'unit':8s} {'of ceiling':>10s}  verdict"]
    for name, value, unit, share, noisy in _rows(records):
        share_text = f"{100 * share:.1f}%" if isinstance(share, (int, float)) else "—"
        lines.append(f"{name:34s} {value:12.4g} {unit:8s} {share_text:>10s}  {'NOISY' if noisy else 'quiet'}")
    return "\n".join(lines)


def load(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def agreement(a: dict[str, float], b: dict[str, float]) -> list[tuple[str, float | None, float | None, float | None]]:
    """(figure, value in A, value in B, larger/smaller) for every figure in either run."""
    found = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        ratio = max(x, y) / min(x, y) if x and y and x > 0 and y > 0 else None
        found.append((name, x, y, ratio))
    return found


def compare(path_a: str | Path, path_b: str | Path, out=print) -> int:
    """Print how two runs agree on every headline figure; 0 if all agree within AGREEMENT."""
    runs = [load(path_a), load(path_b)]
    rows = agreement(*(headlines(run["records"]) for run in runs))
    out(f"A = {path_a} ({runs[0].get('run', {}).get('verdict', '?')})")
    out(f"B = {path_b} ({runs[1].get('run', {}).get('verdict', '?')})")
    out(f"{'figure':34s} {'A':>11s} {'B':>11s} {'larger/smaller':>15s}")
    bad = 0
    for name, x, y, ratio in rows:
        ok = ratio is not None and ratio <= AGREEMENT
        bad += not ok
        shown = "missing" if ratio is None else f"{ratio:.3f}"
        out(f"{name:34s} {x if x is not None else float('nan'):11.4g} {y if y is not None else float('nan'):11.4g} "
            f"{shown:>15s} {'✓' if ok else '✗'}")
    worst = max((r for *_, r in rows if r is not None), default=None)
    out(f"{len(rows) - bad}/{len(rows)} figures agree within {100 * (AGREEMENT - 1):.0f}%"
        + (f"; the largest difference is {100 * (worst - 1):.1f}%" if worst else ""))
    return 0 if rows and not bad else 1
