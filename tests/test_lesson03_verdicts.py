"""Lesson 03's verdict cells pick their sentence from the measurement and the device's facts:
tested on tables of results and real device descriptions, so a lesson never tells a student
something its own numbers contradict (issue 19)."""

import re

import pytest

from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l03_mixed_precision import panel as panel03
from fastrain_lib.lessons.l03_mixed_precision import verdicts as lesson03
from fastrain_lib.measure import hardware

T4 = hardware.Facts("cuda", "Tesla T4", (7, 5), 1)
A100 = hardware.Facts("cuda", "NVIDIA A100-SXM4-80GB", (8, 0), 1)
EPYC_AVX2 = hardware.Facts("cpu", "AMD EPYC", cpu_flags=frozenset({"avx2", "f16c"}))
XEON_AMX = hardware.Facts("cpu", "Intel Xeon Platinum 8480+", cpu_flags=frozenset({"avx512f", "avx512_bf16", "amx_bf16"}))


def formats(f):
    return hardware.fast_formats(f)


@pytest.mark.parametrize("ratio, kind", [(1.87, "faster"), (1.04, "same"), (0.97, "same"), (0.078, "slower")])
def test_speed_class(ratio, kind):
    assert lesson03.speed_class(ratio) == kind


def test_fp16_13x_slower_on_a_cpu_without_fp16_units_says_why_from_the_matmul():
    # issue 19: fp16 13x slower than fp32 on this CPU and no sentence said why
    out = lesson03.speed_verdicts({"fp16": 1 / 13, "bf16": 0.9}, "cpu", formats(EPYC_AVX2), {"fp16": 0.05, "bf16": 0.6})
    keys = [k for k, _ in out]
    assert keys[:2] == ["lesson03.v.speed_slower", "lesson03.v.why_no_native_matmul"]
    text = t(keys[1], **out[1][1])
    assert "0.05" in text  # the measured matmul ratio is in the sentence


def test_bf16_faster_on_a_cpu_with_native_bf16_is_credited_to_the_hardware():
    out = lesson03.speed_verdicts({"bf16": 1.87}, "cpu", formats(XEON_AMX))
    assert [k for k, _ in out] == ["lesson03.v.speed_faster", "lesson03.v.why_native_fast"]


def test_bf16_not_faster_despite_native_units_blames_the_small_step_not_missing_hardware():
    out = lesson03.speed_verdicts({"bf16": 1.0}, "cpu", formats(XEON_AMX))
    assert out[-1][0] == "lesson03.v.why_native_small"


def test_tf32_on_a_cpu_or_a_t4_is_noise_on_an_a100_it_is_real():
    assert lesson03.speed_reason("tf32", 1.02, "cpu", formats(EPYC_AVX2)) == "lesson03.v.why_tf32_noop"
    assert lesson03.speed_reason("tf32", 0.98, "cuda", formats(T4)) == "lesson03.v.why_tf32_noop"
    assert lesson03.speed_reason("tf32", 1.5, "cuda", formats(A100)) == "lesson03.v.why_tf32_cuda"


def test_bf16_on_a_t4_is_emulated():
    # a T4 has no fast bf16 (torch.cuda.is_bf16_supported says True: emulation)
    assert lesson03.speed_reason("bf16", 0.5, "cuda", formats(T4), 0.4) == "lesson03.v.why_no_native_matmul"
    assert lesson03.speed_reason("fp16", 2.5, "cuda", formats(T4)) == "lesson03.v.why_native_fast"


CPU_ROWS = [("a @ b (matmul)", "bfloat16"), ("F.linear", "bfloat16"), ("a + b", "float32"), ("softmax", "bfloat16"),
            ("layer_norm", "bfloat16"), ("cross_entropy", "float32"), ("sum", "bfloat16")]
CUDA_ROWS = [("a @ b (matmul)", "float16"), ("F.linear", "float16"), ("a + b", "float32"), ("softmax", "float32"),
             ("layer_norm", "float32"), ("cross_entropy", "float32"), ("sum", "float32")]


