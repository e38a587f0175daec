"""Data-parallel training with DistributedDataParallel (DDP), one process per rank.

Every rank holds a full copy of the model and trains on its own shard of the data:

1. DistributedSampler gives rank r every W-th sample (after a shuffle that all ranks
   agree on; `set_epoch` changes the shuffle each epoch — forget it and every epoch
   repeats the same order).
2. DDP broadcasts rank 0's weights at start-up, so all copies begin identical.
3. During backward DDP all-reduces (averages) the gradients in buckets, overlapping the
   communication with the rest of backward. Every rank then takes the same optimizer
   step, so the copies stay identical — we check that with a hash of the parameters.
4. Only rank 0 writes the checkpoint (W ranks writing one file race and waste disk).

From a notebook:   launch(train_worker, 2, args=(cfg,))     (CPU tensors, gloo)
                   launch(train_worker, 2, args=(make_cfg(device="cuda"),), tensors_on_cuda=True)

train_worker is the course's one DDP worker: the capstone runs its own training through it
(task="fastrain_lib.lessons.l07_capstone.capstone:train_one"), so device choice, threads and the backend follow one
rule everywhere (fastrain_lib.measure.hardware).
From a shell (one machine, 2 processes):
    torchrun --standalone --nproc_per_node=2 -m fastrain_lib.distributed.ddp --steps 50
On one GPU, 2 processes share it over gloo (NCCL needs a GPU per process); a cluster
(N machines with G GPUs each) gets NCCL:
    torchrun --nnodes=N --nproc_per_node=G --rdzv-backend=c10d --rdzv-endpoint=HOST:29500 \
        -m fastrain_lib.distributed.ddp --steps 1000 --batch-size 64
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from fastrain_lib.measure import hardware
from fastrain_lib.core.i18n import t
from fastrain_lib.models import SimpleNN
from fastrain_lib.precision.amp import AUTOCAST_DTYPES, make_scaler
from fastrain_lib.precision.step import amp_step

DEFAULTS = {
    "steps": 20,          # optimizer steps per rank
    "batch_size": 32,     # per rank; the effective (global) batch is batch_size × world_size
    "lr": 0.05,
    "scale_lr": False,    # lr × world_size, the seeds' Horovod rule `lr * hvd.size()`
    "hidden": 128,        # SimpleNN width ("model size")
    "amp": "off",         # "off", "bf16" or "fp16" (fp16 uses a GradScaler)
    "data_size": None,    # samples in the dataset (None: by run mode)
    "seed": 0,
    "warmup_steps": 2,    # steps left out of the timing
    "save_path": None,    # checkpoint file; written by rank 0 only
    "synthetic": False,   # random images instead of the Bengali digits
    "device": "auto",     # "cpu", "cuda", or "auto": cuda when the group is NCCL
}


def make_cfg(**overrides) -> dict:
    """DEFAULTS with `overrides`; an unknown key is an error (a typo would be silently ignored)."""
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        raise ValueError(t("distributed.bad_cfg", keys=", ".join(sorted(unknown)), known=", ".join(DEFAULTS)))
    return {**DEFAULTS, **overrides}


def load_dataset(size: int | None, seed: int, synthetic: bool = False):
    """The Bengali digits (fastrain_lib.data); random images if they are unavailable."""
    if not synthetic:
        try:
            from fastrain_lib.data import bengali_digits

            return bengali_digits(train=True, size=size, seed=seed), True
        except (ImportError, AttributeError, OSError):
            pass
    n = size or 1024
    g = torch.Generator().manual_seed(seed)
    images = torch.rand(n, 1, 28, 28, generator=g)
    labels = torch.randint(0, 10, (n,), generator=g)
    return TensorDataset(images, labels), False


def parameter_hash(model: torch.nn.Module) -> str:
    """A short hash of every parameter's exact bytes: equal hashes = bit-for-bit equal weights."""
    h = hashlib.sha1()
    for p in model.parameters():
        h.update(p.detach().float().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:12]


def parameter_checksum(model: torch.nn.Module) -> float:
    """Sum of all parameters (float64): a number to print and compare at a glance."""
    return float(sum(p.detach().double().sum().item() for p in model.parameters()))


def local_rank() -> int:
    """This process's rank on its machine (torchrun and launch set LOCAL_RANK)."""
    return int(os.environ.get("LOCAL_RANK", dist.get_rank() if dist.is_initialized() else 0))


def rank_device(want_cuda: bool) -> torch.device:
    """Where this rank's tensors live (hardware.device_for_rank): its own GPU under NCCL, a shared
    GPU under gloo (2 processes on 1 GPU), the CPU for CPU workers or without a GPU."""
    facts = hardware.node_facts()
    device = torch.device(hardware.device_for_rank(local_rank(), want_cuda, facts))
    if device.type == "cuda":
        hardware.use_gpu(device.index)
    return device


def wrap(model: torch.nn.Module, device: torch.device) -> DDP:
    """DistributedDataParallel around a model on `device` (device_ids only for a GPU)."""
    return DDP(model, device_ids=[device.index] if device.type == "cuda" else None)


def _import(task: str):
    """'package.module:function' -> the function (new processes find workers by name)."""
    import importlib

    module, _, name = task.partition(":")
    return getattr(importlib.import_module(module), name)


