"""Saved from notebooks/04_fused_kernels.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import os

import torch

from fastrain_lib.measure import hardware

try:
    import triton
    import triton.language as tl
except ModuleNotFoundError:  # PyPI-র torch Windows-এ triton আনে না: kernel লেখা যায়, চালানো যায় না (নিচের সেল কারণ বলে)
    from fastrain_lib.fused.no_triton import tl, triton

# GPU না থাকলে Triton-এর ইন্টারপ্রেটার: একই kernel NumPy দিয়ে ব্লক ধরে ধরে চলে — ফল যাচাইয়ের জন্য, গতির জন্য নয়।
# triton এই চলকটি পড়ে @triton.jit-এর মুহূর্তে (import-এর সময় নয়), তাই kernel লেখার ঠিক আগে বসাই
INTERPRETED = not hardware.cuda_available()  # torch.cuda.is_available(), আর CUDA সত্যিই চলে কিনা
if INTERPRETED:
    os.environ["TRITON_INTERPRET"] = "1"

BLOCK = 1024  # প্রতিটি "প্রোগ্রাম" কয়টি উপাদান নেয় (GPU-তে থ্রেডের একটি ব্লক)


@triton.jit
def bias_gelu_kernel(x_ptr, bias_ptr, y_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr, UPCAST: tl.constexpr):
    pid = tl.program_id(axis=0)  # এই প্রোগ্রামের নম্বর: সে কোন ব্লকটি নেবে
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements  # শেষ ব্লকটি টেনসরের শেষ ছাড়িয়ে যেতে পারে
    x = tl.load(x_ptr + offsets, mask=mask)  # x একবার পড়া
    b = tl.load(bias_ptr + offsets % n_cols, mask=mask)  # bias প্রতিটি সারিতে একই
    z = x + b
    if UPCAST:  # fp16/bf16 ইনপুট: হিসাব fp32-এ
        z = z.to(tl.float32)
    inner = 0.7978845608028654 * (z + 0.044715 * z * z * z)  # √(2/π)·(z + 0.044715·z³)
    inner = tl.minimum(tl.maximum(inner, -15.0), 15.0)  # fp32-এ tanh(±15) = ±1; exp অসীম হয় না
    tanh = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0  # tanh, exp থেকে
    y = 0.5 * z * (1.0 + tanh)  # সব হিসাব রেজিস্টারে
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)  # y একবার লেখা


def triton_bias_gelu(x, bias):
    """GELU(x + bias) (tanh রূপ), একটি Triton kernel লঞ্চে। autograd নেই: তার জন্য অংশ ৬-এর BiasGELU।"""
    x = x.detach().contiguous()
    bias = bias.detach().to(x.dtype).contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK),)  # কয়টি প্রোগ্রাম: প্রতি BLOCK-টি উপাদানে একটি
    bias_gelu_kernel[grid](x, bias, y, n, bias.numel(), BLOCK_SIZE=BLOCK,
                           UPCAST=x.dtype in (torch.float16, torch.bfloat16))
    return y


@triton.jit
def bias_gelu_backward_kernel(x_ptr, bias_ptr, dy_ptr, dz_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr,
                              UPCAST: tl.constexpr):
    # y = GELU(z), z = x + bias-এর ব্যাকওয়ার্ড: dz = dy · GELU′(z)। z আর tanh জমা ছিল না: এখানে রেজিস্টারে আবার হিসাব
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    b = tl.load(bias_ptr + offsets % n_cols, mask=mask)
    dy = tl.load(dy_ptr + offsets, mask=mask)
    z = x + b
    if UPCAST:
        z = z.to(tl.float32)
        dy = dy.to(tl.float32)
    inner = 0.7978845608028654 * (z + 0.044715 * z * z * z)
    inner = tl.minimum(tl.maximum(inner, -15.0), 15.0)
    tanh = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
    # d/dz [0.5·z·(1 + tanh(u))] = 0.5·(1 + tanh) + 0.5·z·(1 − tanh²)·du/dz,  du/dz = c·(1 + 3·0.044715·z²)
    du = 0.7978845608028654 * (1.0 + 0.134145 * z * z)
    grad = 0.5 * (1.0 + tanh) + 0.5 * z * (1.0 - tanh * tanh) * du
    tl.store(dz_ptr + offsets, (dy * grad).to(dz_ptr.dtype.element_ty), mask=mask)


def triton_bias_gelu_grad(x, bias, dy):
    """dz = dy · GELU′(x + bias), একটি Triton kernel লঞ্চে: x-এর গ্রেডিয়েন্ট (সারিগুলোর যোগফল bias-এর)।"""
    x = x.detach().contiguous()
    bias = bias.detach().to(x.dtype).contiguous()
    dy = dy.detach().to(x.dtype).contiguous()
    dz = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK),)
    bias_gelu_backward_kernel[grid](x, bias, dy, dz, n, bias.numel(), BLOCK_SIZE=BLOCK,
                                    UPCAST=x.dtype in (torch.float16, torch.bfloat16))
    return dz


class BiasGELU(torch.autograd.Function):
    """y = GELU(x + bias), দুই দিকই Triton-এ। ব্যাকওয়ার্ডের জন্য জমা শুধু x আর bias।"""

    @staticmethod
    def forward(ctx, x, bias):
        ctx.save_for_backward(x, bias)  # z বা tanh নয়: ব্যাকওয়ার্ড kernel সেগুলো আবার হিসাব করে
        return triton_bias_gelu(x, bias)

    @staticmethod
    def backward(ctx, dy):
        x, bias = ctx.saved_tensors
        dz = triton_bias_gelu_grad(x, bias, dy)  # bias শুধু যোগ হয়েছিল: dL/dx = dL/dz
        dx = dz if ctx.needs_input_grad[0] else None
        # bias প্রতিটি সারিতে যোগ হয়েছিল: তার গ্রেডিয়েন্ট dz-এর সব সারির যোগফল
        dbias = dz.reshape(-1, bias.numel()).sum(0) if ctx.needs_input_grad[1] else None
        return dx, dbias