def test_autocast_verdict_on_a_cpu_says_sum_softmax_layer_norm_stayed_low():
    # issue 19: the text said sums run in fp32 while the CPU table below listed sum in bf16
    out = lesson03.autocast_verdict(CPU_ROWS, "cpu")
    assert out[1][0] == "lesson03.v.reductions_low"
    assert out[1][1]["ops"] == "sum, softmax, layer_norm"
    assert "cross_entropy" in out[0][1]["high"] and "sum" in out[0][1]["low"]


def test_autocast_verdict_on_cuda_says_they_ran_in_fp32():
    out = lesson03.autocast_verdict(CUDA_ROWS, "cuda")
    assert out[1][0] == "lesson03.v.reductions_fp32"
    assert "sum" not in out[0][1]["low"]


def test_autocast_verdict_matches_the_real_table_on_this_machine():
    import torch

    a = torch.randn(8, 8)
    with torch.amp.autocast("cpu", dtype=torch.bfloat16):  # what the lesson's cell runs
        rows = [(name, str(op().dtype).replace("torch.", "")) for name, op in
                {"a @ b (matmul)": lambda: a @ a, "softmax": lambda: torch.softmax(a @ a, -1),
                 "layer_norm": lambda: torch.nn.functional.layer_norm(a @ a, (8,)), "sum": lambda: (a @ a).sum()}.items()]
    out = lesson03.autocast_verdict(rows, "cpu")
    low_sum = dict(rows)["sum"] == "bfloat16"
    assert out[1][0] == ("lesson03.v.reductions_low" if low_sum else "lesson03.v.reductions_fp32")


def test_old_api_verdict_follows_the_warnings_actually_caught():
    cpu = ["`torch.cuda.amp.autocast(args...)` is deprecated.", "CUDA is not available or torch_xla is imported. Disabling autocast."]
    gpu = ["`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead."]
    assert lesson03.old_api_verdict(cpu) == "lesson03.v.old_api_disabled"
    assert lesson03.old_api_verdict(gpu) == "lesson03.v.old_api_ran"


def test_old_api_verdict_on_this_machine():
    import warnings

    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.cuda.amp.autocast():
            pass
    expected = "lesson03.v.old_api_ran" if torch.cuda.is_available() else "lesson03.v.old_api_disabled"
    assert lesson03.old_api_verdict([str(w.message) for w in caught]) == expected


def test_accuracy_verdict():
    assert lesson03.accuracy_verdict({"fp32": 92.0, "bf16": 91.5, "fp16": 92.3}, 300)[0] == "lesson03.v.accuracy_close"
    key, values = lesson03.accuracy_verdict({"fp32": 40.0, "fp16": 20.0}, 10)
    assert key == "lesson03.v.accuracy_apart" and values["worst"] == "fp16" and values["spread"] == 20.0


def _amp_run(folder, name, meta, device="cpu"):
    from fastrain_lib.measure import bench

    records = [bench.Record(name=f"amp {m}", median_s=0.01 * (i + 1), params={"family": "amp", "precision": m,
                                                                               "device": device}, meta=meta)
               for i, m in enumerate(("fp32", "tf32", "fp16", "bf16"))]
    bench.save_records(records, folder / name)


