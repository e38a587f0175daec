"""The tiny GPT: shapes, causality, pluggable LayerNorm, generation, FLOPs per token, learning."""

import pytest
import torch

from fastrain_lib.fused import layernorm
from fastrain_lib.gpt import GPT, flops_per_token, num_params


def small(norm="torch"):
    torch.manual_seed(0)
    return GPT(vocab_size=20, block_size=8, n_layer=2, n_head=2, n_embd=16, norm=norm)


def test_forward_shape():
    idx = torch.randint(0, 20, (3, 8))
    assert small()(idx).shape == (3, 8, 20)


def test_causal_future_tokens_do_not_change_the_past():
    model = small().eval()
    idx = torch.randint(0, 20, (1, 8))
    changed = idx.clone()
    changed[0, 5:] = (changed[0, 5:] + 1) % 20
    torch.testing.assert_close(model(idx)[:, :5], model(changed)[:, :5])
    assert not torch.allclose(model(idx)[:, 5:], model(changed)[:, 5:])


def test_norms_are_pluggable_and_equivalent():
    idx = torch.randint(0, 20, (2, 8))
    torch_model, naive_model = small("torch"), small("naive")
    assert isinstance(naive_model.blocks[0].ln_1, layernorm.NaiveLayerNorm)
    torch.testing.assert_close(torch_model(idx), naive_model(idx), atol=1e-5, rtol=1e-5)


def test_bad_sizes_get_clear_errors():
    with pytest.raises(ValueError, match="n_head"):
        GPT(20, 8, n_layer=1, n_head=3, n_embd=16)
    with pytest.raises(ValueError, match="block_size"):
        small()(torch.zeros(1, 9, dtype=torch.long))


def test_generate_appends_tokens_in_range_and_is_reproducible():
    model = small()
    start = torch.zeros(2, 3, dtype=torch.long)
    a = model.generate(start, 12, generator=torch.Generator().manual_seed(1), top_k=5)
    b = model.generate(start, 12, generator=torch.Generator().manual_seed(1), top_k=5)
    assert a.shape == (2, 15) and torch.equal(a, b)
    assert int(a.min()) >= 0 and int(a.max()) < 20
    assert model.training  # generate() restores the training mode


def test_flops_per_token_formula():
    model = small()
    n = num_params(model)
    assert n == sum(p.numel() for p in model.parameters()) - 8 * 16  # minus position embeddings
    assert flops_per_token(model, 8) == 6 * n + 12 * 2 * 2 * 8 * 8


def test_it_learns_a_repeating_sequence():
    model = small()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    data = torch.arange(9).repeat(4)[None, :9].repeat(4, 1) % 20
    x, y = data[:, :8], data[:, 1:9]
    losses = []
    for _ in range(60):
        loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
