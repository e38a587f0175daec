"""What only a CUDA GPU can prove (pytest -m gpu; make gpu-check runs them; skipped without CUDA).

Each test asserts a real property a lesson relies on, measured on this GPU now."""

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from fastrain_lib.measure import hardware

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]
ROOT = Path(__file__).resolve().parents[1]


def _facts():
    return hardware.facts("cuda")


def test_facts_match_what_torch_reports():
    f = _facts()
    props = torch.cuda.get_device_properties(0)
    assert f.name == torch.cuda.get_device_name(0) == hardware.device_name("cuda")
    assert f.capability == (props.major, props.minor) and f.memory_bytes == props.total_memory
    # the T4 rule: bf16 counts as fast only with bf16 tensor cores, whatever is_bf16_supported() says
    assert ("bf16" in hardware.fast_formats(f)) == (props.major >= 8)
    if props.major >= 8:
        assert torch.cuda.is_bf16_supported(including_emulation=False)


def test_synchronize_waits_for_the_gpu():
    a = torch.randn(4096, 4096, device="cuda")
    hardware.synchronize("cuda")
    start = time.perf_counter()
    for _ in range(20):
        a = a @ a / 4096
    queued = time.perf_counter() - start
    hardware.synchronize("cuda")
    finished = time.perf_counter() - start
    assert finished > 2 * queued  # without waiting, the clock measures only the queueing


def test_pinned_copies_are_faster_than_pageable():
    from fastrain_lib.lessons.l02_to_device import transfer

    numel = 64 * 2**20  # 256 MB of float32
    pageable = transfer.host_to_device(numel, "cuda", pinned=False)
    pinned = transfer.host_to_device(numel, "cuda", pinned=True)
    assert pinned.metrics["gbs"] > 1.2 * pageable.metrics["gbs"], (pinned.metrics, pageable.metrics)


def test_fused_adamw_launches_a_constant_number_of_kernels():
    from fastrain_lib.fused import optimizers

    fused_small = optimizers.optimizer_step_launches("fused", 4, device="cuda").kernels
    fused_large = optimizers.optimizer_step_launches("fused", 32, device="cuda").kernels
    loop_small = optimizers.optimizer_step_launches("forloop", 4, device="cuda").kernels
    loop_large = optimizers.optimizer_step_launches("forloop", 32, device="cuda").kernels
    assert fused_large <= fused_small + 2 and fused_small <= 10
    assert loop_large >= 6 * loop_small  # grows with the number of tensors (8× more here)


def test_triton_kernel_compiles_and_matches_pytorch():
    import importlib.util

    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton not installed")
    import torch.nn.functional as F

    from fastrain_lib.fused import triton_kernels as tk

    assert not tk.INTERPRETED

    def reference(x, b):
        return F.gelu(x + b, approximate="tanh")

    x = torch.randn(1000, 768, device="cuda")
    b = torch.randn(768, device="cuda")
    torch.testing.assert_close(tk.triton_bias_gelu(x, b), reference(x, b), atol=1e-5, rtol=1e-5)
    for dtype in (torch.float16, torch.bfloat16):
        y = tk.triton_bias_gelu(x.to(dtype), b.to(dtype))
        assert y.dtype == dtype
        torch.testing.assert_close(y.float(), reference(x.to(dtype).float(), b.to(dtype).float()), atol=5e-2,
                                   rtol=5e-2)


def test_bf16_matmul_is_much_faster_than_strict_fp32():
    from fastrain_lib.measure import bench
    from fastrain_lib.precision import amp as precision

    if torch.cuda.get_device_capability(0)[0] < 8:
        pytest.skip("bf16 tensor cores arrived with sm80")
    with precision.tf32(False):
        fp32 = bench.matmul(4096, device="cuda", dtype=torch.float32).metrics["gflops"]
    bf16 = bench.matmul(4096, device="cuda", dtype=torch.bfloat16).metrics["gflops"]
    assert bf16 > 4 * fp32, (bf16, fp32)
    # and no measurement passes the datasheet: an MFU above 100% would mean a wrong table row
    pk = hardware.peak("cuda", "bf16")
    if pk.kind == "datasheet":
        assert bf16 * 1e9 <= 1.05 * pk.flops, (bf16, pk)


def test_gradscaler_skips_a_step_on_an_inf_gradient():
    from fastrain_lib import train
    from fastrain_lib.precision import amp as precision
    from fastrain_lib.models import SimpleNN

    torch.manual_seed(0)
    model = SimpleNN(hidden=32)
    handle = precision.inject_overflow(model, {2})
    x, y = torch.rand(128, 1, 28, 28), torch.randint(0, 10, (128,))
    h = train.train(model, train.TensorBatches(x, y, 32), steps=4, device="cuda", precision="fp16", progress=False,
                    scaler_options={"init_scale": 2.0**8}, time_window=1)
    handle.remove()
    assert h.skipped == [False, False, True, False]
    assert h.scales[2] == h.scales[1] / 2
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert h.peak_memory_bytes and h.peak_memory_bytes > 0