def train_worker(rank: int, world_size: int, cfg: dict | None = None, task: str | None = None,
                 task_args: tuple = (), task_kwargs: dict | None = None) -> dict:
    """The course's one DDP worker. Call it through launch() or torchrun (the group must exist).

    Without `task`: train SimpleNN with DDP for cfg['steps'] steps; returns what this rank saw
    and measured. With task='module:function': run function(*task_args, **task_kwargs, ddp_rank=rank) — the
    capstone's GPT training — and return rank 0's full result; the other ranks return only their
    step times (the slowest rank sets the pace; everything else is rank 0's)."""
    if task is not None:
        out = _import(task)(*task_args, **(task_kwargs or {}), ddp_rank=rank)
        if rank == 0 or "history" not in out:
            return out
        return {"history": {"step_times_s": out["history"]["step_times_s"]}}
    cfg = make_cfg(**(cfg or {}))
    want_cuda = cfg["device"] == "cuda" or (cfg["device"] == "auto" and dist.get_backend() == "nccl")
    device = rank_device(want_cuda)
    dataset, real_data = load_dataset(cfg["data_size"], cfg["seed"], cfg["synthetic"])
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=cfg["seed"],
                                 drop_last=True)
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], sampler=sampler, drop_last=True)
    if len(loader) == 0:  # an empty epoch would make the step loop below spin forever
        raise ValueError(t("ddp.too_little_data", data_size=len(dataset), world_size=world_size,
                           batch_size=cfg["batch_size"]))

    torch.manual_seed(cfg["seed"])  # same start on every rank (DDP would broadcast rank 0's anyway)
    model = SimpleNN(hidden=cfg["hidden"]).to(device)
    ddp_model = wrap(model, device)
    lr = cfg["lr"] * (world_size if cfg["scale_lr"] else 1)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=lr)
    dtype = AUTOCAST_DTYPES.get(cfg["amp"])  # None: fp32 ("off")
    scaler = make_scaler(device, "fp32" if cfg["amp"] == "off" else cfg["amp"])  # enabled for fp16 only

    losses, step_times, hashes = [], [], []
    first_indices = list(iter(sampler))[:8]  # which samples this rank sees first (shards differ)
    step, epoch = 0, 0
    while step < cfg["steps"]:
        sampler.set_epoch(epoch)  # a new shuffle every epoch, the same on every rank
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            hardware.synchronize(device)
            start = time.perf_counter()
            # lesson 03's one AMP step; DDP averages the gradients during its backward
            loss = amp_step(ddp_model, optimizer, scaler, images, labels, F.cross_entropy, dtype=dtype)
            hardware.synchronize(device)
            step_times.append(time.perf_counter() - start)
            losses.append(loss.item())
            hashes.append(parameter_hash(model))
            step += 1
            if step >= cfg["steps"]:
                break
        epoch += 1

    saved = False
    if rank == 0 and cfg["save_path"]:  # one writer; the others would race on the same file
        torch.save(model.state_dict(), cfg["save_path"])
        saved = True
    dist.barrier()  # nobody leaves before the checkpoint exists

    timed = step_times[cfg["warmup_steps"]:] or step_times
    median_step = statistics.median(timed)
    return {
        "rank": rank, "world_size": world_size, "backend": dist.get_backend(), "device": str(device),
        "threads": torch.get_num_threads(), "real_data": real_data, "lr": lr,
        "batch_per_rank": cfg["batch_size"], "global_batch": cfg["batch_size"] * world_size,
        "losses": losses, "step_times": step_times, "median_step_s": median_step,
        "samples_per_s": cfg["batch_size"] * world_size / median_step,
        "param_hashes": hashes, "param_hash": hashes[-1] if hashes else parameter_hash(model),
        "checksum": parameter_checksum(model), "first_indices": first_indices, "epochs": epoch,
        "saved": saved, "amp": cfg["amp"], "hidden": cfg["hidden"],
    }


# ------------------------------------------------------------------ torchrun entry point

def _parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="fastrain DDP worker (start it with torchrun)")
    p.add_argument("--steps", type=int, default=DEFAULTS["steps"])
    p.add_argument("--batch-size", type=int, default=DEFAULTS["batch_size"])
    p.add_argument("--lr", type=float, default=DEFAULTS["lr"])
    p.add_argument("--scale-lr", action="store_true")
    p.add_argument("--hidden", type=int, default=DEFAULTS["hidden"])
    p.add_argument("--amp", choices=["off", "bf16", "fp16"], default="off")
    p.add_argument("--data-size", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--synthetic", action="store_true")
    p.add_argument("--save", default=None, help="checkpoint path (rank 0 writes it)")
    p.add_argument("--out", default=None, help="folder for one JSON result per rank")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                   help="auto: the GPU when there is one (shared over gloo when there are fewer GPUs than processes)")
    return p.parse_args(argv)


def main(argv=None) -> dict:
    """torchrun sets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT; we read them (env://)."""
    args = _parse(argv)
    want_cuda = args.device == "cuda" or (args.device == "auto" and hardware.cuda_available())
    local_procs = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    facts = hardware.node_facts()
    # NCCL only with a GPU per local process: on one T4, --nproc_per_node=2 runs over gloo.
    backend = hardware.backend_for(local_procs, want_cuda, facts)
    torch.set_num_threads(hardware.threads_for(local_procs))
    if backend == "nccl":
        hardware.use_gpu(local_rank())
    dist.init_process_group(backend)
    try:
        rank, world = dist.get_rank(), dist.get_world_size()
        cfg = make_cfg(steps=args.steps, batch_size=args.batch_size, lr=args.lr, scale_lr=args.scale_lr,
                       hidden=args.hidden, amp=args.amp, data_size=args.data_size, seed=args.seed,
                       save_path=args.save, synthetic=args.synthetic,
                       device="cuda" if want_cuda else "cpu")
        result = train_worker(rank, world, cfg)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"rank{rank}.json").write_text(json.dumps(result), encoding="utf-8")
        if rank == 0:
            print(t("distributed.torchrun_summary", world=world, loss=result["losses"][-1], sps=result["samples_per_s"],
                    checksum=result["checksum"]), flush=True)
        return result
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
