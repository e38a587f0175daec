"""Distributed training that runs for real: several processes talking through torch.distributed.

One small module per idea (read them like a lesson appendix):

- launcher.py     run a worker in N processes from a notebook (spawn, free port, timeouts,
                  each rank's traceback in Bengali, no orphan processes)
- ddp.py          a DistributedDataParallel training worker; also a torchrun script
- ring.py         ring all-reduce from scratch with send/recv, and a naive parameter server
- model_split.py  a model cut into parts on a list of devices (the seeds' ModelParallel)
- pipeline.py     a GPipe-style pipeline over processes with micro-batches and a timeline

gloo on CPUs (any laptop, CI); NCCL only when every process has its own GPU and the worker's
tensors live on CUDA (fastrain_lib.hardware.backend_for decides, for launch and torchrun alike).
"""

from .launcher import WorkerError, free_port, launch

__all__ = ["WorkerError", "free_port", "launch"]
