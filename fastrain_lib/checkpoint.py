"""Saved from notebooks/07_capstone_bengali_gpt.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import hashlib
import os
import random
import re
import warnings
from pathlib import Path

import torch

from fastrain_lib.core.i18n import pick

PATTERN = re.compile(r"^ckpt-(\d{8})\.pt$")
FORMAT = "fastrain-checkpoint-1"


def save_training(folder, step, model, optimizer, scaler, keep=3, **extra):
    """প্রশিক্ষণের পুরো অবস্থা একটি ফাইলে; ফোল্ডারে শুধু নতুন `keep`টি চেকপয়েন্ট রাখে।"""
    path = Path(folder) / f"ckpt-{step:08d}.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    # ওজন, অপটিমাইজারের অবস্থা (Adam-এর moment), GradScaler-এর স্কেল, ধাপ আর র‍্যান্ডম সংখ্যার অবস্থা — সব টেনসর বা সাধারণ টাইপ
    torch.save({"format": FORMAT, "step": int(step), "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "rng": rng_state(), **extra}, tmp)
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())                 # আগে অস্থায়ী নামে লিখে ডিস্কে পৌঁছানো পর্যন্ত অপেক্ষা ...
    (tmp.parent / (path.name + ".sha256")).write_text(_sha256(tmp) + "\n")   # ... পাশে তার হ্যাশ ...
    os.replace(tmp, path)                    # ... তারপর একবারে নাম বদল: অর্ধেক-লেখা চেকপয়েন্ট কখনো থাকে না
    for old in list_checkpoints(folder)[keep:]:
        old.unlink(missing_ok=True)
        old.with_name(old.name + ".sha256").unlink(missing_ok=True)
    return path


def load(path):
    """একটি চেকপয়েন্ট নিরাপদে পড়া: হ্যাশ না মিললে, ফাইল কাটা পড়লে বা অচেনা অবজেক্ট থাকলে ValueError।"""
    path = Path(path)
    hash_file = path.with_name(path.name + ".sha256")
    if hash_file.exists() and hash_file.read_text().strip() != _sha256(path):
        raise ValueError(pick(bn=f"চেকপয়েন্ট {path.name} নষ্ট: ফাইলের হ্যাশ (sha256) সংরক্ষিত হ্যাশের সাথে মেলে না",
                              en=f"checkpoint {path.name} is corrupt: its sha256 does not match the saved hash"))
    try:
        # weights_only=True: শুধু টেনসর আর সাধারণ টাইপ খোলে, কোনো Python অবজেক্ট unpickle করে না (কোড চলতে পারে না)
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:                 # কাটা zip, আবর্জনা বাইট, pickle করা অবজেক্ট: সবই অপাঠ্য
        raise ValueError(pick(bn=f"চেকপয়েন্ট {path.name} পড়া গেল না ({type(exc).__name__}) — সম্ভবত লেখার মাঝপথে থেমে গিয়েছিল বা ফাইলটি কাটা পড়েছে",
                              en=f"checkpoint {path.name} cannot be read ({type(exc).__name__}) — probably cut short while writing or truncated")) from exc
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(pick(bn=f"{path.name} fastrain-এর চেকপয়েন্ট নয়", en=f"{path.name} is not a fastrain checkpoint"))
    return state


def resume_training(folder, model, optimizer, scaler):
    """ফোল্ডারের সবচেয়ে নতুন ভালো চেকপয়েন্ট থেকে মডেল, অপটিমাইজার আর GradScaler ফিরিয়ে আনে; state ফেরত দেয় (না থাকলে None)।"""
    state = load_latest(folder)
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
    return state       # state["step"] থেকে চালিয়ে যাও; র‍্যান্ডম অবস্থা set_rng_state(state["rng"]) দিয়ে


def load_latest(folder):
    """সবচেয়ে নতুন যে চেকপয়েন্ট ঠিকঠাক পড়া যায়; নষ্টগুলো নাম বলে সতর্ক করে বাদ দেয়। কিছু না থাকলে None।"""
    for path in list_checkpoints(folder):
        try:
            return load(path)
        except ValueError as exc:
            warnings.warn(pick(bn=f"⚠️ {exc}। এটি বাদ দিয়ে আগের ভালো চেকপয়েন্ট থেকে শুরু করছি।",
                               en=f"⚠️ {exc}. Skipping it and using the previous good checkpoint."), RuntimeWarning, stacklevel=2)
    return None


def list_checkpoints(folder):
    """ফোল্ডারের চেকপয়েন্ট ফাইল, নতুনটি (বড় ধাপ) আগে।"""
    folder = Path(folder)
    found = [p for p in folder.iterdir() if PATTERN.match(p.name)] if folder.is_dir() else []
    return sorted(found, key=lambda p: int(PATTERN.match(p.name).group(1)), reverse=True)


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def rng_state():
    """প্রশিক্ষণে যত র‍্যান্ডম জেনারেটর লাগে, সবগুলোর অবস্থা — টেনসর আর সাধারণ টাইপে (weights_only=True-তে পড়া যায়)।"""
    version, internal, gauss = random.getstate()
    state = {"torch": torch.get_rng_state(),
             "python": {"version": version, "state": torch.tensor(internal, dtype=torch.int64), "gauss": gauss}}
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


def set_rng_state(state):
    """rng_state()-এ রাখা অবস্থাগুলো ফিরিয়ে দেওয়া।"""
    torch.set_rng_state(state["torch"])
    py = state["python"]
    random.setstate((py["version"], tuple(int(v) for v in py["state"].tolist()), py["gauss"]))
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    if "numpy" in state:
        import numpy as np
        n = state["numpy"]
        np.random.set_state((n["kind"], n["keys"].numpy().astype("uint32"), n["pos"], n["has_gauss"], n["cached"]))
