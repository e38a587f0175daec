"""Checks for lesson 03's exercises (mixed precision): the one module the exercise notebook imports.

    check_amp_step(amp_step)          # amp_step(model, optimizer, scaler, inputs, targets, device, dtype) -> loss
    check_clip_step(clip_step)        # the same with gradient clipping: clip_step(..., max_norm, device, dtype)
    check_underflow_share(fn)         # fn(grad) -> share of nonzero entries that become 0 in fp16
    check_accum_step(accum_step)      # accum_step(model, optimizer, scaler, micro_batches, max_norm, device, dtype) -> loss
    check_adam_bytes(fn)              # fn(n_params, precision) -> bytes of weights/grads/optimizer/master/total
    check_predict_fit(fn)             # fn(n_params, activation_bytes, memory_bytes) -> {'fp32': bool, 'amp': bool}

One file per exercise: check_step.py (tasks 1, 1b), check_accum.py (task 2), check_underflow.py
(task 3), check_memory.py (tasks 4, 5). Each runs the student's function on a tiny model on the
CPU next to a reference answer (for the steps: the lesson's own precision/step.py) and names the
mistake it finds.
"""

from fastrain_lib.lessons.l03_mixed_precision.check_accum import check_accum_step, reference_accum_step
from fastrain_lib.lessons.l03_mixed_precision.check_memory import (
    check_adam_bytes,
    check_predict_fit,
    reference_adam_bytes,
    reference_predict_fit,
)
from fastrain_lib.lessons.l03_mixed_precision.check_step import (
    check_amp_step,
    check_clip_step,
    reference_amp_step,
    reference_clip_step,
)
from fastrain_lib.lessons.l03_mixed_precision.check_underflow import (
    check_underflow_share,
    reference_underflow_share,
)

__all__ = ["check_accum_step", "check_adam_bytes", "check_amp_step", "check_clip_step", "check_predict_fit",
           "check_underflow_share", "reference_accum_step", "reference_adam_bytes", "reference_amp_step",
           "reference_clip_step", "reference_predict_fit", "reference_underflow_share"]
