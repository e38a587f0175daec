"""Lesson 03 checks: the reference solutions pass, typical wrong answers fail with the right code."""

import numpy as np
import torch
from checkcases import coverage_test, right, table_test, wrong
from torch.nn import functional as F

from fastrain_lib.lessons.l03_mixed_precision import checks as C
from fastrain_lib.lessons.l03_mixed_precision import checks as lesson03


def good_step(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def forgot_update(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    return loss


def not_skipped(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    optimizer.step()  # ignores inf
    scaler.update()
    return loss


def optimizer_step_only(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    optimizer.step()
    scaler.update()
    return loss


def cuda_amp(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.cuda.amp.autocast():
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def backward_in_autocast(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
        scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def no_autocast(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def unscaled_backward(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def no_zero_grad(model, optimizer, scaler, inputs, targets, device, dtype):
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def good_clip(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss


def clip_first(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss


def no_clip(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    return good_step(model, optimizer, scaler, inputs, targets, device, dtype)


def model_zero_grad_item(model, optimizer, scaler, inputs, targets, device, dtype):
    """Valid: model.zero_grad(), the loss through F.cross_entropy's functional twin, .item()."""
    model.zero_grad(set_to_none=False)
    with torch.autocast(device_type=device, dtype=dtype):
        logits = model(inputs)
    loss = F.cross_entropy(logits.float(), targets)  # fp32 loss outside autocast: the same numbers
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()


def hard_coded_fp16(model, optimizer, scaler, inputs, targets, device, dtype):
    return good_step(model, optimizer, scaler, inputs, targets, "cpu", torch.float16)


def returns_scaled(model, optimizer, scaler, inputs, targets, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.step(optimizer)
    scaler.update()
    return scaled


def halves_inputs_in_place(model, optimizer, scaler, inputs, targets, device, dtype):
    inputs.mul_(1.0).add_(0.0)
    inputs[0, 0, 0, 0] = 0.123  # "normalises" the caller's batch
    return good_step(model, optimizer, scaler, inputs, targets, device, dtype)


def returns_model_output(model, optimizer, scaler, inputs, targets, device, dtype):
    good_step(model, optimizer, scaler, inputs, targets, device, dtype)
    return model(inputs)


def good_clip_item(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    """Valid: model.zero_grad() and the loss as a float."""
    model.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters()], max_norm=max_norm)
    scaler.step(optimizer)
    scaler.update()
    return float(loss)


def clip_fixed_norm(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    return good_clip(model, optimizer, scaler, inputs, targets, 1.0, device, dtype)


def clip_by_value(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_value_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss


def clip_fp16_only(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    return good_clip(model, optimizer, scaler, inputs, targets, max_norm, device, torch.float16)


def clip_no_update(model, optimizer, scaler, inputs, targets, max_norm, device, dtype):
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    return loss


def own_share(g):
    """A student's own correct answer (the check's reference is a forbidden helper now)."""
    nonzero = g[g != 0]
    return (nonzero.to(torch.float16) == 0).float().mean().item() if nonzero.numel() else 0.0


def share_loop(g):
    """Valid: counts with a Python loop over the flattened values."""
    values = g.flatten().tolist()
    nonzero = [v for v in values if v != 0]
    if not nonzero:
        return 0.0
    return sum(1 for v in nonzero if torch.tensor(v, dtype=torch.float64).half().item() == 0) / len(nonzero)


def share_in_place(g):
    g.abs_()  # changes the caller's gradient
    return own_share(g)


def share_with_zeros(g):
    return (g.to(torch.float16) == 0).float().mean().item()


def share_normal_limit(g):
    nz = g[g != 0]
    return (nz.abs() < torch.finfo(torch.float16).tiny).float().mean().item()


def share_count(g):
    nz = g[g != 0]
    return int((nz.to(torch.float16) == 0).sum())


def share_positive_only(g):
    nz = g[g != 0]
    return ((nz > 0) & (nz.to(torch.float16) == 0)).float().mean().item()


def share_bf16(g):
    nz = g[g != 0]
    return (nz.to(torch.bfloat16) == 0).float().mean().item() if nz.numel() else 0.0


def share_1d_only(g):
    nz = [v for v in g if v != 0]  # iterates rows of a 2-D gradient
    return sum(float(v.half()) == 0 for v in nz) / len(nz)


def library_step(model, optimizer, scaler, inputs, targets, device, dtype):
    """The right weights, but the lesson's saved step does the work (imported under another name)."""
    from fastrain_lib.precision.step import amp_step as ready_made

    optimizer.zero_grad()
    return ready_made(model, optimizer, scaler, inputs, targets, F.cross_entropy, dtype=dtype)


def fixed_batch_step(model, optimizer, scaler, inputs, targets, device, dtype):
    """Fitted to the hand-written cases: uses only the first 13 rows (every fixed case has 13)."""
    return good_step(model, optimizer, scaler, inputs[:13] if len(inputs) > 13 else inputs[:len(inputs) - 1],
                     targets[:13] if len(targets) > 13 else targets[:len(targets) - 1], device, dtype) \
        if len(inputs) != 13 else good_step(model, optimizer, scaler, inputs, targets, device, dtype)


def share_fraction(g):
    """Valid: an exact fractions.Fraction (count / count)."""
    from fractions import Fraction

    nz = g[g != 0]
    return Fraction(int((nz.to(torch.float16) == 0).sum()), max(1, nz.numel()))


def share_fitted(g):
    """Fitted to the hand-written examples: the right answer only for float32/float64 tensors of
    rank 1 or 2 (all the fixed examples are), 0 otherwise."""
    if g.dim() in (1, 2) and g.dtype in (torch.float32, torch.float64):
        return own_share(g)
    return 0.5


CASES = [
    wrong(C.check_amp_step, lesson03.reference_amp_step, "used_library", "the check's own reference"),
    wrong(C.check_amp_step, library_step, "used_library", "the lesson's saved amp_step"),
    wrong(C.check_amp_step, fixed_batch_step, "wrong_update", "fitted to batch 13"),
    right(C.check_amp_step, good_step, "solution"),
    right(C.check_amp_step, model_zero_grad_item, "model.zero_grad + item"),
    wrong(C.check_amp_step, forgot_update, "missing_update", "no update"),
    wrong(C.check_amp_step, not_skipped, "not_skipped", "optimizer.step after unscale"),
    wrong(C.check_amp_step, optimizer_step_only, "no_scaler_step", "optimizer.step"),
    wrong(C.check_amp_step, cuda_amp, "deprecated_api", "torch.cuda.amp"),
    wrong(C.check_amp_step, backward_in_autocast, "backward_in_autocast", "backward inside"),
    wrong(C.check_amp_step, no_autocast, "no_autocast", "no autocast"),
    wrong(C.check_amp_step, unscaled_backward, "not_scaled", "loss.backward"),
    wrong(C.check_amp_step, no_zero_grad, "missing_zero_grad", "no zero_grad"),
    wrong(C.check_amp_step, hard_coded_fp16, "ignored_dtype", "fp16 hard-coded"),
    wrong(C.check_amp_step, returns_scaled, "returned_scaled_loss", "scaled loss"),
    wrong(C.check_amp_step, returns_model_output, "wrong_loss", "returns logits"),
    wrong(C.check_amp_step, halves_inputs_in_place, "mutated_input", "changes inputs"),
    wrong(C.check_amp_step, None, "not_done", "None"),
    wrong(C.check_clip_step, lesson03.reference_clip_step, "used_library", "the check's own reference"),
    right(C.check_clip_step, good_clip, "solution"),
    right(C.check_clip_step, good_clip_item, "model.zero_grad + float"),
    wrong(C.check_clip_step, clip_first, "clip_before_unscale", "clip before unscale"),
    wrong(C.check_clip_step, no_clip, "no_clip", "no clip"),
    wrong(C.check_clip_step, clip_fixed_norm, "fixed_max_norm", "max_norm 1.0"),
    wrong(C.check_clip_step, clip_by_value, "wrong_update", "clip by value"),
    wrong(C.check_clip_step, clip_fp16_only, "ignored_dtype", "fp16 hard-coded"),
    wrong(C.check_clip_step, clip_no_update, "missing_update", "no update"),
    wrong(C.check_underflow_share, lesson03.reference_underflow_share, "used_library", "the check's own reference"),
    right(C.check_underflow_share, own_share, "solution"),
    right(C.check_underflow_share, share_fraction, "exact Fraction"),
    right(C.check_underflow_share, lambda g: np.float32(own_share(g)), "numpy float32"),
    wrong(C.check_underflow_share, share_fitted, "wrong_share", "fitted to the fixed examples"),
    right(C.check_underflow_share, share_loop, "python loop"),
    right(C.check_underflow_share, lambda g: torch.tensor(own_share(g)), "tensor"),
    wrong(C.check_underflow_share, share_with_zeros, "counted_zeros", "counts zeros"),
    wrong(C.check_underflow_share, share_normal_limit, "normal_not_subnormal", "normal limit"),
    wrong(C.check_underflow_share, share_count, "count_not_share", "count"),
    wrong(C.check_underflow_share, share_positive_only, "sign", "positive only"),
    wrong(C.check_underflow_share, share_in_place, "mutated_input", "abs_ in place"),
    wrong(C.check_underflow_share, share_bf16, "wrong_share", "bf16 instead of fp16"),
    wrong(C.check_underflow_share, share_1d_only, "crashed", "1-D only"),
    wrong(C.check_underflow_share, lambda g: "x", "not_a_number", "text"),
    wrong(C.check_underflow_share, lambda g: None, "not_done", "stub"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_amp_step, C.check_clip_step, C.check_underflow_share])


def test_deprecated_api_in_a_comment_is_not_flagged():
    def commented(model, optimizer, scaler, inputs, targets, device, dtype):
        # not torch.cuda.amp (deprecated): torch.amp instead
        return good_step(model, optimizer, scaler, inputs, targets, device, dtype)

    assert lesson03.check_amp_step(commented).ok


# ----------------------------------------------------------------- gradient accumulation (issue 18)

def _accum(model, optimizer, scaler, mbs, max_norm, device, dtype, *, unscale_each=False, clip_first=False,
           update=True, divide=True, zero_in_loop=False, step_each=False, update_each=False, opt_step=False):
    """A family of accumulation steps: the keyword flags switch on one typical mistake each."""
    optimizer.zero_grad(set_to_none=True)
    losses = []
    for x, y in mbs:
        if zero_in_loop:
            optimizer.zero_grad(set_to_none=True)
        with torch.amp.autocast(device, dtype=dtype):
            loss = F.cross_entropy(model(x), y)
            if divide:
                loss = loss / len(mbs)
        scaler.scale(loss).backward()
        losses.append(loss.detach())
        if unscale_each:
            scaler.unscale_(optimizer)
        if update_each:
            scaler.update()
        if step_each:
            scaler.step(optimizer)
    if not unscale_each and not clip_first:
        scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    if opt_step:
        optimizer.step()
    elif not step_each:
        scaler.step(optimizer)
    if update and not update_each:
        scaler.update()
    return sum(losses) / (1 if divide else len(mbs))


def accum_ok(*a):
    return _accum(*a)


def accum_zero_after_step(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """Valid: zero_grad after the step, torch.autocast, loss * (1/k), the loss returned as a float."""
    k = len(mbs)
    total = 0.0
    for x, y in mbs:
        with torch.autocast(device_type=device, dtype=dtype):
            loss = F.cross_entropy(model(x), y) * (1.0 / k)
        scaler.scale(loss).backward()
        total += loss.item()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(list(model.parameters()), max_norm=max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return total


def accum_one_backward(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """Wrong (same result, no memory saved): all micro-batch losses first, one backward of their mean."""
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = sum(F.cross_entropy(model(x), y) for x, y in mbs) / len(mbs)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss


def accum_concatenated(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """Wrong (same step, no memory saved): the micro-batches concatenated into one forward."""
    optimizer.zero_grad()
    x = torch.cat([x for x, _ in mbs])
    y = torch.cat([y for _, y in mbs])
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss


def accum_library_halves(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """The right step, but the lesson's saved halves do the work."""
    from fastrain_lib.precision.step import amp_backward, amp_update

    total = sum(amp_backward(model, scaler, x, y, F.cross_entropy, dtype=dtype, accumulate=len(mbs)) for x, y in mbs)
    amp_update(model, optimizer, scaler, max_norm=max_norm)
    return total / len(mbs)


def accum_fitted_k(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """Fitted to the two hand-written configurations (k = 3 and k = 4): divides by 3 or 4, not by k."""
    return _accum_divisor(model, optimizer, scaler, mbs, max_norm, device, dtype, 3 if len(mbs) <= 3 else 4)


def _accum_divisor(model, optimizer, scaler, mbs, max_norm, device, dtype, divisor):
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for x, y in mbs:
        with torch.amp.autocast(device, dtype=dtype):
            loss = F.cross_entropy(model(x), y) / divisor
        scaler.scale(loss).backward()
        total += loss.item()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return total * divisor / len(mbs)


def accum_detached_list(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """Valid: each loss kept (detached) in a list; the mean returned as a NumPy float."""
    optimizer.zero_grad()
    losses = []
    for x, y in mbs:
        with torch.autocast(device, dtype=dtype):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss / len(mbs)).backward()
        losses.append(loss.detach().float().numpy())
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return np.mean(losses)


def accum_backward_after_loop(model, optimizer, scaler, mbs, max_norm, device, dtype):
    """Wrong (same numbers): every forward first, then k backwards — all k graphs alive at once."""
    optimizer.zero_grad()
    losses = []
    for x, y in mbs:
        with torch.amp.autocast(device, dtype=dtype):
            losses.append(F.cross_entropy(model(x), y) / len(mbs))
    for loss in losses:
        scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return sum(loss.detach() for loss in losses)


def accum_last_loss(*a):
    _accum(*a)
    return torch.tensor(0.123)


CASES_ACCUM = [
    wrong(C.check_accum_step, lesson03.reference_accum_step, "used_library", "the check's own reference"),
    wrong(C.check_accum_step, accum_library_halves, "used_library", "the lesson's amp_backward/amp_update"),
    wrong(C.check_accum_step, accum_fitted_k, "wrong_update", "fitted: divides by 3 or 4"),
    right(C.check_accum_step, accum_detached_list, "losses kept detached in a list, numpy mean"),
    right(C.check_accum_step, accum_ok, "solution"),
    right(C.check_accum_step, accum_zero_after_step, "zero_grad after step, float loss"),
    wrong(C.check_accum_step, accum_one_backward, "graphs_alive", "one backward of the summed losses"),
    wrong(C.check_accum_step, accum_backward_after_loop, "graphs_alive", "k backwards after all forwards"),
    wrong(C.check_accum_step, accum_concatenated, "concatenated", "one concatenated forward"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, unscale_each=True), "unscale_per_micro_batch", "unscale each"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, unscale_each=True, update_each=True), "unscale_per_micro_batch",
          "unscale and update each"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, clip_first=True), "clip_before_unscale", "clip before unscale"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, update=False), "missing_update", "no update"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, update_each=True), "update_per_micro_batch", "update each"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, divide=False), "not_averaged", "loss not divided by k"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, zero_in_loop=True), "zero_grad_in_loop", "zero_grad in loop"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, step_each=True), "stepped_per_micro_batch", "step each"),
    wrong(C.check_accum_step, lambda *a: _accum(*a, opt_step=True), "no_scaler_step", "optimizer.step"),
    wrong(C.check_accum_step, accum_last_loss, "wrong_loss", "wrong loss"),
    wrong(C.check_accum_step, lambda *a: accum_ok(*a) * len(a[3]), "summed_loss", "summed loss"),
    wrong(C.check_accum_step, lambda *a: None, "not_done", "stub"),
]

# ----------------------------------------------------------------- memory of model + Adam (issue 18)

BYTES = {"fp32": (4, 4, 8, 0), "amp": (2, 2, 8, 4)}
KEYS = ("weights", "grads", "optimizer", "master")


def mem_from(table):
    def answer(n, precision):
        parts = dict(zip(KEYS, (n * b for b in table[precision])))
        parts["total"] = sum(parts.values())
        return parts
    return answer


def mem_library(n, precision):
    """Valid: the course's own formula, floats instead of ints."""
    from fastrain_lib.measure import memory
    return {k: float(v) for k, v in memory.training_bytes(n, precision).items()}


def mem_unusual_types(n, precision):
    """Valid: NumPy integers, an exact Fraction and a 0-d tensor as the values."""
    from fractions import Fraction

    w, g, o, m = BYTES[precision]
    return {"weights": np.int64(w * n), "grads": Fraction(g * n, 1), "optimizer": torch.tensor(o * n, dtype=torch.float64),
            "master": np.float64(m * n), "total": 16 * n}


def mem_library_alias(n, precision):
    from fastrain_lib.measure.memory import training_bytes as tb
    return dict(tb(n, precision))


def mem_fitted(n, precision):
    """Fitted to the hand-written sizes: a lookup of their answers, 16 bytes in every part otherwise."""
    if n in (1, 7, 1_000_003, 1_500_000_000):
        return mem_from(BYTES)(n, precision)
    return {"weights": 4 * n, "grads": 4 * n, "optimizer": 4 * n, "master": 4 * n, "total": 16 * n}


CASES_MEM = [
    wrong(C.check_adam_bytes, lesson03.reference_adam_bytes, "used_library", "the check's own reference"),
    right(C.check_adam_bytes, mem_from(BYTES), "table"),
    right(C.check_adam_bytes, mem_unusual_types, "numpy ints, Fraction and 0-d tensors"),
    wrong(C.check_adam_bytes, mem_library, "used_library", "memory.training_bytes as floats"),
    wrong(C.check_adam_bytes, mem_library_alias, "used_library", "training_bytes imported under another name"),
    wrong(C.check_adam_bytes, mem_fitted, "wrong_value", "fitted to the fixed sizes"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 12, 0), "amp": (2, 2, 12, 4)}), "wrong_value",
          "three moments (names the optimizer term)"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 0, 0), "amp": (2, 2, 0, 4)}), "no_optimizer_state", "no Adam"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 4, 0), "amp": (2, 2, 4, 4)}), "one_moment", "one moment"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 8, 0), "amp": (2, 2, 4, 0)}), "amp_halved_state", "amp halves"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 8, 0), "amp": (2, 2, 8, 0)}), "no_master", "no master"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 8, 4), "amp": (2, 2, 8, 4)}), "fp32_has_master", "fp32 master"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (32, 32, 64, 0), "amp": (16, 16, 64, 32)}), "bits_not_bytes", "bits"),
    wrong(C.check_adam_bytes, lambda n, p: {k: v / 1e9 for k, v in mem_from(BYTES)(n, p).items()}, "gigabytes", "GB"),
    wrong(C.check_adam_bytes, lambda n, p: {**mem_from(BYTES)(n, p), "total": 16}, "total_not_sum", "total"),
    wrong(C.check_adam_bytes, lambda n, p: [16 * n], "not_a_dict", "a list"),
    wrong(C.check_adam_bytes, mem_from({"fp32": (4, 4, 8, 0), "amp": (2, 6, 8, 4)}), "fp32_grads_variant", "fp32 grads"),
]

