"""fastrain_lib.fused: the AdamW and LayerNorm variants lesson 04 writes (saved into fused/) agree with
PyTorch, launch counts are deterministic and show fusion, the ablation returns well-formed records
and leaves out the stages a device cannot run."""

import warnings

import pytest
import torch
import torch.nn.functional as F

from fastrain_lib.fused import apex, elementwise, layernorm, optimizers
from fastrain_lib.fused.bias_gelu import bias_gelu, bias_gelu_reference
from fastrain_lib.lessons.l04_fused_kernels import ablation
from fastrain_lib.measure import bench, hardware, launches


def _params(seed=0, shapes=((5, 4), (7,), (2, 3, 3))):
    g = torch.Generator().manual_seed(seed)
    return [torch.nn.Parameter(torch.randn(s, generator=g)) for s in shapes]


@pytest.mark.parametrize("impl", optimizers.OPTIMIZER_IMPLS)
def test_every_optimizer_impl_steps_like_adamw(impl):
    ours, theirs = _params(), _params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = optimizers.make_optimizer(ours, impl, lr=1e-2, weight_decay=0.01)
    ref = torch.optim.AdamW(theirs, lr=1e-2, weight_decay=0.01)
    for _ in range(5):
        for p, q in zip(ours, theirs):
            p.grad = torch.ones_like(p)
            q.grad = torch.ones_like(q)
        opt.step()
        ref.step()
    for p, q in zip(ours, theirs):
        torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-5)


def test_apex_falls_back_with_a_message_when_apex_cannot_run():
    if apex.apex_status().fused_adam and torch.cuda.is_available():
        pytest.skip("Apex is built here")
    with pytest.warns(UserWarning, match="fused=True"):
        opt = optimizers.make_optimizer(_params(), "apex")
    assert isinstance(opt, torch.optim.AdamW)
    assert opt.defaults["fused"] is True


def test_bad_impl_names_the_choices():
    with pytest.raises(ValueError, match="foreach"):
        optimizers.make_optimizer(_params(), "turbo")
    with pytest.raises(ValueError, match="naive"):
        layernorm.make_layernorm(8, "turbo")


@pytest.mark.parametrize("impl", ["torch", "naive", "apex"])
def test_layernorm_variants_agree_forward_and_backward(impl):
    x = bench.fresh_random(3, 5, 16, seed=2).requires_grad_()
    x_ref = x.detach().clone().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ln = layernorm.make_layernorm(16, impl)
    with torch.no_grad():
        ln.weight.copy_(torch.linspace(0.5, 1.5, 16))
        ln.bias.copy_(torch.linspace(-1, 1, 16))
    y = ln(x)
    y_ref = F.layer_norm(x_ref, (16,), ln.weight.detach(), ln.bias.detach())
    torch.testing.assert_close(y, y_ref, atol=1e-5, rtol=1e-5)
    y.pow(2).sum().backward()
    y_ref.pow(2).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad, atol=1e-4, rtol=1e-4)


def test_bias_gelu_chain_equals_torch_gelu():
    x, b = bench.fresh_random(8, 32, seed=3), bench.fresh_random(32, seed=4)
    torch.testing.assert_close(bias_gelu(x, b), bias_gelu_reference(x, b), atol=1e-5, rtol=1e-5)


def test_count_launches_is_deterministic_and_counts_the_chain():
    x, b = bench.fresh_random(8, 32, seed=3), bench.fresh_random(32, seed=4)
    first = launches.count_launches(lambda: bias_gelu(x, b))
    second = launches.count_launches(lambda: bias_gelu(x, b))
    assert first == second
    assert first.ops == 10  # add, 2 muls for the cube, mul, add, mul, tanh, add, mul, mul
    assert launches.count_launches(lambda: bias_gelu_reference(x, b)).ops == 2


def test_optimizer_launches_grow_with_tensors_only_for_the_for_loop():
    loop = [optimizers.optimizer_step_launches("forloop", n).ops for n in (2, 8)]
    each = [optimizers.optimizer_step_launches("foreach", n).ops for n in (2, 8)]
    fusd = [optimizers.optimizer_step_launches("fused", n).ops for n in (2, 8)]
    assert loop[1] == 4 * loop[0]  # a fixed number of calls per tensor
    assert each[1] < loop[1] and each[1] - each[0] < loop[1] - loop[0]
    assert fusd[0] == fusd[1]  # one fused call, whatever the number of tensors
    # the first step also creates the optimizer state: more calls
    assert optimizers.optimizer_step_launches("forloop", 2, warmup=0).ops > loop[0]


