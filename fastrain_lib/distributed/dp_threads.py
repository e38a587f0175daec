"""nn.DataParallel's step, phase by phase: re-implemented with threads (any machine; the
lesson's CPU stand-in) and timed around torch's own pieces on >= 2 GPUs. dataparallel.py
runs them in its worker and re-exports both."""

from __future__ import annotations

import copy
import threading
import time

import torch
import torch.nn.functional as F
from torch import nn

from fastrain_lib.measure import hardware



# ------------------------------------------------------------------ counting bytes


def param_bytes(model: nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def state_bytes(model: nn.Module, optimizer: torch.optim.Optimizer | None) -> dict[str, int]:
    """Bytes of parameters, gradients and optimizer state this copy holds, counted from the tensors."""
    grads = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    opt = 0
    if optimizer is not None:
        for state in optimizer.state.values():
            opt += sum(v.numel() * v.element_size() for v in state.values() if torch.is_tensor(v) and v.dim() > 0)
    return {"params": param_bytes(model), "grads": grads, "optimizer": opt}


def gradient_vector(model: nn.Module) -> torch.Tensor:
    """All gradients as one flat float64 vector (for comparing two ways of training)."""
    return torch.cat([p.grad.detach().double().reshape(-1) for p in model.parameters()])


def _run_threads(fn, items) -> list:
    """fn(i, item) in one new thread per item, as parallel_apply does; errors re-raised here."""
    results: list = [None] * len(items)
    errors: list = []

    def work(i, item):
        try:
            results[i] = fn(i, item)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i, item)) for i, item in enumerate(items)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    return results


def clock(device) -> float:
    """perf_counter after the device's queued work is done (a GPU only queues until synchronize)."""
    hardware.synchronize(device)
    return time.perf_counter()


def _lap(device, phases: dict, name: str, start: float) -> float:
    """Note the seconds since `start` as phase `name`; return now."""
    phases[name] = (now := clock(device)) - start
    return now


class ThreadedDataParallel:
    """nn.DataParallel's algorithm with N Python threads of one process (a re-implementation:
    torch's own pieces refuse CPU tensors). Replica 0 IS the module (device 0); replicas 1..N−1
    are copies whose weights are overwritten from device 0 every step, as replicate() does.

        tdp = ThreadedDataParallel(model, 2)
        loss, phases = tdp.step(x, y, optimizer)   # phases: seconds of each of PHASES
    """

    def __init__(self, module: nn.Module, replicas: int, device: str | torch.device = "cpu"):
        if replicas < 1:
            raise ValueError("replicas must be >= 1")
        self.module = module
        self.device = torch.device(device)
        self.replicas = [module] + [copy.deepcopy(module) for _ in range(replicas - 1)]
        self.bytes = {"scatter": 0, "replicate": 0, "gather": 0, "reduce_grads": 0}  # per step, through device 0

    def replicate(self) -> None:
        """Copy device 0's current weights into every other replica (nn.DataParallel does it every step)."""
        with torch.no_grad():
            for replica in self.replicas[1:]:
                for mine, master in zip(replica.parameters(), self.module.parameters()):
                    mine.copy_(master)

    def step(self, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer | None = None,
             loss_fn=F.cross_entropy) -> tuple[float, dict[str, float]]:
        """One training step; afterwards module's .grad holds the whole batch's gradient (and the
        optimizer, if given, has stepped). Returns (loss, seconds per phase)."""
        n = len(self.replicas)
        phases: dict[str, float] = {}
        start = clock(self.device)
        # 1. scatter: piece i to device i (piece 0 stays on device 0; the others are copied)
        xs, ys = list(x.chunk(n)), list(y.chunk(n))
        xs = [xs[0]] + [piece.clone() for piece in xs[1:]]
        ys = [ys[0]] + [piece.clone() for piece in ys[1:]]
        start = _lap(self.device, phases, "scatter", start)
        # 2. replicate: device 0's weights copied into every other replica
        self.replicate()
        start = _lap(self.device, phases, "replicate", start)
        # 3. forward: one thread per replica, all in this one process
        outputs = _run_threads(lambda i, item: item[0](item[1]), list(zip(self.replicas, xs)))
        start = _lap(self.device, phases, "forward", start)
        # 4. gather: every output copied to device 0, the loss computed there (on the whole batch)
        gathered = [outputs[0].detach().requires_grad_()] + [o.detach().clone().requires_grad_() for o in outputs[1:]]
        loss = loss_fn(torch.cat(gathered), torch.cat(ys))
        loss.backward()  # only down to the gathered outputs: d loss / d output of each replica
        output_grads = [g.grad for g in gathered]
        start = _lap(self.device, phases, "gather_loss", start)
        # 5. backward: every replica's backward in its own thread (one autograd thread per GPU)
        _run_threads(lambda i, item: item[0].backward(item[1]), list(zip(outputs, output_grads)))
        start = _lap(self.device, phases, "backward", start)
        # 6. reduce: all replicas' gradients added onto device 0's (replicate's backward)
        with torch.no_grad():
            for replica in self.replicas[1:]:
                for master, mine in zip(self.module.parameters(), replica.parameters()):
                    if mine.grad is None:
                        continue
                    if master.grad is None:
                        master.grad = mine.grad.clone()
                    else:
                        master.grad += mine.grad
                    mine.grad = None
        start = _lap(self.device, phases, "reduce_grads", start)
        # 7. optimizer: on device 0 only
        if optimizer is not None:
            optimizer.step()
        _lap(self.device, phases, "optimizer", start)
        pb = param_bytes(self.module)
        self.bytes = {"scatter": sum(p.numel() * p.element_size() for p in xs[1:]),
                      "replicate": (n - 1) * pb,
                      "gather": sum(o.numel() * o.element_size() for o in outputs[1:]),
                      "reduce_grads": (n - 1) * pb}
        return float(loss.detach()), phases

    def memory(self, optimizer) -> list[dict[str, int]]:
        """Per device: bytes of parameters, gradients, optimizer state (device 0 holds the optimizer).
        Counted right after a step's reduce, the replicas' gradients are freed, so it counts the
        gradients a replica holds during backward as the parameters' size."""
        rows = [state_bytes(self.module, optimizer)]
        for replica in self.replicas[1:]:
            rows.append({"params": param_bytes(replica), "grads": param_bytes(replica), "optimizer": 0})
        return rows