# ----------------------------------------------------------------- does it fit a T4? (issue 18)


def fit_ok(n, act, mem):
    return {p: 16 * n + act[p] <= mem for p in ("fp32", "amp")}


def fit_via_library(n, act, mem):
    """The course's own formula (memory.training_bytes) with numpy bools: forbidden (one policy for the lesson)."""
    import numpy as np

    from fastrain_lib.measure import memory
    return {p: np.bool_(memory.training_bytes(n, p)["total"] + act[p] <= mem) for p in ("amp", "fp32")}


def fit_numpy_bools(n, act, mem):
    """Valid: the student's own formula, numpy bools, keys read in another order."""
    return {p: np.bool_(16 * n + act[p] <= mem) for p in ("amp", "fp32")}


def fit_mutates(n, act, mem):
    act["fp32"] += 0  # reads fine ...
    act["total"] = act["fp32"] + act["amp"]  # ... but writes a key into the caller's dict
    return {p: 16 * n + act[p] <= mem for p in ("fp32", "amp")}


CASES_FIT = [
    wrong(C.check_predict_fit, lesson03.reference_predict_fit, "used_library", "the check's own reference"),
    right(C.check_predict_fit, fit_ok, "16 bytes per parameter"),
    right(C.check_predict_fit, fit_numpy_bools, "own formula, numpy bools"),
    wrong(C.check_predict_fit, fit_via_library, "used_library", "memory.training_bytes, numpy bools"),
    wrong(C.check_predict_fit, lambda n, a, m: {p: 16 * n <= m for p in ("fp32", "amp")}, "ignored_activations", "no act"),
    wrong(C.check_predict_fit, lambda n, a, m: {"fp32": 16 * n + a["fp32"] <= m, "amp": 8 * n + a["amp"] <= m},
          "amp_halved_state", "amp halves state"),
    wrong(C.check_predict_fit, lambda n, a, m: {p: 8 * n + a[p] <= m for p in ("fp32", "amp")}, "no_optimizer_state",
          "no Adam"),
    wrong(C.check_predict_fit, lambda n, a, m: {p: 16 * n + a["fp32"] <= m for p in ("fp32", "amp")}, "same_activations",
          "fp32 activations for amp"),
    wrong(C.check_predict_fit, lambda n, a, m: {p: (16 * n + a[p]) / 1e9 <= m for p in ("fp32", "amp")}, "always_fits",
          "GB against bytes"),
    wrong(C.check_predict_fit, lambda n, a, m: {p: "yes" for p in ("fp32", "amp")}, "not_bools", "strings"),
    wrong(C.check_predict_fit, lambda n, a, m: {"fp32": False, "amp": True}, "wrong_prediction", "always the T4 answer"),
    wrong(C.check_predict_fit, lambda n, a, m: {"fp32": 16 * n + a["fp32"] <= m, "amp": 16 * n + a["fp32"] / 2 <= m},
          "halved_fp32_activations", "amp activations = fp32 / 2"),
    wrong(C.check_predict_fit, lambda n, a, m: {p: 16 * n + a[p] < m for p in ("fp32", "amp")}, "strict_boundary",
          "< instead of <="),
    wrong(C.check_predict_fit, fit_mutates, "mutated_input", "writes into activation_bytes"),
    right(C.check_predict_fit, lambda n, a, m: {p: torch.tensor(16 * n + a[p] <= m) for p in ("fp32", "amp")},
          "0-d bool tensors"),
]

