"""Saved from notebooks/04_fused_kernels.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch
from torch import nn


class NaiveLayerNorm(nn.Module):
    """LayerNorm তার সংজ্ঞা থেকে: গড়, ভ্যারিয়ান্স, নর্মালাইজ, তারপর স্কেল আর শিফট।"""

    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        # প্রতিটি লাইন আলাদা অপারেটর (ব্যাকওয়ার্ডে আরও কয়েকটি): eager PyTorch অ্যাক্টিভেশন বারবার পড়ে আর লেখে
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)   # biased ভ্যারিয়ান্স, LayerNorm যেমন নেয়
        x_hat = (x - mean) / torch.sqrt(var + self.eps)  # eps বর্গমূলের ভেতরে (Adam-এ বাইরে)
        return x_hat * self.weight + self.bias
