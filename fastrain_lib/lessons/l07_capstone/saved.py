"""Saved from notebooks/07_capstone_bengali_gpt.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import time

import torch

from fastrain_lib.measure import hardware
from fastrain_lib.precision.amp import AUTOCAST_DTYPES
from fastrain_lib.precision.step import amp_step
from fastrain_lib.train import default_loss


def time_switch(net, x, y, *, device, precision="fp32", fused=False, compile=False, lr=1e-3, steps=10):
    """একটি সুইচ-সেটে `steps`টি প্রশিক্ষণ ধাপ; প্রতিটি ধাপের সময় (সেকেন্ড) আলাদা করে ফেরত দেয়।"""
    # fused: সব প্যারামিটারের আপডেট এক kernel-এ; foreach=False আর fused=False মানে একটি একটি করে (for-loop)
    optimizer = torch.optim.AdamW(net.parameters(), lr=lr, foreach=False, fused=fused)
    scaler = torch.amp.GradScaler(torch.device(device).type, enabled=precision == "fp16")  # লস স্কেল শুধু fp16-এ লাগে
    dtype = AUTOCAST_DTYPES.get(precision)          # bf16/fp16: autocast-এর dtype; fp32: None, autocast বন্ধ
    step_net = torch.compile(net) if compile else net   # প্রথম ধাপে কম্পাইল হয় (ধীর), পরের ধাপগুলো দ্রুত
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        # পাঠ ০৩-এর ধাপ: autocast-এ ফরওয়ার্ড + লস → scaler.scale(loss).backward() → unscale_ + ক্লিপ → step → update
        amp_step(step_net, optimizer, scaler, x, y, default_loss, dtype=dtype, max_norm=1.0)
        hardware.synchronize(device)                # GPU-র কাজ async: ঘড়ি পড়ার আগে শেষ হওয়া পর্যন্ত অপেক্ষা
        times.append(time.perf_counter() - start)
    return times