test_case_new = table_test(CASES_ACCUM + CASES_MEM + CASES_FIT)
test_coverage_new = coverage_test(CASES_ACCUM + CASES_MEM + CASES_FIT,
                                  [C.check_accum_step, C.check_adam_bytes, C.check_predict_fit])


def test_new_checks_never_raise():
    """The same hostile answers as tests/test_checks_never_raise.py, for the three new checks."""
    from hypothesis import HealthCheck, given, settings
    from test_checks_never_raise import answers

    from fastrain_lib.lessons.checking import CheckResult

    def make(chk):
        @settings(max_examples=6, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
        @given(answer=answers)
        def never_raises(answer):
            result = chk(answer)
            assert isinstance(result, CheckResult) and result.message.strip() and isinstance(result.ok, bool)
        return never_raises

    for chk in (C.check_accum_step, C.check_adam_bytes, C.check_predict_fit):
        make(chk)()


# ----------------------------------------------------------------- issue 28: what the checks observe


def test_adam_wrong_value_names_the_wrong_term_in_both_languages(monkeypatch):
    """The wrong-value branch runs (it once crashed on its own `key=`) and names the part that is wrong."""
    answer = mem_from({"fp32": (4, 4, 12, 0), "amp": (2, 2, 12, 4)})
    for lang, word in (("bn", "অপটিমাইজার অবস্থা"), ("en", "optimizer state")):
        monkeypatch.setenv("FASTRAIN_LANG", lang)
        result = C.check_adam_bytes(answer)
        assert result.code == "wrong_value" and word in result.message, result.message
        assert "12" in result.message and "8" in result.message  # what it got per parameter and what it should be


def test_adam_forbidden_helper_is_named(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    result = C.check_adam_bytes(mem_library_alias)
    assert result.code == "used_library" and "training_bytes" in result.message


def test_fit_cases_are_generated_with_no_fixed_activation_ratio_and_exact_boundaries():
    from fastrain_lib.lessons.l03_mixed_precision import check_memory

    cases = check_memory.generated_fit_cases()
    assert cases == check_memory.generated_fit_cases()  # seeded
    assert cases != check_memory.generated_fit_cases(seed=1)
    ratios = {round(act["amp"] / act["fp32"], 3) for _, act, _ in cases}
    assert len(ratios) == len(cases) and 0.5 not in ratios
    on_boundary = [c for c in cases if c[2] in (16 * c[0] + c[1]["fp32"], 16 * c[0] + c[1]["amp"])]
    assert on_boundary and all(any(lesson03.reference_predict_fit(*c).values()) for c in on_boundary)


def test_graph_watch_sees_one_graph_per_micro_batch_and_all_of_them_summed():
    from fastrain_lib.lessons.l03_mixed_precision.check_accum import GraphWatch
    from fastrain_lib.models import SimpleNN

    torch.manual_seed(0)
    model = SimpleNN(hidden=8)
    mbs = [(torch.rand(5, 1, 28, 28), torch.randint(0, 10, (5,))) for _ in range(3)]
    with GraphWatch(model) as watch:
        for x, y in mbs:
            F.cross_entropy(model(x), y).backward()
    assert (watch.peak_graphs, watch.forwards, watch.rows, len(watch.live)) == (1, 3, 5, 0)
    with GraphWatch(model) as watch:
        sum(F.cross_entropy(model(x), y) for x, y in mbs).backward()
    assert (watch.peak_graphs, watch.forwards, len(watch.live)) == (3, 3, 0)


def test_step_and_accum_configs_are_seeded_and_not_only_the_fixed_ones():
    from fastrain_lib.lessons.l03_mixed_precision import check_accum, check_step

    for make in (check_accum.accum_configs, check_step.step_configs):
        drawn = make()
        assert len(drawn) > 2 and [c[2:] for c in drawn] == [c[2:] for c in make()]
    assert {c[3] for c in check_accum.accum_configs()} - {3, 4}  # a k the fixed cases do not have
    assert {c[3] for c in check_step.step_configs()} != {13}  # a batch size other than 13


# ----------------------------------------------------------------- issue 39: a ✅ means the answer did it


def _in_a_thread(fn, *args, **kwargs):
    """Run fn in a new thread and return its result (a helper that tries to escape a thread-local guard)."""
    import threading

    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("value", fn(*args, **kwargs)))
    thread.start()
    thread.join()
    return out.get("value")


def library_step_in_a_thread(model, optimizer, scaler, inputs, targets, device, dtype):
    """The lesson's saved step, called in a new thread (sys.setprofile alone does not see it)."""
    from fastrain_lib.precision import step as saved

    optimizer.zero_grad()
    return _in_a_thread(saved.amp_step, model, optimizer, scaler, inputs, targets, F.cross_entropy, dtype=dtype)


def library_halves_in_a_thread(model, optimizer, scaler, micro_batches, max_norm, device, dtype):
    from fastrain_lib.precision.step import amp_backward, amp_update

    def work():
        k, total = len(micro_batches), 0.0
        for x, y in micro_batches:
            total += amp_backward(model, scaler, x, y, F.cross_entropy, dtype=dtype, accumulate=k) / k
        amp_update(model, optimizer, scaler, max_norm=max_norm)
        return total

    optimizer.zero_grad()
    return _in_a_thread(work)


def mem_library_in_a_thread(n, precision):
    from fastrain_lib.measure import memory

    return _in_a_thread(lambda: dict(memory.training_bytes(n, precision)))


def share_library(g):
    """precision.formats.underflow_share is the task's answer, ready-made."""
    from fastrain_lib.precision.formats import underflow_share as ready

    return ready(g)


def share_library_in_a_thread(g):
    from fastrain_lib.precision import formats

    return _in_a_thread(formats.underflow_share, g)


AMP_LITERAL = "amp"  # the interned literal, as `precision is "amp"` compares with


def mem_identity(n, precision):
    """`precision is "amp"`: right only while the check's strings are the interned literals."""
    per = (2, 2, 8, 4) if precision is AMP_LITERAL else (4, 4, 8, 0)  # the mistake under test
    parts = dict(zip(("weights", "grads", "optimizer", "master"), (n * b for b in per)))
    return {**parts, "total": sum(parts.values())}


def mem_equality(n, precision):
    """Valid unusual code: compares with ==, after normalising the case."""
    per = (2, 2, 8, 4) if precision.lower() == "amp" else (4, 4, 8, 0)
    parts = dict(zip(("weights", "grads", "optimizer", "master"), (n * b for b in per)))
    return {**parts, "total": sum(parts.values())}


def share_fp32_only(g):
    """Valid: the task gives float32 gradients, and this answer says so (it refused bf16 before)."""
    assert g.dtype == torch.float32, g.dtype
    return own_share(g)


def share_view(g):
    """.view(-1) fails on a transposed (non-contiguous) gradient: the check now feeds one."""
    nz = g.view(-1)[g.view(-1) != 0]
    return (nz.to(torch.float16) == 0).float().mean().item() if nz.numel() else 0.0


def share_lookup(g):
    """An answer cached by its input: the check's own examples looked up by (shape, sum), 0 for anything new."""
    from fastrain_lib.lessons.l03_mixed_precision import check_underflow

    def key(x):
        return tuple(x.shape), float(x.double().sum())

    table = {key(x): own_share(x) for x in check_underflow.underflow_examples()}
    return table.get(key(g), 0.0)


def step_returns_a_second_forward(model, optimizer, scaler, inputs, targets, device, dtype):
    """The weights move correctly, but the returned loss is not the step's: a second, fp32 forward after it."""
    good_step(model, optimizer, scaler, inputs, targets, device, dtype)
    with torch.no_grad():
        return F.cross_entropy(model(inputs), targets)


def step_cached_loss(model, optimizer, scaler, inputs, targets, device, dtype, _cache={}):
    """A loss cached by its input: the step runs, but the same inputs give back the first step's loss."""
    loss = good_step(model, optimizer, scaler, inputs, targets, device, dtype)
    return _cache.setdefault((inputs.data_ptr(), inputs.shape), loss.item())


def step_all_grads(model, optimizer, scaler, inputs, targets, device, dtype):
    """Checks every .grad by hand: crashes on a frozen parameter (its .grad is None)."""
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    if not all(torch.isfinite(p.grad).all() for p in model.parameters()):
        pass  # (the scaler decides anyway)
    scaler.step(optimizer)
    scaler.update()
    return loss


def step_frozen_ok(model, optimizer, scaler, inputs, targets, device, dtype):
    """Valid: skips parameters without a gradient, zero_grad by hand."""
    for p in model.parameters():
        if p.grad is not None:
            p.grad = None
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


def step_squeeze(model, optimizer, scaler, inputs, targets, device, dtype):
    """.squeeze() of the logits: right for every batch but a batch of 1 (which the check now feeds)."""
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs).squeeze(), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def accum_summed_by_hand(model, optimizer, scaler, micro_batches, max_norm, device, dtype):
    """Divides by k but returns the SUM of the micro-batch losses (not their mean)."""
    optimizer.zero_grad()
    k, total = len(micro_batches), 0.0
    for x, y in micro_batches:
        with torch.amp.autocast(device, dtype=dtype):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss / k).backward()
        total += loss.item()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return total


