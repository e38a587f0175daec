"""Saved from notebooks/04_fused_kernels.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import math

import torch


def naive_attention(q, k, v, causal=True):
    """softmax(q·kᵀ/√d, মাস্কসহ)·v, প্রতিটি ধাপ একটি সাধারণ অপারেটর। q, k, v: [batch, heads, T, d]।"""
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * scale  # [batch, heads, T, T]: বড় ম্যাট্রিক্সটি
    if causal:  # অবস্থান i শুধু i পর্যন্ত অবস্থান দেখতে পারে
        T = q.shape[-2]
        allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # ব্যাকওয়ার্ডের জন্য জমা থাকে: প্রতি হেডে T×T সংখ্যা
    return weights @ v
