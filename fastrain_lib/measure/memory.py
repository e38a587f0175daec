"""Memory of training: the bytes that weights, gradients and the optimizer hold — by formula,
and measured on real tensors.

    from fastrain_lib.measure import memory
    memory.training_bytes(10**9, "fp32")    # {'weights': 4e9, 'grads': 4e9, 'optimizer': 8e9, 'master': 0, 'total': 16e9}
    memory.training_bytes(10**9, "amp")     # weights 2 + grads 2 + master 4 + moments 8: also 16 bytes/parameter
    memory.measured_bytes(model, optimizer) # the same keys, counted from the tensors that really exist

The convention (per parameter, Adam; the Ultra-Scale Playbook, Hugging Face 2025, section
"Memory usage in Transformers"; the same split as ZeRO, Rajbhandari et al. 2020: 2Ψ + 2Ψ + 12Ψ):

    precision  weights  grads  optimizer (m, v)  master  total
    fp32          4       4          8              0      16
    amp           2       2          8              4      16    16-bit model, fp32 master weights
    amp, grads_fp32=True  2  6       8              4      20    grads also kept/accumulated in fp32 (Nanotron)

So mixed precision by itself does not shrink this part of the memory; it moves it around. What
it shrinks are the activations (precision.saved_tensor_bytes counts them).

PyTorch's own AMP (torch.autocast + GradScaler) is a third layout, precision="autocast": the
model's weights stay fp32 — they *are* the master weights — and so do the gradients and Adam's
moments: 4 + 4 + 8 = 16 bytes/parameter again. The 16-bit copies of the weights that autocast
makes in the forward pass are kept for backward, so precision.saved_tensor_bytes counts them
with the activations.

measured_bytes counts tensors, not the allocator: it works the same on a CPU, a GPU or the meta
device. On a GPU, peak_step_bytes reads the CUDA allocator's peak (through hardware.py).
"""

from __future__ import annotations

import torch

from fastrain_lib.measure import hardware

KEYS = ("weights", "grads", "optimizer", "master", "total")

# Bytes of optimizer state per parameter, kept in fp32 (Adam: first and second moment).
OPTIMIZER_STATE_BYTES = {"adam": 8, "adamw": 8, "sgd_momentum": 4, "sgd": 0}

# Names accepted for each layout.
_LAYOUTS = {"fp32": "fp32", "tf32": "fp32", "amp": "amp", "mixed": "amp", "fp16": "amp", "bf16": "amp",
            "autocast": "autocast", "torch_amp": "autocast"}


def layout(precision: str) -> str:
    """'fp32', 'amp' or 'autocast' for a precision name (fp16/bf16 mean the Playbook's 'amp')."""
    try:
        return _LAYOUTS[str(precision).lower()]
    except KeyError:
        raise ValueError(f"unknown precision {precision!r}: use one of {sorted(_LAYOUTS)}") from None


def per_parameter(precision: str = "fp32", optimizer: str = "adam", grads_fp32: bool = False) -> dict:
    """Bytes per parameter of each part (the table in this module's docstring)."""
    kind = layout(precision)
    try:
        state = OPTIMIZER_STATE_BYTES[str(optimizer).lower()]
    except KeyError:
        raise ValueError(f"unknown optimizer {optimizer!r}: use one of {sorted(OPTIMIZER_STATE_BYTES)}") from None
    if kind == "amp":
        parts = {"weights": 2, "grads": 2 + (4 if grads_fp32 else 0), "optimizer": state, "master": 4}
    else:  # fp32, and autocast (the fp32 weights are the master copy)
        parts = {"weights": 4, "grads": 4, "optimizer": state, "master": 0}
    parts["total"] = sum(parts.values())
    return parts


def training_bytes(n_params: int, precision: str = "fp32", optimizer: str = "adam", grads_fp32: bool = False) -> dict:
    """Bytes that weights, gradients, optimizer state and master weights take for a model of
    `n_params` parameters (activations not included: they depend on the batch, see
    precision.saved_tensor_bytes). precision: 'fp32' or 'amp' (or 'autocast'); optimizer:
    'adam', 'adamw', 'sgd_momentum' or 'sgd'. Returns {'weights','grads','optimizer','master','total'}."""
    n = int(n_params)
    if n < 0:
        raise ValueError("n_params must be >= 0")
    return {key: n * b for key, b in per_parameter(precision, optimizer, grads_fp32).items()}


# ---------------------------------------------------------------------------------------
# Measured: the tensors that really exist
# ---------------------------------------------------------------------------------------

def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _key(t: torch.Tensor):
    """Identity of a tensor's memory (tied weights and views are counted once)."""
    if t.device.type == "meta":
        return ("meta", id(t))
    return (t.device.type, t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), t.dtype)


