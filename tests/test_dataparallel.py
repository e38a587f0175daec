"""DataParallel, re-implemented with threads: the same gradients and weights as one process on the
whole batch; the decision 'real nn.DataParallel or threads' from device facts; the measured run
in real processes (one for DataParallel, N for DDP on the same model and batch) leaves nobody behind."""

import pytest
import torch
import torch.nn.functional as F
from _processes import live_children

from fastrain_lib.measure import hardware
from fastrain_lib.distributed import dataparallel as D
from fastrain_lib.distributed import launch
from fastrain_lib.distributed import launcher as L
from fastrain_lib.lessons.l05b_ddp_in_depth import saved


def _problem(batch=24, width=16, seed=3):
    cfg = D.make_cfg(width=width, depth=3, batch=batch, seed=seed)
    return D.problem(cfg)


@pytest.mark.parametrize("replicas, batch", [(1, 24), (2, 24), (3, 24), (4, 10)])  # 10 on 4: uneven pieces 3+3+3+1
def test_threaded_dataparallel_gradient_equals_one_process_on_the_whole_batch(replicas, batch):
    model, x, y = _problem(batch)
    reference, _, _ = _problem(batch)
    F.cross_entropy(reference(x), y).backward()
    loss, phases = D.ThreadedDataParallel(model, replicas).step(x, y)
    assert torch.allclose(D.gradient_vector(model), D.gradient_vector(reference), rtol=1e-5, atol=1e-7)
    assert loss == pytest.approx(F.cross_entropy(reference(x), y).item(), rel=1e-5)
    assert set(phases) == set(D.PHASES) and all(v >= 0 for v in phases.values())


def test_threaded_dataparallel_training_follows_one_process_for_several_steps():
    # replicate() must copy the NEW weights every step: a replica left with the old ones drifts
    model, x, y = _problem()
    reference, _, _ = _problem()
    opt_a = torch.optim.Adam(model.parameters(), lr=1e-2)
    opt_b = torch.optim.Adam(reference.parameters(), lr=1e-2)
    tdp = D.ThreadedDataParallel(model, 2)
    for _ in range(5):
        opt_a.zero_grad(set_to_none=True)
        tdp.step(x, y, opt_a)
        opt_b.zero_grad(set_to_none=True)
        F.cross_entropy(reference(x), y).backward()
        opt_b.step()
    for a, b in zip(model.parameters(), reference.parameters()):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-6)
    for replica in tdp.replicas[1:]:  # replica weights are device 0's from the start of the last step
        assert all(p.grad is None for p in replica.parameters())


def test_a_replicate_that_forgets_to_copy_is_caught():
    # the test above can fail: replicas that keep their first weights drift from one-process training
    class Stale(D.ThreadedDataParallel):
        def replicate(self):
            pass

    model, x, y = _problem()
    reference, _, _ = _problem()
    opt, opt_ref = torch.optim.SGD(model.parameters(), lr=0.5), torch.optim.SGD(reference.parameters(), lr=0.5)
    tdp = Stale(model, 2)
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        tdp.step(x, y, opt)
        opt_ref.zero_grad(set_to_none=True)
        F.cross_entropy(reference(x), y).backward()
        opt_ref.step()
    assert not all(torch.allclose(a, b, atol=1e-5) for a, b in zip(model.parameters(), reference.parameters()))


def test_bytes_and_memory_per_device_are_counted_from_the_tensors():
    model, x, y = _problem(batch=24, width=16)
    opt = torch.optim.Adam(model.parameters())
    tdp = D.ThreadedDataParallel(model, 3)
    tdp.step(x, y, opt)
    pb = sum(p.numel() * 4 for p in model.parameters())
    assert tdp.bytes["replicate"] == 2 * pb and tdp.bytes["reduce_grads"] == 2 * pb
    assert tdp.bytes["scatter"] == 16 * 16 * 4  # pieces 1 and 2 (8 rows each) of the 24×16 batch are copied
    assert tdp.bytes["gather"] == 16 * 10 * 4
    memory = tdp.memory(opt)
    assert memory[0] == {"params": pb, "grads": pb, "optimizer": 2 * pb}  # Adam: exp_avg + exp_avg_sq
    assert memory[1]["optimizer"] == 0 and memory[2]["params"] == pb


def _facts(device_type, name="", count=0):
    return hardware.Facts(device_type=device_type, name=name, count=count, nccl=device_type == "cuda")


