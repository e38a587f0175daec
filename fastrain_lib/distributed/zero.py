"""ZeRO and FSDP: the same training, the memory of each process cut into pieces.

DDP keeps on EVERY process full parameters, gradients and optimizer state (Adam: two numbers
per parameter). ZeRO (Rajbhandari et al. 2020, arXiv:1910.02054) divides by N: stage 1 the
optimizer state, stage 2 the gradients too, stage 3 (FSDP) the parameters too (shard_bytes).
Bytes per rank for Ψ parameters (Ultra-Scale Playbook): mixed-precision Adam 2Ψ + 2Ψ + 12Ψ
(weights, grads, fp32 master + m + v), fp32 Adam 4Ψ + 4Ψ + 8Ψ.

Measured on REAL processes (gloo on a CPU; NCCL when every process has a GPU of its own, each
rank on launcher.group_device()), every collective counted:

    "ddp"         DistributedDataParallel + torch.optim.Adam                       (stage 0)
    "zero1"       lesson 05c's cell zero1.zero1_step                               (stage 1)
    "zero1_torch" DDP + torch.distributed.optim.ZeroRedundancyOptimizer           (stage 1, PyTorch's own)
    "zero2"       ShardedAdam(shard_grads=True), a variant the lesson names: PyTorch has no ZeRO-2 API,
                  and written out every gradient byte can be counted             (stage 2)
    "zero3"       lesson 05c's cell zero3.fsdp_shard (FSDP2's fully_shard)         (stage 3)

The processes train in fp32 (gloo moves no fast fp16/bf16 on a CPU): the measured bytes are
compared with the fp32 formula. Payload per step (Playbook): an all-reduce of S bytes counts 2S,
an all-gather or reduce-scatter of S bytes counts S: DDP, ZeRO-1, ZeRO-2 move 2Ψ·b, ZeRO-3 3Ψ·b.
"""

from __future__ import annotations

import contextlib
import copy
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from fastrain_lib.measure import hardware
from fastrain_lib.measure.memory import training_bytes
from fastrain_lib.distributed.comm_count import CommCounter, optimizer_state_tensors, storage_bytes
from fastrain_lib.distributed.launcher import group_device
from fastrain_lib.distributed.model_split import mlp
from fastrain_lib.distributed.zero1 import gather_params, my_piece, reduce_scatter, zero1_step
from fastrain_lib.distributed.zero3 import fsdp_shard

STRATEGIES = ("ddp", "zero1", "zero1_torch", "zero2", "zero3")
STAGE = {"ddp": 0, "zero1": 1, "zero1_torch": 1, "zero2": 2, "zero3": 3}
PAYLOAD_PSI = {"ddp": 2, "zero1": 2, "zero1_torch": 3, "zero2": 2, "zero3": 3}  # payload ÷ (Ψ·b)

DEFAULTS = {"width": 256, "depth": 4, "batch": 64, "steps": 4, "lr": 1e-3, "seed": 0}


# ---------------------------------------------------------------------------------------
# Formulas
# ---------------------------------------------------------------------------------------
def unsharded_bytes(n_params: int, precision: str = "fp32") -> tuple[float, float, float]:
    """(weights, gradients, optimizer state incl. fp32 master weights) of one full copy, with Adam:
    lesson 03's accounting (measure.memory.training_bytes), so the course states one formula."""
    parts = training_bytes(n_params, precision, "adam")
    return parts["weights"], parts["grads"], parts["optimizer"] + parts["master"]


def shard_bytes(weights: float, grads: float, optim: float, stage: int, world_size: int) -> dict:
    """THE ZeRO rule: what stage `stage` (0 = DDP) divides by N. {params, grads, optim, total} per rank."""
    n = world_size
    if stage >= 1:
        optim /= n  # ZeRO-1: optimizer state
    if stage >= 2:
        grads /= n  # ZeRO-2: gradients too
    if stage >= 3:
        weights /= n  # ZeRO-3 (FSDP): weights too
    return {"params": weights, "grads": grads, "optim": optim, "total": weights + grads + optim}


def formula_bytes(n_params: int, stage: int, world_size: int, precision: str = "fp32") -> dict:
    """Bytes per rank {params, grads, optim, total} for ZeRO `stage` (0 = DDP) with Adam."""
    return shard_bytes(*unsharded_bytes(n_params, precision), stage, world_size)


def payload_bytes(strategy: str, n_params: int, bytes_per_number: int = 4) -> int:
    """Communication per step of `strategy` in payload bytes (all-reduce S counts 2S)."""
    return PAYLOAD_PSI[strategy] * n_params * bytes_per_number


