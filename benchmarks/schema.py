"""What a results file of the suite must contain; used by tests/test_benchmarks.py and
`python -m benchmarks --check FILE...` (run it before contributing a file to reference/).

A file for reference/ must be a quiet run: every record carries its noise information
(fastrain_lib.measure.noise) and the run's verdict is "quiet". Its numbers must also agree with
themselves: each rate is re-derived from the record's median time and checked against the
ceilings measured in the same run, so a hand-edited or mislabelled number is caught.

This module imports nothing heavy (no torch): the suite imports it, never the other way round.
"""

from __future__ import annotations

import json
import math
import re
import socket
from pathlib import Path

from . import FAMILIES

SCHEMA = 2  # fastrain_lib.measure.bench.SCHEMA_VERSION of the files this validator accepts
NAME = re.compile(r"^[a-z0-9-]+_\d{8}-\d{4}_(ci|lab|full)\.json$")
META_KEYS = {"os", "python", "torch", "cuda_version", "cpu_name", "cpu_cores", "devices", "mode", "date", "schema"}
RUN_KEYS = {"suite_version", "command", "argv", "started", "duration_s", "device", "mode", "families", "meta", "log",
            "threads", "ceilings", "verdict", "noise"}
NOISE_KEYS = {"verdict", "reasons", "cores", "threads", "other_cores", "steal_cores", "window_s"}
STATUSES = {"ok", "skipped", "failed"}
ALLOWED_IN_REFERENCE = {".json", ".log"}
# A measured FLOP rate may beat its ceiling by this much (the ceiling is itself a measurement).
CEILING_SLACK = 1.15
# Bytes moved by an optimizer step or a LayerNorm are a lower-bound estimate and caches can beat
# the memory bandwidth (measured with streaming kernels): only absurd shares are errors.
BANDWIDTH_SLACK = 3.0


def hardware_slug(meta: dict) -> str:
    """'nvidia-h100-80gb-hbm3' or 'cpu-intel-xeon-platinum-8481c-2c': what ran, no host name."""
    if meta.get("gpu_name"):
        name = meta["gpu_name"] + (f" x{meta['gpu_count']}" if meta.get("gpu_count", 1) > 1 else "")
    else:
        name = f"cpu {meta.get('cpu_name', 'unknown')} {meta.get('cpu_cores', '?')}c"
    name = re.sub(r"\((r|tm)\)|cpu @.*?ghz", " ", name.lower())
    return re.sub(r"[^a-z0-9]+", "-", name).strip("-")[:60]


def is_reference_dir(folder: str | Path) -> bool:
    """True for the course's reference/ folder (or any folder named 'reference'): only quiet
    runs may be written there."""
    return Path(folder).resolve().name == "reference"


def _close(a: float, b: float, rel: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def derived_problems(record: dict, ceilings: dict) -> list[str]:
    """Re-derive a record's rates from its median time and check them against the ceilings."""
    found = []
    name, median, params, metrics = record.get("name"), record.get("median_s"), record.get("params", {}), \
        record.get("metrics", {})
    if not isinstance(median, (int, float)) or median <= 0:
        return found
    where = f"record {name!r}"
    family = params.get("family")
    if family == "matmul" and "size" in params and "gflops" in metrics:
        expected = 2 * params["size"] ** 3 / median / 1e9
        if not _close(metrics["gflops"], expected):
            found.append(f"{where}: gflops {metrics['gflops']:.4g} is not 2·n³/median_s = {expected:.4g}")
    if family == "copy" and "numel" in params and "gbs" in metrics and "pinned" not in params:
        bytes_per = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}.get(params.get("dtype", "float32"), 4)
        # params['bytes'] (what the kernel reads + writes) since the four kernels; before, copies only
        moved = params.get("bytes", 2 * params["numel"] * bytes_per)
        expected = moved / median / 1e9
        if not _close(metrics["gbs"], expected):
            found.append(f"{where}: gbs {metrics['gbs']:.4g} is not bytes moved / median_s = {expected:.4g}")
    if "tokens_per_s" in metrics and "tokens_per_step" in metrics and family in ("amp", "compile", "ablation"):
        expected = metrics["tokens_per_step"] / median
        if not _close(metrics["tokens_per_s"], expected):
            found.append(f"{where}: tokens_per_s {metrics['tokens_per_s']:.4g} is not tokens/median_s = {expected:.4g}")
    for share, slack in (("share_of_peak", CEILING_SLACK), ("share_of_bandwidth", BANDWIDTH_SLACK)):
        value = metrics.get(share)
        if value is not None and not (0 < value <= slack):
            found.append(f"{where}: {share} = {value:.3g} is outside (0, {slack}] of this run's measured ceiling")
    peaks = (ceilings or {}).get("matmul_gflops", {})
    found += mfu_problems(where, params, metrics, peaks)
    fmt = params.get("format")
    if family == "matmul" and fmt in peaks and metrics.get("gflops", 0) > peaks[fmt] * (1 + 1e-9):
        found.append(f"{where}: {metrics['gflops']:.4g} GFLOP/s is above the run's {fmt} ceiling {peaks[fmt]:.4g}")
    return found


# A measured MFU peak must be the run's own matmul ceiling (the better of the record's format
# and fp32, as hardware.peak picks), within this factor: both are measurements of one machine.
MFU_PEAK_SLACK = 1.3


def training_peak_gflops(params: dict, peaks: dict) -> float:
    """The run's measured matmul ceiling a training record's MFU divides by: the better of its
    format's and fp32's (hardware.peak's rule; ceilings.peak_for says the same for the suite)."""
    return max((peaks.get(k) or 0) for k in (params.get("precision", "fp32"), "fp32"))


