"""Lesson 05's verdict rules: which sentence (catalog key + values) this run's numbers support."""

from __future__ import annotations

from fastrain_lib.distributed import ddp_costs
from fastrain_lib.measure import hardware

cores = hardware.usable_cores


def verdicts_for(rows: list[dict]) -> list[tuple[str, dict]]:
    """(catalog key, values) explaining each multi-process row, from its measured numbers."""
    return [ddp_costs.verdict(r["processes"], cores(), r["speedup"], r["compute_s"], r["allreduce_s"], r["step_s"])
            for r in rows if r["processes"] > 1]


def pipeline_verdict(idle: float, formula: float, stages: int, cores_: int, margin: float = 0.03) -> tuple[str, dict]:
    """(catalog key, values): how the measured idle share compares with GPipe's formula, and why."""
    values = {"idle": idle, "formula": formula, "k": stages, "cores": cores_}
    if stages > cores_:
        return "lesson05.v_pipe_cores", values
    if idle > formula + margin:
        return "lesson05.v_pipe_more", values
    if idle < formula - margin:
        return "lesson05.v_pipe_less", values
    return "lesson05.v_pipe_match", values


def allreduce_verdicts(rows: list[tuple]) -> list[tuple[str, dict]]:
    """From the all-reduce table (N, numbers, ring ms, server ms, dist.all_reduce ms, error):
    at the largest N, who was faster for the smallest and the largest tensor, and how our
    Python ring compares with gloo's own all_reduce."""
    world = max(r[0] for r in rows)
    mine = sorted((r for r in rows if r[0] == world), key=lambda r: r[1])
    out = []
    for n, numel, ring_ms, naive_ms, torch_ms, _ in (mine[0], mine[-1]) if len(mine) > 1 else mine:
        if ring_ms < naive_ms:
            key = "lesson05.v_ar_ring"
        else:  # small: the messages' latency; large: one machine has no separate links for the ring to use
            key = "lesson05.v_ar_server_big" if numel == mine[-1][1] and len(mine) > 1 else "lesson05.v_ar_server"
        out.append((key, {"n": n, "numel": numel, "ring_ms": ring_ms, "naive_ms": naive_ms, "steps": 2 * (n - 1)}))
    n, numel, ring_ms, _, torch_ms, _ = mine[-1]
    out.append(("lesson05.v_ar_torch", {"n": n, "numel": numel, "ring_ms": ring_ms, "torch_ms": torch_ms}))
    return out
