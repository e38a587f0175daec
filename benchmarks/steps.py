"""Training steps of the tiny GPT as compared variants (amp, compile, ablation families).

Each variant (a precision, an optimizer, compiled or not) gets its own model, optimizer
and scaler, built once and warmed up first — a compiled one until nothing recompiles.
Then the variants take turns, a few steps each, in rounds (benchmarks/interleave.py).
Every variant trains on the same fixed batches of the same shape, so nothing changes
between steps that could make torch.compile compile again; if it still does while the
steps are timed, the record says so (metrics['recompiles_timed'], noise reason "recompile").
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field

import torch

from fastrain_lib.measure import bench, noise

from . import interleave
from .common import Context, need, timed_calls

VOCAB = 256


def gpt_config(ctx: Context) -> dict:
    """The tiny GPT's size by run mode (lab: a few tens of ms per step on a laptop CPU)."""
    return ctx.size(ci={"n_layer": 1, "n_head": 2, "n_embd": 32, "block": 32, "batch": 4},
                    lab={"n_layer": 2, "n_head": 4, "n_embd": 128, "block": 64, "batch": 16},
                    full={"n_layer": 12, "n_head": 12, "n_embd": 768, "block": 1024, "batch": 16})


def steps_per_round(ctx: Context, step_s: float | None = None) -> int:
    """Steps each variant takes per round: at least noise.MIN_REPEATS + 1 (so a round has a
    spread), and enough to fill ROUND_S seconds. With a fixed 5 steps a 30 ms fp32 step was
    timed over 0.15 s while a 700 ms emulated-fp16 step got 3.5 s: the short window's jitter
    moved the fp32/fp16 ratio by ~25% between two quiet runs."""
    least = ctx.size(ci=4, lab=5, full=20)
    if not step_s:
        return least
    return max(least, min(ctx.size(ci=4, lab=60, full=200), math.ceil(round_seconds(ctx) / step_s)))


def round_seconds(ctx: Context) -> float:
    return ctx.size(ci=0.0, lab=0.6, full=2.0)


@dataclass
class Variant:
    """One way to train: its model, optimizer and switches; `step()` runs one training step."""

    name: str
    precision: str
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    batches: list
    device: str
    tf32: bool = False
    compiled: bool = False
    params: dict = field(default_factory=dict)
    flops_per_token: float = 0.0
    tokens_per_step: int = 0
    warm: dict = field(default_factory=dict)
    step_s: float | None = None  # a warm step's time, from the warm-up
    scaler: object = None
    train_step: object = None  # fastrain_lib.fused.training_step
    tf32_context: object = None  # fastrain_lib.precision.amp.tf32
    _next: int = 0

    def step(self) -> None:
        x, y = self.batches[self._next % len(self.batches)]
        self._next += 1
        mode = "tf32" if self.tf32 and self.precision == "fp32" else self.precision
        with self.tf32_context(True) if mode == "tf32" else contextlib.nullcontext():
            self.train_step(self.model, self.optimizer, x, y, precision=mode, scaler=self.scaler)


def build(ctx: Context, name: str, *, precision: str = "fp32", optimizer: str = "foreach", norm: str = "torch",
          compile: bool = False, tf32: bool = False, seed: int = 0, extra: dict | None = None) -> Variant:
    """A variant with freshly seeded weights (the same start for every variant)."""
    gpt = need("gpt", "the tiny GPT of lesson 04")
    ablation = need("lessons.l04_fused_kernels.ablation", "optimizer implementations of lesson 04")
    optimizers = need("fused.optimizers", "optimizer implementations of lesson 04")
    prec = need("precision.amp", "AMP helpers of lesson 03")
    cfg = gpt_config(ctx)
    torch.manual_seed(seed)
    model = gpt.GPT(VOCAB, cfg["block"], cfg["n_layer"], cfg["n_head"], cfg["n_embd"], norm=norm).to(ctx.device)
    opt = optimizers.make_optimizer(model.parameters(), optimizer, lr=1e-3)
    batches = ablation.token_batches(4, cfg["batch"], cfg["block"], VOCAB, ctx.device, seed)
    scaler = prec.make_scaler(ctx.device, precision) if precision == "fp16" else None
    params = {"model": "gpt", "precision": precision, "optimizer": optimizer, "norm": norm, "compile": compile,
              "tf32": tf32, "device": ctx.device, **cfg, **(extra or {})}
    return Variant(name=name, precision=precision, model=torch.compile(model) if compile else model, optimizer=opt,
                   batches=batches, device=ctx.device, tf32=tf32, compiled=compile, params=params,
                   flops_per_token=gpt.flops_per_token(model, cfg["block"]),
                   tokens_per_step=cfg["batch"] * cfg["block"], scaler=scaler, train_step=ablation.training_step,
                   tf32_context=prec.tf32)


def warm_up(variant: Variant, ctx: Context) -> None:
    """Compiled: first until nothing recompiles. Then every variant: at least three steps and
    half a round's time (allocator, caches, CPU clocks settle: with two warm-up steps the first
    measured round of fp32 read 36 ms against 30 ms in the later ones); the last step's time
    sizes the rounds."""
    if variant.compiled:
        variant.warm = bench.warm_until_compiled(variant.step, device=variant.device)
    start, steps = time.perf_counter(), 0
    while steps < 3 or time.perf_counter() - start < round_seconds(ctx) / 2:
        variant.step()
        steps += 1
    variant.step_s = (time.perf_counter() - start) / steps


def measure_round(variant: Variant, ctx: Context) -> bench.Record:
    """One round of one variant: a few synchronised steps, with the window's noise."""
    times, info = timed_calls(variant.step, steps_per_round(ctx, variant.step_s), variant.device)
    import statistics

    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [0.0, 0.0, 0.0]
    return bench.Record(name=variant.name, median_s=statistics.median(times), iqr_s=q[2] - q[0], times_s=times,
                        params=dict(variant.params), meta=bench.meta(), noise=info)


def measure(ctx: Context, variants: dict[str, Variant], baseline: str) -> dict[str, bench.Record]:
    """Warm every variant up, then measure them interleaved; throughput and FLOP/s per record."""
    for variant in variants.values():
        warm_up(variant, ctx)
    before = bench.graphs_compiled()
    records = interleave.run({name: (lambda v=v: measure_round(v, ctx)) for name, v in variants.items()},
                             ctx.rounds, baseline=baseline, log=ctx.log)
    recompiled = bench.graphs_compiled() - before
    for name, record in records.items():
        variant = variants[name]
        tokens_per_s = variant.tokens_per_step / record.median_s
        record.metrics.update(tokens_per_s=tokens_per_s, gflops=tokens_per_s * variant.flops_per_token / 1e9,
                              flops_per_token=variant.flops_per_token, tokens_per_step=variant.tokens_per_step,
                              **variant.warm)
        if variant.compiled:
            mark_recompiles(record, recompiled)
    return records


def mark_recompiles(record: bench.Record, recompiles: int) -> None:
    """Record graphs compiled while timing; any makes the record noisy (reason 'recompile')."""
    record.metrics["recompiles_timed"] = recompiles
    if recompiles:
        record.noise["recompiles"] = recompiles
        record.noise["reasons"] = sorted(set(record.noise.get("reasons", [])) | {"recompile"})
        record.noise["verdict"] = noise.NOISY