def mfu_problems(where: str, params: dict, metrics: dict, peaks: dict) -> list[str]:
    """A training record's MFU: tokens/s × FLOPs per token ÷ its peak, and, where that peak was
    measured (a CPU), the peak must be what the same run measured with all its threads. A peak
    timed on one thread (torch.utils.benchmark.Timer's default) made a 2-core CPU's MFU read 2×."""
    found = []
    mfu, peak = metrics.get("mfu"), metrics.get("peak_flops")
    tokens, flops = metrics.get("tokens_per_s"), metrics.get("flops_per_token")
    if mfu is None or not peak or not tokens or not flops:
        return found
    expected = tokens * flops / peak
    if not _close(mfu, expected):
        found.append(f"{where}: mfu {mfu:.4g} is not tokens_per_s × flops_per_token ÷ peak_flops = {expected:.4g}")
    if metrics.get("peak_kind") == "measured":
        ceiling = training_peak_gflops(params, peaks) * 1e9
        if ceiling and not (1 / MFU_PEAK_SLACK <= peak / ceiling <= MFU_PEAK_SLACK):
            found.append(f"{where}: its MFU divides by {peak / 1e9:.4g} GFLOP/s, but this run's measured matmul "
                         f"ceiling is {ceiling / 1e9:.4g} GFLOP/s")
    return found


def problems(path: str | Path) -> list[str]:
    """Everything wrong with one results file ([] when it is valid for reference/)."""
    path = Path(path)
    found: list[str] = []
    if not NAME.match(path.name):
        found.append(f"file name {path.name!r} is not <hardware>_<YYYYmmdd-HHMM>_<mode>.json")
    try:
        text = path.read_text(encoding="utf-8")
        payload = json.loads(text)
    except (OSError, ValueError) as exc:
        return found + [f"not readable JSON: {exc}"]
    if payload.get("schema") != SCHEMA:
        found.append(f"schema is {payload.get('schema')!r}, expected {SCHEMA} (older files have no noise information)")
    run = payload.get("run")
    if not isinstance(run, dict):
        return found + ["no 'run' provenance section"]
    found += [f"run lacks {key!r}" for key in sorted(RUN_KEYS - run.keys())]
    if "verdict" in run and run.get("verdict") != "quiet":
        found.append(f"the run's noise verdict is {run.get('verdict')!r}: only quiet runs belong in reference/")
    meta = run.get("meta", {})
    found += [f"run.meta lacks {key!r}" for key in sorted(META_KEYS - meta.keys())]
    if meta.get("gpu_name") and not meta.get("driver"):
        found.append("a GPU run must name its driver (run.meta.driver)")
    if not re.search(r"(^|\s)python -m benchmarks(\s|$)", str(run.get("command", ""))):
        found.append("run.command is not a 'python -m benchmarks' command")
    if meta and not path.name.startswith(hardware_slug(meta) + "_"):
        found.append(f"file name does not start with the hardware {hardware_slug(meta)!r}")
    if meta.get("mode") != run.get("mode") or (NAME.match(path.name) and not path.name.endswith(f"_{run.get('mode')}.json")):
        found.append("the mode differs between file name, run and run.meta")
    families = run.get("families", {})
    for name, info in families.items():
        if name not in FAMILIES:
            found.append(f"unknown family {name!r}")
        if info.get("status") not in STATUSES:
            found.append(f"family {name!r} has status {info.get('status')!r}")
    for key in ("hostname", "host", "node", "user"):
        if key in meta or key in run:
            found.append(f"provenance must not hold {key!r}")
    host = socket.gethostname()
    if len(host) > 3 and host in text:
        found.append("the file contains this machine's host name")
    log = path.with_name(str(run.get("log", "")))
    if not run.get("log") or not log.is_file() or log.stat().st_size == 0:
        found.append(f"the raw log {run.get('log')!r} is missing beside the file")
    records = payload.get("records")
    if not isinstance(records, list) or not records:
        return found + ["no records"]
    for i, r in enumerate(records):
        where = f"record {i} ({r.get('name')!r})"
        median = r.get("median_s")
        if not isinstance(r.get("name"), str) or not r["name"]:
            found.append(f"{where}: no name")
        if not isinstance(median, (int, float)) or not math.isfinite(median) or median <= 0:
            found.append(f"{where}: median_s must be a positive number, got {median!r}")
        family = r.get("params", {}).get("family")
        if families.get(family, {}).get("status") != "ok":
            found.append(f"{where}: family {family!r} is not an 'ok' family of this run")
        rmeta = r.get("meta", {})
        if not {"torch", "date", "mode"} <= rmeta.keys() or rmeta.get("mode") != run.get("mode"):
            found.append(f"{where}: meta lacks torch/date/mode or its mode differs")
        if rmeta.get("torch") != meta.get("torch"):
            found.append(f"{where}: torch version differs from the run's")
        rnoise = r.get("noise")
        if not isinstance(rnoise, dict) or not NOISE_KEYS <= rnoise.keys():
            found.append(f"{where}: no noise information (needs {sorted(NOISE_KEYS)})")
        elif rnoise.get("verdict") != "quiet":
            found.append(f"{where}: noisy ({', '.join(rnoise.get('reasons', []))})")
        found += derived_problems(r, run.get("ceilings", {}))
    return found


def stray_files(folder: str | Path) -> list[str]:
    """Files in reference/ that are neither suite output nor its README."""
    return sorted(p.name for p in Path(folder).iterdir()
                  if p.is_file() and p.suffix not in ALLOWED_IN_REFERENCE and p.name != "README.md")
