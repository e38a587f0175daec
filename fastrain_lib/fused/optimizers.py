"""AdamW as lesson 04 writes it (fused/adamw.py: for-loop, foreach, fused), plus NVIDIA Apex's FusedAdam.

    make_optimizer(params, "foreach")     forloop | foreach | fused | apex
    optimizer_step_launches("foreach", 16)   launches of one step (measure.launches.count_launches)
"""

from __future__ import annotations

import warnings

import torch

from fastrain_lib.core.i18n import t
from fastrain_lib.fused.adamw import adamw
from fastrain_lib.fused.apex import apex_status
from fastrain_lib.measure import bench
from fastrain_lib.measure.launches import LaunchCount, count_launches

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


def optimizer_step_launches(impl: str, n_tensors: int, numel: int = 256, device="cpu",
                            warmup: int = 1) -> LaunchCount:
    """Launches of one AdamW step (after a warm-up step) over `n_tensors` parameter tensors."""
    params = [torch.nn.Parameter(bench.fresh_random(numel, device=device, seed=i)) for i in range(n_tensors)]
    for i, p in enumerate(params):
        p.grad = bench.fresh_random(numel, device=device, seed=1000 + i)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the apex fallback warning: shown once in the lesson instead
        opt = make_optimizer(params, impl)
    return count_launches(opt.step, warmup=warmup)
