"""Adam and AdamW four ways: for-loop, foreach, fused, and NVIDIA Apex's FusedAdam (lesson 04).

    make_optimizer(params, "foreach")     forloop | foreach | fused | apex
    NaiveAdam                             the paper's update, one tensor at a time, for reading
"""

from __future__ import annotations

import warnings

import torch

from fastrain_lib.fused.apex import apex_status
from fastrain_lib.core.i18n import t

OPTIMIZER_IMPLS = ("forloop", "foreach", "fused", "apex")


class NaiveAdam(torch.optim.Optimizer):
    """Adam/AdamW written out as in the paper, one parameter tensor at a time.

    For reading, not for speed: every line below is one (or two) separate operator
    calls per parameter tensor, which is exactly what the fused versions avoid.
    Matches torch.optim.Adam (adamw=False) / AdamW (adamw=True) within float tolerance."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, adamw=False):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "adamw": adamw})

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if not state:  # first step: the two running averages start at zero
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t_ = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                if group["weight_decay"]:
                    if group["adamw"]:  # AdamW: shrink the weights directly (decoupled)
                        p.mul_(1 - group["lr"] * group["weight_decay"])
                    else:  # Adam: L2 penalty added to the gradient
                        grad = grad + group["weight_decay"] * p
                m.mul_(beta1).add_(grad, alpha=1 - beta1)  # m = b1*m + (1-b1)*g
                v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)  # v = b2*v + (1-b2)*g*g
                m_hat = m / (1 - beta1**t_)  # bias correction: m and v started at zero
                v_hat = v / (1 - beta2**t_)
                p.sub_(group["lr"] * m_hat / (v_hat.sqrt() + group["eps"]))  # eps outside the sqrt
        return loss


def adam_step_reference(params, grads, exp_avgs, exp_avg_sqs, step: int, lr=1e-3, betas=(0.9, 0.999),
                        eps=1e-8):
    """One Adam step on lists of tensors, in place, the textbook way (step counts from 1)."""
    beta1, beta2 = betas
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v / (1 - beta2**step)).sqrt().add_(eps)
            p.sub_(lr * (m / (1 - beta1**step)) / denom)
    return params


def _cuda_params(params) -> bool:
    return all(p.is_cuda for p in params)


def make_optimizer(params, impl: str = "fused", *, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                   weight_decay: float = 0.0, adamw: bool = True) -> torch.optim.Optimizer:
    """Adam (adamw=False) or AdamW (default) in one of four implementations:

    forloop  torch.optim.AdamW(foreach=False): a few operator calls per parameter tensor
    foreach  torch.optim.AdamW(foreach=True): one call per operation for all tensors (PyTorch's default)
    fused    torch.optim.AdamW(fused=True): the whole update in one kernel (CUDA, and CPU on recent torch)
    apex     apex.optimizers.FusedAdam where NVIDIA Apex is built and the parameters are on a GPU;
             otherwise a Bengali warning and the native fused optimizer instead."""
    if impl not in OPTIMIZER_IMPLS:
        raise ValueError(t("fused.bad_impl", impl=impl, allowed=", ".join(OPTIMIZER_IMPLS)))
    params = list(params)
    if impl == "apex":
        status = apex_status()
        if status.fused_adam and _cuda_params(params):
            from apex.optimizers import FusedAdam

            # adam_w_mode defaults to True in Apex: say which one we want, always.
            return FusedAdam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, adam_w_mode=adamw)
        warnings.warn(t("fused.apex_adam_fallback", status=status.message), stacklevel=2)
        impl = "fused"
    cls = torch.optim.AdamW if adamw else torch.optim.Adam
    options = {"forloop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[impl]
    return cls(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, **options)
