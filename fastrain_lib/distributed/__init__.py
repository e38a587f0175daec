"""Distributed training that runs for real: several processes talking through torch.distributed.

One small module per idea (read them like a lesson appendix):

- launcher.py     run a worker in N processes from a notebook (forkserver or spawn, free port, torchrun's
                  environment, timeouts, each rank's traceback in Bengali, no orphan processes)
- ddp.py          the course's one DDP worker and its main() (init_process_group ... destroy_process_group),
                  written in lesson 05's cell; also a torchrun script
- ring.py         ring all-reduce from scratch with send/recv, and a naive parameter server
- model_split.py  a model cut into parts on a list of devices (the seeds' ModelParallel)
- pipeline.py     a GPipe-style pipeline over processes with micro-batches and a timeline
- dataparallel.py nn.DataParallel's phases timed (the real one on GPUs, a labelled thread
                  re-implementation on a CPU) next to DDP on the same model and batch
- overlap.py      DDP buckets, a comm-hook timeline of communication hidden behind backward, no_sync()
- cost_model.py   an α–β (latency, per-byte) model of collectives fitted to this machine
- zero.py         ZeRO-1/2 written out, ZeroRedundancyOptimizer and FSDP2: bytes and collectives per rank
- tensor_parallel.py  a Megatron column-then-row MLP, with DTensor and by hand
- schedules.py    GPipe vs 1F1B with torch.distributed.pipelining
- param_server.py a parameter server over torch.distributed.rpc (TensorPipe): async/sync, a straggler, staleness
- local_sgd.py    local SGD / DiLoCo-style periodic averaging, all-reduces counted

gloo on CPUs (any laptop, CI); NCCL only when every process has its own GPU and the worker's
tensors live on CUDA (fastrain_lib.measure.hardware.backend_for decides, for launch and torchrun alike).
"""

from fastrain_lib.distributed.launcher import WorkerError, free_port, launch

__all__ = ["WorkerError", "free_port", "launch"]
