"""fastrain_lib.checkpoint and train(resume=True): atomic saves, a killed run that resumes with
exactly the same loss curve, corrupt/truncated files skipped, weights_only loading."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from fastrain_lib import checkpoint, train
from fastrain_lib.models import SimpleNN

REPO = Path(__file__).resolve().parent.parent

# One training run in a fresh process: tiny model, fixed data, one thread (bit-for-bit repeatable).
SCRIPT = textwrap.dedent("""
    import json, sys, time
    import torch
    torch.set_num_threads(1)
    from fastrain_lib import train
    from fastrain_lib.models import SimpleNN

    folder, out, resume, slow = sys.argv[1], sys.argv[2], sys.argv[3] == "1", float(sys.argv[4])
    g = torch.Generator().manual_seed(0)
    x = torch.rand(96, 1, 28, 28, generator=g)
    y = torch.randint(0, 10, (96,), generator=g)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 16), torch.nn.ReLU(),
                                torch.nn.Dropout(0.3), torch.nn.Linear(16, 10))  # dropout: RNG must resume too
    h = train.train(model, train.TensorBatches(x, y, 16, seed=5), steps=20, precision="fp16",
                    progress=False, checkpoint_dir=folder if folder != "-" else None,
                    checkpoint_every=3, resume=resume, on_step=lambda s, h: time.sleep(slow))
    with open(out, "w") as f:
        json.dump({"losses": h.losses, "scales": h.scales, "resumed_from": h.resumed_from}, f)
""")


def _python(tmp_path, *args):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(REPO), FASTRAIN_MODE="ci")
    return [sys.executable, str(script), *map(str, args)], env


def test_killed_run_resumes_with_the_same_loss_curve(tmp_path):
    folder = tmp_path / "ckpt"
    cmd_full, env = _python(tmp_path, "-", tmp_path / "full.json", 0, 0)
    cmd_slow, _ = _python(tmp_path, folder, tmp_path / "killed.json", 0, 0.15)
    full = subprocess.Popen(cmd_full, env=env)  # the uninterrupted run, alongside
    victim = subprocess.Popen(cmd_slow, env=env)
    try:
        deadline = time.time() + 120
        while len(checkpoint.list_checkpoints(folder)) < 2 and time.time() < deadline:
            assert victim.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)  # like a Colab disconnect: no cleanup at all
        victim.wait(timeout=30)
        assert full.wait(timeout=120) == 0
    finally:
        for proc in (full, victim):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert not (tmp_path / "killed.json").exists()
    done_before = int(checkpoint.PATTERN.match(checkpoint.list_checkpoints(folder)[0].name).group(1))
    assert 3 <= done_before < 20

    cmd_resume, _ = _python(tmp_path, folder, tmp_path / "resumed.json", 1, 0)
    subprocess.run(cmd_resume, env=env, check=True, timeout=120)
    expected = json.loads((tmp_path / "full.json").read_text())
    resumed = json.loads((tmp_path / "resumed.json").read_text())
    assert resumed["resumed_from"] == done_before
    assert resumed["losses"] == expected["losses"]  # exactly, float for float
    assert resumed["scales"] == expected["scales"]
    assert not list(folder.glob("*.tmp*"))  # no temporary files left behind


def _small_run(folder, steps, resume=False, every=2):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(64, 1, 28, 28, generator=g), torch.randint(0, 10, (64,), generator=g)
    return train.train(SimpleNN(hidden=8), train.TensorBatches(x, y, 8), steps=steps, progress=False,
                       checkpoint_dir=folder, checkpoint_every=every, resume=resume)


def test_truncated_checkpoint_falls_back_with_a_bengali_warning(tmp_path):
    _small_run(tmp_path, 6)
    newest = checkpoint.list_checkpoints(tmp_path)[0]
    assert newest.name == "ckpt-00000006.pt"
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])  # cut in half
    with pytest.warns(RuntimeWarning, match="ckpt-00000006.pt") as caught:
        state = checkpoint.load_latest(tmp_path)
    assert state["step"] == 4
    assert any("\u0980" <= c <= "\u09ff" for c in str(caught[0].message))


def test_corrupt_bytes_detected_by_hash(tmp_path):
    _small_run(tmp_path, 4)
    newest = checkpoint.list_checkpoints(tmp_path)[0]
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside the tensor data: torch.load may not notice
    newest.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        checkpoint.load(newest)
    with pytest.warns(RuntimeWarning):
        h = _small_run(tmp_path, 6, resume=True)
    assert h.resumed_from == 2


def test_unreadable_everything_means_a_fresh_start(tmp_path):
    (tmp_path / "ckpt-00000009.pt").write_bytes(b"not a checkpoint")
    with pytest.warns(RuntimeWarning):
        assert checkpoint.load_latest(tmp_path) is None
    assert checkpoint.load_latest(tmp_path / "missing") is None


def test_checkpoints_load_with_weights_only_into_fresh_objects(tmp_path):
    """weights_only=True must give back everything needed: fresh model, optimizer and scaler
    loaded from it equal the trained ones, and the next step from both is the same."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(64, 1, 28, 28, generator=g), torch.randint(0, 10, (64,), generator=g)
    model = SimpleNN(hidden=8)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    train.train(model, train.TensorBatches(x, y, 8), steps=3, optimizer=opt, progress=False,
                checkpoint_dir=tmp_path, checkpoint_every=3)
    path = checkpoint.list_checkpoints(tmp_path)[0]
    state = torch.load(path, weights_only=True)  # would raise on any pickled Python object
    assert {"model", "optimizer", "scaler", "rng", "history", "step", "epoch", "batch_in_epoch"} <= set(state)
    assert state["step"] == 3 and isinstance(state["rng"]["torch"], torch.Tensor)

    torch.manual_seed(123)  # different initial weights: the load must overwrite all of them
    fresh = SimpleNN(hidden=8)
    fresh_opt = torch.optim.AdamW(fresh.parameters(), lr=1e-2)
    fresh.load_state_dict(state["model"])
    fresh_opt.load_state_dict(state["optimizer"])
    for a, b in zip(model.parameters(), fresh.parameters()):
        assert torch.equal(a, b)
    for pa, pb in zip(model.parameters(), fresh.parameters()):
        sa, sb = opt.state[pa], fresh_opt.state[pb]
        assert set(sa) == set(sb) == {"step", "exp_avg", "exp_avg_sq"}
        assert all(torch.equal(sa[k], sb[k]) for k in sa)

    def one_step(net, optimizer):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(net(x[:8]), y[:8]).backward()
        optimizer.step()
        return [p.detach().clone() for p in net.parameters()]

    for a, b in zip(one_step(model, opt), one_step(fresh, fresh_opt)):
        assert torch.equal(a, b)  # Adam's moments and step count came back too, not only the weights


