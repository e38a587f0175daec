"""Lesson 02's checks pass the reference solutions and reject typical wrong answers."""

import torch
from checkcases import coverage_test, right, table_test, wrong

from fastrain_lib.checks import lesson02
from fastrain_lib.checks import lesson02 as C

# ------------------------------------------------------------------ to_device


def to_device(batch, device):
    """The reference solution (the same as in solutions/02_to_device.ipynb)."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device) for value in batch)
    return batch


def to_device_list_for_tuple(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device_list_for_tuple(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [to_device_list_for_tuple(v, device) for v in batch]  # a tuple comes back as a list
    return batch


def to_device_forgets_dicts(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device_forgets_dicts(v, device) for v in batch)
    return batch  # a dict is returned untouched


def to_device_top_level(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(v.to(device) if isinstance(v, torch.Tensor) else v for v in batch)
    return batch


def to_device_in_place(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for key in batch:
            batch[key] = to_device_in_place(batch[key], device)
        return batch
    if isinstance(batch, list):
        for i, value in enumerate(batch):
            batch[i] = to_device_in_place(value, device)
        return batch
    if isinstance(batch, tuple):
        return tuple(to_device_in_place(v, device) for v in batch)
    return batch


def to_device_drops_strings(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device_drops_strings(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device_drops_strings(v, device) for v in batch)
    return None


def test_top_level_only_on_a_tuple_is_nested_not_moved():
    code = lesson02._compare(to_device_top_level(([torch.ones(1)],), "meta"), ([torch.ones(1)],),
                             torch.device("meta"), 0)
    assert code == "nested_not_moved"


# ------------------------------------------------------------------ the training loop


def train_epoch(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_forgets_targets(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for inputs, targets in loader:
        inputs = inputs.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_forgets_model(model, loader, optimizer, criterion, device):
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_discards_to(model, loader, optimizer, criterion, device):
    model.to(device)
    losses = []
    for inputs, targets in loader:
        inputs.to(device)  # the result is thrown away: inputs stay where they were
        targets = targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_no_zero_grad(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_no_backward(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        optimizer.step()
        losses.append(loss.detach())
    return losses


def test_a_real_device_error_is_explained():
    # The targets mistake really raises the device-mismatch RuntimeError on the meta device.
    from fastrain_lib import errors

    model, criterion = lesson02._SpyModel(), lesson02._SpyLoss()
    try:
        train_forgets_targets(model, lesson02._tiny_loader(), torch.optim.SGD(model.parameters(), 0.1),
                              criterion, torch.device("meta"))
    except RuntimeError as exc:
        assert errors.classify(exc) == "device"
    else:
        raise AssertionError("expected a device-mismatch error")


# ------------------------------------------------------------------ throughput


def test_messages_are_bengali_by_default(monkeypatch):
    monkeypatch.delenv("FASTRAIN_LANG", raising=False)
    message = lesson02.check_train_epoch(train_forgets_targets).message
    assert "targets" in message and "ডিভাইস" in message


# ------------------------------------------------------------------ more answers a student could write


def to_device_hard_coded(batch, device):
    """Moves everything to 'meta' whatever device it is asked for."""
    return to_device(batch, "meta")


def to_device_dict_comprehension_only(batch, device):
    """Valid too: one function for tensors, a walk with isinstance checks written differently."""
    if torch.is_tensor(batch):
        return batch.to(device=device)
    if isinstance(batch, tuple):
        return tuple(to_device_dict_comprehension_only(v, device) for v in batch)
    if isinstance(batch, list):
        return [to_device_dict_comprehension_only(v, device) for v in batch]
    if isinstance(batch, dict):
        return dict((k, to_device_dict_comprehension_only(v, device)) for k, v in batch.items())  # noqa: C402
    return batch


def to_device_float(batch, device):
    """Converts every tensor to float32 while moving it (labels and masks change dtype)."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, torch.float32)
    if isinstance(batch, dict):
        return {k: to_device_float(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device_float(v, device) for v in batch)
    return batch


def train_model_zero_grad_items(model, loader, optimizer, criterion, device):
    """Valid: model.zero_grad() instead of optimizer.zero_grad(), losses as floats."""
    model.to(device)
    losses = []
    for x, y in loader:
        model.zero_grad(set_to_none=False)
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        losses.append(loss.item() if loss.device.type != "meta" else loss)
    return losses


def train_own_loss(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)  # ignores `criterion`
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_last_loss_only(model, loader, optimizer, criterion, device):
    losses = train_epoch(model, loader, optimizer, criterion, device)
    return [losses[-1]] * len(losses)  # the right length, the wrong values


def train_normalises_in_place(model, loader, optimizer, criterion, device):
    for x, _ in loader:
        x.sub_(0.5)  # changes the caller's data
    return train_epoch(model, loader, optimizer, criterion, device)


def train_steps_twice(model, loader, optimizer, criterion, device):
    model = model.to(device)
    losses = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def train_hard_coded_cpu(model, loader, optimizer, criterion, device):
    return train_epoch(model, loader, optimizer, criterion, "cpu")


CASES = [
    right(C.check_to_device, to_device, "solution"),
    right(C.check_to_device, to_device_dict_comprehension_only, "isinstance walk"),
    wrong(C.check_to_device, to_device_list_for_tuple, "container_type", "tuple becomes list"),
    wrong(C.check_to_device, to_device_forgets_dicts, "dict_values", "skips dicts"),
    wrong(C.check_to_device, to_device_top_level, "dict_values", "top level only"),
    wrong(C.check_to_device, to_device_in_place, "mutated_input", "mutates the batch"),
    wrong(C.check_to_device, to_device_drops_strings, "non_tensor_changed", "drops strings"),
    wrong(C.check_to_device, to_device_hard_coded, "not_moved", "hard-coded meta"),
    wrong(C.check_to_device, to_device_float, "tensor_changed", "converts dtype"),
    wrong(C.check_to_device, lambda batch, device: batch, "not_moved", "returns batch"),
    wrong(C.check_to_device, lambda b, d: 1 / 0, "crashed", "raises"),
    wrong(C.check_to_device, None, "not_done", "None"),
    right(C.check_train_epoch, train_epoch, "solution"),
    right(C.check_train_epoch, train_model_zero_grad_items, "model.zero_grad + item"),
    wrong(C.check_train_epoch, train_forgets_targets, "targets_not_moved", "targets stay"),
    wrong(C.check_train_epoch, train_forgets_model, "model_not_moved", "model stays"),
    wrong(C.check_train_epoch, train_discards_to, "inputs_not_moved", "to() discarded"),
    wrong(C.check_train_epoch, train_hard_coded_cpu, "model_not_moved", "hard-coded cpu"),
    wrong(C.check_train_epoch, train_no_zero_grad, "no_zero_grad", "no zero_grad"),
    wrong(C.check_train_epoch, train_no_backward, "no_backward", "no backward"),
    wrong(C.check_train_epoch, train_own_loss, "criterion_ignored", "own loss"),
    wrong(C.check_train_epoch, train_steps_twice, "no_step", "steps twice"),
    wrong(C.check_train_epoch, train_last_loss_only, "wrong_loss_values", "same loss repeated"),
    wrong(C.check_train_epoch, train_normalises_in_place, "mutated_input", "changes loader"),
    wrong(C.check_train_epoch, lambda *a: train_epoch(*a)[-1].item(), "wrong_losses", "a float"),
    wrong(C.check_train_epoch, None, "not_done", "None"),
    right(C.check_throughput, lambda batch_size, steps, seconds: batch_size * steps / seconds, "formula"),
    right(C.check_throughput, lambda b, s, t: torch.tensor(b * s / t, dtype=torch.float64), "tensor"),
    wrong(C.check_throughput, lambda batch_size, steps, seconds: steps / seconds, "forgot_batch", "steps/s"),
    wrong(C.check_throughput, lambda b, s, t: t / (b * s), "inverted", "inverted"),
    wrong(C.check_throughput, lambda b, s, t: b / t, "wrong_value", "no steps"),
    wrong(C.check_throughput, lambda b, s, t: b * s // t, "integer_division", "//"),
    wrong(C.check_throughput, lambda b, s, t: 64 * s / t, "wrong_value", "hard-coded batch"),
    wrong(C.check_throughput, lambda b, s, t: "fast", "not_number", "text"),
    right(C.check_batch_answer, "b", "b"),
    right(C.check_batch_answer, " B ", "B with spaces"),
    right(C.check_batch_answer, "(b)", "(b)"),
    wrong(C.check_batch_answer, "a", "wrong_a", "a"),
    wrong(C.check_batch_answer, "c", "wrong_c", "c"),
    wrong(C.check_batch_answer, "d", "wrong_d", "d"),
    wrong(C.check_batch_answer, "z", "not_a_choice", "z"),
    wrong(C.check_batch_answer, 2, "not_a_choice", "a number"),
    wrong(C.check_batch_answer, ["b"], "not_a_choice", "a list"),
    wrong(C.check_batch_answer, None, "not_done", "None"),
]

test_case = table_test(CASES)
test_coverage = coverage_test(CASES, [C.check_to_device, C.check_train_epoch, C.check_throughput,
                                      C.check_batch_answer])
