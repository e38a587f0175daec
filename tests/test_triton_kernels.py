"""The Triton bias+GELU kernel matches PyTorch on fresh random inputs (interpreter on a CPU)."""

import os

import pytest
import torch

from fastrain_lib.fused import triton_kernels as tk
from fastrain_lib.measure import bench

pytestmark = pytest.mark.skipif(not tk.available(), reason="triton not installed")


@pytest.mark.parametrize("shape", [(4, 32), (3, 5, 50), (1000,)])
def test_matches_reference_on_fresh_random_inputs(shape):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = bench.fresh_random(*shape, device=device) * 3
    bias = bench.fresh_random(shape[-1], device=device)
    torch.testing.assert_close(tk.bias_gelu(x, bias, block_size=128), tk.reference(x, bias), atol=1e-5, rtol=1e-5)


def test_low_precision_inputs():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for dtype, tol in ((torch.float16, 2e-3), (torch.bfloat16, 4e-2)):
        x = bench.fresh_random(8, 64, device=device, dtype=dtype)
        bias = bench.fresh_random(64, device=device, dtype=dtype)
        y = tk.bias_gelu(x, bias)
        assert y.dtype == dtype
        torch.testing.assert_close(y.float(), tk.reference(x.float(), bias.float()), atol=tol, rtol=tol)


def test_large_values_stay_finite():
    x = torch.tensor([[-60.0, -5.0, 0.0, 5.0, 60.0]])
    y = tk.bias_gelu(x, torch.zeros(5))
    assert torch.isfinite(y).all()
    torch.testing.assert_close(y, tk.reference(x, torch.zeros(5)), atol=1e-5, rtol=1e-5)


def test_environment_is_left_as_it_was_and_mode_is_explained():
    before = os.environ.get("TRITON_INTERPRET")
    tk.bias_gelu(torch.ones(2, 4), torch.ones(4))
    assert os.environ.get("TRITON_INTERPRET") == before
    if not torch.cuda.is_available():
        assert tk.interpreted()
        assert "TRITON_INTERPRET" in tk.mode_message()


def test_bias_shape_is_checked():
    with pytest.raises(ValueError):
        tk.bias_gelu(torch.ones(2, 4), torch.ones(3))


def test_kernel_names_live_at_module_level():
    """Triton < 3.4 (torch <= 2.7) resolves a kernel's names from its module's globals only: a
    function-local `import triton.language as tl` compiles in the interpreter and fails on a GPU."""
    import ast
    import inspect

    import triton.language

    tree = ast.parse(inspect.getsource(tk))
    for func in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(func):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.startswith("triton") for n in names), f"{func.name} imports Triton locally"
    kernel = tk._bias_gelu_kernel
    assert kernel.__qualname__ == kernel.__name__  # not nested in another function
    assert kernel.__globals__["tl"] is triton.language
    assert "import triton" not in tk.kernel_source() and tk.kernel_source().startswith("@triton.jit")


def test_compiled_kernel_refuses_cpu_tensors(monkeypatch):
    # On a GPU the compiled kernel must not be handed CPU tensors (it would read host pointers).
    monkeypatch.setattr(tk, "_kernel", object())
    monkeypatch.setattr(tk, "_interpreted", False)
    with pytest.raises(ValueError, match="cuda"):
        tk.bias_gelu(torch.ones(2, 4), torch.ones(4))


# ---------------------------------------------------------------- the backward kernel and autograd.Function


def _device():
    return "cuda" if torch.cuda.is_available() else "cpu"


def test_autograd_function_matches_pytorchs_gradients():
    x = (bench.fresh_random(5, 33, device=_device()) * 3).requires_grad_()
    bias = bench.fresh_random(33, device=_device()).requires_grad_()
    ours = torch.autograd.grad(tk.BiasGELU.apply(x, bias).pow(2).sum(), (x, bias))
    theirs = torch.autograd.grad(tk.reference(x, bias).pow(2).sum(), (x, bias))
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_gradcheck_passes_in_float64():
    assert tk.gradcheck_bias_gelu((3, 7), seed=1)
    assert tk.gradcheck_bias_gelu((2, 3, 4), seed=2)


def test_gradcheck_catches_a_wrong_backward(monkeypatch):
    # the classic slip: the derivative of 0.5·z·(1 + tanh(u)) without the product rule's second term
    def half_derivative(x, bias, dy, block_size=tk.BLOCK):
        z = (x + bias).detach()
        return dy * 0.5 * (1 + torch.tanh(tk.GELU_C * (z + 0.044715 * z**3)))

    monkeypatch.setattr(tk, "bias_gelu_grad", half_derivative)
    with pytest.raises(tk.GradcheckError):
        tk.gradcheck_bias_gelu((3, 7))


def test_backward_saves_only_the_inputs():
    from fastrain_lib.fused import attention
    from fastrain_lib.fused.bias_gelu import bias_gelu

    x = bench.fresh_random(8, 16, device=_device()).requires_grad_()
    bias = bench.fresh_random(16, device=_device()).requires_grad_()
    assert attention.saved_bytes(tk.BiasGELU.apply, x, bias).bytes == 0  # z and tanh are recomputed
    assert attention.saved_bytes(bias_gelu, x, bias).bytes >= 3 * 8 * 16 * 4  # the eager chain keeps several


