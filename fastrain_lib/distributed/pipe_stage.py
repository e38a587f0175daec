"""Saved from notebooks/05c_sharding_and_pipelines.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import torch.nn.functional as F


def pipeline_schedule(my_layers, rank, world_size, device, n_microbatches, kind="gpipe"):
    """এই প্রসেসের ধাপ (মডেলের আমার টুকরো) আর তার সূচি: GPipe বা 1F1B।"""
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe   # ভেতরে: এর সময় দেয় শুধু কর্মী-প্রসেস
    stage = PipelineStage(my_layers, rank, world_size, device)   # ধাপ rank: আগের ধাপ থেকে নেয়, পরের ধাপকে পাঠায়
    schedule = {"gpipe": ScheduleGPipe, "1f1b": Schedule1F1B}[kind]
    return stage, schedule(stage, n_microbatches=n_microbatches, loss_fn=lambda out, y: F.cross_entropy(out, y))


def pipeline_step(schedule, rank, world_size, x, y):
    """এক প্রশিক্ষণ-ধাপ: সূচি batch-কে M টি মাইক্রো-ব্যাচে কেটে সব ফরওয়ার্ড আর ব্যাকওয়ার্ড চালায়।"""
    if world_size == 1:
        schedule.step(x, target=y)    # একটিই ধাপ: সে প্রথমও, শেষও
    elif rank == 0:
        schedule.step(x)              # প্রথম ধাপ ইনপুট দেয়
    elif rank == world_size - 1:
        schedule.step(target=y)       # শেষ ধাপ loss-এর লক্ষ্য জানে
    else:
        schedule.step()               # মাঝের ধাপ শুধু নেয় আর পাঠায়
    # তারপর প্রতিটি ধাপে নিজের ওজনের সাধারণ optimizer.step()
