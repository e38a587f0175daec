"""Saved from notebooks/05b_ddp_in_depth.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from fastrain_lib.distributed import dataparallel, launcher, overlap


def ddp_worker(rank, world_size, cfg):
    """DataParallel-এর সমান মডেল আর মোট batch-এ DDP: র‍্যাঙ্ক r নেয় batch-এর r-তম টুকরো; প্রতিটি পর্ব মাপা।"""
    device = launcher.group_device()                     # gloo-তে CPU, NCCL-এ এই র‍্যাঙ্কের নিজের GPU
    model, x, y = dataparallel.problem(cfg, device)      # সব র‍্যাঙ্কে একই ওজন, একই মোট batch
    x, y = x.chunk(world_size)[rank], y.chunk(world_size)[rank]
    ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None,
                                  bucket_cap_mb=cfg["bucket_cap_mb"])
    counter = overlap.count_allreduces(ddp)              # যোগাযোগ হুক: বাকেট আর বাইট গোনে
    optimizer = torch.optim.Adam(ddp.parameters(), lr=cfg["lr"])
    rows, losses = [], []
    for _ in range(cfg["warmup"] + cfg["steps"]):
        optimizer.zero_grad(set_to_none=True)
        t0 = dataparallel.clock(device)
        loss = F.cross_entropy(ddp(x), y)
        t1 = dataparallel.clock(device)
        loss.backward()                                  # বাকেটের অল-রিডিউস এর ভেতরেই শুরু আর শেষ
        t2 = dataparallel.clock(device)
        optimizer.step()                                 # প্রতিটি প্রসেস নিজের অপটিমাইজার চালায়
        t3 = dataparallel.clock(device)
        rows.append({"forward": t1 - t0, "backward_allreduce": t2 - t1, "optimizer": t3 - t2})
        losses.append(loss.item())
    return dataparallel.ddp_result(rank, world_size, cfg, model, optimizer, rows, losses, counter)


class BucketedAllReduce:
    """DDP-র বাকেট আর ওভারল্যাপ, হাতে লেখা: ব্যাকওয়ার্ড চলতে চলতেই ভরা বাকেটের অল-রিডিউস শুরু হয়।"""

    def __init__(self, model, bucket_cap_mb=25.0):
        self.world_size = dist.get_world_size()
        params = [p for p in model.parameters() if p.requires_grad]
        for p in params:                                  # সবাই rank 0-এর ওজন দিয়ে শুরু করে
            dist.broadcast(p.data, src=0)
        # ব্যাকওয়ার্ড শেষ লেয়ারের গ্রেডিয়েন্ট আগে বানায়, তাই উল্টো ক্রমে প্রায় bucket_cap_mb করে ভরি
        cap_bytes = bucket_cap_mb * 1024 * 1024
        self.buckets, current, size = [], [], 0
        for p in reversed(params):
            current.append(p)
            size += p.numel() * p.element_size()
            if size >= cap_bytes:
                self.buckets.append(current)
                current, size = [], 0
        if current:
            self.buckets.append(current)
        self.waiting = [len(b) for b in self.buckets]     # প্রতিটি বাকেটে কতগুলো গ্রেডিয়েন্ট এখনও আসেনি
        self.flat = [None] * len(self.buckets)
        self.work = [None] * len(self.buckets)
        for i, bucket in enumerate(self.buckets):
            for p in bucket:                              # প্রতিটি প্যারামিটারে একটি হুক
                p.register_post_accumulate_grad_hook(lambda p, i=i: self.grad_ready(i))

    def grad_ready(self, i):
        """একটি গ্রেডিয়েন্ট তৈরি হলো: বাকেট i ভরলে তার অল-রিডিউস শুরু, অপেক্ষা না করে।"""
        self.waiting[i] -= 1
        if self.waiting[i] == 0:
            self.flat[i] = torch.cat([p.grad.reshape(-1) for p in self.buckets[i]])   # এক টুকরো মেমরি
            self.work[i] = dist.all_reduce(self.flat[i], async_op=True)            # ব্যাকওয়ার্ড চলতেই থাকে

    def finish(self):
        """ব্যাকওয়ার্ডের পরে: প্রতিটি বাকেটের অপেক্ষা, world size দিয়ে ভাগ (গড়), গ্রেডিয়েন্টে ফেরত কপি।"""
        for i, bucket in enumerate(self.buckets):
            self.work[i].wait()
            self.flat[i].div_(self.world_size)
            offset = 0
            for p in bucket:
                p.grad.copy_(self.flat[i][offset:offset + p.numel()].view_as(p.grad))
                offset += p.numel()
            self.waiting[i], self.flat[i], self.work[i] = len(bucket), None, None


def ddp_step(ddp, x, y):
    ddp.zero_grad(set_to_none=True)
    F.cross_entropy(ddp(x), y).backward()     # বাকেটের অল-রিডিউস ব্যাকওয়ার্ডের ভেতরেই শুরু আর শেষ


def our_step(model, ours, x, y):
    model.zero_grad(set_to_none=True)
    F.cross_entropy(model(x), y).backward()   # হুকগুলো ভরা বাকেটের অল-রিডিউস শুরু করে
    ours.finish()                             # বাকিদের অপেক্ষা, গড়, ফেরত কপি


def bucket_worker(rank, world_size, cfg):
    """প্রতিটি bucket_cap_mb-এ একই মডেল আর batch: PyTorch-এর DDP বনাম আমাদের BucketedAllReduce, পালা করে মাপা:
    প্রতিটি রাউন্ডে প্রতিটি আকারে দুটোরই এক ধাপ, ক্রম উল্টে উল্টে, তাই মেশিনে অন্য কাজের ভার সবার ওপর সমান পড়ে।"""
    x, y = overlap.batch_for(cfg, rank)
    ways, buckets = [], {}                    # ways: (আকার, "ddp" বা "ours", মডেল, এক ধাপ)
    for cap in cfg["bucket_caps_mb"]:
        ddp = DistributedDataParallel(overlap.model_for(cfg), bucket_cap_mb=cap)   # PyTorch-এর বাকেট
        model = overlap.model_for(cfg)
        ours = BucketedAllReduce(model, bucket_cap_mb=cap)                        # আমাদের বাকেট
        buckets[cap] = len(ours.buckets)
        ways += [(cap, "ddp", ddp.module, lambda ddp=ddp: ddp_step(ddp, x, y)),
                 (cap, "ours", model, lambda model=model, ours=ours: our_step(model, ours, x, y))]
    times = {(cap, way): [] for cap, way, _, _ in ways}
    for step in range(cfg["warmup"] + cfg["steps"]):
        for cap, way, _, one_step in (ways if step % 2 == 0 else ways[::-1]):   # রাউন্ডে রাউন্ডে ক্রম উল্টাই
            start = time.perf_counter()
            one_step()
            times[cap, way].append(time.perf_counter() - start)
    grads = {(cap, way): overlap.gradient_vector(model) for cap, way, model, _ in ways}   # শেষ ধাপের গ্রেডিয়েন্ট
    rows = []
    for cap in cfg["bucket_caps_mb"]:
        ddp_times, ours_times = times[cap, "ddp"][cfg["warmup"]:], times[cap, "ours"][cfg["warmup"]:]
        timeline = overlap.timeline_of(DistributedDataParallel(overlap.model_for(cfg), bucket_cap_mb=cap), x, y)
        rows.append({"bucket_cap_mb": cap, "step_s": statistics.median(ddp_times), "times": ddp_times,
                     "ours_s": statistics.median(ours_times), "ours_times": ours_times, "ours_buckets": buckets[cap],
                     "max_grad_gap": (grads[cap, "ddp"] - grads[cap, "ours"]).abs().max().item(), **timeline})
    return {"rank": rank, "world_size": world_size, "param_bytes": overlap.param_bytes(ways[0][2]), "rows": rows,
            "interleaved": True}


def accumulate(ddp, optimizer, micro_batches, no_sync=True):
    """k টি মাইক্রো-ব্যাচ, একটি অপটিমাইজার ধাপ; no_sync=True: অল-রিডিউস শুধু শেষ ব্যাকওয়ার্ডে।"""
    k = len(micro_batches)
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(micro_batches):
        if no_sync and i < k - 1:
            with ddp.no_sync():                                # ফরওয়ার্ড আর ব্যাকওয়ার্ড দুটোই ভেতরে
                (F.cross_entropy(ddp(x), y) / k).backward()    # শুধু নিজের কাছে জমায়
        else:
            (F.cross_entropy(ddp(x), y) / k).backward()        # এখানে প্রতিটি বাকেটের অল-রিডিউস
    optimizer.step()


def accumulation_worker(rank, world_size, cfg):
    """দুইভাবে জমানো (প্রতিবার অল-রিডিউস / no_sync()), পালা করে মাপা: প্রতিটি রাউন্ডে দুটোরই এক ধাপ,
    তাই মেশিনে অন্য কাজের ভার দুই দিকে সমান পড়ে। ফেরত: মাপা ধাপ, গোনা অল-রিডিউস, প্রথম ধাপের গ্রেডিয়েন্ট।"""
    k, out = cfg["micro_batches"], {"rank": rank, "world_size": world_size, "micro_batches": cfg["micro_batches"],
                                    "interleaved": True}
    steps = cfg["warmup"] + cfg["steps"]
    runs = {}
    for way in ("every", "no_sync"):
        ddp = DistributedDataParallel(overlap.model_for(cfg))
        runs[way] = {"ddp": ddp, "counter": overlap.count_allreduces(ddp),   # যোগাযোগ হুক: প্রতিটি বাকেটের অল-রিডিউস গোনে
                     "optimizer": torch.optim.SGD(ddp.parameters(), lr=0.01), "times": [], "first_grad": None}
    for step in range(steps):
        batches = [overlap.batch_for(cfg, rank, step * k + i) for i in range(k)]
        order = ("every", "no_sync") if step % 2 == 0 else ("no_sync", "every")   # রাউন্ডে রাউন্ডে ক্রম উল্টাই
        for way in order:
            run = runs[way]
            start = time.perf_counter()
            accumulate(run["ddp"], run["optimizer"], batches, no_sync=(way == "no_sync"))
            run["times"].append(time.perf_counter() - start)
            run["first_grad"] = run["first_grad"] or overlap.gradient_vector(run["ddp"].module).tolist()   # প্রথম ধাপের জমানো গ্রেডিয়েন্ট
    for way, run in runs.items():
        timed = run["times"][cfg["warmup"]:]
        out[way] = {"step_s": statistics.median(timed), "times": timed, "allreduces_per_step": len(run["counter"]) / steps,
                    "bytes_per_step": sum(e["bytes"] for e in run["counter"]) / steps, "first_grad": run["first_grad"]}
    return out
