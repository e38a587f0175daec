"""Saved from notebooks/05_data_vs_model_parallel.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch
import torch.distributed as dist


def scatter_reduce(chunks, rank, world_size, exchange):
    """পর্ব ১ (N−1 ধাপ): শেষে এই র‍্যাঙ্কের টুকরো (rank + 1) % N-এ সবার যোগফল।"""
    for step in range(world_size - 1):
        send, recv = (rank - step) % world_size, (rank - step - 1) % world_size
        chunks[recv] += exchange(chunks[send], chunks[recv])       # বাঁয়ের আংশিক যোগফল নিজেরটায় যোগ
    return chunks


def all_gather(chunks, rank, world_size, exchange):
    """পর্ব ২ (N−1 ধাপ): সম্পূর্ণ টুকরোগুলো বৃত্তে ঘুরে সবার কাছে পৌঁছায়।"""
    for step in range(world_size - 1):
        send, recv = (rank + 1 - step) % world_size, (rank - step) % world_size
        chunks[recv].copy_(exchange(chunks[send], chunks[recv]))   # সম্পূর্ণ টুকরো দিয়ে বদলাও
    return chunks


def send_recv(rank, world_size):
    """exchange(send, like): ডানে পাঠাও, বাঁ থেকে নাও। isend, কারণ সবাই আগে আটকে-থাকা send করলে
    কেউ কখনো recv-তে পৌঁছায় না (রিং-এর অচলাবস্থা)।"""
    right, left = (rank + 1) % world_size, (rank - 1) % world_size

    def exchange(send, like):
        received = torch.empty_like(like)
        request = dist.isend(send.contiguous(), dst=right)
        dist.recv(received, src=left)
        request.wait()
        return received
    return exchange


def ring_all_reduce(tensor, exchange=None):
    """tensor-কে সব র‍্যাঙ্কে যোগ করে, জায়গাতেই (in place)।"""
    rank, world_size = dist.get_rank(), dist.get_world_size()
    chunks = list(tensor.view(-1).tensor_split(world_size))   # view: টুকরোয় লিখলে tensor-এই লেখা হয়
    exchange = exchange or send_recv(rank, world_size)
    scatter_reduce(chunks, rank, world_size, exchange)
    all_gather(chunks, rank, world_size, exchange)
    return tensor