def test_memory_traffic_of_the_unfused_chain_is_many_times_the_fused_minimum():
    x, b = bench.fresh_random(64, 128, seed=5), bench.fresh_random(128, seed=6)
    calls, moved = elementwise.memory_traffic(bias_gelu, x, b)
    assert calls == 10
    assert moved > 5 * elementwise.fused_bytes(x, b)
    assert elementwise.fused_bytes(x, b) == (2 * 64 * 128 + 128) * 4


def test_kernel_excerpt_finds_the_generated_kernel():
    code = ("import torch\nasync_compile = AsyncCompile()\n"
            "cpp_fused_add_0 = async_compile.cpp_pybinding(['const float*'], r'''\n"
            "extern \"C\" void kernel(const float* in_ptr0) {}\n''')\n\n"
            "class Runner:\n    def call(self, args):\n        cpp_fused_add_0(a)\n        return (buf0, )\n")
    excerpt = launches.kernel_excerpt(code)
    assert 'extern "C" void kernel' in excerpt and "def call" in excerpt and "import torch" not in excerpt
    assert launches.count_generated_kernels(code) == 1
    triton_code = ("triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''\n"
                   "@triton.jit\ndef triton_poi_fused_add_0(in_ptr0, xnumel):\n    pass\n"
                   "''', device_str='cuda')\n\nimport later_stuff\n")
    excerpt = launches.kernel_excerpt(triton_code)
    assert "def triton_poi_fused_add_0" in excerpt and "later_stuff" not in excerpt


def test_ablation_measures_only_its_noisy_stages_again_with_one_thread(monkeypatch, capsys):
    """Issue 38: lesson 04's one rerun. A noisy stage is trained again with the same settings and sizes at 1
    thread (the setting that fits a busy PC) and replaces the old record; a quiet stage is kept as it was;
    every speedup is then computed against the new fp32 stage, and the printed line says how many."""
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records = ablation.ablation("cpu", n_layer=1, n_head=2, n_embd=16, block_size=8, batch_size=2, steps=2,
                                warmup=1, include_compile=False, alone=True, peak=(1.0, "test peak"))
    for record in records:
        record.noise = {"verdict": "quiet", "reasons": []}
    noisy = {0, len(records) - 1}  # the baseline (every speedup's denominator) and an alone row
    for i in noisy:
        records[i].noise = {"verdict": "noisy", "reasons": ["busy"]}
    threads_used = []
    real_run = ablation._run_stage
    monkeypatch.setattr(ablation, "_run_stage", lambda *a, **k: threads_used.append(k.get("threads")) or real_run(*a, **k))
    capsys.readouterr()
    again = ablation.remeasure_noisy(records, "cpu", warmup=1)
    assert threads_used == [1, 1]
    assert [r.name for r in again] == [r.name for r in records]
    for i, (old, new) in enumerate(zip(records, again)):
        assert (new is not old) == (i in noisy), i
        keys = set(old.params) - {"warmup"}
        assert {k: new.params[k] for k in keys} == {k: old.params[k] for k in keys}
    assert again[0].metrics["speedup"] == 1.0
    assert again[1].metrics["speedup"] == pytest.approx(again[0].median_s / again[1].median_s)
    assert "2 of " in capsys.readouterr().out


def test_ablation_keeps_a_noisy_compile_stage_as_measured(monkeypatch, capsys):
    """Measuring it again at 1 thread would compile the graph again (tens of seconds on a CPU)."""
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records = ablation.ablation("cpu", n_layer=1, n_head=2, n_embd=16, block_size=8, batch_size=2, steps=2,
                                warmup=1, include_compile=False, peak=(1.0, "test peak"))
    for record in records:
        record.noise = {"verdict": "noisy", "reasons": ["busy"]}
    records[-1].params["compile"] = True  # stands for the compile stage
    def stage_record(settings, *args, **kwargs):
        assert not settings["compile"], "the compile stage was measured again"
        return records[0]
    monkeypatch.setattr(ablation, "_stage_record", stage_record)
    again = ablation.remeasure_noisy(records, "cpu", warmup=1)
    assert again[-1] is records[-1] and f"{len(records) - 1} of {len(records) - 1} measurements" in capsys.readouterr().out


