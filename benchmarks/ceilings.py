"""This machine's ceilings, and every figure as a share of them.

A laptop, a lab PC and a GPU differ by orders of magnitude, so "812 GFLOP/s" or "31 ms"
only compare honestly as a fraction of what the machine itself can do. The suite
measures two ceilings first:
- the matmul peak in each number format (the best GFLOP/s of a large matrix multiply),
- the memory bandwidth (bytes read + written per second, the best of four streaming kernels: copy, in-place scale, in-place add, sum; benchmarks/copy.py),
then adds to every record that has a rate:
- metrics['share_of_peak']      achieved GFLOP/s ÷ the measured matmul peak of its format
- metrics['share_of_bandwidth'] achieved GB/s ÷ the measured memory bandwidth
For training steps the achieved GFLOP/s is tokens/s × FLOPs per token (6N + attention),
so share_of_peak is MFU against this machine's measured peak, not a datasheet figure.
"""

from __future__ import annotations

from fastrain_lib.measure import bench


def record_format(record: bench.Record) -> str | None:
    """The number format whose matmul peak bounds this record ('fp32', 'tf32', 'bf16', 'fp16')."""
    params = record.params
    if params.get("format"):
        return params["format"]
    mode = params.get("precision")
    if params.get("tf32") and mode in (None, "fp32"):
        mode = "tf32"
    if mode in ("fp32", "tf32", "bf16", "fp16"):
        return mode
    dtype = str(params.get("dtype", ""))
    return {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}.get(dtype)


def from_records(records: list[bench.Record], device: str) -> dict:
    """Ceilings from the matmul and copy families' records of this run ({} parts when absent)."""
    peaks: dict[str, float] = {}
    copy = 0.0
    for record in records:
        family = record.params.get("family")
        if family == "matmul" and record.params.get("device") == device:
            fmt = record_format(record)
            peaks[fmt] = max(peaks.get(fmt, 0.0), record.metrics.get("gflops", 0.0))
        if family == "copy" and record.params.get("device") == device and "pinned" not in record.params:
            copy = max(copy, record.metrics.get("gbs", 0.0))
    found = {}
    if peaks:
        found["matmul_gflops"] = peaks
    if copy:
        found["copy_gbs"] = copy
    return found


def achieved_gflops(record: bench.Record) -> float | None:
    """GFLOP/s a record achieved: measured directly (matmul), or tokens/s × FLOPs per token."""
    metrics, params = record.metrics, record.params
    if isinstance(metrics.get("gflops"), (int, float)):
        return float(metrics["gflops"])
    tokens = metrics.get("tokens_per_s")
    per_token = metrics.get("flops_per_token") or params.get("flops_per_token")
    if isinstance(tokens, (int, float)) and isinstance(per_token, (int, float)) and per_token > 0:
        return tokens * per_token / 1e9
    return None


def peak_for(record: bench.Record, ceilings: dict) -> float | None:
    """The measured matmul peak (GFLOP/s) that bounds a record.

    A matmul record: the peak of its own format. A training step: the better of its
    format's peak and fp32's — autocast leaves much of a step in fp32, and a format without
    hardware support (bf16/fp16 on most CPUs) has a peak far below fp32's, which would make
    the share exceed 100% (the same rule as fastrain_lib.measure.hardware.peak)."""
    peaks = ceilings.get("matmul_gflops", {})
    fmt = record_format(record)
    if record.params.get("family") == "matmul" or record.name.startswith("matmul"):
        return peaks.get(fmt)
    candidates = [peaks.get(fmt), peaks.get("fp32")]
    return max((c for c in candidates if c), default=None)


def apply(records: list[bench.Record], ceilings: dict) -> None:
    """Add share_of_peak / share_of_bandwidth (and the ceiling used) to every record that has a rate."""
    copy = ceilings.get("copy_gbs")
    for record in records:
        gflops = achieved_gflops(record)
        peak = peak_for(record, ceilings)
        if gflops is not None and peak:
            record.metrics["share_of_peak"] = gflops / peak
            record.metrics["peak_gflops_measured"] = peak
        gbs = record.metrics.get("gbs")
        if isinstance(gbs, (int, float)) and copy and "pinned" not in record.params:
            record.metrics["share_of_bandwidth"] = gbs / copy
            record.metrics["copy_gbs_measured"] = copy