# ---------------------------------------------------------------------------------------
# ZeRO-1 (lesson 05c writes its step in a cell: distributed/zero1.py) and ZeRO-2
# (one parameter tensor at a time; real libraries bucket them)
# ---------------------------------------------------------------------------------------
class ShardedAdam:
    """Adam on this rank's 1/N of every parameter (ZeRO-1; ZeRO-2 with shard_grads=True).

    Each parameter, flattened, is cut into N equal pieces (the last padded); rank r owns piece r
    (zero1.my_piece). Adam holds state (m, v) only for its pieces: optimizer state / N. After each
    step the updated pieces are all-gathered so that every rank has the whole model again.

    shard_grads=False (ZeRO-1): lesson 05c's zero1_step: after backward, each full gradient is
      reduce-scattered and Adam steps on the averaged piece (the full gradient stays).
    shard_grads=True (ZeRO-2): a hook reduce-scatters each gradient the moment backward has
      produced it, keeps only this rank's piece and frees the full gradient (p.grad = None)."""

    def __init__(self, params, world_size: int, rank: int, lr: float, shard_grads: bool = False):
        self.params = [p for p in params if p.requires_grad]
        self.n, self.rank, self.shard_grads = world_size, rank, shard_grads
        self.grad_pieces = {}
        self.pieces = []  # views: Adam updates the parameter in place
        for p in self.params:
            start, end, _ = my_piece(p, rank, world_size)
            self.pieces.append(p.detach().view(-1)[start:end])
        self.adam = torch.optim.Adam(self.pieces, lr=lr)
        self.peak_grad_bytes = 0
        if shard_grads:
            for index, p in enumerate(self.params):
                p.register_post_accumulate_grad_hook(lambda p, i=index: self._scatter(i))

    def _scatter(self, index: int) -> None:
        """ZeRO-2: reduce-scatter one gradient as soon as it exists, keep my piece, free the rest."""
        p = self.params[index]
        start, end, length = my_piece(p, self.rank, self.n)
        full = p.new_zeros(length * self.n)  # on the parameter's device (a GPU under NCCL)
        full[:p.numel()] = p.grad.view(-1)
        mine = p.new_empty(length)
        reduce_scatter(mine, full)
        self.grad_pieces[index] = mine[:end - start] / self.n  # sum -> mean, as DDP does
        live = [q.grad for q in self.params if q.grad is not None] + list(self.grad_pieces.values())
        self.peak_grad_bytes = max(self.peak_grad_bytes, storage_bytes(live))
        p.grad = None  # ZeRO-2: the full gradient is gone

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None
        self.grad_pieces = {}

    def step(self) -> None:
        if self.shard_grads:
            for i, piece in enumerate(self.pieces):
                piece.grad = self.grad_pieces[i]
            self.adam.step()
            gather_params(self.params, self.pieces, self.rank, self.n)
        else:
            zero1_step(self.params, self.pieces, self.adam, self.rank, self.n)
        for piece in self.pieces:
            piece.grad = None

    def grads(self) -> list[torch.Tensor]:
        return list(self.grad_pieces.values()) if self.shard_grads else [p.grad for p in self.params]

    def state(self) -> list[torch.Tensor]:
        return optimizer_state_tensors(self.adam)


# ---------------------------------------------------------------------------------------
# The worker: one strategy, measured on this rank
# ---------------------------------------------------------------------------------------
def make_model(cfg: dict) -> torch.nn.Sequential:
    """The course's MLP (model_split.mlp): the same weights on every rank for a seed."""
    return mlp(cfg["width"], cfg["depth"], inputs=cfg["width"], seed=cfg["seed"])


def global_batch(step: int, cfg: dict) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(cfg["seed"] * 7919 + step)
    return torch.randn(cfg["batch"], cfg["width"], generator=g), torch.randint(0, 10, (cfg["batch"],), generator=g)