def test_reference_rows_are_one_per_run_with_hardware_names(tmp_path):
    # issue 19: two CPU runs of the same day were merged, and lesson 03 showed the hardware as "?"
    cpu = {"cpu_name": "AMD EPYC", "cpu_cores": 2, "date": "2026-11-30T07:06:31+00:00", "mode": "lab"}
    _amp_run(tmp_path, "cpu_a.json", cpu)
    _amp_run(tmp_path, "cpu_b.json", dict(cpu, date="2026-11-30T07:09:00+00:00"))
    rows, any_gpu = panel03.reference_amp_rows(tmp_path)
    assert len(rows) == 2 and not any_gpu
    assert all(row[0].startswith("AMD EPYC") for row in rows)
    assert rows[0][2:] == (10.0, 20.0, 30.0, 40.0)  # ms per step in fp32, tf32, fp16, bf16 order
    _amp_run(tmp_path, "h200.json", {"gpu_name": "NVIDIA H200", "cpu_name": "Intel Xeon", "date": "2026-12-01"}, "cuda")
    rows, any_gpu = panel03.reference_amp_rows(tmp_path)
    assert len(rows) == 3 and any_gpu and "NVIDIA H200" in [row[0] for row in rows]


def test_no_reference_results_gives_no_rows(tmp_path):
    assert panel03.reference_amp_rows(tmp_path) == ([], False)


def test_every_verdict_key_exists_in_both_languages_without_bengali_in_english():
    from fastrain_lib.core.i18n import CATALOG

    keys = [k for k in CATALOG if k.startswith("lesson03.v.")]
    assert len(keys) >= 15
    for k in keys:
        assert not re.search("[\u0980-\u09ff]", CATALOG[k]["en"]), k


def test_gradient_verdict_says_many_or_few_below_fp16s_normal_range():
    assert lesson03.gradient_verdict(0.002, 37.5)[0] == "lesson03.v.grads_many_low"
    assert lesson03.gradient_verdict(0.0, 1.2)[0] == "lesson03.v.grads_few_low"


def test_safe_scale_range_is_the_widest_run_with_nothing_lost():
    ks = [0, 2, 4, 6, 8, 10, 12]
    under = [5.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    over = [0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 3.0]
    assert lesson03.safe_scale_range(ks, under, over) == ("lesson03.v.scale_safe_range", {"lo": 4, "hi": 8})
    assert lesson03.safe_scale_range(ks, [1.0] * 7, over)[0] == "lesson03.v.scale_no_safe_range"


def test_safe_scale_range_on_real_gradients_matches_the_shares():
    import torch

    from fastrain_lib.models import SimpleNN
    from fastrain_lib.precision import formats

    torch.manual_seed(0)
    model = SimpleNN()
    torch.nn.functional.cross_entropy(model(torch.rand(64, 1, 28, 28)), torch.randint(0, 10, (64,))).backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters()])
    ks = list(range(0, 33, 2))
    under = [formats.underflow_share(grads, 2.0**k) for k in ks]
    over = [torch.isinf((grads * 2.0**k).half()).double().mean().item() for k in ks]
    key, values = lesson03.safe_scale_range(ks, under, over)
    if key == "lesson03.v.scale_safe_range":
        for k, u, o in zip(ks, under, over):
            if values["lo"] <= k <= values["hi"]:
                assert u == 0 and o == 0


# ----------------------------------------------------------------- memory, accumulation, fp32 regions (issue 18)

def test_memory_verdicts_follow_the_measured_bytes():
    n = 1000
    same = {"fp32": {"total": 16 * n + 16}, "autocast": {"total": 16 * n + 16}, "amp": {"total": 16 * n + 16}}
    out = lesson03.memory_verdicts(same, n, {"fp32": 40 * n, "bf16": 4 * n})
    keys = [k for k, _ in out]
    assert keys == ["lesson03.v.mem_per_param", "lesson03.v.mem_same_state", "lesson03.v.mem_act_bigger",
                    "lesson03.v.mem_state_bigger"]
    assert "16.02" in out[0][1]["rows"]
    halved = dict(same, amp={"total": 8 * n})  # a layout that really halved the state must not be called "the same"
    assert lesson03.memory_verdicts(halved, n, {})[1][0] == "lesson03.v.mem_state_differs"


