"""The capstone's model and data: the corpus (built once per session), the GPT, training windows
cut on the device, the validation loss and Bengali samples."""

from __future__ import annotations

import functools
import itertools

import torch

from fastrain_lib import corpus as corpus_mod
from fastrain_lib.core.i18n import t
from fastrain_lib.precision import amp as prec
from fastrain_lib.train import default_loss


@functools.lru_cache(maxsize=1)
def load_corpus() -> corpus_mod.Corpus:
    """The corpus, built once per session (a few hundred ms)."""
    return corpus_mod.build()


def build_model(vocab_size: int, cfg: dict, norm: str = "torch", seed: int = 0):
    from fastrain_lib.gpt import GPT

    torch.manual_seed(seed)
    return GPT(vocab_size, cfg["block_size"], cfg["n_layer"], cfg["n_head"], cfg["n_embd"], norm=norm)


class DeviceWindows:
    """Endless random training windows, cut on the device itself.

    The whole token tensor is moved to the device once; each batch is one index tensor of
    window starts (drawn on the device) and one gather, so no step stacks a Python list on
    the CPU and copies it over (pageable memory, where non_blocking does nothing). Iterating
    again gives the same batches (train.train replays them when it resumes)."""

    def __init__(self, tokens: torch.Tensor, starts, batch_size: int, block_size: int, *, seed: int = 0,
                 device="cpu"):
        self.device = torch.device(device)
        self.tokens = tokens.to(self.device)
        self.starts = torch.as_tensor(starts, dtype=torch.long).to(self.device)
        self.offsets = torch.arange(block_size, device=self.device)
        self.batch_size, self.seed = batch_size, seed

    def __iter__(self):
        generator = torch.Generator(device=self.device).manual_seed(self.seed)
        while True:
            pick = torch.randint(len(self.starts), (self.batch_size,), generator=generator, device=self.device)
            index = self.starts[pick].unsqueeze(1) + self.offsets  # (batch, block) positions in the text
            yield self.tokens[index], self.tokens[index + 1]  # y is x shifted by one character


def device_batches(data: corpus_mod.Corpus, split: str, cfg: dict, *, seed: int, device) -> DeviceWindows:
    """Training or validation windows of the corpus, kept on `device` (see DeviceWindows)."""
    tokens = {"train": data.train, "val": data.val}[split]
    starts = corpus_mod.boundaries(tokens, data.chars, cfg["block_size"])
    if len(starts) == 0:
        raise ValueError(t("corpus.too_small", split=split, n=len(tokens), block=cfg["block_size"]))
    return DeviceWindows(tokens, starts, cfg["batch_size"], cfg["block_size"], seed=seed, device=device)


@torch.no_grad()
def val_loss(model, data: corpus_mod.Corpus, cfg: dict, device, precision: str = "fp32") -> float:
    """Mean cross-entropy on a fixed set of validation windows (the same ones every time), in the run's autocast."""
    windows = itertools.islice(iter(device_batches(data, "val", cfg, seed=1234, device=device)), cfg["eval_batches"])
    model.eval()
    with prec.autocast(torch.device(device), precision):
        losses = [default_loss(model(x), y).float().item() for x, y in windows]  # equal batches: mean of means
    model.train()
    return sum(losses) / len(losses)


def sample(model, data: corpus_mod.Corpus, n_chars: int, *, device="cpu", seed: int = 0, temperature: float = 0.8,
           prompt: str | None = None) -> str:
    """Generate Bengali from a whole-word prompt; dangling marks are tidied before display."""
    prompt = prompt or data.prompt(seed)
    idx = data.encode(prompt).unsqueeze(0).to(device)
    generator = torch.Generator(device=torch.device(device).type).manual_seed(seed)
    out = model.generate(idx, n_chars, temperature=temperature, top_k=None, generator=generator)
    return corpus_mod.tidy(data.decode(out[0].tolist()))
