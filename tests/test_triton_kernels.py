"""Lesson 04's Triton bias+GELU kernels (fused/triton_kernels.py, saved from the lesson's cells) match
PyTorch on fresh random inputs (the interpreter on a CPU), forward and backward; and what exercise 04's
softmax check stands on: every launch is seen, and an interpreted launch leaves Triton as it was."""

import importlib.util

import pytest
import torch
import torch.nn.functional as F

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed")

from fastrain_lib.fused import triton_kernels as tk
from fastrain_lib.lessons.l04_fused_kernels.checks_triton import observe_launches
from fastrain_lib.measure import bench


def _device():
    return "cpu" if tk.INTERPRETED else "cuda"


def reference(x, bias):
    return F.gelu(x + bias, approximate="tanh")


@pytest.mark.parametrize("shape", [(4, 32), (3, 5, 50), (1000,), (3, 1500)])
def test_matches_reference_on_fresh_random_inputs(shape):
    """Sizes below, at and across a BLOCK: the mask of the last block."""
    x = bench.fresh_random(*shape, device=_device()) * 3
    bias = bench.fresh_random(shape[-1], device=_device())
    torch.testing.assert_close(tk.triton_bias_gelu(x, bias), reference(x, bias), atol=1e-5, rtol=1e-5)


def test_fp16_inputs_are_computed_in_fp32():
    x = (bench.fresh_random(8, 64, device=_device()) * 3).half()
    bias = bench.fresh_random(64, device=_device()).half()
    y = tk.triton_bias_gelu(x, bias)
    assert y.dtype == torch.float16
    torch.testing.assert_close(y.float(), reference(x.float(), bias.float()), atol=2e-3, rtol=2e-3)


def test_large_values_stay_finite():
    x = torch.tensor([[-100.0, -20.0, 0.0, 20.0, 100.0]], device=_device())
    y = tk.triton_bias_gelu(x, torch.zeros(5, device=_device()))
    assert torch.isfinite(y).all()
    torch.testing.assert_close(y, reference(x, torch.zeros(5, device=_device())), atol=1e-5, rtol=1e-5)


def test_interpreter_exactly_without_a_gpu():
    from fastrain_lib.measure import hardware

    assert tk.INTERPRETED == (not hardware.cuda_available())


def _gradcheck(shape, seed):
    gen = torch.Generator().manual_seed(seed)
    x = (2 * torch.randn(*shape, generator=gen, dtype=torch.float64)).to(_device()).requires_grad_()
    bias = torch.randn(shape[-1], generator=gen, dtype=torch.float64).to(_device()).requires_grad_()
    return torch.autograd.gradcheck(tk.BiasGELU.apply, (x, bias), eps=1e-6, atol=1e-6, rtol=1e-4)


def test_autograd_function_matches_pytorchs_gradients():
    x = (bench.fresh_random(6, 40, device=_device()) * 3).requires_grad_()
    bias = bench.fresh_random(40, device=_device()).requires_grad_()
    ours = torch.autograd.grad(tk.BiasGELU.apply(x, bias).pow(2).sum(), (x, bias))
    theirs = torch.autograd.grad(reference(x, bias).pow(2).sum(), (x, bias))
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_gradcheck_passes_in_float64():
    assert _gradcheck((3, 7), seed=1)
    assert _gradcheck((2, 3, 4), seed=2)


def test_gradcheck_catches_a_wrong_backward(monkeypatch):
    from torch.autograd.gradcheck import GradcheckError

    def half_derivative(x, bias, dy):  # forgets the z·(1 − tanh²)·du term
        z = x + bias
        return dy * 0.5 * (1 + torch.tanh(0.7978845608028654 * (z + 0.044715 * z**3)))

    monkeypatch.setattr(tk, "triton_bias_gelu_grad", half_derivative)
    with pytest.raises(GradcheckError):
        _gradcheck((3, 7), seed=0)


def test_backward_saves_only_the_inputs():
    from fastrain_lib.fused import attention

    x = bench.fresh_random(4, 16, device=_device()).requires_grad_()
    bias = bench.fresh_random(16, device=_device()).requires_grad_()
    assert attention.saved_bytes(tk.BiasGELU.apply, x, bias).bytes == 0  # z and tanh are recomputed


def test_only_the_gradients_asked_for_are_computed():
    x = bench.fresh_random(3, 8, device=_device()).requires_grad_()
    bias = bench.fresh_random(8, device=_device())  # no gradient wanted
    (gx,) = torch.autograd.grad(tk.BiasGELU.apply(x, bias).sum(), (x,))
    torch.testing.assert_close(gx, torch.autograd.grad(reference(x, bias).sum(), (x,))[0], atol=1e-5, rtol=1e-5)


def test_observe_launches_sees_each_kernel_launch_and_no_torch_op():
    x = torch.randn(3, 20, device=_device())
    with observe_launches() as launched:
        torch.softmax(x, -1)
    assert launched == []
    with observe_launches() as launched:
        tk.triton_bias_gelu(x, torch.randn(20, device=_device()))
    assert [(launch.name, tuple(launch.grid)) for launch in launched] == [("bias_gelu_kernel", (1,))]


def test_an_interpreted_launch_leaves_triton_language_as_it_was():
    """Triton 3.x's InterpretedFunction.__call__ (tl.max / tl.sum inside an interpreted softmax) patches
    triton.language.core's builtins and never restores them; left so, a later real compile in the same process
    (test_triton_aot under xdist --dist loadfile) failed with "'ir.value' object has no attribute 'dtype'".
    The softmax check runs each student launch inside observe_launches, which puts Triton back."""
    import triton
    import triton.language as tl
    from triton.runtime.jit import JITFunction

    def helper_softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n, other=-float("inf"))
        num = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + cols, num / tl.sum(num, axis=0), mask=cols < n)

    kernel = triton.jit(helper_softmax)
    x = torch.randn(10, device=_device())
    y = torch.empty_like(x)
    with observe_launches():  # the first launch may add names the interpreter's cached helpers need: they stay
        kernel[(1,)](x, y, 10, BLOCK=16)
    objects = [tl, tl.core, tl.math, tl.standard, tl.core.tensor]
    before = [dict(vars(obj)) for obj in objects]
    with observe_launches():
        kernel[(1,)](x, y, 10, BLOCK=16)
    torch.testing.assert_close(y, torch.softmax(x, -1))
    changed = [(obj.__name__, name) for obj, saved in zip(objects, before)
               for name in set(saved) | set(vars(obj)) if vars(obj).get(name) is not saved.get(name)]
    assert changed == []
    if tk.INTERPRETED:  # and a real compile still works after it (what test_triton_aot does)
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource

        sig = {"x_ptr": "*fp32", "bias_ptr": "*fp32", "y_ptr": "*fp32", "n_elements": "i32", "n_cols": "i32",
               "BLOCK_SIZE": "constexpr", "UPCAST": "constexpr"}
        source = ASTSource(JITFunction(tk.bias_gelu_kernel.fn), sig, {"BLOCK_SIZE": 128, "UPCAST": False})
        assert triton.compile(source, target=GPUTarget("cuda", 80, 32)).asm["ptx"]