class Evil:
    """Any Python object: unpickling one could run code, so weights_only refuses it."""


def test_a_pickled_object_is_refused(tmp_path):
    path = tmp_path / "ckpt-00000001.pt"
    torch.save({"format": checkpoint.FORMAT, "payload": Evil()}, path)
    with pytest.raises(ValueError):
        checkpoint.load(path)


def test_keeps_only_the_newest(tmp_path):
    _small_run(tmp_path, 10, every=1)
    names = [p.name for p in checkpoint.list_checkpoints(tmp_path)]
    assert names == ["ckpt-00000010.pt", "ckpt-00000009.pt", "ckpt-00000008.pt"]
    assert len(list(tmp_path.glob("*.sha256"))) == 3


def test_rng_state_round_trip():
    import random

    import numpy as np
    state = checkpoint.rng_state()
    a = (torch.rand(3), random.random(), np.random.rand())
    checkpoint.set_rng_state(state)
    b = (torch.rand(3), random.random(), np.random.rand())
    assert torch.equal(a[0], b[0]) and a[1:] == b[1:]


def test_resume_in_process_matches(tmp_path):
    full = _small_run(None, 9)
    _small_run(tmp_path, 5)
    resumed = _small_run(tmp_path, 9, resume=True)
    assert resumed.resumed_from == 5
    assert resumed.losses == full.losses


def test_resume_with_a_shuffling_dataloader(tmp_path):
    """A DataLoader(shuffle=True) draws its order from the global generator, which train()
    seeds with seed + epoch: the replayed epoch has the same order."""
    from torch.utils.data import DataLoader, TensorDataset

    g = torch.Generator().manual_seed(2)
    loader = DataLoader(TensorDataset(torch.rand(48, 1, 28, 28, generator=g), torch.randint(0, 10, (48,), generator=g)),
                        batch_size=8, shuffle=True)

    def run(folder, steps, resume=False):
        torch.manual_seed(0)
        return train.train(SimpleNN(hidden=8), loader, steps=steps, progress=False, checkpoint_dir=folder,
                           checkpoint_every=4, resume=resume)

    full = run(None, 14)
    run(tmp_path, 9)  # stops mid-epoch 2 (6 batches per epoch); last periodic checkpoint at step 8, final at 9
    assert run(tmp_path, 14, resume=True).losses == full.losses


def test_save_training_and_resume_training_round_trip(tmp_path):
    """Lesson 07's cells: save_training writes model, optimizer, scaler, step and RNG with torch.save (atomically,
    with its hash); resume_training puts them back into fresh objects; a fourth save drops the oldest."""
    torch.manual_seed(0)
    model = SimpleNN(hidden=8)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", enabled=True, init_scale=1024.0)
    torch.nn.functional.cross_entropy(model(torch.rand(4, 1, 28, 28)), torch.tensor([1, 2, 3, 4])).backward()
    opt.step()
    for step in (1, 2, 3, 4):
        path = checkpoint.save_training(tmp_path, step, model, opt, scaler, epoch=0, note="x")
    assert path.name == "ckpt-00000004.pt" and not list(tmp_path.glob("*.tmp*"))
    assert [p.name for p in checkpoint.list_checkpoints(tmp_path)] == ["ckpt-00000004.pt", "ckpt-00000003.pt",
                                                                      "ckpt-00000002.pt"]
    torch.manual_seed(1)
    fresh = SimpleNN(hidden=8)
    fresh_opt = torch.optim.AdamW(fresh.parameters(), lr=1e-2)
    fresh_scaler = torch.amp.GradScaler("cpu", enabled=True)
    state = checkpoint.resume_training(tmp_path, fresh, fresh_opt, fresh_scaler)
    assert state["step"] == 4 and state["epoch"] == 0 and state["note"] == "x"
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), fresh.parameters()))
    assert fresh_opt.state_dict()["state"][0]["step"] == 1 and fresh_scaler.get_scale() == 1024.0
    assert checkpoint.resume_training(tmp_path / "missing", fresh, fresh_opt, fresh_scaler) is None
