"""LayerNorm four ways: nn.LayerNorm, the naive one lesson 04 writes from its definition
(fused/naive_layernorm.py, saved from the lesson's cell), the naive one compiled, and NVIDIA Apex's
FusedLayerNorm. gpt.GPT takes any of them."""

from __future__ import annotations

import warnings

import torch
from torch import nn

from fastrain_lib.core.i18n import t
from fastrain_lib.fused.apex import apex_status
from fastrain_lib.fused.naive_layernorm import NaiveLayerNorm

NORM_IMPLS = ("torch", "naive", "naive_compiled", "apex")


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
