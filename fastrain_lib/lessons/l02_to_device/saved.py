"""Saved from notebooks/02_to_device.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch


def pinned_copy(x, device):
    """x-কে পিন করা মেমরিতে তুলে device-এ পাঠায়; কপি শেষ হওয়ার অপেক্ষা না করেই ফেরে।"""
    pinned = x.pin_memory()                       # পিন করা (page-locked) মেমরিতে x-এর একটি নতুন কপি
    return pinned.to(device, non_blocking=True)   # কপিটা GPU-র সারিতে যায়, CPU সাথে সাথে পরের লাইনে


def train_item_every_step(model, optimizer, criterion, batches):
    """প্রতি ধাপে loss.item(): প্রতিবার CPU থেমে GPU-র সব কাজ শেষ হওয়ার অপেক্ষা করে।"""
    total = 0.0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()                      # সিঙ্ক্রোনাইজেশন: প্রতি ধাপে একবার
    return total


def train_item_once(model, optimizer, criterion, batches):
    """লস ডিভাইসেই জমে; পুরো লুপে .item() একবার, শেষে।"""
    losses = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())              # ডিভাইসেই থাকে: অপেক্ষা নেই, CPU পরের ধাপ পাঠাতে থাকে
    return torch.stack(losses).sum().item()       # সিঙ্ক্রোনাইজেশন: পুরো লুপে একবার


def read_back(result, device):
    """ডিভাইসের ফল non_blocking কপিতে CPU-তে আনে; সিঙ্ক্রোনাইজের আগে একবার, পরে একবার পড়ে।"""
    host = result.to("cpu", non_blocking=True)   # সাথে সাথে ফেরে; কপিটা সারিতে আগের কাজের পেছনে অপেক্ষা করে
    early = host[:4].clone()                     # ভুল: এখনই পড়া — কপি হয়তো এখনো হয়নি
    torch.cuda.synchronize(device)               # ঠিক: সারির সব কাজ (কপিসহ) শেষ হওয়া পর্যন্ত অপেক্ষা
    late = host[:4].clone()                      # এখন মানগুলো এসে গেছে
    return early, late


def copy_then_compute(batches, device, compute):
    """এক স্ট্রিমে: প্রতিটি batch আগে কপি, তারপর গণনা; পরের কপি শুরু হয় এই গণনার পরে।"""
    return [compute(batch.to(device, non_blocking=True)) for batch in batches]


def prefetch_on_side_stream(batches, device, compute):
    """পরের batch-এর কপি চলে পাশের স্ট্রিমে, এই batch-এর গণনার পাশাপাশি।
    batches পিন করা মেমরিতে থাকতে হবে; GPU লাগে (CPU-র কোনো স্ট্রিম নেই)।"""
    side = torch.Stream(device=device)                     # কপির জন্য দ্বিতীয় স্ট্রিম
    main = torch.accelerator.current_stream(device)        # গণনা চলে এই স্ট্রিমে
    results = []
    with side:
        ready = batches[0].to(device, non_blocking=True)   # প্রথম batch-এর কপি শুরু
    for i in range(len(batches)):
        main.wait_stream(side)             # এই batch-এর কপি শেষ না হলে গণনা নয়
        current = ready
        current.record_stream(main)        # মেমরিটা main স্ট্রিমেও ব্যবহার হচ্ছে: আগেভাগে ছেড়ে দিও না
        if i + 1 < len(batches):
            with side:                     # পরের batch-এর কপি, এই গণনার পাশাপাশি
                ready = batches[i + 1].to(device, non_blocking=True)
        results.append(compute(current))
    return results


from torch.utils.data import DataLoader
from fastrain_lib.measure import hardware


def make_loader(dataset, batch_size, num_workers=0, pin_memory=False, shuffle=True, seed=0):
    """num_workers-টি কর্মী প্রসেস batch বানায়; pin_memory=True হলে batch আসে পিন করা মেমরিতে।"""
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, num_workers=num_workers,
                      pin_memory=pin_memory and hardware.cuda_available(),   # GPU ছাড়া পিন করা যায় না: তখন বন্ধ রাখি
                      generator=torch.Generator().manual_seed(seed))        # একই seed-এ একই এলোমেলো ক্রম


def train_epoch(model, loader, device, optimizer, criterion, max_steps=None):
    """উৎস-প্রবন্ধ ১-এর লুপের এক ইপক (max_steps দিলে ততগুলো ধাপ); লস ডিভাইসেই জমে, পড়া হয় পরে একবার।"""
    losses = []
    for step, (inputs, targets) in enumerate(loader):
        if step == max_steps:
            break
        inputs = inputs.to(device, non_blocking=True)    # পিন করা batch: কপি GPU-র সারিতে, CPU এগিয়ে যায়
        targets = targets.to(device, non_blocking=True)
        optimizer.zero_grad()                # আগের ধাপের গ্রেডিয়েন্ট মুছে ফেলা
        outputs = model(inputs)              # ফরওয়ার্ড পাস
        loss = criterion(outputs, targets)   # লস
        loss.backward()                      # ব্যাকওয়ার্ড পাস: গ্রেডিয়েন্ট
        optimizer.step()                     # ওজন হালনাগাদ
        losses.append(loss.detach())         # .item() নয়: প্রতি ধাপে সিঙ্ক এড়াই
    return losses
