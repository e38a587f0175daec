"""Mutation guard of the exercise checks (used by checking.call_student(guard_inputs=...)).

snapshot(value) keeps a deep copy of the mutable parts of an argument (tensors, NumPy arrays,
a module's weights, nested dicts/lists/tuples/sets); changed_part(value, snapshot, "name") says
where it differs afterwards ("table['fc1'][2]"), None when nothing changed. NaN equals NaN
(tensors, arrays and NumPy scalars); NumPy scalars (np.float32(0.5), np.int64(3)) are immutable
and compare by value. checking.py re-exports these names.
"""

from __future__ import annotations

import torch


def snapshot(value):
    """A deep copy of the mutable parts inside nested dicts/lists/tuples/sets: tensors, NumPy
    arrays, a module's weights (mutation guard: compare later with unchanged/changed_part)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, torch.nn.Module):
        return _Weights({k: v.detach().clone() for k, v in value.state_dict().items()})
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(snapshot(v) for v in value) if type(value) in (list, tuple) else list(map(snapshot, value))
    if isinstance(value, (set, bytearray)):
        return type(value)(value) if type(value) in (set, bytearray) else set(value)
    if _is_numpy_array(value):
        return value.copy()
    return value  # immutable (numbers, str, NumPy scalars) or unknown: kept as it is


def _numpy():
    import numpy as np

    return np


def _is_numpy_array(value) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "copy") and hasattr(value, "shape") \
        and isinstance(value, _numpy().ndarray)


def _is_numpy_scalar(value) -> bool:
    return type(value).__module__ == "numpy" and isinstance(value, _numpy().generic)


class _Weights(dict):  # a module's state_dict, as snapshot() keeps it
    pass


def unchanged(value, before) -> bool:
    """True when `value` still equals its snapshot `before`: same containers, same tensors
    (device, dtype, shape and every number, NaN equal to NaN; meta tensors compare by shape only)."""
    return changed_part(value, before, "") is None


def _same_scalar(value, before) -> bool:
    """A NumPy scalar compared by value (and dtype): np.float32(0.5) equals itself, NaN equals NaN."""
    if not _is_numpy_scalar(value) or value.dtype != before.dtype:
        return False
    np = _numpy()
    return bool(value == before) or (value.dtype.kind in "fc" and bool(np.isnan(value) and np.isnan(before)))


def changed_part(value, before, path: str = "") -> str | None:
    """None when `value` equals its snapshot `before`, else where it differs first, written as
    an index into `path` (e.g. "table['fc1'][2]")."""
    try:
        if isinstance(before, torch.Tensor):
            if not isinstance(value, torch.Tensor) or value.device != before.device:
                return path
            if value.dtype != before.dtype or value.shape != before.shape:
                return path
            same = value.device.type == "meta" or torch.equal(value.detach(), before) or (
                value.is_floating_point() and torch.allclose(value.detach(), before, rtol=0, atol=0, equal_nan=True))
            return None if same else path
        if isinstance(before, _Weights):
            return changed_part(dict(value.state_dict()), dict(before), path) if isinstance(value, torch.nn.Module) else path
        if isinstance(before, dict):
            if not isinstance(value, dict) or list(value) != list(before):
                return path
            return next((p for k in before for p in [changed_part(value[k], before[k], f"{path}[{k!r}]")]
                         if p is not None), None)
        if isinstance(before, (list, tuple)):
            if not isinstance(value, (list, tuple)) or len(value) != len(before):
                return path
            return next((p for i, (v, b) in enumerate(zip(value, before))
                         for p in [changed_part(v, b, f"{path}[{i}]")] if p is not None), None)
        if _is_numpy_scalar(before):
            return None if value is before or _same_scalar(value, before) else path
        if type(before).__module__ == "numpy" and hasattr(before, "shape"):
            np = _numpy()
            same = isinstance(value, np.ndarray) and value.shape == before.shape and value.dtype == before.dtype \
                and np.array_equal(value, before, equal_nan=before.dtype.kind in "fc")
            return None if same else path
        return None if value is before or bool(value == before) else path
    except Exception:  # noqa: BLE001
        return path


def params_of(model) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def same_tensors(xs, ys, *, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Two lists of tensors with the same shapes, dtypes and (nearly) the same numbers."""
    try:
        xs, ys = list(xs), list(ys)
        return len(xs) == len(ys) and all(
            isinstance(x, torch.Tensor) and x.shape == y.shape and x.dtype == y.dtype and x.device == y.device
            and torch.allclose(x.detach(), y.detach(), rtol=rtol, atol=atol) for x, y in zip(xs, ys))
    except Exception:  # noqa: BLE001
        return False