@pytest.mark.parametrize("facts, replicas, kind, devices", [
    (_facts("cpu", "AMD EPYC"), 2, "threads", ("cpu", "cpu")),
    (_facts("mps", "Apple M2"), 2, "threads", ("cpu", "cpu")),
    (_facts("cuda", "Tesla T4", 1), 2, "threads", ("cpu", "cpu")),          # Colab: one GPU
    (_facts("cuda", "NVIDIA H200", 1), 1, "threads", ("cpu",)),             # one GPU: nothing to parallelise
    (_facts("cuda", "NVIDIA A100-SXM4-80GB", 2), 2, "torch", ("cuda:0", "cuda:1")),
    (_facts("cuda", "NVIDIA H100 80GB HBM3", 8), 4, "torch", ("cuda:0", "cuda:1", "cuda:2", "cuda:3")),
    (_facts("cuda", "NVIDIA L4", 2), 4, "threads", ("cpu",) * 4),            # more replicas than GPUs
])
def test_real_dataparallel_only_with_a_gpu_per_replica(facts, replicas, kind, devices):
    got = D.plan(replicas, facts)
    assert (got.kind, got.devices) == (kind, devices)


def test_torch_pieces_refuse_cpu_tensors_here():
    # why the CPU path re-implements them: on this torch, each piece fails on CPU tensors
    found = D.torch_pieces_on_cpu()
    assert set(found) == {"scatter", "replicate", "parallel_apply", "gather"}
    if not hardware.cuda_available():
        assert all(v != "works" for v in found.values()), found


def test_dataparallel_and_ddp_in_real_processes():
    cfg = D.make_cfg(width=32, depth=2, batch=32, replicas=2, steps=2, warmup=1)
    dp = launch(D.dp_worker, 1, args=(cfg,), threads=1, timeout_s=120)[0]
    assert L.pids_alive(L.LAST_PIDS) == []
    ddp = launch(saved.ddp_worker, 2, args=(cfg,), threads=1, timeout_s=120)
    assert L.pids_alive(L.LAST_PIDS) == [] and live_children() == []
    assert dp["kind"] == ("torch" if hardware.gpu_count() >= 2 else "threads")
    assert dp["step_s"] == pytest.approx(sum(dp["phases"].values()))
    # the same start and the same global batch: DataParallel and DDP train alike — every step's
    # whole-batch loss equals the mean of the two ranks' half-batch losses; DDP's ranks agree bit for bit
    assert ddp[0]["param_hash"] == ddp[1]["param_hash"]
    assert len(dp["losses"]) == len(ddp[0]["losses"]) == 3
    for step, loss in enumerate(dp["losses"]):
        assert loss == pytest.approx(sum(r["losses"][step] for r in ddp) / 2, rel=1e-4)
    # one bucket here (a 2-layer MLP is far below 25 MB): its bytes are all the gradients
    assert ddp[0]["buckets_per_step"] == 1 and ddp[0]["allreduce_bytes_per_step"] == ddp[0]["param_bytes"]
    assert 0.0 < D.serial_share(dp["phases"]) < 1.0


class _CpuDataParallel:
    """nn.DataParallel's four methods done on the CPU (torch's own refuse CPU tensors): lets the
    GPU path's step — the code that runs the real nn.DataParallel — run here."""

    def __init__(self, module, n):
        self.module, self.device_ids, self.output_device, self.n = module, list(range(n)), 0, n

    def scatter(self, inputs, kwargs, ids):
        return [(piece,) for piece in inputs[0].chunk(len(ids))], [{} for _ in ids]

    def replicate(self, module, ids):
        return [module] * len(ids)  # shared weights: each piece's gradient lands on device 0's

    def parallel_apply(self, replicas, inputs, kwargs):
        return [m(*i, **k) for m, i, k in zip(replicas, inputs, kwargs)]

    def gather(self, outputs, device):
        return torch.cat(outputs)


def test_the_gpu_path_step_gives_one_process_gradient_and_times_every_phase():
    model, x, y = _problem(batch=24)
    reference, _, _ = _problem(batch=24)
    F.cross_entropy(reference(x), y).backward()
    runner = D.TorchDataParallelSteps.__new__(D.TorchDataParallelSteps)
    runner.device, runner.dp, runner.module = torch.device("cpu"), _CpuDataParallel(model, 3), model
    runner.bytes = {"scatter": 0, "replicate": 0, "gather": 0, "reduce_grads": 0}
    loss, phases = runner.step(x, y)
    assert set(phases) == set(D.PHASES) and phases["reduce_grads"] == 0.0  # inside backward on GPUs
    assert torch.allclose(D.gradient_vector(model), D.gradient_vector(reference), rtol=1e-5, atol=1e-7)
    assert runner.bytes["scatter"] == 2 * 8 * 16 * 4 and runner.bytes["gather"] == 2 * 8 * 10 * 4