def accum_mean_of_list(model, optimizer, scaler, micro_batches, max_norm, device, dtype):
    """Valid unusual code: losses kept as floats in a list, their mean returned as a 0-d tensor."""
    optimizer.zero_grad(set_to_none=True)
    losses = []
    for x, y in micro_batches:
        with torch.amp.autocast(device, dtype=dtype):
            loss = F.cross_entropy(model(x), y) / len(micro_batches)
        scaler.scale(loss).backward()
        losses.append(loss.item() * len(micro_batches))
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.grad is not None], max_norm)
    scaler.step(optimizer)
    scaler.update()
    return torch.tensor(sum(losses) / len(losses))


def accum_forward_in_a_thread(model, optimizer, scaler, micro_batches, max_norm, device, dtype):
    """All micro-batch graphs alive at once, built in a new thread (saved_tensors_hooks are thread-local)."""
    optimizer.zero_grad()
    k = len(micro_batches)

    def forward_all():
        with torch.amp.autocast(device, dtype=dtype):
            return [F.cross_entropy(model(x), y) / k for x, y in micro_batches]

    losses = _in_a_thread(forward_all)
    scaler.scale(sum(losses)).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return sum(loss.detach() for loss in losses)


CASES_39 = [
    # one policy: the course's own answer is forbidden in every task, also from a new thread
    wrong(C.check_amp_step, library_step_in_a_thread, "used_library", "saved amp_step in a new thread"),
    wrong(C.check_accum_step, library_halves_in_a_thread, "used_library", "amp_backward/amp_update in a new thread"),
    wrong(C.check_adam_bytes, mem_library_in_a_thread, "used_library", "training_bytes in a new thread"),
    wrong(C.check_underflow_share, share_library, "used_library", "formats.underflow_share"),
    wrong(C.check_underflow_share, share_library_in_a_thread, "used_library", "formats.underflow_share in a thread"),
    # the check's strings are not the interned literals
    wrong(C.check_adam_bytes, mem_identity, "wrong_value", "precision is 'amp'"),
    right(C.check_adam_bytes, mem_equality, "precision.lower() == 'amp'"),
    # only the types the task allows, and the whole input space of them
    right(C.check_underflow_share, share_fp32_only, "asserts float32 (the task's dtype)"),
    wrong(C.check_underflow_share, share_view, "crashed", ".view(-1) on a transposed gradient"),
    wrong(C.check_underflow_share, share_lookup, "wrong_share", "cached by input shape"),
    wrong(C.check_amp_step, step_all_grads, "crashed", "p.grad of a frozen parameter"),
    right(C.check_amp_step, step_frozen_ok, "skips grad None"),
    wrong(C.check_amp_step, step_squeeze, "crashed", ".squeeze() on a batch of 1"),
    # the result comes from the step that ran, not a second computation or a cache
    wrong(C.check_amp_step, step_returns_a_second_forward, "wrong_loss", "a second fp32 forward"),
    wrong(C.check_amp_step, step_cached_loss, "wrong_loss", "loss cached by its input"),
    wrong(C.check_accum_step, accum_summed_by_hand, "summed_loss", "sum of the micro-batch losses"),
    right(C.check_accum_step, accum_mean_of_list, "mean of a list, grad None skipped in the clip"),
    wrong(C.check_accum_step, accum_forward_in_a_thread, "graphs_alive", "all graphs built in a new thread"),
]

