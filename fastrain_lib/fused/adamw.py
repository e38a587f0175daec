"""Saved from notebooks/04_fused_kernels.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch


def adamw(params, impl, lr=1e-3, weight_decay=0.0):
    """একই AdamW, তিনভাবে চালানো: গণিত এক, kernel-এর সংখ্যা আলাদা।"""
    if impl == "forloop":  # প্রতিটি প্যারামিটার টেনসরে আলাদা আলাদা অপারেশন
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, foreach=False)
    if impl == "foreach":  # এক কলে সব টেনসরের একই অপারেশন (torch._foreach_*)
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, foreach=True)
    if impl == "fused":    # পুরো হালনাগাদ একটি kernel-এ
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=True)
    raise ValueError(impl)  # এই তিনটির বাইরে কিছু নেই
