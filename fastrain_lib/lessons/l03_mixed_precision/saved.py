"""Saved from notebooks/03_mixed_precision.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch


def naive_cross_entropy(logits, targets):
    """হাতে-লেখা softmax + cross-entropy, প্রথম সংস্করণ যেমন হয়: max বিয়োগ ছাড়া।
    float32-এ লজিট প্রায় 88 পর্যন্ত ঠিক; fp16-এ exp(x) x ≈ 11.1 থেকেই inf, লস হয় nan।"""
    e = torch.exp(logits)
    probs = e / e.sum(-1, keepdim=True)
    return -torch.log(probs[torch.arange(targets.numel(), device=targets.device), targets]).mean()


def fp32_cross_entropy(device_type):
    """একই লস একটি autograd Function হিসেবে, যার ফরওয়ার্ড আর ব্যাকওয়ার্ড autocast-এর ভেতরেও fp32-এ চলে।"""

    class Fp32CrossEntropy(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type=device_type, cast_inputs=torch.float32)  # ইনপুট fp32-এ, ভেতরে autocast বন্ধ
        def forward(ctx, logits, targets):
            e = torch.exp(logits - logits.max(-1, keepdim=True).values)          # স্থিতিশীল রূপ, fp32-এ
            probs = e / e.sum(-1, keepdim=True)
            ctx.save_for_backward(probs, targets)
            return -torch.log(probs[torch.arange(targets.numel(), device=targets.device), targets]).mean()

        @staticmethod
        @torch.amp.custom_bwd(device_type=device_type)                           # ব্যাকওয়ার্ডও একই নিয়মে
        def backward(ctx, grad):
            probs, targets = ctx.saved_tensors
            g = probs.clone()
            g[torch.arange(targets.numel(), device=targets.device), targets] -= 1   # softmax − one-hot
            return g * (grad / targets.numel()), None

    return Fp32CrossEntropy
