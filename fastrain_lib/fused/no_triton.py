"""`triton` and `triton.language` where Triton is not installed (PyPI's torch on Windows brings none), issue 41.

A lesson's or an exercise's kernel cell imports these instead (`except ModuleNotFoundError`), so the
kernel can still be written and defined: every name exists, and `@triton.jit` hands the function back
unchanged. Nothing is launched: the cells that launch ask `hardware.triton_ready()` first, which says why
not (probe.triton_problem).
"""

from __future__ import annotations


class Missing:
    """Every attribute is another Missing; calling it as a decorator returns the function unchanged."""

    def __getattr__(self, name):
        return Missing()

    def __call__(self, fn=None, **options):
        return fn if callable(fn) else (lambda f: f)  # @triton.jit and @triton.jit(...)


triton = Missing()
tl = Missing()
