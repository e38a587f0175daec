"""Model parallelism in one process: a model cut into parts, each part on its own device.

The seeds' example puts layer1 on cuda:0 and layer2 on cuda:1 and moves the activation
between them. SplitModel does the same for any list of parts and devices. On a machine
without two GPUs the devices can be ["cpu", "cpu"]: the code path is identical, only
the copies are free.

The catch: part 2 needs part 1's output, so while one device works the others wait.
With K parts each device is idle (K−1)/K of the time. `timeline_step` measures that; the
pipeline (pipeline.py) fixes it with micro-batches.
"""

from __future__ import annotations

import time

import torch
import torch.nn.functional as F
from torch import nn

from fastrain_lib.measure import hardware
from fastrain_lib.core.i18n import t


class SplitModel(nn.Module):
    """parts[i] lives on devices[i]; forward moves the activation from device to device."""

    def __init__(self, parts: list[nn.Module], devices: list[str | torch.device]):
        super().__init__()
        if not devices or len(parts) != len(devices):
            raise ValueError(t("distributed.too_few_devices", devices=list(map(str, devices))))
        self.devices = [torch.device(d) for d in devices]
        self.parts = nn.ModuleList(part.to(device) for part, device in zip(parts, self.devices))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for part, device in zip(self.parts, self.devices):
            x = part(x.to(device))  # the seeds' `x = x.cuda(1)`: copy the activation over
        return x


def seeds_model_parallel(devices=("cuda:0", "cuda:1")) -> SplitModel:
    """The seeds' ModelParallel: Linear(128, 256) on the first device, Linear(256, 10) on the second."""
    return SplitModel([nn.Linear(128, 256), nn.Linear(256, 10)], list(devices))


def split_sequential(model: nn.Sequential, devices: list[str | torch.device]) -> SplitModel:
    """Cut a Sequential into len(devices) consecutive parts of (nearly) equal layer counts."""
    layers = list(model)
    k = len(devices)
    if k == 0 or k > len(layers):
        raise ValueError(t("distributed.too_few_devices", devices=list(map(str, devices))))
    sizes = [len(layers) // k + (1 if i < len(layers) % k else 0) for i in range(k)]
    parts, start = [], 0
    for size in sizes:
        parts.append(nn.Sequential(*layers[start:start + size]))
        start += size
    return SplitModel(parts, devices)


def mlp(width: int, depth: int, inputs: int | None = None, classes: int = 10, seed: int = 0) -> nn.Sequential:
    """A plain MLP of `depth` Linear+ReLU blocks and a classifier (the same weights for a seed)."""
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for i in range(depth):
        layers += [nn.Linear(inputs if (i == 0 and inputs) else width, width), nn.ReLU()]
    layers.append(nn.Linear(width, classes))
    return nn.Sequential(*layers)


def _sync(device: torch.device) -> None:
    hardware.synchronize(device)  # CUDA and MPS both run asynchronously


def timeline_step(model: SplitModel, x: torch.Tensor, y: torch.Tensor) -> list[dict]:
    """One training step (forward, loss, backward), part by part, with each part's busy time.

    The activation between parts is detached and re-attached, so each part's backward
    can run (and be timed) on its own — exactly what the pipeline does across processes.
    Returns events {stage, kind: "F"/"B", micro: 0, start, end} in seconds from the start."""
    events, inputs, outputs = [], [], []
    t0 = time.perf_counter()
    h = x
    for k, (part, device) in enumerate(zip(model.parts, model.devices)):
        h = h.detach().to(device).requires_grad_(k > 0)
        _sync(device)
        start = time.perf_counter()
        out = part(h)
        if k == len(model.parts) - 1:
            out = F.cross_entropy(out, y.to(device))
        _sync(device)
        events.append({"stage": k, "kind": "F", "micro": 0, "start": start - t0, "end": time.perf_counter() - t0})
        inputs.append(h)
        outputs.append(out)
        h = out
    grad = None
    for k in reversed(range(len(model.parts))):
        device = model.devices[k]
        _sync(device)
        start = time.perf_counter()
        if grad is None:
            outputs[k].backward()
        else:
            outputs[k].backward(grad.to(device))
        _sync(device)
        events.append({"stage": k, "kind": "B", "micro": 0, "start": start - t0, "end": time.perf_counter() - t0})
        grad = inputs[k].grad
    return events
