"""LayerNorm four ways: nn.LayerNorm, a naive one from its definition, the naive one compiled,
and NVIDIA Apex's FusedLayerNorm (lesson 04). gpt.GPT takes any of them."""

from __future__ import annotations

import warnings

import torch
from torch import nn

from fastrain_lib.fused.apex import apex_status
from fastrain_lib.core.i18n import t

NORM_IMPLS = ("torch", "naive", "naive_compiled", "apex")


class NaiveLayerNorm(nn.Module):
    """LayerNorm from its definition: mean, variance, normalise, scale and shift.

    Each line is a separate operator (and in backward several more), so eager PyTorch
    reads and writes the activations many times; nn.LayerNorm does it in one kernel."""

    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)  # biased variance, as LayerNorm uses
        x_hat = (x - mean) / torch.sqrt(var + self.eps)  # eps inside the sqrt, unlike Adam
        return x_hat * self.weight + self.bias


def make_layernorm(dim: int, impl: str = "torch", eps: float = 1e-5) -> nn.Module:
    """A LayerNorm over the last `dim` features:

    torch           nn.LayerNorm (on CUDA one fused kernel, itself ported from Apex)
    naive           NaiveLayerNorm (many small operators)
    naive_compiled  NaiveLayerNorm under torch.compile (Inductor fuses it; first call compiles)
    apex            apex.normalization.FusedLayerNorm where built, else a warning and nn.LayerNorm.
                    Note: FusedLayerNorm silently uses F.layer_norm for CPU tensors."""
    if impl not in NORM_IMPLS:
        raise ValueError(t("fused.bad_norm", impl=impl, allowed=", ".join(NORM_IMPLS)))
    if impl == "naive":
        return NaiveLayerNorm(dim, eps)
    if impl == "naive_compiled":
        return torch.compile(NaiveLayerNorm(dim, eps))
    if impl == "apex":
        status = apex_status()
        if status.fused_layer_norm:
            from apex.normalization import FusedLayerNorm

            return FusedLayerNorm(dim, eps=eps)
        warnings.warn(t("fused.apex_ln_fallback", status=status.message), stacklevel=2)
    return nn.LayerNorm(dim, eps=eps)