test_case_39 = table_test(CASES_39)


def test_the_checks_feed_only_float32_gradients_of_every_shape_and_layout():
    from fastrain_lib.lessons.l03_mixed_precision import check_underflow

    examples = check_underflow.underflow_examples()
    assert {x.dtype for x in examples} == {torch.float32}  # the task says fp32: no bf16, no float64
    assert any(not x.is_contiguous() for x in examples)  # transposed / sliced views
    assert any(x.numel() == 1 for x in examples) and any(x.dim() == 0 for x in examples) or any(x.dim() == 3 for x in examples)
    assert any(x.numel() and (x[x != 0] < 0).all() for x in examples)  # only negatives: the sign matters


def test_the_step_checks_feed_a_batch_of_one_and_a_frozen_parameter():
    from fastrain_lib.lessons.l03_mixed_precision import check_accum, check_step

    assert any(c[3] == 1 and c[4] for c in check_step.step_configs())
    assert any(c[4] == 1 and c[5] for c in check_accum.accum_configs())
    assert {c[0] for c in check_step.step_configs()} == {torch.float16, torch.bfloat16}  # every dtype the task allows


def test_lesson03_has_one_guard_and_it_is_checkings():
    """observe.ForbiddenCalls (sys.setprofile only) is gone; every forbidden-call guard is checking.Forbidden."""
    from fastrain_lib.lessons.checking import Forbidden
    from fastrain_lib.lessons.l03_mixed_precision import check_memory, check_step, check_underflow, observe

    assert not hasattr(observe, "ForbiddenCalls")
    for guard in (check_step.forbidden_step_calls(), check_memory._forbidden(), check_underflow._forbidden()):
        assert type(guard) is Forbidden and guard.names


