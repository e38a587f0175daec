"""Regions that must stay fp32 inside autocast: a hand-written softmax + cross-entropy over large
logits breaks in 16 bits; autocast(enabled=False) on .float() logits or a custom_fwd Function
keeps it in float32 (lesson 03, section 5b)."""

from __future__ import annotations

import functools
import math

import torch
from torch.nn import functional as F

from fastrain_lib.precision.amp import autocast

# ---------------------------------------------------------------------------------------
# Regions that must stay fp32: a hand-written softmax + cross-entropy over large logits
# ---------------------------------------------------------------------------------------

def naive_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Softmax and cross-entropy written by hand, the way a first version often looks: exp,
    sum, divide, log — no max subtraction. In float32 it is right for logits up to about 88;
    in fp16 exp(x) is inf from x ≈ 11.1 on, and the loss becomes nan."""
    e = torch.exp(logits)
    probs = e / e.sum(-1, keepdim=True)
    return -torch.log(probs[torch.arange(targets.numel(), device=targets.device), targets]).mean()


@functools.cache
def fp32_cross_entropy(device_type: str):
    """naive_cross_entropy as an autograd Function whose forward and backward always run in
    float32, even inside autocast: torch.amp.custom_fwd(cast_inputs=torch.float32) casts the
    inputs and switches autocast off inside; custom_bwd runs backward the same way."""

    class Fp32CrossEntropy(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type=device_type, cast_inputs=torch.float32)
        def forward(ctx, logits, targets):
            e = torch.exp(logits - logits.max(-1, keepdim=True).values)  # the stable form, in fp32
            probs = e / e.sum(-1, keepdim=True)
            ctx.save_for_backward(probs, targets)
            rows = torch.arange(targets.numel(), device=targets.device)
            return -torch.log(probs[rows, targets]).mean()

        @staticmethod
        @torch.amp.custom_bwd(device_type=device_type)
        def backward(ctx, grad):
            probs, targets = ctx.saved_tensors
            g = probs.clone()
            g[torch.arange(targets.numel(), device=targets.device), targets] -= 1
            return g * (grad / targets.numel()), None

    return Fp32CrossEntropy


def large_logits(device="cpu", batch: int = 64, classes: int = 1000, spread: float = 30.0, seed: int = 0):
    """Features, a linear head and targets whose logits reach about ±spread (a confident or
    badly scaled classifier over many classes)."""
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(batch, 64, generator=g)
    w = torch.randn(classes, 64, generator=g)
    w = w * (spread / (h @ w.T).abs().max())
    y = torch.randint(0, classes, (batch,), generator=g)
    return h.to(device), w.to(device), y.to(device)


def fp32_region_rows(device="cpu", modes=("fp16", "bf16")) -> list[dict]:
    """The same loss over large logits, computed four ways, against a float64 reference:
    plain fp32; inside autocast; inside autocast but in an autocast(enabled=False) region on
    .float() logits; and through fp32_cross_entropy (custom_fwd). Each row: how, mode, the
    loss, its error, whether it is finite, and the dtype exp() produced there."""
    device = torch.device(device)
    h, w, y = large_logits(device)
    ref = F.cross_entropy((h.double() @ w.double().T), y).item()
    rows = [{"how": "fp32", "mode": "fp32", "loss": naive_cross_entropy(h @ w.T, y).item(), "exp_dtype": "float32"}]
    for mode in modes:
        with autocast(device, mode):
            logits = h @ w.T
            exp_dtype = str(torch.exp(logits).dtype).replace("torch.", "")
            inside = naive_cross_entropy(logits, y)
            with torch.autocast(device.type, enabled=False):
                region = naive_cross_entropy(logits.float(), y)
            custom = fp32_cross_entropy(device.type).apply(logits, y)
        rows += [{"how": "autocast", "mode": mode, "loss": inside.item(), "exp_dtype": exp_dtype},
                 {"how": "enabled=False", "mode": mode, "loss": region.item(), "exp_dtype": "float32"},
                 {"how": "custom_fwd", "mode": mode, "loss": custom.item(), "exp_dtype": "float32"}]
    for row in rows:
        row["finite"] = math.isfinite(row["loss"])
        row["error"] = abs(row["loss"] - ref) if row["finite"] else math.inf
        row["reference"] = ref
    return rows