def test_memory_verdict_on_a_real_measurement():
    import torch
    from torch.nn import functional as F

    from fastrain_lib.measure import memory
    from fastrain_lib.models import SimpleNN, count_parameters

    measured = {}
    for layout in ("fp32", "amp"):
        model = SimpleNN(hidden=16)
        if layout == "amp":
            model = model.to(torch.bfloat16)
            opt = memory.MasterWeightsAdam(model)
        else:
            opt = torch.optim.Adam(model.parameters())
        x = torch.rand(4, 1, 28, 28, dtype=next(model.parameters()).dtype)
        F.cross_entropy(model(x).float(), torch.zeros(4, dtype=torch.long)).backward()
        opt.step()
        measured[layout] = memory.measured_bytes(model, opt)
    out = lesson03.memory_verdicts(measured, count_parameters(model), {})
    assert out[1][0] == "lesson03.v.mem_same_state"


def test_accumulation_verdict():
    assert lesson03.accumulation_verdict(1e-9, 0.1, "unscale_() has already been called")[0][0] == "lesson03.v.accum_equal"
    out = lesson03.accumulation_verdict(0.05, 0.1, None)
    assert [k for k, _ in out] == ["lesson03.v.accum_differs", "lesson03.v.accum_unscale_twice_silent"]


def test_multi_optimizer_verdict_names_who_skipped():
    key, values = lesson03.multi_optimizer_verdict({"opt_fc1": False, "opt_fc2": True}, 1024.0, 512.0)
    assert key == "lesson03.v.multi_opt" and values["skipped"] == "opt_fc1" and values["stepped"] == "opt_fc2"


def _fp32_region_rows():
    """The rows lesson 03's section 5b measures, with its saved functions (cpu, fp16 and bf16)."""
    import math

    import torch
    from torch.nn import functional as F

    from fastrain_lib.lessons.l03_mixed_precision.saved import fp32_cross_entropy, naive_cross_entropy

    g = torch.Generator().manual_seed(0)
    h, w = torch.randn(64, 64, generator=g), torch.randn(1000, 64, generator=g)
    w = w * (30.0 / (h @ w.T).abs().max())
    y = torch.randint(0, 1000, (64,), generator=g)
    ref = F.cross_entropy(h.double() @ w.double().T, y).item()
    found = []
    for mode, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        with torch.autocast("cpu", dtype=dtype):
            logits = h @ w.T
            inside = naive_cross_entropy(logits, y)
            with torch.autocast("cpu", enabled=False):
                region = naive_cross_entropy(logits.float(), y)
            custom = fp32_cross_entropy("cpu").apply(logits, y)
            exp_dtype = str(torch.exp(logits).dtype).replace("torch.", "")
        found += [("autocast", mode, exp_dtype, inside.item()), ("enabled=False", mode, "float32", region.item()),
                  ("custom_fwd", mode, "float32", custom.item())]
    return [{"how": how, "mode": mode, "exp_dtype": e, "loss": loss, "finite": math.isfinite(loss),
             "error": abs(loss - ref) if math.isfinite(loss) else math.inf} for how, mode, e, loss in found]


def test_fp32_region_verdicts_on_this_machine_match_the_rows():
    rows = _fp32_region_rows()
    by = {(r["how"], r["mode"]): r for r in rows}
    # the fp32 region and custom_fwd compute the same thing, and stay finite
    for mode in ("fp16", "bf16"):
        assert by[("enabled=False", mode)]["finite"] and by[("custom_fwd", mode)]["finite"]
        assert abs(by[("enabled=False", mode)]["loss"] - by[("custom_fwd", mode)]["loss"]) < 1e-5
    out = {v["mode"]: k for k, v in lesson03.fp32_region_verdicts(rows, "cpu")}
    fp16_inside = by[("autocast", "fp16")]
    if fp16_inside["exp_dtype"] == "float16":  # CPU autocast leaves exp in fp16: exp(30) overflows
        assert not fp16_inside["finite"] and out["fp16"] == "lesson03.v.fp32_broke"
    else:  # an autocast that lifts exp to fp32 (CUDA's list) keeps the loss finite
        assert fp16_inside["finite"] and out["fp16"] == "lesson03.v.fp32_autocast_ok"
    bf16_inside = by[("autocast", "bf16")]
    if bf16_inside["exp_dtype"] == "bfloat16":  # finite (fp32's range) but less accurate than the fp32 region
        assert bf16_inside["finite"] and out["bf16"] == "lesson03.v.fp32_less_accurate"


