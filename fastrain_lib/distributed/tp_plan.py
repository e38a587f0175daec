"""Saved from notebooks/05c_sharding_and_pipelines.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


def tp_mlp(mlp, world_size, device_type="cpu"):
    """Megatron-এর কাটা, DTensor দিয়ে: mlp.up কলামে, mlp.down রো-তে ভাগ (mlp নিজেই বদলে যায়)।"""
    from torch.distributed.device_mesh import init_device_mesh   # import ফাংশনের ভেতরে: এর সময় দেয় শুধু কর্মী-প্রসেস, নোটবুক নয়
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    mesh = init_device_mesh(device_type, (world_size,))  # N টি প্রসেসের এক-মাত্রার জাল
    plan = {"up": ColwiseParallel(),     # up.weight-এর 4d আউটপুট-সারি ভাগ: gelu নিজের খণ্ডেই, যোগাযোগ নেই
            "down": RowwiseParallel()}   # down.weight-এর মিলিয়ে নেওয়া ইনপুট-কলাম: আংশিক যোগফল, একটি অল-রিডিউস
    return parallelize_module(mlp, mesh, plan)
