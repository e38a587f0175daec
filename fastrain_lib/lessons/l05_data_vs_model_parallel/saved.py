"""Saved from notebooks/05_data_vs_model_parallel.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from fastrain_lib.data import bengali_digits
from fastrain_lib.models import SimpleNN


def ddp_train(rank, world_size, epochs=2, batch_size=32, size=512):
    """একটি র‍্যাঙ্কের DDP প্রশিক্ষণ (প্রসেস গ্রুপ launch() আগেই তৈরি করে রাখে)।"""
    torch.manual_seed(0)
    model = DDP(SimpleNN(hidden=64))                    # শুরুতে rank 0-এর ওজন সবার কাছে যায়
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    dataset = bengali_digits(train=True, size=size)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)                        # প্রতি ইপকে নতুন ক্রম, সব র‍্যাঙ্কে একই
        for images, labels in loader:                   # শুধু এই র‍্যাঙ্কের ভাগের নমুনা
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(images), labels)
            loss.backward()                             # এখানেই DDP গ্রেডিয়েন্টের গড় নেয় (অল-রিডিউস)
            optimizer.step()                            # সবার গড় এক, তাই সবার ধাপও এক
    checksum = sum(p.detach().double().sum().item() for p in model.parameters())
    return {"rank": rank, "loss": loss.item(), "first_samples": list(sampler)[:4], "checksum": checksum}