def test_fp32_region_verdict_when_autocast_lifts_exp_to_fp32():
    rows = [{"how": "autocast", "mode": "fp16", "exp_dtype": "float32", "finite": True, "error": 1e-5},
            {"how": "enabled=False", "mode": "fp16", "exp_dtype": "float32", "finite": True, "error": 1e-5}]
    assert lesson03.fp32_region_verdicts(rows, "cuda")[0][0] == "lesson03.v.fp32_autocast_ok"


# ----------------------------------------------------------------- issue 27: no cause from a noisy row


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_a_ratio_below_one_is_said_as_n_times_slower(monkeypatch, lang):
    monkeypatch.setenv("FASTRAIN_LANG", lang)
    key, values = lesson03.speed_verdicts({"fp16": 0.1}, "cpu", formats(EPYC_AVX2))[0]
    text = t(key, **values)
    assert "10.00×" in text and "0.10" not in text  # "10× slower", never "0.1× faster"


def test_noisy_rows_get_no_ratio_and_no_cause_quiet_rows_keep_theirs():
    """A table of three modes, bf16's row noisy: it gets the noisy sentence only; fp16 (quiet) keeps its
    ratio and its cause; tf32 (noisy, on a GPU that has it) no cause either."""
    ratios = {"tf32": 1.6, "fp16": 1 / 13, "bf16": 4.0}
    out = lesson03.speed_verdicts(ratios, "cuda", formats(A100), {"fp16": 0.05, "bf16": 3.0}, noisy={"bf16", "tf32"})
    keys = [k for k, _ in out]
    assert keys.count("lesson03.v.speed_noisy") == 2
    causal = {k for k in keys if ".why_" in k}
    assert causal and all(values["mode"] == "fp16" for k, values in out if k in causal)
    for lang in ("bn", "en"):
        noisy_text = t("lesson03.v.speed_noisy", lang, mode="bf16")
        assert "4.0" not in noisy_text and "bf16" in noisy_text


def test_every_row_noisy_says_nothing_causal():
    out = lesson03.speed_verdicts({"fp16": 0.5, "bf16": 2.0}, "cpu", formats(XEON_AMX), noisy={"fp16", "bf16"})
    assert [k for k, _ in out] == ["lesson03.v.speed_noisy", "lesson03.v.speed_noisy"]


# ----------------------------------------------------------------- issue 37: each # VERDICT cell is one say_* call


def _speed_records(noisy=()):
    from fastrain_lib.measure import noise
    from fastrain_lib.measure.bench import Record

    def info(name):
        return {"verdict": noise.NOISY, "reasons": ["load"], "load": 3.0} if name in noisy else {"verdict": "quiet"}

    records = [Record(m, s, noise=info(m)) for m, s in (("fp32", 0.010), ("fp16", 0.100), ("bf16", 0.005))]
    mm = {m: Record("matmul 128", 1.0, metrics={"gflops": g}, noise=info(f"mm {m}"))
          for m, g in (("fp32", 10.0), ("fp16", 0.5), ("bf16", 30.0))}
    return records, mm


def test_say_speed_prints_ratios_from_the_records_and_only_the_noisy_mark_for_a_noisy_row(monkeypatch, capsys):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records, mm = _speed_records()
    lesson03.say_speed(records, mm, "cpu", formats(EPYC_AVX2))
    out = capsys.readouterr().out
    assert "fp16: 10.00× slower" in out and "bf16: 2.00× as fast" in out
    assert "noisy" not in out and "run the one-line cell" not in out  # all quiet: no warning, no rerun offer
    records, mm = _speed_records(noisy={"bf16"})
    lesson03.say_speed(records, mm, "cpu", formats(EPYC_AVX2))
    out = capsys.readouterr().out
    assert "2.00" not in out and "bf16: " not in out and "fp16: 10.00× slower" in out


