"""Saved from notebooks/06_sync_vs_async_sgd.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import time

import torch
import torch.nn.functional as F


def hogwild_worker(rank, workers, model, x, y, steps, batch_size, lr, seed, go, reports):
    """একজন Hogwild কর্মী: shared মডেলে নিজের ডেটা আর নিজের অপটিমাইজার দিয়ে শেখায়, কোনো লক ছাড়া।"""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)  # নিজের অপটিমাইজার; ওজন কিন্তু shared memory-তে
    shard = torch.arange(rank, len(x), workers)  # নিজের ডেটা: প্রতি W-তম নমুনা, অন্যদের সাথে মেলে না
    generator = torch.Generator().manual_seed(seed + rank)
    reports.put(("ready", rank, None))
    go.wait()  # সবাই একই মুহূর্তে শুরু করে
    times, losses = [], []
    for _ in range(steps):
        index = shard[torch.randint(len(shard), (batch_size,), generator=generator)]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x[index]), y[index])  # shared ওজন এই মুহূর্তে যেমন আছে, তেমনই পড়ে
        loss.backward()  # গ্রেডিয়েন্ট যায় এই প্রসেসের নিজের .grad-এ
        optimizer.step()  # লক ছাড়াই সরাসরি shared ওজনে লেখে: অন্য প্রসেসগুলো সাথে সাথে দেখে
        times.append(time.perf_counter())
        losses.append(loss.item())
    reports.put(("done", rank, {"times": times, "losses": losses}))
