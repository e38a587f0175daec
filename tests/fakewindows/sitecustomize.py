"""A Windows lab PC's capabilities, on Linux, for every Python that starts with this folder on PYTHONPATH
(a notebook's kernel and every process it starts), issue 41:

- processes start only with "spawn" (Windows has no fork or forkserver): the default start method is spawn,
  get_all_start_methods() says so, and asking for "fork" or "forkserver" fails as it does there;
- no `triton` module (PyPI's torch on Windows brings none): importing it fails as where it is not installed;
- no RPC (`torch.distributed.rpc.is_available()` is False on Windows, and its API is missing): is_available
  answers False and init_rpc fails;
- no C++ compiler: the tests set CXX to a path that does not exist (Inductor reads it), not done here.

FAKEWINDOWS (a comma list of "triton", "rpc", "spawn"; all three when unset) says which to take away: the
English runs of the lessons take triton and rpc (spawn makes every process lesson minutes slower, see
tests/test_english_mode.py).

Nothing here pretends to be Windows otherwise (sys.platform, paths): the course must not ask for a platform,
only for the capability it needs.
"""

import importlib.abc
import importlib.machinery
import multiprocessing
import multiprocessing.context
import os
import sys

TAKEN = {s.strip() for s in os.environ.get("FAKEWINDOWS", "triton,rpc,spawn").split(",") if s.strip()}

if "triton" in TAKEN:
    sys.modules["triton"] = None  # `import triton` raises ModuleNotFoundError; find_spec answers None

_get_context = multiprocessing.context.DefaultContext.get_context


def _spawn_only(self, method=None):
    if method in ("fork", "forkserver"):
        raise ValueError(f"cannot find context for {method!r}")
    return _get_context(self, method)


if "spawn" in TAKEN:
    multiprocessing.set_start_method("spawn", force=True)
    multiprocessing.get_all_start_methods = lambda: ["spawn"]
    multiprocessing.context.DefaultContext.get_context = _spawn_only
    multiprocessing.get_context = multiprocessing.context._default_context.get_context


def _no_rpc(module):
    def init_rpc(*args, **kwargs):
        raise RuntimeError("torch.distributed.rpc is not available on this platform (faked Windows, tests/fakewindows)")

    module.is_available = lambda: False
    module.init_rpc = init_rpc


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `_no_rpc` on torch.distributed.rpc right after it is imported."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch.distributed.rpc":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            _no_rpc(module)

        loader.exec_module = exec_module
        return spec


if "rpc" in TAKEN:
    sys.meta_path.insert(0, _AfterImport())
