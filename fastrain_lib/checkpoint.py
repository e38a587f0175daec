"""Checkpoints that survive a Colab disconnect or a lab PC being switched off.

    path = checkpoint.save(folder, step, state)     # atomic: never a half-written file
    found = checkpoint.load_latest(folder)          # newest good one, skipping broken files

Three rules:
- **Atomic.** The file is written under a temporary name, flushed to disk, then renamed with
  os.replace: a crash while writing leaves the previous checkpoints untouched, never a
  half-file under a checkpoint's name.
- **Verified.** Beside each checkpoint a small .sha256 file holds its hash; a file whose
  hash does not match, or that torch.load cannot read, is skipped with a Bengali warning,
  and the previous good one is used.
- **Safe to load.** torch.load(weights_only=True) only: it never unpickles arbitrary Python
  objects (a checkpoint from the internet cannot run code). So everything is stored as
  tensors and plain types, RNG states included (see rng_state / set_rng_state).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import warnings
from pathlib import Path

import torch

from fastrain_lib.core.i18n import t

PATTERN = re.compile(r"^ckpt-(\d{8})\.pt$")
FORMAT = "fastrain-checkpoint-1"


def path_for(folder, step: int) -> Path:
    return Path(folder) / f"ckpt-{step:08d}.pt"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_atomic(path: Path, write) -> None:
    """Call write(tmp_path), fsync it, then rename it over `path` in one step."""
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def save(folder, step: int, state: dict, keep: int = 3) -> Path:
    """Save `state` (tensors, state_dicts, plain Python types) as checkpoint `step`;
    keep the newest `keep` checkpoints and delete older ones."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = path_for(folder, step)
    payload = {"format": FORMAT, "step": int(step), **state}
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    try:
        torch.save(payload, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        digest = _sha256(tmp)
        # hash first, then the checkpoint: a crash in between leaves a hash without a file (ignored)
        _write_atomic(path.with_name(path.name + ".sha256"), lambda p: p.write_text(digest + "\n"))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    for old in list_checkpoints(folder)[keep:]:
        old.unlink(missing_ok=True)
        old.with_name(old.name + ".sha256").unlink(missing_ok=True)
    return path


def list_checkpoints(folder) -> list[Path]:
    """Checkpoint files in `folder`, newest (highest step) first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if PATTERN.match(p.name)]
    return sorted(found, key=lambda p: int(PATTERN.match(p.name).group(1)), reverse=True)


def load(path, map_location="cpu") -> dict:
    """Load one checkpoint safely (weights_only=True) and verify it; raises ValueError
    when the file is truncated, corrupt or not a fastrain checkpoint."""
    path = Path(path)
    hash_file = path.with_name(path.name + ".sha256")
    if hash_file.exists() and hash_file.read_text().strip() != _sha256(path):
        raise ValueError(t("checkpoint.bad_hash", path=path.name))
    try:
        state = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as exc:  # truncated zip, garbage bytes, a pickled object: all unreadable
        raise ValueError(t("checkpoint.unreadable", path=path.name, error=type(exc).__name__)) from exc
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(t("checkpoint.not_ours", path=path.name))
    return state


def load_latest(folder, map_location="cpu") -> dict | None:
    """The newest checkpoint in `folder` that loads and verifies; broken ones are skipped
    with a warning that names them. None when there is none."""
    for path in list_checkpoints(folder):
        try:
            state = load(path, map_location)
        except ValueError as exc:
            warnings.warn(t("checkpoint.skipping", reason=str(exc)), RuntimeWarning, stacklevel=2)
            continue
        state["path"] = str(path)
        return state
    return None


# ---------------------------------------------------------------------------------------
# Random number generator states as tensors and plain types (so weights_only=True works)
# ---------------------------------------------------------------------------------------

def rng_state() -> dict:
    """The state of every random number generator the training loop may use."""
    version, internal, gauss = random.getstate()
    state = {
        "torch": torch.get_rng_state(),
        "python": {"version": version, "state": torch.tensor(internal, dtype=torch.int64), "gauss": gauss},
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    try:
        import numpy as np
    except ImportError:
        return state
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    state["numpy"] = {"kind": kind, "keys": torch.from_numpy(keys.astype("int64")), "pos": int(pos),
                      "has_gauss": int(has_gauss), "cached": float(cached)}
    return state


def set_rng_state(state: dict) -> None:
    """Put back the generator states saved by rng_state()."""
    torch.set_rng_state(state["torch"])
    py = state["python"]
    random.setstate((py["version"], tuple(int(v) for v in py["state"].tolist()), py["gauss"]))
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    if "numpy" in state:
        import numpy as np
        n = state["numpy"]
        np.random.set_state((n["kind"], n["keys"].numpy().astype("uint32"), n["pos"], n["has_gauss"], n["cached"]))
