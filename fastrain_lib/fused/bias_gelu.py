"""Saved from notebooks/04_fused_kernels.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import math

import torch
import torch.nn.functional as F

GELU_C = math.sqrt(2.0 / math.pi)  # 0.7978845608...


def bias_gelu(x, bias):
    """bias যোগ + GELU (tanh রূপ), আলাদা আলাদা এলিমেন্টওয়াইজ অপারেশনে লেখা।

    eager PyTorch প্রতিটি অপারেশন আলাদা kernel-এ চালায়: প্রতিটি তার ইনপুট মেমরি থেকে পড়ে
    আর পুরো আকারের ফল মেমরিতে লেখে। গণিত F.gelu(x + bias, approximate="tanh")-এর সমান।"""
    z = x + bias
    cube = z * z * z
    inner = (z + 0.044715 * cube) * GELU_C
    return 0.5 * z * (1.0 + torch.tanh(inner))


def bias_gelu_reference(x, bias):
    """একই ফাংশন PyTorch-এর নিজের GELU kernel দিয়ে: দুটি অপারেটর (যোগ, gelu)।"""
    return F.gelu(x + bias, approximate="tanh")
