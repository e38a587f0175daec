"""Loaded by every Python process that has this folder on its path (PYTHONPATH), before its own code.

FAKECUDA=<spec> ("H200", "A100x2", ... see fakecuda.py): as soon as the process imports torch, torch's CUDA
detection is faked and real CUDA work raises FakeCudaReached.
FAKECUDA_LOG=<file>: one JSON line per process that imports fastrain_lib, saying where it was found
(a test checks that every child of make gpu-check found the checkout it was given).

Costs nothing in a process that imports neither (no torch import here)."""

import importlib.abc
import json
import os
import sys

_SPEC = os.environ.get("FAKECUDA", "")
_LOG = os.environ.get("FAKECUDA_LOG", "")
_HERE = os.path.dirname(os.path.abspath(__file__))


def _log(event: str, **fields) -> None:
    if not _LOG:
        return
    line = {"event": event, "pid": os.getpid(), "ppid": os.getppid(), "argv": list(getattr(sys, "argv", [])),
            "executable": sys.executable, "rank": os.environ.get("RANK"),
            "mode": os.environ.get("FASTRAIN_MODE"), **fields}
    with open(_LOG, "a", encoding="utf-8") as fh:  # one short write per line: lines of processes do not mix
        fh.write(json.dumps(line) + "\n")


class _Watch(importlib.abc.MetaPathFinder):
    """Finds torch and fastrain_lib through the other finders; fakes CUDA once torch has loaded and
    logs where fastrain_lib came from."""

    def find_spec(self, name, path=None, target=None):
        if name not in ("torch", "fastrain_lib"):
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None:
            return None
        if name == "fastrain_lib":
            _log("fastrain_lib", origin=spec.origin, path=list(sys.path))
        elif _SPEC and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            run = spec.loader.exec_module

            def exec_module(module, _run=run):
                _run(module)
                if _HERE not in sys.path:
                    sys.path.append(_HERE)
                import fakecuda

                fakecuda.install(_SPEC)
                _log("fake_installed", spec=_SPEC)

            spec.loader.exec_module = exec_module
        return spec


if _SPEC or _LOG:
    sys.meta_path.insert(0, _Watch())