@pytest.mark.parametrize("lang", ["bn", "en"])
@pytest.mark.parametrize("noisy", [(), ("bf16",), ("fp32",), ("mm fp16",), ("fp32", "fp16", "bf16")])
def test_say_speed_sentence_rule_on_noisy_and_quiet_rows(monkeypatch, capsys, lang, noisy):
    """Issue 38, read sentence by sentence: a noisy mode gets no ratio and no cause; every line that states a
    finding beside a noisy row carries its noise status (noisy or quiet) on its own line; all noisy modes share
    ONE warning that names their rows; the one rerun is offered once; quiet rows state their finding."""
    import _sentences

    from fastrain_lib.core import verdicts

    monkeypatch.setenv("FASTRAIN_LANG", lang)
    records, mm = _speed_records(noisy=set(noisy))
    lesson03.say_speed(records, mm, "cpu", formats(EPYC_AVX2))
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    warnings = [line for line in lines if line.startswith(verdicts.PREFIX + verdicts.NOISY_MARK)]
    affected = {m for m in ("fp16", "bf16") if {"fp32", m, "mm fp32", f"mm {m}"} & set(noisy)}
    if not noisy:
        assert not warnings and any("10.00" in line for line in lines) and any("2.00" in line for line in lines)
        assert not any(_sentences.says_its_noise(line) for line in lines)
        return
    assert len(warnings) == 1 and len(lines) == len(set(lines))  # one warning, no line twice
    for row in noisy:
        assert f"{row.split()[-1]} (" in warnings[0]  # the warning names its noisy rows
    for mode in affected:
        assert not any(line.startswith(verdicts.PREFIX + mode + ":") for line in lines)  # no ratio for it
        assert not any(mode in line and ("কেন" in line or "Why" in line) for line in lines)  # and no cause
    assert not any(_sentences.RATIO.search(line) for line in warnings)  # the warning states no ratio
    for line in lines:
        if _sentences.is_finding(line):
            assert _sentences.says_its_noise(line), line
    offers = [line for line in lines if "1টি থ্রেড" in line or "1 thread" in line]
    assert len(offers) == 1
    for mode in {"fp16", "bf16"} - affected:  # a quiet mode keeps its ratio, marked quiet on its line
        assert any(line.startswith(verdicts.PREFIX + mode + ":") and _sentences.QUIET_WORDS.search(line) for line in lines)


def test_say_speed_rerun_says_what_it_remeasured_and_then_gives_up_without_offering_again(monkeypatch, capsys):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records, mm = _speed_records()
    lesson03.say_speed_rerun(records, mm, "cpu", formats(EPYC_AVX2), [])
    out = capsys.readouterr().out
    assert "nothing was measured again" in out and "×" not in out
    lesson03.say_speed_rerun(records, mm, "cpu", formats(EPYC_AVX2), ["fp32 (step)", "fp16 (step)"])
    out = capsys.readouterr().out
    assert "Measured again" in out and "fp16: 10.00× slower" in out
    records, mm = _speed_records(noisy={"fp16", "bf16"})
    lesson03.say_speed_rerun(records, mm, "cpu", formats(EPYC_AVX2), ["fp16 (step)"])
    out = capsys.readouterr().out
    assert "⚠️" in out and "run the one-line cell" not in out  # after the one rerun: no second offer