def optimizer_params(optimizer) -> list[torch.Tensor]:
    """The tensors an optimizer updates (MasterWeightsAdam: its fp32 master copies)."""
    inner = getattr(optimizer, "optimizer", optimizer)
    return [p for group in inner.param_groups for p in group["params"]]


def measured_bytes(model: torch.nn.Module, optimizer=None) -> dict:
    """Bytes of the tensors that exist now, by part:
      weights   - the model's parameters;
      grads     - their .grad tensors, plus the .grad of master copies the optimizer updates;
      optimizer - every tensor in optimizer.state (Adam: exp_avg, exp_avg_sq and a one-number
                  'step' per parameter tensor). Adam creates them at its first step: measure after one;
      master    - parameters the optimizer updates that are not the model's own (fp32 master copies).
    Each tensor is counted once. Works with a torch optimizer or MasterWeightsAdam."""
    seen, parts = set(), dict.fromkeys(KEYS[:-1], 0)

    def add(part, tensor):
        if tensor is None:
            return
        key = _key(tensor)
        if key not in seen:
            seen.add(key)
            parts[part] += _nbytes(tensor)

    model_keys = set()
    for p in model.parameters():
        model_keys.add(_key(p))
        add("weights", p)
    for p in model.parameters():
        add("grads", p.grad)
    if optimizer is not None:
        inner = getattr(optimizer, "optimizer", optimizer)
        for p in optimizer_params(optimizer):
            if _key(p) not in model_keys:
                add("master", p)
                add("grads", p.grad)
        for state in inner.state.values():
            for value in state.values():
                if isinstance(value, torch.Tensor):
                    add("optimizer", value)
    parts["total"] = sum(parts.values())
    return parts


def bytes_per_parameter(parts: dict, n_params: int) -> dict:
    """Each part divided by the number of parameters (e.g. measured_bytes(...) / count)."""
    return {key: value / max(1, n_params) for key, value in parts.items()}


class MasterWeightsAdam:
    """Mixed precision the way Micikevicius et al. (2018) and the Playbook count it, in a few lines:
    the model itself holds 16-bit weights (its forward and backward run in fp16/bf16 and its
    gradients are 16-bit); an fp32 copy of every weight — the master weights — is what Adam
    updates; after each step the master weights are rounded back into the model.

        model = SimpleNN().to(torch.bfloat16)
        opt = MasterWeightsAdam(model, lr=1e-3)
        loss_fn(model(x.to(torch.bfloat16)), y).backward(); opt.step(); opt.zero_grad()

    keep_fp32_grads=True keeps the fp32 gradient copies between steps (the Playbook's
    "grads in fp32" variant: 4 more bytes per parameter)."""

    def __init__(self, model: torch.nn.Module, lr: float = 1e-3, keep_fp32_grads: bool = False, **adam_options):
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.master = [p.detach().float().clone().requires_grad_(True) for p in self.params]
        self.optimizer = torch.optim.Adam(self.master, lr=lr, **adam_options)
        self.keep_fp32_grads = keep_fp32_grads
        self.param_groups = self.optimizer.param_groups
        self.state = self.optimizer.state

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            p.grad = None
        if not self.keep_fp32_grads:
            for m in self.master:
                m.grad = None

    @torch.no_grad()
    def step(self, inv_scale: float = 1.0) -> bool:
        """Copy the 16-bit gradients into fp32 (times inv_scale, to undo a loss scale), step Adam on
        the master weights, round them back into the model. Skips the step (returns False) when
        a gradient is inf or nan."""
        for p, m in zip(self.params, self.master):
            if p.grad is None:
                m.grad = None
                continue
            g = p.grad.float() * inv_scale
            if not torch.isfinite(g).all():
                return False
            if m.grad is None:
                m.grad = g
            else:
                m.grad.copy_(g)
        self.optimizer.step()
        for p, m in zip(self.params, self.master):
            p.copy_(m)
        if not self.keep_fp32_grads:
            for m in self.master:
                m.grad = None
        return True


def peak_step_bytes(step, device) -> int | None:
    """Run step() once and return the most bytes the CUDA allocator held meanwhile
    (torch.cuda.max_memory_allocated through hardware.py); None on a CPU or a Mac."""
    hardware.synchronize(device)
    hardware.reset_peak_memory(device)
    step()
    hardware.synchronize(device)
    return hardware.peak_memory(device)


def gb(n_bytes: float) -> float:
    """Bytes in GB (10^9 bytes), as GPU datasheets count them (a T4 has 16 GB)."""
    return n_bytes / 1e9
