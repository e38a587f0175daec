"""The precision modes and the helpers of mixed-precision (AMP) training.

    from fastrain_lib.precision import amp as precision
    precision.check_precision("cpu", "fp16")          # a clear Bengali error if it cannot run here
    with precision.autocast("cpu", "bf16"):           # torch.amp.autocast, or nothing for fp32/tf32
        loss = loss_fn(model(x), y)
    scaler = precision.make_scaler("cpu", "fp16")     # GradScaler, enabled only for fp16

The four modes every lesson uses:
  fp32 - plain float32, TF32 switched off (the strict baseline)
  tf32 - float32 tensors, but CUDA matmuls/convolutions may use TF32 tensor cores
         (Ampere and newer; on other hardware the setting changes nothing)
  fp16 - autocast to float16, with loss scaling (GradScaler): fp16's small range needs it
  bf16 - autocast to bfloat16, no loss scaling: bf16 has float32's 8 exponent bits

Besides these: the one string -> dtype map (AUTOCAST_DTYPES, STORAGE_DTYPES, from core.dtypes), an
injected overflow for the GradScaler demos, and the bytes autograd saves for backward (activation
memory) while the one AMP step runs. Elsewhere in this package: formats.py (the number formats),
step.py (the one AMP training step, written in lesson 03's cell). Lesson 03's cells write the
same things out (GradScaler(enabled=...), allow_tf32, autocast): these helpers are the versions
the other lessons' panels call, named in lesson 03's prose.
"""

from __future__ import annotations

import contextlib
import functools
import math
import warnings

import torch
from torch.nn import functional as F

from fastrain_lib.core.dtypes import AUTOCAST_DTYPES, PRECISIONS, STORAGE_DTYPES  # noqa: F401 - prec.AUTOCAST_DTYPES
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import hardware
from fastrain_lib.precision.step import amp_backward



# ---------------------------------------------------------------------------------------
# Can this mode run here?
# ---------------------------------------------------------------------------------------

def _device_type(device) -> str:
    return torch.device(device).type


@functools.cache
def _autocast_works(device_type: str, dtype: torch.dtype) -> bool:
    """Run one tiny matmul under autocast and see whether it really came out in `dtype`.

    Older PyTorch versions only warn ("CPU Autocast only supports bfloat16") and quietly run
    in float32; trying it is the only reliable test."""
    try:
        a = torch.ones(4, 4, device=device_type)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.amp.autocast(device_type, dtype=dtype):
                out = a @ a
        return out.dtype == dtype
    except Exception:  # noqa: BLE001 - any failure means "not here"
        return False


