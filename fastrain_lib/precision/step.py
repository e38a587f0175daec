"""One training step for every precision: the order mixed precision needs (torch.amp recipe).

Lesson 03 writes this function in its own cell (marked #@save); everything else that trains
(train.py, the lesson 04 ablation and panel, the DDP workers) calls this one copy."""

from __future__ import annotations

import torch


def amp_step(model, optimizer, scaler, inputs, targets, loss_fn, *, dtype=None, max_norm=None):
    """forward+loss under autocast -> scaled backward -> (unscale, clip) -> step -> update.

    dtype: torch.float16 / torch.bfloat16 for autocast, None for fp32.
    scaler: torch.amp.GradScaler(device_type, enabled=(dtype == torch.float16)).
    Returns the loss, detached (keeping it would keep this step's graph alive)."""
    with torch.autocast(inputs.device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()          # backward outside autocast; fp16: loss x scale
    if max_norm is not None:
        scaler.unscale_(optimizer)         # clip the true gradients, not the scaled ones
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)                 # skipped when a gradient is inf/nan
    scaler.update()                        # halve the scale after an overflow, grow it later
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()
