"""AdamW as lesson 04 writes it (fused/adamw.py: for-loop, foreach, fused), plus NVIDIA Apex's FusedAdam.

    make_optimizer(params, "foreach")     forloop | foreach | fused | apex
"""

from __future__ import annotations

import warnings

import torch

from fastrain_lib.core.i18n import t
from fastrain_lib.fused.adamw import adamw
from fastrain_lib.fused.apex import apex_status

OPTIMIZER_IMPLS = ("forloop", "foreach", "fused", "apex")


def make_optimizer(params, impl: str = "fused", *, lr: float = 1e-3, weight_decay: float = 0.0) -> torch.optim.Optimizer:
    """AdamW in one of four implementations:

    forloop, foreach, fused   adamw(params, impl): torch.optim.AdamW(foreach=False / foreach=True / fused=True),
                              the cell of lesson 04 (saved in fused/adamw.py)
    apex                      apex.optimizers.FusedAdam where NVIDIA Apex is built and the parameters are on a GPU;
                              otherwise a Bengali warning and the native fused optimizer instead."""
    if impl not in OPTIMIZER_IMPLS:
        raise ValueError(t("fused.bad_impl", impl=impl, allowed=", ".join(OPTIMIZER_IMPLS)))
    params = list(params)
    if impl == "apex":
        status = apex_status()
        if status.fused_adam and all(p.is_cuda for p in params):
            from apex.optimizers import FusedAdam

            # adam_w_mode defaults to True in Apex: say which one we want, always.
            return FusedAdam(params, lr=lr, weight_decay=weight_decay, adam_w_mode=True)
        warnings.warn(t("fused.apex_adam_fallback", status=status.message), stacklevel=2)
        impl = "fused"
    return adamw(params, impl, lr=lr, weight_decay=weight_decay)
