"""A fused bias + GELU kernel written in Triton: one read of x, one write of y.

    from fastrain_lib import triton_kernels as tk
    y = tk.bias_gelu(x, bias)        # x: [..., N], bias: [N]  ->  GELU(x + bias), tanh form

On a GPU the kernel is compiled to real GPU code. Without a GPU it runs in Triton's
interpreter: Triton reads TRITON_INTERPRET when @triton.jit decorates the function
(triton 3.x: triton.knobs.runtime.interpret, read from the environment at that moment),
so we set it just before decorating, and only when there is no GPU. The interpreter
runs each block with NumPy: good for checking the result, useless for timing.
"""

from __future__ import annotations

import importlib.util
import math
import os

import torch

from . import hardware
from .i18n import t

GELU_C = math.sqrt(2.0 / math.pi)
BLOCK = 1024  # elements per Triton program (one block of threads on a GPU)

_kernel = None
_interpreted = None


def available() -> bool:
    """True when the triton package can be imported here."""
    return importlib.util.find_spec("triton") is not None


def interpreted() -> bool:
    """True when the kernel runs in Triton's interpreter (no CUDA GPU)."""
    return not hardware.cuda_available()


def mode_message() -> str:
    """One sentence for the lesson: interpreter (correctness only) or real GPU code, or no Triton."""
    if not available():
        return t("triton.missing")
    return t("triton.interpreter") if interpreted() else t("triton.gpu")


try:  # module level on purpose: Triton < 3.4 looks up a kernel's names in its module's globals only
    import triton
    import triton.language as tl
except ImportError:  # no Triton here: available() says so and bias_gelu explains
    triton = tl = None


def _bias_gelu_kernel(x_ptr, bias_ptr, y_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr):
    # Each program handles BLOCK_SIZE consecutive elements of the flattened x.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements  # the last block may stick out past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    b = tl.load(bias_ptr + offsets % n_cols, mask=mask)  # the bias repeats every row
    z = (x + b).to(tl.float32)  # compute in fp32 even for fp16/bf16 inputs
    inner = 0.7978845608028654 * (z + 0.044715 * z * z * z)
    inner = tl.minimum(tl.maximum(inner, -15.0), 15.0)  # tanh(±15) is ±1 in fp32; exp stays finite
    # tanh(u) = 2 / (1 + exp(-2u)) - 1, from the builtin exp (triton.language's own
    # sigmoid/tanh helpers are @jit functions decorated at import: not callable in the interpreter)
    tanh = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
    y = 0.5 * z * (1.0 + tanh)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)  # one write


def _build():
    """Decorate the kernel once (triton.jit), with TRITON_INTERPRET set as this machine needs.

    The kernel is defined at module level (above), not inside this function: on a GPU Triton
    compiles it from its source and resolves `tl` in the module's globals."""
    global _kernel, _interpreted
    if _kernel is not None:
        return _kernel
    interpret = interpreted()
    old = os.environ.get("TRITON_INTERPRET")
    if interpret:
        os.environ["TRITON_INTERPRET"] = "1"  # read by triton.jit below, not at import
    try:
        _kernel, _interpreted = triton.jit(_bias_gelu_kernel), interpret
        return _kernel
    finally:
        if interpret:  # put the environment back: other code decorating kernels is not affected
            if old is None:
                os.environ.pop("TRITON_INTERPRET", None)
            else:
                os.environ["TRITON_INTERPRET"] = old


def kernel_source() -> str:
    """The Triton kernel's own source, for showing in the lesson."""
    import inspect

    return "@triton.jit\n" + inspect.getsource(_bias_gelu_kernel).rstrip()


def bias_gelu(x: torch.Tensor, bias: torch.Tensor, block_size: int = BLOCK) -> torch.Tensor:
    """GELU(x + bias) (tanh approximation) in one Triton kernel launch."""
    if not available():
        raise RuntimeError(t("triton.missing"))
    if bias.dim() != 1 or x.shape[-1] != bias.numel():
        raise ValueError(t("triton.bad_shape", bias=tuple(bias.shape), last=x.shape[-1] if x.dim() else 0))
    kernel = _build()
    if not _interpreted and not (x.is_cuda and bias.is_cuda):
        raise ValueError(t("triton.not_on_gpu", device=x.device.type))  # compiled GPU code reads GPU memory only
    if _interpreted and x.dtype == torch.bfloat16:
        # NumPy (which the interpreter runs on) has no bfloat16: compute in fp32, round at the end.
        return bias_gelu(x.float(), bias.float(), block_size).to(torch.bfloat16)
    x = x.contiguous()
    bias = bias.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, block_size),)  # how many programs: one per block of elements
    kernel[grid](x, bias, y, n, bias.numel(), BLOCK_SIZE=block_size)
    return y


def reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """What bias_gelu must return: PyTorch's own GELU with the tanh approximation."""
    return torch.nn.functional.gelu(x + bias, approximate="tanh")