@functools.cache
def _scaler_works(device_type: str) -> bool:
    """GradScaler for this device type exists (torch.amp.GradScaler('cpu') needs torch >= 2.3)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = torch.amp.GradScaler(device_type)
        return scaler.is_enabled()
    except Exception:  # noqa: BLE001 - any failure means "not here"
        return False


def check_precision(device, mode: str) -> str:
    """Return `mode` if it can run on `device`; otherwise raise ValueError with a Bengali
    message that says why and what to choose instead."""
    if mode not in PRECISIONS:
        raise ValueError(t("precision.unknown", mode=mode, allowed=", ".join(PRECISIONS)))
    device_type = _device_type(device)
    if mode in ("fp32", "tf32"):
        return mode
    if device_type in ("cuda", "mps"):
        # The hardware module decides: bf16 needs bf16 tensor cores (sm80+) — torch.cuda.is_bf16_supported()
        # says True on a T4 through emulation; on a Mac only what a real training-step probe proved.
        facts = hardware.facts(device)
        if mode not in hardware.fast_formats(facts):
            if device_type == "cuda" and mode == "bf16":
                major, minor = facts.capability or (0, 0)
                raise ValueError(t("precision.no_bf16_gpu", gpu=facts.name, cc=f"{major}.{minor}"))
            raise ValueError(t("precision.no_autocast", mode=mode, device=device_type, torch=torch.__version__))
    if not _autocast_works(device_type, AUTOCAST_DTYPES[mode]):
        raise ValueError(t("precision.no_autocast", mode=mode, device=device_type, torch=torch.__version__))
    if mode == "fp16" and not _scaler_works(device_type):
        raise ValueError(t("precision.no_scaler", device=device_type, torch=torch.__version__))
    return mode


def supported(device) -> list[str]:
    """The modes that can run on `device` here."""
    ok = []
    for mode in PRECISIONS:
        try:
            ok.append(check_precision(device, mode))
        except ValueError:
            pass
    return ok


def autocast(device, mode: str):
    """torch.amp.autocast for fp16/bf16; a do-nothing context for fp32/tf32."""
    if mode in AUTOCAST_DTYPES:
        return torch.amp.autocast(_device_type(device), dtype=AUTOCAST_DTYPES[mode])
    return contextlib.nullcontext()


def make_scaler(device, mode: str, **options) -> torch.amp.GradScaler:
    """A GradScaler that is active only for fp16 (bf16 and fp32 need no loss scaling);
    a disabled scaler passes everything through, so one loop serves every mode.
    `options` go to GradScaler (init_scale, growth_interval, ...)."""
    return torch.amp.GradScaler(_device_type(device), enabled=(mode == "fp16"), **options)


@contextlib.contextmanager
def tf32(enabled: bool):
    """Allow (or forbid) TF32 in CUDA matmuls and cuDNN convolutions inside the block, and
    put the old settings back afterwards. PyTorch's default since 1.12: matmuls without
    TF32, cuDNN with TF32."""
    old = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = old


def inject_overflow(model: torch.nn.Module, at_backward: set[int] | list[int]):
    """Make the gradient of the model's first parameter inf on the given backward passes
    (counted from 0): an overflow as GradScaler sees it. Returns the hook handle;
    call handle.remove() when done."""
    at_backward = set(at_backward)
    calls = {"n": 0}

    def hook(grad):
        n = calls["n"]
        calls["n"] += 1
        if n in at_backward:
            return torch.full_like(grad, math.inf)
        return grad

    return next(model.parameters()).register_hook(hook)


# ---------------------------------------------------------------------------------------
# Memory: bytes autograd saves for backward
# ---------------------------------------------------------------------------------------

def saved_tensor_bytes(model: torch.nn.Module, inputs: torch.Tensor, targets: torch.Tensor,
                       *, device="cpu", mode: str = "fp32", loss_fn=None) -> dict:
    """Bytes of the tensors autograd keeps for the backward pass while the one AMP step's first
    half (precision/step.py's amp_backward: autocast forward + loss, scaled backward) runs once
    (counted with torch.autograd.graph.saved_tensors_hooks; each tensor once; the model's own
    parameters excluded, they exist anyway). Exact and the same on every hardware: it depends on
    shapes and dtypes only. The gradients it makes are cleared again."""
    loss_fn = loss_fn or (lambda out, y: F.cross_entropy(out.flatten(0, -2), y.flatten()))
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen, by_dtype = set(), {}

    def pack(tensor):
        # count the tensor's own bytes (a slice of a big dataset is not the whole dataset), each tensor once
        key = (tensor.data_ptr(), tuple(tensor.shape), tensor.dtype)
        if tensor.untyped_storage().data_ptr() not in params and key not in seen:
            seen.add(key)
            name = str(tensor.dtype).replace("torch.", "")
            by_dtype[name] = by_dtype.get(name, 0) + tensor.numel() * tensor.element_size()
        return tensor

    scaler = make_scaler(device, mode)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        amp_backward(model, scaler, inputs.to(device), targets.to(device), loss_fn, dtype=AUTOCAST_DTYPES.get(mode))
    model.zero_grad(set_to_none=True)
    return {"bytes": sum(by_dtype.values()), "by_dtype": by_dtype}
