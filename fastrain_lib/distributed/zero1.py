"""Saved from notebooks/05c_sharding_and_pipelines.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import math
import torch.distributed as dist

# torch ≥ 2.10-এর নাম; পুরোনো torch-এ একই কাজ পুরোনো নামে
reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor


def my_piece(p, rank, world_size):
    """p-কে সমান N টুকরোয় কাটলে (শেষটায় শূন্য জুড়ে) এই র‍্যাঙ্কের অংশ: (শুরু, শেষ, টুকরোর দৈর্ঘ্য)।"""
    length = math.ceil(p.numel() / world_size)
    return min(rank * length, p.numel()), min((rank + 1) * length, p.numel()), length


def gather_params(params, pieces, rank, world_size):
    """সবার নতুন টুকরো জুড়ে প্রতিটি র‍্যাঙ্কে আবার পুরো ওজন।"""
    for p, piece in zip(params, pieces):
        start, end, length = my_piece(p, rank, world_size)
        mine = p.new_zeros(length)
        mine[:end - start] = piece
        full = p.new_empty(length * world_size)
        all_gather(full, mine)
        p.data.view(-1).copy_(full[:p.numel()])


def zero1_step(params, pieces, adam, rank, world_size):
    """ZeRO-1-এর এক ধাপ। pieces[i] = params[i]-এর আমার টুকরো (একটি view);
    adam শুধু pieces চেনে, তাই তার অবস্থা (m, v) প্রতি র‍্যাঙ্কে 1/N।"""
    for p, piece in zip(params, pieces):
        start, end, length = my_piece(p, rank, world_size)
        full = p.new_zeros(length * world_size)
        full[:p.numel()] = p.grad.view(-1)
        mine = p.new_empty(length)
        reduce_scatter(mine, full)                      # আমার টুকরোয় সবার গ্রেডিয়েন্টের যোগফল
        piece.grad = mine[:end - start] / world_size    # যোগফল থেকে গড়, DDP-র মতো
    adam.step()                                         # শুধু আমার টুকরো বদলায়
    gather_params(params, pieces, rank, world_size)     # সবাই আবার পুরো, একই ওজন পায়