def test_ddp_over_nccl_with_one_process():
    from fastrain_lib.distributed import ddp, launch

    cfg = ddp.make_cfg(steps=3, batch_size=16, hidden=32, data_size=128, device="cuda")
    (result,) = launch(ddp.train_worker, 1, args=(cfg,), tensors_on_cuda=True, timeout_s=120)
    assert result["backend"] == "nccl" and result["device"] == "cuda:0"
    assert all(math.isfinite(v) for v in result["losses"])


def test_lesson05c_workers_train_on_the_gpus_over_nccl():
    """ZeRO/FSDP, tensor parallelism and the pipeline schedules on this node's GPUs: one process
    per GPU (up to 2), NCCL, every tensor on that rank's GPU, results equal to one process."""
    from fastrain_lib.distributed import zero
    from fastrain_lib.lessons.l05c_sharding_and_pipelines import panel as P

    n = min(2, torch.cuda.device_count())
    assert P.on_gpus(n)
    rows = zero.table(P.zero_runs(n, 64, ("ddp", "zero1", "zero2", "zero3"), depth=2))
    assert {r["backend"] for r in rows} == {"nccl"} and {r["device"] for r in rows} == {"cuda:0"}
    assert all(r["max_error"] < 1e-4 for r in rows), [r["max_error"] for r in rows]
    assert all(r["params_bytes"] + r["grads_bytes"] + r["optim_bytes"] == r["formula"]["total"] for r in rows)
    tp = P.tp_runs(n, 64)
    assert [r["device"] for r in tp] == [f"cuda:{k}" for k in range(n)] and {r["backend"] for r in tp} == {"nccl"}
    assert max(r["error"] for r in tp) < 1e-4 and max(r["grad_x_error"] for r in tp) < 1e-4
    sched = P.schedule_runs(n, 64, (4,))
    assert [r[0]["device"] for r in sched] == [f"cuda:{k}" for k in range(n)]
    assert all(e["end"] >= e["start"] for r in sched for e in r[0]["events"])


def test_torchrun_two_processes_on_one_gpu_fall_back_to_gloo(tmp_path):
    out = tmp_path / "out"
    # python -m torch.distributed.run: always there (a system or --user install has no torchrun beside python)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "-m", "fastrain_lib.distributed.ddp", "--steps", "4",
           "--batch-size", "8", "--hidden", "16", "--data-size", "128", "--device", "cuda", "--out", str(out)]
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True, cwd=ROOT)
    try:
        output, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, output[-3000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["backend"] for r in ranks] == ["gloo", "gloo"]  # NCCL cannot put 2 processes on 1 GPU
    assert [r["device"] for r in ranks] == ["cuda:0", "cuda:0"]  # both still train on the GPU
    assert ranks[0]["param_hash"] == ranks[1]["param_hash"]


def test_forced_t4_policy_runs_fp16_with_gradscaler(monkeypatch):
    from fastrain_lib import train
    from fastrain_lib.models import SimpleNN

    monkeypatch.setenv(hardware.FORCE_T4_ENV, "1")
    mode = hardware.precision_here("cuda")
    assert mode == "fp16" and hardware.needs_scaler(mode)
    torch.manual_seed(0)
    x, y = torch.rand(256, 1, 28, 28), torch.randint(0, 10, (256,))
    h = train.train(SimpleNN(hidden=64), train.TensorBatches(x, y, 32), steps=16, device="cuda", precision=mode,
                    progress=False, lr=1e-2)
    assert all(math.isfinite(v) and abs(v) < 1e4 for v in h.losses)
    assert h.scales[-1] > 1.0  # a live GradScaler, not the disabled one
    assert sum(h.losses[-4:]) < sum(h.losses[:4])


def test_every_precision_trains_on_the_gpu():
    from fastrain_lib import train
    from fastrain_lib.precision import amp as precision
    from fastrain_lib.models import SimpleNN

    x, y = torch.rand(256, 1, 28, 28), torch.randint(0, 10, (256,))
    for mode in precision.supported("cuda"):
        torch.manual_seed(0)
        h = train.train(SimpleNN(hidden=64), train.TensorBatches(x, y, 32), steps=12, device="cuda", precision=mode,
                        progress=False, lr=1e-2, scaler_options={"init_scale": 2.0**8})
        assert all(math.isfinite(v) for v in h.losses), mode
        assert h.median_step_s() > 0
