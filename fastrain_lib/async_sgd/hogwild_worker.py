"""Saved from notebooks/06_sync_vs_async_sgd.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import contextlib
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F


def hogwild_worker(rank, workers, model, x, y, total_steps, batch_size, lr, seed, lock=None):
    """একজন Hogwild কর্মী: shared মডেলে নিজের ডেটা আর নিজের অপটিমাইজার দিয়ে শেখায়, কোনো লক ছাড়া।"""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)  # নিজের অপটিমাইজার; ওজন কিন্তু shared memory-তে
    shard = torch.arange(rank, len(x), workers)  # নিজের ডেটা: প্রতি W-তম নমুনা, অন্যদের সাথে মেলে না
    generator = torch.Generator().manual_seed(seed + rank)
    dist.barrier()  # সবাই একই মুহূর্তে শুরু করে
    start, times, losses = time.perf_counter(), [], []
    for _ in range(rank, total_steps, workers):  # মোট ধাপ সবার মধ্যে সমান ভাগে
        index = shard[torch.randint(len(shard), (batch_size,), generator=generator)]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x[index]), y[index])  # shared ওজন এই মুহূর্তে যেমন আছে, তেমনই পড়ে
        loss.backward()  # গ্রেডিয়েন্ট যায় এই প্রসেসের নিজের .grad-এ
        with lock or contextlib.nullcontext():  # Hogwild: lock=None, কোনো লক নেই (তুলনার রানে শুধু লেখাটা লকে)
            optimizer.step()  # সরাসরি shared ওজনে লেখে: অন্য প্রসেসগুলো সাথে সাথে দেখে
        times.append(time.perf_counter())
        losses.append(loss.item())
    return {"start": start, "times": times, "losses": losses}


from fastrain_lib.distributed.launcher import launch


def start_hogwild(workers, model, x, y, total_steps, batch_size=32, lr=0.05, seed=0, lock=None, timeout_s=180):
    """W টি আসল প্রসেস একটিই মডেল একসাথে শেখায়; ফেরত দেয় প্রতিটি কর্মীর সময় আর লস।"""
    model.share_memory()  # ওজন এখন shared memory-তে: প্রতিটি প্রসেস এই একই ওজন পড়ে আর লেখে
    x, y = x.share_memory_(), y.share_memory_()  # ডেটাও: প্রসেসে কপি যায় না, একই মেমরির হাতল যায়
    # পাঠ ০৫-এর launch: প্রতিটি প্রসেস hogwild_worker(rank, workers, ...) চালায়, ১টি থ্রেডে (W প্রসেস, W কোর)
    return launch(hogwild_worker, workers, args=(model, x, y, total_steps, batch_size, lr, seed, lock),
                  threads=1, timeout_s=timeout_s)