def test_ablation_records_are_complete(monkeypatch):
    records = ablation.ablation("cpu", n_layer=1, n_head=2, n_embd=16, block_size=8, batch_size=2, steps=2,
                             warmup=1, include_compile=False, peak=(1.0, "test peak"))
    stages = [r.params["stage"] for r in records]
    assert stages == ["fp32", "amp", "fused_adamw"]  # no tf32 on a CPU, no Apex, compile excluded
    assert records[0].metrics["speedup"] == 1.0
    for r in records:
        assert r.params["experiment"] == ablation.ABLATION_EXPERIMENT
        assert len(r.times_s) == 2 and r.median_s > 0
        assert r.metrics["tokens_per_s"] == pytest.approx(2 * 8 / r.median_s)
        assert r.metrics["mfu"] == pytest.approx(r.metrics["tflops"] / 1.0)
        assert "cpu_name" in r.meta
    assert records[1].params["precision"] == "bf16" and records[2].params["optimizer"] == "fused"


def test_ablation_rejects_unknown_stage():
    with pytest.raises(ValueError, match="fp32"):
        ablation.ablation("cpu", stages=["warp_speed"])


def test_ablation_stages_add_tf32_only_where_the_gpu_has_it(monkeypatch):
    """issue 26: a T4 or V100 (capability < 8.0) has no TF32, so a "tf32" row there would re-measure fp32;
    it is left out, and left_out_stages says why in a sentence."""
    from fastrain_lib.measure.hardware import Facts

    t4 = Facts("cuda", "Tesla T4", (7, 5), 1, 15 * 2**30, nccl=True)
    v100 = Facts("cuda", "Tesla V100-SXM2-16GB", (7, 0), 1, 16 * 2**30, nccl=True)
    h100 = Facts("cuda", "NVIDIA H100 80GB HBM3", (9, 0), 1, 80 * 2**30, nccl=True)
    monkeypatch.delenv(hardware.FORCE_T4_ENV, raising=False)
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    for facts, amp in ((t4, "fp16"), (v100, "fp16"), (h100, "bf16")):
        monkeypatch.setattr(hardware, "facts", lambda device=None, f=facts: f)
        stages = ablation.ablation_stages("cuda", include_compile=True)
        names = [s["stage"] for s in stages]
        notes = ablation.left_out_stages("cuda")
        if facts is h100:
            assert names[:3] == ["fp32", "tf32", "amp"] and notes == []
        else:
            assert names[:2] == ["fp32", "amp"] and "tf32" not in names
            (note,) = notes
            assert facts.name in note and f"{facts.capability[0]}.{facts.capability[1]}" in note and "TF32" in note
        assert names[-1] == "compile"
        assert stages[names.index("amp")]["precision"] == amp  # T4/V100: fp16 + GradScaler; sm80+: bf16
    # FASTRAIN_FORCE_T4_POLICY=1 makes an H100 behave like a T4: no TF32 stage either, and the note names the switch
    monkeypatch.setattr(hardware, "facts", lambda device=None: h100)
    monkeypatch.setenv(hardware.FORCE_T4_ENV, "1")
    assert "tf32" not in [s["stage"] for s in ablation.ablation_stages("cuda")]
    assert hardware.FORCE_T4_ENV in ablation.left_out_stages("cuda")[0]
    monkeypatch.delenv(hardware.FORCE_T4_ENV)
    # the sentence exists in both languages
    monkeypatch.setattr(hardware, "facts", lambda device=None: t4)
    monkeypatch.setenv("FASTRAIN_LANG", "bn")
    assert "TF32" in ablation.left_out_stages("cuda")[0] and "টেনসর কোর" in ablation.left_out_stages("cuda")[0]
    # A CPU has no TF32 stage and nothing to explain; a Mac where no AMP step worked gets no AMP stage.
    assert ablation.left_out_stages("cpu") == []
    monkeypatch.setattr(hardware, "facts", lambda device=None: Facts("mps", "Apple MPS", count=1))
    assert "amp" not in [s["stage"] for s in ablation.ablation_stages("mps")]


def test_reference_ablations_reads_only_ablation_records(tmp_path):
    stage = bench.Record("ablation:fp32", 0.1, params={"experiment": ablation.ABLATION_EXPERIMENT,
                                                       "device": "cuda", "stage": "fp32"},
                         meta={"gpu_name": "NVIDIA H200", "cpu_name": "x", "date": "2026-01-01T00:00:00"})
    other = bench.Record("matmul", 0.1, params={"size": 4})
    bench.save_records([stage, other], tmp_path / "h200.json")
    (tmp_path / "broken.json").write_text("{not json")
    found = ablation.reference_ablations(tmp_path)
    assert list(found) == ["NVIDIA H200 · 2026-01-01 00:00"]
    assert [r.name for r in found["NVIDIA H200 · 2026-01-01 00:00"]] == ["ablation:fp32"]
    assert ablation.reference_ablations(tmp_path / "missing") == {}


