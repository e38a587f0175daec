"""A tiny GPT, nanoGPT-style: token + position embeddings, N transformer blocks, a head.

Small enough to train on a laptop CPU, the same code fills a GPU at larger sizes.
The LayerNorm is pluggable (norm="torch" | "naive" | "naive_compiled" | "apex", see
fused.make_layernorm), so lesson 04 can swap it and measure the difference.

    model = GPT(vocab_size=64, block_size=32, n_layer=2, n_head=2, n_embd=64)
    logits = model(idx)                       # idx: [B, T] token ids -> logits [B, T, vocab]
    text_ids = model.generate(idx, 100)       # sample 100 more tokens
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from fastrain_lib.core.i18n import t
from fastrain_lib.fused.layernorm import make_layernorm


class CausalSelfAttention(nn.Module):
    """Multi-head attention where each position sees only itself and earlier positions."""

    def __init__(self, n_embd: int, n_head: int, dropout: float):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)  # queries, keys, values in one matmul
        self.proj = nn.Linear(n_embd, n_embd)
        self.dropout = dropout
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        # [B, T, C] -> [B, heads, T, head size]
        q, k, v = (z.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for z in (q, k, v))
        # PyTorch's fused attention (flash / memory-efficient kernels where available)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.proj(y))


class MLP(nn.Module):
    def __init__(self, n_embd: int, dropout: float):
        super().__init__()
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.proj(F.gelu(self.fc(x))))


class Block(nn.Module):
    """Pre-norm transformer block: x + attention(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, n_embd: int, n_head: int, dropout: float, norm: str):
        super().__init__()
        self.ln_1 = make_layernorm(n_embd, norm)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.ln_2 = make_layernorm(n_embd, norm)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """A decoder-only transformer language model (GPT-2 layout, nanoGPT's readable form)."""

    def __init__(self, vocab_size: int, block_size: int, n_layer: int = 2, n_head: int = 2, n_embd: int = 64,
                 dropout: float = 0.0, norm: str = "torch"):
        super().__init__()
        if n_embd % n_head:
            raise ValueError(t("gpt.bad_heads", n_embd=n_embd, n_head=n_head))
        self.vocab_size, self.block_size = vocab_size, block_size
        self.n_layer, self.n_head, self.n_embd = n_layer, n_head, n_embd
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(n_embd, n_head, dropout, norm) for _ in range(n_layer))
        self.ln_f = make_layernorm(n_embd, norm)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
        self.head.weight = self.tok_emb.weight  # weight tying, as in GPT-2
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """idx: [B, T] token ids (T <= block_size) -> logits [B, T, vocab_size]."""
        _B, T = idx.shape
        if T > self.block_size:
            raise ValueError(t("gpt.too_long", T=T, block_size=self.block_size))
        pos = torch.arange(T, device=idx.device)
        x = self.drop(self.tok_emb(idx) + self.pos_emb(pos))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int, temperature: float = 1.0,
                 top_k: int | None = None, generator: torch.Generator | None = None) -> torch.Tensor:
        """Append `max_new_tokens` sampled tokens to idx [B, T]; returns [B, T + max_new_tokens]."""
        was_training = self.training
        self.eval()
        for _ in range(max_new_tokens):
            context = idx[:, -self.block_size:]  # the model sees at most block_size tokens
            logits = self(context)[:, -1, :] / max(temperature, 1e-6)
            if top_k is not None:
                kth = torch.topk(logits, min(top_k, logits.size(-1))).values[:, [-1]]
                logits = logits.masked_fill(logits < kth, float("-inf"))
            probs = F.softmax(logits.float(), dim=-1)
            next_id = torch.multinomial(probs, 1, generator=generator)
            idx = torch.cat([idx, next_id], dim=1)
        self.train(was_training)
        return idx


def num_params(model: GPT, non_embedding: bool = True) -> int:
    """Parameters of the model; by default without the position embedding (nanoGPT's convention:
    the token embedding is counted because the head shares it)."""
    n = sum(p.numel() for p in model.parameters())
    return n - model.pos_emb.weight.numel() if non_embedding else n


def flops_per_token(model: GPT, seq_len: int | None = None) -> float:
    """Training FLOPs per token, forward + backward: 6N + 12·L·H·Q·T (nanoGPT, PaLM appendix B).

    6N: each weight does a multiply-add (2 FLOPs) forward and twice that backward;
    12·L·H·Q·T: the attention scores and weighted sums, which grow with the sequence length T."""
    T = seq_len or model.block_size
    head_size = model.n_embd // model.n_head
    return 6 * num_params(model) + 12 * model.n_layer * model.n_head * head_size * T
