"""Every Triton kernel the course launches, compiled ahead of time for real GPUs without one (issue 26):
sm_75 (T4), sm_80 (A100), sm_89 (L4) and sm_90 (H100/H200), at the block sizes and dtypes the course
launches them with. triton.compile(ASTSource(...), target=GPUTarget(...)) and ptxas ship in the Triton
wheel. A compile error fails; so does a register spill (ptxas -v on the PTX: "N bytes spill stores"),
which would make a "fused" kernel slower than the eager ops it replaces. TRITON_INTERPRET hides both."""

import json
import re
import subprocess
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia.compiler import get_ptxas
from triton.compiler import ASTSource

ROOT = Path(__file__).resolve().parents[1]
ARCHS = (75, 80, 89, 90)
ELEMENTWISE = {"x_ptr": None, "bias_ptr": None, "y_ptr": None, "n_elements": "i32", "n_cols": "i32"}


def _jit(fn):
    """A JITFunction for a real compile, also where the kernel was decorated under TRITON_INTERPRET=1 (no GPU)."""
    from triton.runtime.jit import JITFunction

    return fn if isinstance(fn, JITFunction) else JITFunction(getattr(fn, "fn", fn))


def _solution_softmax(folder: Path):
    """The softmax kernel of lesson 04's solution, decorated with plain triton.jit (as on a GPU). Written to a
    file and imported: triton.jit reads the kernel's source with inspect, which exec'd text lacks."""
    import importlib.util

    nb = json.loads((ROOT / "solutions" / "04_fused_kernels.ipynb").read_text(encoding="utf-8"))
    src = next("".join(c["source"]) for c in nb["cells"] if "def softmax_kernel" in "".join(c["source"]))
    path = folder / "lesson04_solution_softmax.py"
    names = ("import torch\n\nfrom fastrain_lib.lessons.l04_fused_kernels import checks as lesson04\n"
             "from fastrain_lib.measure import hardware\n\n")  # what the notebook's earlier cells imported
    path.write_text(names + src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("lesson04_solution_softmax", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.softmax_kernel


def _cases(folder: Path):
    from fastrain_lib.fused import triton_kernels as tk

    cases = []
    for dtype in ("fp32", "fp16", "bf16"):  # bias_gelu's callers: fp32 tests, fp16/bf16 autocast
        upcast = dtype != "fp32"
        sig = {**{k: v or f"*{dtype}" for k, v in ELEMENTWISE.items()}, "BLOCK_SIZE": "constexpr", "UPCAST": "constexpr"}
        cases.append((f"bias_gelu {dtype}", tk.bias_gelu_kernel, sig, {"BLOCK_SIZE": tk.BLOCK, "UPCAST": upcast}))
        bsig = {"x_ptr": f"*{dtype}", "bias_ptr": f"*{dtype}", "dy_ptr": f"*{dtype}", "dz_ptr": f"*{dtype}",
                "n_elements": "i32", "n_cols": "i32", "BLOCK_SIZE": "constexpr", "UPCAST": "constexpr"}
        cases.append((f"bias_gelu_backward {dtype}", tk.bias_gelu_backward_kernel, bsig,
                      {"BLOCK_SIZE": tk.BLOCK, "UPCAST": upcast}))
    softmax_sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "x_row_stride": "i32", "y_row_stride": "i32",
                   "BLOCK_SIZE": "constexpr"}
    for block in (1024,):  # lesson 04 times rows of 1000 columns: next_power_of_2(1000)
        cases.append((f"solution softmax {block}", _solution_softmax(folder), softmax_sig, {"BLOCK_SIZE": block}))
    return cases


@pytest.mark.parametrize("arch", ARCHS)
def test_every_course_kernel_compiles_for_real_gpus_without_spilling(arch, tmp_path):
    failures = []
    for name, fn, signature, constexprs in _cases(tmp_path):
        try:
            kernel = triton.compile(ASTSource(_jit(fn), signature, constexprs), target=GPUTarget("cuda", arch, 32))
        except Exception as exc:  # noqa: BLE001 - any compile error is the finding
            failures.append(f"{name} sm_{arch}: {type(exc).__name__}: {str(exc)[:300]}")
            continue
        stem = re.sub(r"\W", "_", name)
        ptx = tmp_path / f"{stem}_{arch}.ptx"
        ptx.write_text(kernel.asm["ptx"])
        suffix = "a" if arch == 90 else ""
        out = subprocess.run([get_ptxas(arch).path, "-v", f"--gpu-name=sm_{arch}{suffix}", str(ptx), "-o", str(ptx) + ".o"],
                             capture_output=True, text=True, timeout=120)
        report = out.stdout + out.stderr
        spills = [int(n) for n in re.findall(r"(\d+) bytes spill (?:stores|loads)", report)]
        if not spills and out.returncode == 0:  # ptxas -v always reports spills: a silent one means no check
            failures.append(f"{name} sm_{arch}: ptxas -v printed no spill line: {report[-200:]}")
        if out.returncode != 0 or any(spills):
            failures.append(f"{name} sm_{arch}: ptxas {out.returncode}, spills {spills}: {report[-300:]}")
    assert failures == []
