"""Saved from notebooks/05_data_vs_model_parallel.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import hashlib
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from fastrain_lib.core.i18n import pick
from fastrain_lib.data import bengali_digits
from fastrain_lib.models import SimpleNN

DEFAULTS = {"steps": 20, "batch_size": 32, "lr": 0.05, "scale_lr": False, "hidden": 128, "data_size": None,
            "seed": 0, "warmup_steps": 2, "save_path": None, "device": "cpu"}   # batch_size: প্রতি প্রসেসে


def make_cfg(**changes):
    """DEFAULTS-এর উপর বদলগুলো; ভুল বানানের কী (যেমন stpes) চুপচাপ উপেক্ষা না করে ভুল বলে।"""
    unknown = set(changes) - set(DEFAULTS)
    if unknown:
        raise ValueError(pick(bn=f"DDP কনফিগারেশনে অচেনা কী: {', '.join(sorted(unknown))}। চেনা কী: {', '.join(DEFAULTS)}।",
                              en=f"Unknown keys in the DDP configuration: {', '.join(sorted(unknown))}. Known keys: {', '.join(DEFAULTS)}."))
    return {**DEFAULTS, **changes}


def parameter_hash(model):
    """সব ওজনের বাইটের ছোট হ্যাশ: দুই র‍্যাঙ্কের হ্যাশ এক মানে ওজন বিট-বিট এক।"""
    h = hashlib.sha1()
    for p in model.parameters():
        h.update(p.detach().float().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:12]


def train_worker(rank, world_size, cfg=None):
    """একটি র‍্যাঙ্কের DDP প্রশিক্ষণ। প্রসেস গ্রুপ আগেই তৈরি (main() বা launch তৈরি করে)।"""
    cfg = make_cfg(**(cfg or {}))
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device(f"cuda:{local_rank % torch.cuda.device_count()}" if cfg["device"] == "cuda" else "cpu")
    dataset = bengali_digits(train=True, size=cfg["data_size"], seed=cfg["seed"])
    # ১. প্রতিটি র‍্যাঙ্ক পায় প্রতি W-তম নমুনা (সবার একই এলোমেলো ক্রম থেকে): কেউ কারো নমুনা দেখে না
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=cfg["seed"],
                                 drop_last=True)
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], sampler=sampler, drop_last=True)
    if len(loader) == 0:   # একটিও পুরো batch না থাকলে নিচের লুপ কখনো শেষ হতো না
        raise ValueError(pick(bn=f"ডেটা খুব কম: {len(dataset)}টি নমুনা {world_size}টি প্রসেসে ভাগ করলে প্রতি প্রসেসে একটি পূর্ণ batch ({cfg['batch_size']}) হয় না।",
                              en=f"Too little data: {len(dataset)} samples over {world_size} processes do not give each one full batch ({cfg['batch_size']})."))
    torch.manual_seed(cfg["seed"])
    # ২. DDP শুরুতে rank 0-এর ওজন সবাইকে পাঠায়, আর backward-এর সময় গ্রেডিয়েন্টের গড় নেয়
    model = DistributedDataParallel(SimpleNN(hidden=cfg["hidden"]).to(device),
                                    device_ids=[device.index] if device.type == "cuda" else None)
    lr = cfg["lr"] * (world_size if cfg["scale_lr"] else 1)   # scale_lr: Horovod-এর lr × W নিয়ম
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, step_times, hashes = [], [], []
    first_indices = list(sampler)[:8]                    # এই র‍্যাঙ্ক প্রথমে কোন নমুনাগুলো দেখে
    step, epoch = 0, 0
    while step < cfg["steps"]:
        sampler.set_epoch(epoch)                         # প্রতি ইপকে নতুন ক্রম, সব র‍্যাঙ্কে একই
        for images, labels in loader:                    # শুধু এই র‍্যাঙ্কের ভাগের নমুনা
            images, labels = images.to(device), labels.to(device)
            start = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(images), labels)
            loss.backward()                              # ৩. এখানেই DDP গ্রেডিয়েন্টের অল-রিডিউস করে
            optimizer.step()                             # সবার গড় এক, তাই সবার ধাপও এক
            losses.append(loss.item())                   # .item() GPU-র কাজ শেষ হওয়া পর্যন্ত অপেক্ষা করে
            step_times.append(time.perf_counter() - start)
            hashes.append(parameter_hash(model))
            step += 1
            if step == cfg["steps"]:
                break
        epoch += 1
    if rank == 0 and cfg["save_path"]:                   # ৪. চেকপয়েন্ট লেখে শুধু rank 0
        torch.save(model.module.state_dict(), cfg["save_path"])
    dist.barrier()                                       # চেকপয়েন্ট লেখা শেষ না হলে কেউ বেরোয় না
    timed = sorted(step_times[cfg["warmup_steps"]:] or step_times)
    median_step = timed[len(timed) // 2]
    return {"rank": rank, "world_size": world_size, "backend": dist.get_backend(), "device": str(device),
            "lr": lr, "batch_per_rank": cfg["batch_size"], "global_batch": cfg["batch_size"] * world_size,
            "losses": losses, "step_times": step_times, "median_step_s": median_step,
            "samples_per_s": cfg["batch_size"] * world_size / median_step, "param_hashes": hashes,
            "param_hash": hashes[-1], "first_indices": first_indices, "saved": rank == 0 and bool(cfg["save_path"]),
            "checksum": sum(p.detach().double().sum().item() for p in model.parameters())}


def main(cfg=None):
    """পুরো DDP প্রোগ্রাম: torchrun (বা launch(..., join_group=False)) পরিবেশে RANK, WORLD_SIZE,
    LOCAL_RANK, MASTER_ADDR, MASTER_PORT রাখে; init_process_group সেখান থেকেই পড়ে।"""
    cfg = make_cfg(**(cfg or {}))
    local_processes = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    # NCCL শুধু যখন প্রতিটি প্রসেসের নিজের GPU আছে; CPU-তে (বা এক GPU-তে ২টি প্রসেস) gloo
    on_own_gpu = cfg["device"] == "cuda" and torch.cuda.device_count() >= local_processes
    if on_own_gpu:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl" if on_own_gpu else "gloo")
    try:
        result = train_worker(dist.get_rank(), dist.get_world_size(), cfg)
        dist.barrier()                                   # সবাই শেষ করলে তবেই কেউ গ্রুপ ভাঙে
        return result
    finally:
        dist.destroy_process_group()                     # সব প্রসেস গ্রুপ ছেড়ে পরিষ্কারভাবে বেরোয়


import argparse
import json
import sys
from pathlib import Path


def cli(argv=None):
    """torchrun-এর কমান্ড লাইন → main(cfg); --out দিলে প্রতিটি র‍্যাঙ্ক নিজের ফল একটি JSON ফাইলে লেখে।"""
    parser = argparse.ArgumentParser(description="fastrain DDP (torchrun --nproc_per_node=2 -m fastrain_lib.distributed.ddp)")
    for key, value in DEFAULTS.items():
        kind = type(value) if value is not None else (str if key == "save_path" else int)
        if kind is bool:
            parser.add_argument("--" + key.replace("_", "-"), action="store_true")
        else:
            parser.add_argument("--" + key.replace("_", "-"), type=kind, default=value)
    parser.add_argument("--out", default=None)
    args = vars(parser.parse_args(argv))
    out = args.pop("out")
    result = main(args)
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / f"rank{result['rank']}.json").write_text(json.dumps(result), encoding="utf-8")
    if result["rank"] == 0:
        print(pick(bn=f"{result['world_size']} প্রসেসে DDP প্রশিক্ষণ শেষ: শেষ লস {result['losses'][-1]:.4f}, {result['samples_per_s']:.0f} নমুনা/সেকেন্ড",
                   en=f"DDP training on {result['world_size']} processes done: final loss {result['losses'][-1]:.4f}, {result['samples_per_s']:.0f} samples/s"),
              flush=True)
    return result


if __name__ == "__main__" and "RANK" in os.environ:      # torchrun RANK রাখে; নোটবুকের কার্নেল রাখে না
    cli(sys.argv[1:])
    # সব ফল লেখা শেষ, তাই Python-এর নিজের বন্ধ-হওয়া ধাপ বাদ দিয়ে বেরোই: DDP gloo-র প্রসেস গ্রুপ
    # destroy_process_group-এর পরও ধরে রাখে (torch 2.14), আর Python বন্ধ হওয়ার মুহূর্তে তার কোনো থ্রেড
    # মাঝে মাঝে প্রসেসটি abort করে ("terminate called without an active exception") — প্রশিক্ষণ ঠিকঠাক
    # শেষ হলেও torchrun তখন পুরো কাজকে ব্যর্থ বলে (ব্যস্ত ২-কোরের PC-তে প্রায় ২০০ বারে ৫ বার)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