def test_panel_runs_and_each_setting_changes_the_figure():
    from fastrain_lib.lessons.l04_fused_kernels import panel as lesson04

    history = []
    first = lesson04.step_experiment("foreach", "torch", "fp32", False, "tiny", history=history)
    second = lesson04.step_experiment("forloop", "naive", "fp32", False, "tiny", history=history)
    assert len(history) == 2 and first.figure is not second.figure
    # the second table keeps the first run's row and adds the new setting's row below it
    assert second.rows[0] == first.rows[0] and second.rows[1][0] == 2
    assert second.rows[1][1] != first.rows[0][1]
    launches = [r.metrics["launches"] for r in (first.records[0], second.records[0])]
    assert launches[1] > launches[0]  # for-loop Adam and the naive LayerNorm launch more
    assert second.records[0].metrics["optimizer_launches"] > first.records[0].metrics["optimizer_launches"]
    # every run carries its noise verdict: a column of the table, a hatched bar, and a note when noisy
    from fastrain_lib.core.i18n import t

    assert first.records[0].noise["verdict"] in ("quiet", "noisy")
    assert first.rows[0][3] in (t("noise.quiet_word"), t("noise.noisy_word"))
    if first.rows[0][3] == t("noise.noisy_word"):
        assert first.note  # what was wrong with the machine, in place of a cause


def test_ablation_chart_and_rows():
    from fastrain_lib.lessons.l04_fused_kernels import tables as lesson04

    records = [bench.Record(f"ablation:{s}", m, params={"stage": s, "precision": "bf16"},
                            metrics={"tokens_per_s": 1 / m, "speedup": 0.1 / m, "mfu": None},
                            meta={"cpu_name": "test cpu"}) for s, m in (("fp32", 0.1), ("amp", 0.05))]
    rows = lesson04.ablation_rows(records)
    assert len(rows) == 2 and rows[1][3] == 2.0 and rows[1][4] == "=" and rows[1][5] == "—"
    fig = lesson04.ablation_figure(records, {"H200 (2026-01-01)": records})
    assert len(fig.axes) == 2


def test_ablation_flags_an_impossible_mfu():
    # A peak far below what the run achieved: the MFU would be >100%, so it is not shown.
    records = ablation.ablation("cpu", n_layer=1, n_head=2, n_embd=16, block_size=8, batch_size=2, steps=2,
                             warmup=1, include_compile=False, stages=["fp32"], peak=(1e-9, "wrong peak"))
    metrics = records[0].metrics
    assert metrics["mfu"] is None and metrics["mfu_flagged"] > 1


def test_full_mode_batch_fits_the_device(monkeypatch):
    from fastrain_lib.lessons.l04_fused_kernels import ablation
    from fastrain_lib.measure import hardware

    gib = 2**30
    gpt2 = {"n_layer": 12, "n_embd": 768, "block_size": 1024, "vocab_size": 96}
    assert 9 * gib < ablation.training_bytes(batch_size=16, **gpt2) < 15 * gib  # "nearly fills a T4"
    t4 = hardware.Facts("cuda", "Tesla T4", (7, 5), 1, 15_828_000_000)  # Colab's T4 as torch reports it
    rtx3060 = hardware.Facts("cuda", "NVIDIA GeForce RTX 3060", (8, 6), 1, 12 * gib)
    laptop = hardware.Facts("cuda", "NVIDIA GeForce RTX 3050 Laptop GPU", (8, 6), 1, 4 * gib)
    need = lambda b: ablation.training_bytes(batch_size=b, **gpt2)
    assert hardware.largest_fitting((2, 4, 8, 16), need, t4) == 16
    assert hardware.largest_fitting((2, 4, 8, 16), need, rtx3060) == 8
    assert hardware.largest_fitting((2, 4, 8, 16), need, laptop) == 2  # nothing fits: the smallest