def test_only_the_gradients_asked_for_are_computed():
    x = bench.fresh_random(4, 8, device=_device()).requires_grad_()
    bias = bench.fresh_random(8, device=_device())  # no grad wanted
    (gx,) = torch.autograd.grad(tk.BiasGELU.apply(x, bias).sum(), (x,))
    torch.testing.assert_close(gx, torch.autograd.grad(tk.reference(x, bias).sum(), (x,))[0], atol=1e-5, rtol=1e-5)


def test_low_precision_backward():
    for dtype, tol in ((torch.float16, 5e-3), (torch.bfloat16, 5e-2)):
        x = bench.fresh_random(4, 64, device=_device(), dtype=dtype).requires_grad_()
        bias = bench.fresh_random(64, device=_device(), dtype=dtype).requires_grad_()
        gx, gb = torch.autograd.grad(tk.BiasGELU.apply(x, bias).sum(), (x, bias))
        assert gx.dtype == dtype and gb.dtype == dtype
        x32, b32 = x.detach().float().requires_grad_(), bias.detach().float().requires_grad_()
        rx, rb = torch.autograd.grad(tk.reference(x32, b32).sum(), (x32, b32))
        torch.testing.assert_close(gx.float(), rx, atol=tol, rtol=tol)
        torch.testing.assert_close(gb.float(), rb, atol=tol * 8, rtol=tol)


# ---------------------------------------------------------------- the library's softmax and jit()


def test_library_softmax_matches_torch_on_odd_strided_and_large_rows():
    wide = bench.fresh_random(6, 50, device=_device())
    for x in (bench.fresh_random(5, 13, device=_device()) * 3, wide[:, 7:40], wide.t()[:20, :6] * 80 + 100):
        torch.testing.assert_close(tk.softmax(x), torch.softmax(x, -1), atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError):
        tk.softmax(bench.fresh_random(2, 3, 4))


def test_jit_restores_the_environment():
    before = os.environ.get("TRITON_INTERPRET")

    def kernel(x_ptr):
        pass

    tk.jit(kernel)
    assert os.environ.get("TRITON_INTERPRET") == before


def test_library_helpers_work_in_the_interpreter_and_are_put_back():
    """tl.max / tl.sum are @jit functions decorated when triton was imported (here after a torch.compile,
    without TRITON_INTERPRET): tk.jit lets an interpreted kernel call them, then restores Triton."""
    from triton.runtime.jit import JITFunction

    original = JITFunction.__call__
    x = bench.fresh_random(3, 10, device=_device())
    torch.testing.assert_close(tk.softmax(x), torch.softmax(x, -1))
    assert JITFunction.__call__ is original
    if tk.interpreted():  # a kernel that fails inside the launch leaves Triton as it was too
        import triton.language as tl

        def failing(x_ptr, BLOCK: tl.constexpr):
            tl.static_assert(BLOCK < 0, "this kernel always fails")

        with pytest.raises(Exception, match="always fails"):
            tk.jit(failing)[(1,)](x, BLOCK=4)
        assert JITFunction.__call__ is original


def test_observe_launches_counts_each_kernel_launch_and_knows_the_library_s_own():
    """What exercise 04's softmax check stands on: every launch is seen (the interpreter here, JITFunction.run
    on a GPU), a torch op is no launch, and the course's own kernels are told apart by their source file."""
    x = torch.randn(3, 20)
    with tk.observe_launches() as launched:
        torch.softmax(x, -1)
    assert launched == []
    with tk.observe_launches() as launched:
        tk.softmax(x)
        tk.bias_gelu(x, torch.randn(20))
    assert [launch.name for launch in launched] == ["_softmax_kernel", "_bias_gelu_kernel"]
    assert all(tk.library_kernel(launch) for launch in launched) and launched[0].grid == (3,)
    assert not tk.library_kernel(tk.Launch("mine", "<ipython-input-3>", (1,)))


def test_the_shown_kernel_source_has_no_english_comments():
    """Convention 3: the lesson prints the kernels' code; the library's English comments stay out."""
    import re

    for text in (tk.kernel_source(), tk.backward_source()):
        assert "#" not in text and '"""' not in text
        assert "tl.store" in text and not re.search(r"\b(the|each|of)\b", text)


def test_an_interpreted_launch_leaves_triton_language_as_it_was():
    """Triton 3.x's InterpretedFunction.__call__ (tl.max / tl.sum inside the interpreted softmax) patches
    triton.language.core's builtins and never restores them; left so, a later real compile in the same process
    (test_triton_aot under xdist --dist loadfile) failed with "'ir.value' object has no attribute 'dtype'"."""
    import triton.language as tl

    objects = [tl, tl.core, tl.math, tl.standard, tl.core.tensor]
    before = [dict(vars(obj)) for obj in objects]
    tk.softmax(bench.fresh_random(3, 10, device=_device()))
    tk.bias_gelu(bench.fresh_random(2, 4, device=_device()), torch.ones(4, device=_device()))
    changed = [(obj.__name__, name) for obj, saved in zip(objects, before)
               for name in set(saved) | set(vars(obj)) if vars(obj).get(name) is not saved.get(name)]
    assert changed == []
    if tk.interpreted():  # and a real compile still works after it (what test_triton_aot does)
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource

        sig = {"x_ptr": "*fp32", "bias_ptr": "*fp32", "y_ptr": "*fp32", "n_elements": "i32", "n_cols": "i32",
               "BLOCK_SIZE": "constexpr", "UPCAST": "constexpr"}
        source = ASTSource(tk.triton.jit(tk._bias_gelu_kernel), sig, {"BLOCK_SIZE": 128, "UPCAST": False})
        assert tk.triton.compile(source, target=GPUTarget("cuda", 80, 32)).asm["ptx"]
