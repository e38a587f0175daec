"""Lesson 04's attention: the hand-written version and SDPA agree, the memory saved for backward is
counted right (T² for the hand-written one), backends are probed for real, and the verdicts follow
the numbers."""

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from fastrain_lib.core.i18n import t
from fastrain_lib.fused import attention as A
from fastrain_lib.lessons.l04_fused_kernels import tables
from fastrain_lib.lessons.l04_fused_kernels import verdicts as lesson04
from fastrain_lib.measure import bench


@pytest.mark.parametrize("causal", [True, False])
def test_hand_written_attention_equals_sdpa_and_its_math_backend(causal):
    q, k, v = A.qkv(2, 3, 37, 16, seed=3)  # a length that is no power of two
    want = A.naive_attention(q, k, v, causal)
    torch.testing.assert_close(A.sdpa(q, k, v, causal), want, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(A.sdpa(q, k, v, causal, backend="math"), want, atol=1e-5, rtol=1e-4)
    if causal:  # the mask is real: position 0 sees only itself, so its output is v[..., 0, :]
        torch.testing.assert_close(want[..., 0, :], v[..., 0, :])


def test_gradients_agree():
    q, k, v = A.qkv(1, 2, 24, 8, seed=5)
    ours = torch.autograd.grad(A.naive_attention(q, k, v).sum(), (q, k, v))
    theirs = torch.autograd.grad(A.sdpa(q, k, v).sum(), (q, k, v))
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)


def test_saved_bytes_counts_what_autograd_keeps_beyond_the_inputs():
    a = bench.fresh_random(10, 10).requires_grad_()
    assert A.saved_bytes(lambda x: x * x, a).bytes == 0  # saves only its input (twice, one storage)
    exp = A.saved_bytes(torch.exp, a)  # exp saves its output: 100 float32
    assert (exp.bytes, exp.tensors, exp.shapes) == (400, 1, ((10, 10),))


def test_hand_written_attention_keeps_the_whole_t_by_t_matrix():
    B, H, T, D = 1, 2, 64, 8
    kept = A.saved_bytes(A.naive_attention, *A.qkv(B, H, T, D))
    # at least the softmax weights (B·H·T² float32) and the T×T causal mask (bool)
    assert kept.bytes >= B * H * T * T * 4 + T * T
    assert any(torch.Size(s).numel() == B * H * T * T for s in kept.shapes)  # the weights (as matmul saw them)
    twice = A.saved_bytes(A.naive_attention, *A.qkv(B, H, 2 * T, D))
    assert 3.5 < twice.bytes / kept.bytes <= 4.0


def test_sdpa_keeps_less_than_the_hand_written_version():
    q, k, v = A.qkv(1, 2, 128, 16)
    assert A.saved_bytes(A.sdpa, q, k, v).bytes < A.saved_bytes(A.naive_attention, q, k, v).bytes / 4


def test_backends_are_probed_for_real():
    found = A.available_backends("cpu")
    assert set(found) == set(A.BACKENDS) and found["math"]
    for name, ok in found.items():  # what the probe says is what forcing the backend does
        q, k, v = A.qkv(1, 2, 16, 32)
        if ok:
            A.sdpa(q, k, v, backend=name)
        else:
            with pytest.raises(RuntimeError):
                A.sdpa(q, k, v, backend=name)


def test_chosen_backend_is_read_from_the_profile():
    q, k, v = A.qkv(1, 2, 32, 16)
    with sdpa_kernel(SDPBackend.MATH):
        assert A.chosen_backend(q, k, v) == "math"
    assert A.chosen_backend(q, k, v) in set(A.OP_NAMES) | {"unknown"}


def test_compare_records_each_variant_and_length():
    records = A.compare([16, 32], batch=1, heads=2, head_dim=8, only=("naive", "sdpa", "sdpa:math"))
    assert [(r.params["variant"], r.params["seq"]) for r in records] == [
        (v, s) for s in (16, 32) for v in ("naive", "sdpa", "sdpa:math")]
    for r in records:
        assert r.metrics["max_diff"] < 1e-4 and r.metrics["peak_bytes"] is None  # no CUDA allocator here
        assert r.metrics["saved_bytes"] == A.saved_bytes(
            {"naive": A.naive_attention, "sdpa": A.sdpa}.get(r.params["variant"],
                                                            lambda q, k, v: A.sdpa(q, k, v, backend="math")),
            *A.qkv(1, 2, r.params["seq"], 8)).bytes


def _rec(variant, seq, seconds, saved, peak=None, noisy=False):
    return bench.Record(f"attention:{variant}", seconds, params={"variant": variant, "seq": seq, "device": "cpu"},
                        metrics={"saved_bytes": saved, "peak_bytes": peak, "max_diff": 0.0},
                        noise={"verdict": "noisy" if noisy else "quiet", "reasons": ["load"] if noisy else []})