def reference_params(cfg: dict) -> list[torch.Tensor]:
    """One process, the whole batch, plain Adam: what every strategy must reproduce."""
    model = make_model(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    for step in range(cfg["steps"]):
        x, y = global_batch(step, cfg)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


def _ddp_model(model, device: torch.device):
    """DDP whose gradient all-reduce (one per bucket) goes through torch.distributed's Python
    API (PyTorch's own default hook), so that CommCounter sees it like every other collective."""
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
    from torch.nn.parallel import DistributedDataParallel as DDP

    wrapped = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    wrapped.register_comm_hook(None, allreduce_hook)
    return wrapped


def _build(strategy: str, cfg: dict, rank: int, world_size: int, device: torch.device):
    """(model to call, optimizer-like with zero_grad/step, grads(), state(), full_params())."""
    model = make_model(cfg).to(device)
    lr = cfg["lr"]
    if strategy == "ddp":
        net = _ddp_model(model, device)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        return net, opt, lambda: [p.grad for p in model.parameters()], lambda: optimizer_state_tensors(opt), \
            lambda: list(model.parameters())
    if strategy == "zero1_torch":
        from torch.distributed.optim import ZeroRedundancyOptimizer

        net = _ddp_model(model, device)
        opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, lr=lr)
        return net, opt, lambda: [p.grad for p in model.parameters()], lambda: optimizer_state_tensors(opt.optim), \
            lambda: list(model.parameters())
    if strategy in ("zero1", "zero2"):
        opt = ShardedAdam(model.parameters(), world_size, rank, lr, shard_grads=strategy == "zero2")
        return model, opt, opt.grads, opt.state, lambda: list(model.parameters())
    if strategy == "zero3":
        model = fsdp_shard(model, world_size, device.type)  # the lesson's cell: fully_shard per Linear
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        return model, opt, lambda: [p.grad for p in model.parameters()], lambda: optimizer_state_tensors(opt), \
            lambda: [p.full_tensor() for p in model.parameters()]
    raise ValueError(f"unknown strategy {strategy!r}; one of {STRATEGIES}")


def run_strategy(strategy: str, rank: int, world_size: int, cfg: dict) -> dict:
    """Train cfg["steps"] steps with `strategy` on this rank; measure bytes, collectives, time."""
    counter = CommCounter()
    device = group_device()
    net, opt, grads, state, full_params = _build(strategy, cfg, rank, world_size, device)
    n_params = sum(p.numel() for p in make_model(cfg).parameters())
    times, steps = [], cfg["steps"]
    for step in range(steps):
        x, y = global_batch(step, cfg)
        x, y = x.chunk(world_size)[rank].to(device), y.chunk(world_size)[rank].to(device)  # my rows
        counting = step == steps - 1  # the last step is counted; the others are timed (counting slows ops)
        dist.barrier()
        start = time.perf_counter()
        with counter if counting else contextlib.nullcontext():
            opt.zero_grad()
            F.cross_entropy(net(x), y).backward()
            if counting:  # gradients as the optimizer finds them
                grad_bytes = storage_bytes(grads())
            opt.step()
        hardware.synchronize(device)  # a GPU step has only been queued until here
        if not counting:
            times.append(time.perf_counter() - start)
    params_now = [p for p in (net.module if hasattr(net, "module") else net).parameters()]
    reference = reference_params(cfg)
    full = full_params()
    error = max((a.detach().cpu() - b).abs().max().item() for a, b in zip(full, reference))
    return {"strategy": strategy, "stage": STAGE[strategy], "rank": rank, "world_size": world_size,
            "device": str(device), "backend": dist.get_backend(),
            "n_params": n_params,
            "params_bytes": storage_bytes(params_now), "grads_bytes": grad_bytes,
            "optim_bytes": storage_bytes(state()),
            "peak_grads_bytes": getattr(opt, "peak_grad_bytes", 0) or grad_bytes,
            "comm": counter.summary(), "step_s": statistics.median(times[1:] or times), "times": times,
            "max_error": error}


def zero_worker(rank: int, world_size: int, strategies=STRATEGIES, cfg: dict | None = None) -> list[dict]:
    """Every strategy in turn, in the same processes (one launch for the whole comparison)."""
    cfg = {**DEFAULTS, **(cfg or {})}
    return [run_strategy(s, rank, world_size, copy.deepcopy(cfg)) for s in strategies]


def table(results: list[list[dict]], precision: str = "fp32") -> list[dict]:
    """One row per strategy from zero_worker's results (all ranks): the largest rank's bytes,
    the formula's, the slowest rank's step time, and the payload of one step."""
    rows = []
    for i, first in enumerate(results[0]):
        ranks = [r[i] for r in results]
        n, w = first["n_params"], first["world_size"]
        want = formula_bytes(n, first["stage"], w, precision)
        rows.append({
            "strategy": first["strategy"], "stage": first["stage"], "world_size": w, "n_params": n,
            "device": first["device"], "backend": first["backend"],
            "params_bytes": max(r["params_bytes"] for r in ranks), "grads_bytes": max(r["grads_bytes"] for r in ranks),
            "optim_bytes": max(r["optim_bytes"] for r in ranks),
            "formula": want, "step_s": max(r["step_s"] for r in ranks),
            "times": list(max(ranks, key=lambda r: r["step_s"]).get("times", [])),  # the slowest rank's steps
            "payload": max(r["comm"]["total_payload"] for r in ranks),
            "payload_formula": payload_bytes(first["strategy"], n),
            "comm": first["comm"], "max_error": max(r["max_error"] for r in ranks),
        })
    return rows
