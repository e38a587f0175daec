"""Lesson 02's checks pass the reference solutions and reject typical wrong answers."""

import torch

from fastrain_lib.checks import lesson02

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


def test_to_device_solution_passes():
    result = lesson02.check_to_device(to_device)
    assert result.ok, result.message


def test_to_device_wrong_answers():
    assert lesson02.check_to_device(to_device_list_for_tuple).code == "container_type"
    assert lesson02.check_to_device(to_device_forgets_dicts).code == "dict_values"
    assert lesson02.check_to_device(to_device_top_level).code == "dict_values"
    assert lesson02.check_to_device(to_device_in_place).code == "mutated_input"
    assert lesson02.check_to_device(to_device_drops_strings).code == "non_tensor_changed"
    assert lesson02.check_to_device(lambda batch, device: batch).code == "not_moved"
    assert lesson02.check_to_device(None).code == "not_done"
    assert lesson02.check_to_device(lambda b, d: 1 / 0).code == "crashed"


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


def test_train_epoch_solution_passes():
    result = lesson02.check_train_epoch(train_epoch)
    assert result.ok, result.message


def test_train_epoch_wrong_answers():
    assert lesson02.check_train_epoch(train_forgets_targets).code == "targets_not_moved"
    assert lesson02.check_train_epoch(train_forgets_model).code == "model_not_moved"
    assert lesson02.check_train_epoch(train_discards_to).code == "inputs_not_moved"
    assert lesson02.check_train_epoch(train_no_zero_grad).code == "no_zero_grad"
    assert lesson02.check_train_epoch(train_no_backward).code == "no_backward"
    assert lesson02.check_train_epoch(lambda *a: train_epoch(*a)[-1].item()).code == "wrong_losses"
    assert lesson02.check_train_epoch(None).code == "not_done"


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


def test_throughput():
    assert lesson02.check_throughput(lambda batch_size, steps, seconds: batch_size * steps / seconds).ok
    assert lesson02.check_throughput(lambda batch_size, steps, seconds: steps / seconds).code == "forgot_batch"
    assert lesson02.check_throughput(lambda batch_size, steps, seconds: seconds / (batch_size * steps)).code == "inverted"
    assert lesson02.check_throughput(lambda batch_size, steps, seconds: batch_size / seconds).code == "wrong_value"
    assert lesson02.check_throughput(lambda b, s, t: "fast").code == "not_number"


def test_batch_answer():
    assert lesson02.check_batch_answer("b").ok
    assert lesson02.check_batch_answer(" B ").ok
    assert lesson02.check_batch_answer("a").code == "wrong_a"
    assert lesson02.check_batch_answer("d").code == "wrong_d"
    assert lesson02.check_batch_answer("z").code == "not_a_choice"
    assert lesson02.check_batch_answer(None).code == "not_done"


def test_messages_are_bengali_by_default(monkeypatch):
    monkeypatch.delenv("FASTRAIN_LANG", raising=False)
    message = lesson02.check_train_epoch(train_forgets_targets).message
    assert "targets" in message and "ডিভাইস" in message
