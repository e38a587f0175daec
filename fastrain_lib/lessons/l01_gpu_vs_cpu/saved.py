"""Saved from notebooks/01_gpu_vs_cpu.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import statistics
import time

import torch

from fastrain_lib.core import config
from fastrain_lib.measure import bench, noise


def sync(device):
    """GPU-র কাজ অ্যাসিঙ্ক্রোনাস: ঘড়ি পড়ার আগে তার সব কাজ শেষ হওয়া পর্যন্ত অপেক্ষা।"""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)
    elif torch.device(device).type == "mps":
        torch.mps.synchronize()


def timed(fn, name, device="cpu", threads=None, params=None, warmup=3):
    """সৎ মাপ: থ্রেড ঠিক করা, warm-up, প্রতিবার সিঙ্ক্রোনাইজ, বহুবার চালিয়ে মধ্যমা।"""
    min_s = config.by_mode(ci=0.05, lab=0.3, full=1.0)   # অন্তত এতক্ষণ ধরে মাপা
    before = torch.get_num_threads()
    threads = threads or noise.free_threads(before)   # বলা না থাকলে: যতগুলো থ্রেড এখন খালি কোরে ধরে
    torch.set_num_threads(threads)            # মাপের থ্রেড সংখ্যা নিজে বেছে নেওয়া
    try:
        for _ in range(warmup):               # warm-up: প্রথম কলগুলোর এককালীন খরচ মাপের বাইরে
            fn()
        sync(device)
        times = []
        with noise.Window() as window:        # মাপার সময় অন্য প্রোগ্রাম কতটা ব্যস্ত ছিল
            while len(times) < 5 or (sum(times) < min_s and len(times) < 10_000):
                start = time.perf_counter()
                fn()
                sync(device)                  # GPU কাজ শেষ করার পরেই ঘড়ি থামে
                times.append(time.perf_counter() - start)
    finally:
        torch.set_num_threads(before)         # পরের সেলগুলো আগের থ্রেডেই চলে
    q1, _, q3 = statistics.quantiles(times, n=4)
    median = statistics.median(times)         # মধ্যমা: হঠাৎ একটি ধীর মাপে নড়ে না
    info = window.assess(threads=threads, spread=(q3 - q1) / median, repeats=len(times), threads_wanted=before)
    return bench.Record(name, median, q3 - q1, times, {**(params or {}), "device": str(device), "threads": threads},
                        meta=bench.meta(), noise=info)


def time_matmul(n, device="cpu", dtype=torch.float32, threads=None):
    """n×n ম্যাট্রিক্স গুণ: 2·n³ FLOP; GFLOP/s = কাজ ÷ মধ্যমা সময়।"""
    a = torch.randn(n, n, device=device, dtype=dtype)   # এলোমেলো সংখ্যা, শূন্য নয়
    b = torch.randn(n, n, device=device, dtype=dtype)
    record = timed(lambda: a @ b, f"matmul {n}", device, threads,
                   {"size": n, "dtype": str(dtype).removeprefix("torch.")})
    record.metrics["gflops"] = 2 * n**3 / record.median_s / 1e9
    return record


def time_add(numel, device="cpu", dtype=torch.float32, threads=None):
    """c = a + b: দুটি টেনসর পড়া, একটি লেখা (3·numel সংখ্যা সরানো), প্রতি উপাদানে 1 FLOP।"""
    a = torch.randn(numel, device=device, dtype=dtype)
    b = torch.randn(numel, device=device, dtype=dtype)
    c = torch.empty_like(a)
    record = timed(lambda: torch.add(a, b, out=c), f"add {numel}", device, threads,
                   {"numel": numel, "dtype": str(dtype).removeprefix("torch.")})
    record.metrics["gbs"] = 3 * numel * a.element_size() / record.median_s / 1e9
    record.metrics["gflops"] = numel / record.median_s / 1e9
    return record


import torch

from fastrain_lib.models import SimpleNN


def training_step(model, optimizer, inputs, targets):
    """উৎস-প্রবন্ধ ১-এর প্রশিক্ষণ ধাপ: zero_grad, forward, loss, backward, step।"""
    optimizer.zero_grad()                                              # আগের ধাপের গ্রেডিয়েন্ট মুছে ফেলা
    loss = torch.nn.functional.cross_entropy(model(inputs), targets)   # ফরওয়ার্ড পাস আর লস
    loss.backward()                                                    # ব্যাকওয়ার্ড পাস: গ্রেডিয়েন্ট
    optimizer.step()                                                   # ওজন হালনাগাদ


def batch_throughput(batch_size, device="cpu", threads=None):
    """একটি batch আকারে training_step মাপা: থ্রুপুট = batch আকার ÷ এক ধাপের মধ্যমা সময়।"""
    torch.manual_seed(0)
    model = SimpleNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)           # উৎস-প্রবন্ধ ১-এর মতো
    inputs = torch.randn(batch_size, 1, 28, 28, device=device)          # এলোমেলো ছবি, শূন্য নয়
    targets = torch.randint(0, 10, (batch_size,), device=device)
    record = timed(lambda: training_step(model, optimizer, inputs, targets), f"SimpleNN step b={batch_size}",
                   device, threads, params={"batch_size": batch_size})         # warm-up বাদ দিয়ে ধাপের মধ্যমা
    record.metrics["samples_per_s"] = batch_size / record.median_s
    return record