def test_ablation_warms_up_the_uncompiled_stages_by_the_given_steps(monkeypatch):
    from fastrain_lib.lessons.l04_fused_kernels import ablation

    calls = []
    real = ablation.amp_step  # the one AMP step (precision/step.py) is what the ablation times
    monkeypatch.setattr(ablation, "amp_step", lambda *a, **k: calls.append(1) or real(*a, **k))
    records = ablation.ablation("cpu", n_layer=1, n_head=2, n_embd=16, block_size=8, batch_size=2, steps=3,
                             warmup=2, include_compile=False, stages=["fp32"], peak=(1.0, "test peak"))
    assert len(calls) == 2 + 3 and len(records[0].times_s) == 3 and records[0].params["warmup"] == 2
    assert records[0].metrics["first_step_s"] > 0 and "compile_s" not in records[0].metrics


def test_ablation_compile_stage_warms_up_until_nothing_recompiles(monkeypatch):
    import functools

    from fastrain_lib.lessons.l04_fused_kernels import ablation

    warmed = []
    real_warm = bench.warm_until_compiled

    def spy(fn, **kwargs):
        warmed.append(real_warm(fn, **kwargs))
        return warmed[-1]

    monkeypatch.setattr(ablation.bench, "warm_until_compiled", spy)
    # dynamo's own tracing and graph counting, without Inductor's C++ build (seconds instead of a minute)
    monkeypatch.setattr(torch, "compile", functools.partial(torch.compile, backend="eager"))
    records = ablation.ablation("cpu", n_layer=1, n_head=2, n_embd=16, block_size=8, batch_size=2, steps=3,
                             warmup=1, include_compile=True, stages=["compile"], peak=(1.0, "test peak"))
    (record,) = records
    assert len(warmed) == 1
    warm = warmed[0]
    assert warm["compiles"] >= 1 and warm["warmup_calls"] >= 3  # one call compiled, then two quiet ones
    assert record.params["warmup"] == warm["warmup_calls"] and record.metrics["compile_s"] == warm["compile_s"] > 0
    assert record.metrics["recompiles_timed"] == 0 and len(record.times_s) == 3
    assert record.noise["verdict"] in ("quiet", "noisy") and "recompile" not in record.noise["reasons"]


def test_overhead_regime_counts_launches_and_their_cost():
    from fastrain_lib.measure import launches

    assert launches.overhead_modes("cpu") == ("eager", "compile") and not launches.cuda_graphs_apply("cpu")
    assert launches.cuda_graphs_apply("cuda") and launches.overhead_modes("cuda")[-1] == "reduce-overhead"
    (eager,) = launches.overhead_regime("cpu", ("eager",), depth=3, width=8, batch=2)
    model = launches.TinyMLP(3, 8).eval()
    x = torch.randn(2, 8)
    with torch.no_grad():
        expected = launches.count_launches(lambda: model(x)).launches
    assert eager.metrics["launches"] == expected >= 3 * 4  # per layer at least norm, linear, gelu, add
    assert eager.metrics["us_per_launch"] == pytest.approx(eager.median_s * 1e6 / expected)
    assert eager.params["cuda_graphs"] is False


def test_training_step_is_the_plain_step_in_fp32_and_scales_in_fp16():
    """ablation.training_step (the ablation's, the panel's and benchmarks/steps.py's step) is amp_step with the
    GPT's loss: in fp32 exactly loss.backward() + AdamW.step(); in fp16 its GradScaler scales the loss."""
    from fastrain_lib.gpt import GPT
    from fastrain_lib.precision import amp as prec

    def model_and_opt():
        torch.manual_seed(0)
        model = GPT(32, 8, 1, 2, 16)
        return model, optimizers.make_optimizer(model.parameters(), "foreach", lr=1e-2)

    (x, y), = ablation.token_batches(1, 2, 8, 32, "cpu")
    ours, opt = model_and_opt()
    loss = ablation.training_step(ours, opt, x, y, precision="fp32")
    theirs, opt_ref = model_and_opt()
    ref = F.cross_entropy(theirs(x).flatten(0, -2), y.flatten())
    ref.backward()
    opt_ref.step()
    assert float(loss) == pytest.approx(float(ref.detach()), rel=1e-6)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        torch.testing.assert_close(p, q)
    assert all(p.grad is None for p in ours.parameters())  # zeroed for the next step
    model, opt = model_and_opt()
    scaler = prec.make_scaler("cpu", "fp16", init_scale=2.0**10)
    loss = ablation.training_step(model, opt, x, y, precision="fp16", scaler=scaler)
    assert torch.isfinite(loss) and scaler.is_enabled() and scaler.get_scale() in (2.0**10, 2.0**9)
