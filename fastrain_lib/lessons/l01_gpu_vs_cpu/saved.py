"""Saved from notebooks/01_gpu_vs_cpu.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch


def training_step(model, optimizer, inputs, targets):
    """উৎস-প্রবন্ধ ১-এর প্রশিক্ষণ ধাপ: zero_grad, forward, loss, backward, step।"""
    optimizer.zero_grad()                                              # আগের ধাপের গ্রেডিয়েন্ট মুছে ফেলা
    loss = torch.nn.functional.cross_entropy(model(inputs), targets)   # ফরওয়ার্ড পাস আর লস
    loss.backward()                                                    # ব্যাকওয়ার্ড পাস: গ্রেডিয়েন্ট
    optimizer.step()                                                   # ওজন হালনাগাদ