def test_remeasure_noisy_measures_nothing_when_quiet_and_every_row_at_one_thread_when_noisy(monkeypatch):
    from fastrain_lib.measure import bench
    from fastrain_lib.measure.bench import Record

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    records, mm = _speed_records()
    asked = []
    monkeypatch.setattr(bench, "measure", lambda fn, name, **kw: asked.append((name, kw)) or Record(name, 0.01, noise={"verdict": "quiet"}))
    monkeypatch.setattr(bench, "matmul", lambda n, **kw: asked.append(("matmul", kw)) or Record("matmul", 0.01, metrics={"gflops": 1.0}, noise={"verdict": "quiet"}))
    same = panel03.remeasure_noisy(records, mm, lambda mode: (lambda: None), 64, "cpu")
    assert same == (records, mm, []) and not asked
    records, mm = _speed_records(noisy={"fp16"})
    new, new_mm, names = panel03.remeasure_noisy(records, mm, lambda mode: (lambda: None), 64, "cpu")
    assert [r.name for r in new] == ["fp32", "fp16", "bf16"] and set(new_mm) == {"fp32", "fp16", "bf16"}
    assert len(asked) == 6 and all(kw["threads"] == panel03.RERUN_THREADS == 1 for _, kw in asked)
    assert len(names) == 6  # the quiet rows used torch's own threads: every row again, measured alike
    asked.clear()
    records, mm = _speed_records(noisy={"fp16"})
    for r in [*records, *mm.values()]:
        r.noise["threads"] = 1  # a busy PC: every row was already fitted to the one free core
    new, new_mm, names = panel03.remeasure_noisy(records, mm, lambda mode: (lambda: None), 64, "cpu")
    assert [name for name, _ in asked] == ["fp16"] and names == ["fp16 (step)"]  # only the noisy row again
    assert new[0] is records[0] and new[2] is records[2] and new_mm["fp32"] is mm["fp32"]


COUNT_VERDICTS = [  # the verdicts that stand on a count, a dtype or a formula, never on a timing
    lambda: lesson03.say_gradients(0.01, 20.0),
    lambda: lesson03.say_scale_range([0, 2, 4], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    lambda: lesson03.say_autocast({"bf16": CPU_ROWS}, "cpu"),
    lambda: lesson03.say_accumulation(1e-9, 0.05, None),
    lambda: lesson03.say_multi_optimizer({"a": False, "b": True}, 1024.0, 512.0),
    lambda: lesson03.say_accuracy([], steps=0),
    lambda: lesson03.say_accuracy([("fp32", 0.5, 0.6, 90.0, 0), ("bf16", 0.5, 0.6, 85.0, 0)], steps=10),
]


@pytest.mark.parametrize("say", COUNT_VERDICTS)
def test_verdicts_on_counts_are_declared_as_standing_on_no_timing_even_beside_noisy_rows(monkeypatch, capsys, tmp_path, say):
    """Fed beside a noisy measurement (a noisy timing pending in the same cell), a verdict on a count
    states it (no noisy form) and the audit log shows it stood on no measurement (exempt by the rule)."""
    import json

    from fastrain_lib.core import verdicts

    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(verdicts.LOG_ENV, str(log))
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    verdicts.note_measurement({"verdict": "noisy", "reasons": ["load"]})
    say()
    out = capsys.readouterr().out
    said = [json.loads(line) for line in log.read_text().splitlines() if "sentence" in line]
    assert out.strip() and "⚠️" not in out
    assert said and all(r["declared"] and r["stood_on"] == 0 and not r["printed_noisy_form"] for r in said)


def test_say_functions_without_a_measurement(monkeypatch, capsys):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    lesson03.say_accuracy([], steps=0)  # section 7 switched off: says so (a # VERDICT cell always speaks)
    assert "did not run" in capsys.readouterr().out
    lesson03.say_autocast({}, "mps")
    assert "neither fp16 nor bf16 autocast runs" in capsys.readouterr().out
    lesson03.say_gradients(0.01, 20.0)
    assert "20.0%" in capsys.readouterr().out
    lesson03.say_accuracy([("fp32", 0.5, 0.6, 90.0, 0), ("bf16", 0.5, 0.6, 89.5, 0)], steps=10)
    assert capsys.readouterr().out.strip()