def test_growth_per_doubling():
    records = [_rec("naive", 128, 1, 4e6), _rec("naive", 256, 1, 16e6), _rec("sdpa", 128, 1, 1e5),
               _rec("sdpa", 512, 1, 4e5)]
    assert A.growth(records, "naive") == pytest.approx(4.0)
    assert A.growth(records, "sdpa") == pytest.approx(2.0)  # 4× over two doublings
    assert A.growth(records, "missing") is None


def test_attention_verdicts_follow_the_numbers():
    square = [_rec("naive", 128, 0.010, 4e6), _rec("naive", 256, 0.040, 16e6),
              _rec("sdpa", 128, 0.005, 1e5), _rec("sdpa", 256, 0.010, 2e5)]
    out = lesson04.attention_verdicts(square)
    assert [k for k, _, _ in out] == ["lesson04.v.attn_saved", "lesson04.v.attn_growth_square", "lesson04.v.cmp_faster"]
    assert out[0][1]["ratio"] == pytest.approx(80) and out[2][1]["ratio"] == pytest.approx(4)
    text = t(out[0][0], **out[0][1])
    assert "T=256" in text and "16 MB" in text and "0.2 MB" in text and "80" in text
    slow = [_rec("naive", 128, 0.010, 4e6), _rec("naive", 256, 0.010, 16e6),
            _rec("sdpa", 128, 0.010, 4e6), _rec("sdpa", 256, 0.030, 16e6, peak=5e7)]
    keys = [k for k, _, _ in lesson04.attention_verdicts(slow)]
    assert keys[1:] == ["lesson04.v.attn_growth_other", "lesson04.v.cmp_slower", "lesson04.v.attn_gain_memory"]
    same = [_rec("naive", 64, 0.010, 1e6, peak=2e6), _rec("sdpa", 64, 0.0102, 1e5, peak=1e6)]
    keys = [k for k, _, _ in lesson04.attention_verdicts(same)]
    assert keys == ["lesson04.v.attn_saved", "lesson04.v.cmp_same", "lesson04.v.attn_peak",
                    "lesson04.v.attn_gain_memory"]


def test_a_time_that_falls_while_t_doubles_is_flagged_and_explains_nothing(capsys):
    # issue 27: naive attention 368 ms at T=128 and 7.6 ms at T=256 (a first call or a busy machine)
    from fastrain_lib.core import verdicts

    records = [_rec("naive", 128, 0.368, 4e6), _rec("naive", 256, 0.0076, 16e6),
               _rec("sdpa", 128, 0.005, 1e5), _rec("sdpa", 256, 0.010, 2e5)]
    assert lesson04.inconsistent_times(records) == [("naive", 128, pytest.approx(368), 256, pytest.approx(7.6))]
    assert A.inconsistent(records) == [0]
    out = lesson04.attention_verdicts(records)
    keys = [k for k, _, _ in out]
    assert "lesson04.v.attn_inconsistent" in keys and keys[-1] == "lesson04.v.no_cause"
    assert "lesson04.v.attn_gain_memory" not in keys
    noisy = [_rec("naive", 128, 0.010, 4e6), _rec("naive", 256, 0.040, 16e6, noisy=True),
             _rec("sdpa", 128, 0.020, 1e5), _rec("sdpa", 256, 0.080, 2e5)]
    out = lesson04.attention_verdicts(noisy)
    for key, values, stands_on in out:
        verdicts.say(key, noise=stands_on, **values)
    printed = capsys.readouterr().out
    assert "⚠️" in printed and t("lesson04.v.attn_gain_memory", seq=256) not in printed


def test_a_second_round_that_disagrees_marks_the_record_noisy(monkeypatch):
    first = bench.Record("attention:naive", 0.368, params={"variant": "naive", "seq": 128},
                         metrics={"saved_bytes": 1}, noise={"verdict": "quiet", "reasons": []})
    again = A._second_round(first, lambda: None)  # the real second round of a no-op: far faster
    assert again.noisy and "rounds" in again.noise["reasons"] and again.metrics["saved_bytes"] == 1


def test_sdpa_and_its_own_backend_are_one_row(monkeypatch):
    # issue 27: `sdpa` and `sdpa:flash` — the same backend — were kept as two rows 8x apart
    chosen = A.chosen_backend(*A.qkv(1, 2, 16, 8))
    names = A.variants("cpu", torch.float32, chosen)
    assert "sdpa" in names and f"sdpa:{chosen}" not in names
    records = A.compare([16], batch=1, heads=2, head_dim=8)
    variants = [r.params["variant"] for r in records]
    assert f"sdpa:{chosen}" not in variants and len(variants) == len(set(variants))
    sdpa, = [r for r in records if r.params["variant"] == "sdpa"]
    assert sdpa.params["backend"] == chosen and tables.attention_rows([sdpa])[0][0] == f"sdpa ({tables.shown_name(chosen)})"
    assert all(r.noise.get("verdict") in ("quiet", "noisy") for r in records)
    assert tables.attention_rows(records)[0][-1] in (t("noise.quiet_word"), t("noise.noisy_word"))