class TorchDataParallelSteps:
    """The real nn.DataParallel (>= 2 GPUs), one training step through its own methods, each timed.

    nn.DataParallel.forward is exactly: scatter → replicate → parallel_apply → gather. Calling the
    four ourselves times each; the reduce of the gradients happens inside backward (replicate's
    Broadcast backward), so it is part of "backward" here and "reduce_grads" is 0."""

    def __init__(self, module: nn.Module, devices: tuple[str, ...]):
        ids = [torch.device(d).index for d in devices]
        self.device = torch.device(devices[0])
        self.dp = nn.DataParallel(module.to(self.device), device_ids=ids, output_device=ids[0])
        self.module = self.dp.module
        pb = param_bytes(self.module)
        self.bytes = {"scatter": 0, "replicate": (len(ids) - 1) * pb, "gather": 0, "reduce_grads": (len(ids) - 1) * pb}

    def step(self, x, y, optimizer=None, loss_fn=F.cross_entropy) -> tuple[float, dict[str, float]]:
        dp, phases = self.dp, {}
        start = clock(self.device)
        inputs, kwargs = dp.scatter((x,), {}, dp.device_ids)
        start = _lap(self.device, phases, "scatter", start)
        replicas = dp.replicate(dp.module, dp.device_ids[:len(inputs)])
        start = _lap(self.device, phases, "replicate", start)
        outputs = dp.parallel_apply(replicas, inputs, kwargs)
        start = _lap(self.device, phases, "forward", start)
        loss = loss_fn(dp.gather(outputs, dp.output_device), y.to(self.device))
        start = _lap(self.device, phases, "gather_loss", start)
        loss.backward()  # includes adding every replica's gradients onto GPU 0
        start = _lap(self.device, phases, "backward", start)
        phases["reduce_grads"] = 0.0
        if optimizer is not None:
            optimizer.step()
        _lap(self.device, phases, "optimizer", start)
        self.bytes.update(scatter=sum(i[0].numel() * i[0].element_size() for i in inputs[1:]),
                          gather=sum(o.numel() * o.element_size() for o in outputs[1:]))
        return float(loss.detach()), phases

    def memory(self, optimizer) -> list[dict[str, int]]:
        rows = [state_bytes(self.module, optimizer)]
        pb = param_bytes(self.module)
        rows += [{"params": pb, "grads": pb, "optimizer": 0} for _ in self.dp.device_ids[1:]]
        return rows
