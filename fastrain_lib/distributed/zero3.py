"""Saved from notebooks/05c_sharding_and_pipelines.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


def fsdp_shard(model, world_size, device_type="cpu"):
    """ZeRO-3 (FSDP2): model-এর প্রতিটি ওজন N টুকরো; প্রতিটি র‍্যাঙ্ক রাখে শুধু নিজেরটা।"""
    from torch.distributed.device_mesh import init_device_mesh   # import ফাংশনের ভেতরে: এর সময় দেয় শুধু কর্মী-প্রসেস, নোটবুক নয়
    from torch.distributed.fsdp import fully_shard
    mesh = init_device_mesh(device_type, (world_size,))  # N টি প্রসেসের এক-মাত্রার জাল (CPU-তে gloo, GPU-তে NCCL)
    for layer in model:
        if list(layer.parameters()):                      # ওজনওয়ালা স্তর (Linear); ReLU বাদ
            fully_shard(layer, mesh=mesh)                 # এক দল: ফরওয়ার্ড আর ব্যাকওয়ার্ডের ঠিক আগে অল-গ্যাদার,
                                                          # ব্যাকওয়ার্ডের পরে তার গ্রেডিয়েন্টের রিডিউস-স্ক্যাটার
    fully_shard(model, mesh=mesh)                         # মূল মডেলও (root): PyTorch-এর নিয়ম
    return model                                          # ওজন এখন DTensor; p.to_local() = আমার টুকরো
