"""What check_column_row_mlp watches in every rank: each aten op that computes, with its operands'
shapes (a TorchDispatchMode that follows the threads the answer starts), and the rule that finds
the unsplit layer among them (an op whose operand spans all 4d hidden units)."""

from __future__ import annotations

import torch

# Operations that only pick, view, copy or convert elements (slicing a block out of the full
# weight is exactly what the task asks): an operand that spans every hidden unit is fine HERE.
# Every other aten op computes, and one that computes on all 4d hidden units at once is the
# unsplit layer, whatever it is called (a matmul, a broadcast multiply and sum, an einsum...).
SELECTS = {"slice", "select", "narrow", "split", "split_with_sizes", "chunk", "unbind", "tensor_split", "view",
           "_unsafe_view", "reshape", "_reshape_alias", "t", "transpose", "permute", "expand", "as_strided",
           "index", "index_select", "gather", "take", "masked_select", "nonzero", "clone", "_to_copy", "copy_",
           "detach", "alias", "contiguous", "lift_fresh", "lift_fresh_copy", "unsqueeze", "squeeze", "flatten",
           "unflatten", "movedim", "numpy_T", "view_as", "empty_like", "zeros_like", "ones_like", "new_empty",
           "new_zeros", "empty_strided", "resize_", "set_", "_local_scalar_dense", "isnan", "isfinite", "equal",
           "is_same_size", "_has_compatible_shallow_copy_type"}


def _tensors(values) -> list:
    found = []
    for v in values:
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            found += _tensors(v)
    return found


def _op_recorder():
    """A TorchDispatchMode that appends (aten op, [operand shapes]) for every computing op (all but
    SELECTS) — below every Python name, so `(x[:, None] * w1).sum(-1)` is recorded as aten::mul with
    the full w1 among its operands. It follows threads the answer starts (checking.follow_threads)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    from fastrain_lib.lessons.checking import follow_threads

    calls: list[tuple[str, list[tuple[int, ...]]]] = []

    class OpShapes(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = func._schema.name.split("::")[-1]
            if name not in SELECTS:
                calls.append((func._schema.name, [tuple(t.shape) for t in
                                                  _tensors(list(args) + list((kwargs or {}).values()))]))
            return func(*args, **(kwargs or {}))

    class Recorder:
        def __init__(self):
            self.calls = calls

        def __enter__(self):
            self._here = OpShapes()
            self._here.__enter__()
            self._unfollow = follow_threads(OpShapes)
            return self

        def __exit__(self, *exc):
            self._unfollow()
            return self._here.__exit__(*exc)

    return Recorder()


def full_matmuls(calls: list, hidden: int, width: int | None = None) -> list:
    """The recorded computing ops with an operand that spans all `hidden` units (unsplit): a 2-D or
    larger operand with a dimension of `hidden`, or a flattened full weight (hidden × width elements)."""
    def spans(shape):
        if len(shape) >= 2:
            return hidden in shape
        return width is not None and len(shape) == 1 and shape[0] == hidden * width
    return [(name, shapes) for name, shapes in calls if any(spans(shape) for shape in shapes)]
