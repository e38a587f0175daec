"""Is NVIDIA Apex here, and can its fused CUDA kernels run? Said in plain words.

PyPI's `apex` is an unrelated 2013 web toolkit; NVIDIA Apex is built from source (or conda-forge's
nvidia-apex) and needs its compiled extensions (amp_C, fused_layer_norm_cuda) for the fused kernels.
apex_status() tells the four cases apart without importing the unrelated package.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from fastrain_lib.core.i18n import t

APEX_STATES = ("missing", "wrong_package", "no_extensions", "ok")


# every key written out, so the unused-key test can see each one
STATE_KEYS = {"missing": "apex.missing", "wrong_package": "apex.wrong_package",
              "no_extensions": "apex.no_extensions", "ok": "apex.ok"}

@dataclass(frozen=True)
class ApexStatus:
    state: str  # one of APEX_STATES
    fused_adam: bool  # apex.optimizers.FusedAdam can run its CUDA kernel
    fused_layer_norm: bool  # apex.normalization.FusedLayerNorm can run its CUDA kernel

    @property
    def message(self) -> str:
        """What we found and what to do next, in the course language."""
        return t(STATE_KEYS[self.state])

    def __str__(self) -> str:
        return self.message


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
        return True
    except Exception:  # noqa: BLE001 -- ImportError, or a broken binary raising OSError/RuntimeError
        return False


def apex_status() -> ApexStatus:
    """Tell apart: no apex; PyPI's unrelated 'apex'; NVIDIA Apex without its CUDA
    extensions; NVIDIA Apex with fused kernels. Never imports the unrelated package."""
    spec = importlib.util.find_spec("apex")
    if spec is None:
        return ApexStatus("missing", False, False)
    locations = [Path(p) for p in (spec.submodule_search_locations or [])]
    # NVIDIA Apex is a package with optimizers/ and normalization/; PyPI's apex (a 2013
    # Pyramid web toolkit) has neither.
    if not any((loc / "optimizers").is_dir() and (loc / "normalization").is_dir() for loc in locations):
        return ApexStatus("wrong_package", False, False)
    # The compiled extensions are top-level modules that a --cpp_ext/--cuda_ext build installs.
    fused_adam = _importable("amp_C")
    fused_ln = _importable("fused_layer_norm_cuda")
    if not (fused_adam or fused_ln):
        return ApexStatus("no_extensions", False, False)
    return ApexStatus("ok", fused_adam, fused_ln)
