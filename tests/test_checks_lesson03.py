"""Lesson 03 checks: the reference solutions pass, typical wrong answers fail with the right code."""

import torch
from torch.nn import functional as F

from fastrain_lib.checks import lesson03


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


def test_amp_step_reference_passes():
    assert lesson03.check_amp_step(lesson03.reference_amp_step).code == "ok"
    assert lesson03.check_amp_step(good_step).code == "ok"


def test_amp_step_wrong_answers():
    assert lesson03.check_amp_step(forgot_update).code == "missing_update"
    assert lesson03.check_amp_step(not_skipped).code == "not_skipped"
    assert lesson03.check_amp_step(optimizer_step_only).code == "no_scaler_step"
    assert lesson03.check_amp_step(cuda_amp).code == "deprecated_api"
    assert lesson03.check_amp_step(backward_in_autocast).code == "backward_in_autocast"
    assert lesson03.check_amp_step(no_autocast).code == "no_autocast"
    assert lesson03.check_amp_step(unscaled_backward).code == "not_scaled"
    assert lesson03.check_amp_step(no_zero_grad).code == "missing_zero_grad"


def test_unfinished_answers_do_not_raise():
    assert lesson03.check_amp_step(None).code == "not_done"
    assert lesson03.check_amp_step(lambda *a: None).code == "not_done"

    def broken(*args):
        raise ZeroDivisionError("oops")

    result = lesson03.check_amp_step(broken)
    assert result.code == "crashed" and not result
    assert lesson03.check_underflow_share(lambda g: None).code == "not_done"


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


def test_clip_step():
    assert lesson03.check_clip_step(lesson03.reference_clip_step).code == "ok"
    assert lesson03.check_clip_step(good_clip).code == "ok"
    assert lesson03.check_clip_step(clip_first).code == "clip_before_unscale"
    assert lesson03.check_clip_step(no_clip).code == "no_clip"


def test_underflow_share():
    assert lesson03.check_underflow_share(lesson03.reference_underflow_share).code == "ok"

    def with_zeros(g):
        return (g.to(torch.float16) == 0).float().mean().item()

    def normal_limit(g):
        nz = g[g != 0]
        return (nz.abs() < torch.finfo(torch.float16).tiny).float().mean().item()

    def count(g):
        nz = g[g != 0]
        return int((nz.to(torch.float16) == 0).sum())

    def positive_only(g):
        nz = g[g != 0]
        return ((nz > 0) & (nz.to(torch.float16) == 0)).float().mean().item()

    assert lesson03.check_underflow_share(with_zeros).code == "counted_zeros"
    assert lesson03.check_underflow_share(normal_limit).code == "normal_not_subnormal"
    assert lesson03.check_underflow_share(count).code == "count_not_share"
    assert lesson03.check_underflow_share(positive_only).code == "sign"
    assert lesson03.check_underflow_share(lambda g: "x").code == "not_a_number"