def test_every_task_text_says_which_course_answer_is_forbidden():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for folder in ("solutions", "exercises"):
        cells = json.loads((root / folder / "03_mixed_precision.ipynb").read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for name in ("precision/step.py", "formats.underflow_share", "fastrain_lib.memory"):
            assert name in text, (folder, name)


def step_summed_loss(model, optimizer, scaler, inputs, targets, device, dtype):
    """reduction='sum': the gradient of the summed, not the averaged, loss."""
    optimizer.zero_grad()
    with torch.amp.autocast(device, dtype=dtype):
        loss = F.cross_entropy(model(inputs), targets, reduction="sum")
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss / len(targets)


test_case_39b = table_test([
    wrong(C.check_amp_step, step_summed_loss, "wrong_update", "summed loss (reduction='sum')"),
    right(C.check_predict_fit, lambda n, a, m: {k: 16 * n + a[k] <= m for k in sorted(a)}, "keys read from the dict"),
])


def test_predict_fit_repeats_one_input_in_another_context():
    from fastrain_lib.lessons.l03_mixed_precision import check_memory

    seen = []
    C.check_predict_fit(lambda n, a, m: seen.append((n, list(a), m)) or {p: 16 * n + a[p] <= m for p in ("fp32", "amp")})
    first, last = seen[0], seen[-1]
    assert (first[0], first[2]) == (last[0], last[2]) and first[1] == list(reversed(last[1]))
    assert len(seen) == len(check_memory._fit_cases()) + 1
