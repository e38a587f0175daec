"""Saved from notebooks/03_mixed_precision.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch


def amp_backward(model, scaler, inputs, targets, loss_fn, *, dtype=None, accumulate=1):
    """ধাপের প্রথম অর্ধেক: autocast-এ ফরওয়ার্ড আর লস, তারপর স্কেল করা backward। লস ফেরত দেয় (স্কেল ছাড়া)।"""
    # শুধু ফরওয়ার্ড আর লস autocast-এর ভেতরে; dtype=None মানে সাধারণ fp32 (autocast বন্ধ)
    with torch.autocast(inputs.device.type, dtype=dtype, enabled=dtype is not None):
        loss = loss_fn(model(inputs), targets)
    # backward autocast-এর বাইরে: লস × স্কেল (fp16), যাতে ছোট গ্রেডিয়েন্ট শূন্য না হয়;
    # গ্রেডিয়েন্ট জমালে প্রতিটি মাইক্রো-ব্যাচের লস ÷ accumulate
    scaler.scale(loss / accumulate).backward()
    return loss.detach()                     # detach: নইলে এই ধাপের গ্রাফ মেমরিতে থেকে যায়


def grads_finite(model):
    """সব গ্রেডিয়েন্ট সসীম কিনা (inf/nan নেই), একবারের অপেক্ষায়।"""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return not grads or bool(torch.stack([torch.isfinite(g).all() for g in grads]).all())


def amp_update(model, optimizer, scaler, *, max_norm=None, skip_nonfinite=False):
    """ধাপের দ্বিতীয় অর্ধেক: (unscale_ → ক্লিপিং) → step → update → zero_grad।
    False ফেরত দেয় শুধু যখন স্কেলার ছাড়া inf/nan দেখে ধাপটি নিজেরা বাদ দিলাম।"""
    if max_norm is not None:
        scaler.unscale_(optimizer)                                    # আগে আসল গ্রেডিয়েন্ট ফিরিয়ে আনা ...
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # ... তারপর ক্লিপিং
    stepped = True
    if skip_nonfinite and not scaler.is_enabled() and not grads_finite(model):
        stepped = False                      # স্কেলার বন্ধ (bf16/fp32): inf/nan থাকলে ধাপটি নিজেরাই বাদ
    else:
        scaler.step(optimizer)               # স্কেলার চালু থাকলে inf/nan পেলে সে নিজেই এই ধাপ বাদ দেয়
    scaler.update()                          # inf এলে স্কেল অর্ধেক, অনেকগুলো ভালো ধাপের পরে দ্বিগুণ
    optimizer.zero_grad(set_to_none=True)    # পরের ধাপের জন্য গ্রেডিয়েন্ট মুছে ফেলা
    return stepped


def amp_step(model, optimizer, scaler, inputs, targets, loss_fn, *, dtype=None, max_norm=None):
    """একটি পূর্ণ প্রশিক্ষণ ধাপ, দুই অর্ধেক পরপর; এই ধাপের লস ফেরত দেয়।"""
    loss = amp_backward(model, scaler, inputs, targets, loss_fn, dtype=dtype)
    amp_update(model, optimizer, scaler, max_norm=max_norm)
    return loss
