"""Lesson 04's verdict cells pick their sentence from the measurement and the device's facts:
tested on tables of results (the numbers issue 19 reported among them) and real device
descriptions, so the lesson's words cannot contradict its own plots."""

import re
import sys
import warnings
from pathlib import Path

import pytest
import torch

from fastrain_lib.core.i18n import CATALOG, t
from fastrain_lib.lessons.l04_fused_kernels import measurements, tables
from fastrain_lib.lessons.l04_fused_kernels import verdicts as lesson04
from fastrain_lib.measure import bench, hardware

sys.path.insert(0, str(Path(__file__).parent))
import _sentences

T4 = hardware.Facts("cuda", "Tesla T4", (7, 5), 1)
A100 = hardware.Facts("cuda", "NVIDIA A100-SXM4-80GB", (8, 0), 1)
EPYC_AVX2 = hardware.Facts("cpu", "AMD EPYC", cpu_flags=frozenset({"avx2"}))
XEON_AVX512_BF16 = hardware.Facts("cpu", "Intel Xeon Gold 6338", cpu_flags=frozenset({"avx512f", "avx512_bf16"}))


def test_default_adam_is_foreach_on_cuda_and_the_for_loop_on_a_cpu():
    # issue 16: "foreach=True ডিফল্ট" is wrong on a CPU
    devices = ["cuda", "xpu", "mtia", "privateuseone"]
    assert lesson04.default_adam_impl_for("cuda", devices) == "foreach"
    assert lesson04.default_adam_impl_for("cpu", devices) == "forloop"
    assert lesson04.default_adam_impl_for("mps", devices) == "forloop"


def test_default_adam_here_is_what_torch_really_runs():
    from torch.optim.optimizer import _default_to_fused_or_foreach

    p = torch.nn.Parameter(torch.zeros(2))
    _, foreach = _default_to_fused_or_foreach([p], differentiable=False, use_fused=False)
    assert lesson04.default_adam_impl("cpu") == ("foreach" if foreach else "forloop")


def test_baseline_verdict_says_whether_foreach_is_the_default_here(monkeypatch):
    """The ablation's baseline is AdamW foreach: on a CPU that is not PyTorch's default (the for-loop is)."""
    monkeypatch.setattr(lesson04, "default_adam_impl", lambda device: "forloop")
    (key, values, stands_on), = lesson04.baseline_verdicts("cpu")
    assert key == "lesson04.v.baseline_differs" and values == {"device": "cpu", "default": tables.shown_name("forloop")}
    assert stands_on == ()  # a fact about PyTorch, no timing
    assert "not PyTorch's default" in t(key, "en", **values) and tables.shown_name("forloop") in t(key, "en", **values)
    monkeypatch.setattr(lesson04, "default_adam_impl", lambda device: "foreach")
    (key, values, _), = lesson04.baseline_verdicts("cuda")
    assert key == "lesson04.v.baseline_same" and "is the default" in t(key, "en", **values)


QUIET = {"verdict": "quiet", "reasons": []}
NOISY = {"verdict": "noisy", "reasons": ["load"]}


def _rec(seconds, noisy=False, name="r", **params):
    return bench.Record(name, seconds, params=params, noise=dict(NOISY if noisy else QUIET))


def _keys(out):
    return [k for k, _, _ in out]


def _causal(out):
    """The sentences that explain (they stand on measurements), not those that only report (a count, or a
    ratio of two timings: that one stands on its two rows, and gives way to the noisy line when one is noisy)."""
    return [(k, v, s) for k, v, s in out if list(s) and not k.startswith("lesson04.v.cmp_")]


def test_every_rule_returns_what_say_needs():
    out = lesson04.adam_verdicts([1, 64], {"forloop": [_rec(1.1e-3), _rec(9e-3)], "fused": [_rec(1e-3), _rec(1.5e-3)]})
    for key, values, stands_on in out:
        assert key in CATALOG and isinstance(values, dict)
        assert stands_on == () or all(hasattr(r, "noise") or isinstance(r, dict) for r in stands_on)


def test_a_ratio_below_one_is_said_as_slower_never_as_0_1x_faster():
    # issue 27: "foreach … 0.1× faster" (i.e. 10× slower)
    key, values, stands_on = lesson04.compare("foreach", "for-loop", 0.1, "n=64")
    assert key == "lesson04.v.cmp_slower" and values["ratio"] == pytest.approx(10) and list(stands_on) == []
    text = t(key, "en", **values)
    assert "10× slower" in text and "0.1" not in text and "faster" not in text
    assert lesson04.compare("a", "b", 3.0)[0] == "lesson04.v.cmp_faster"
    assert lesson04.compare("a", "b", 1.02)[0] == "lesson04.v.cmp_same"
    # the issue's run: foreach 0.1x of the for-loop at 64 tensors
    out = lesson04.adam_verdicts([1, 64], {"forloop": [_rec(1e-3), _rec(7.3e-3)], "foreach": [_rec(2e-3), _rec(73e-3)],
                                           "fused": [_rec(0.6e-3), _rec(6e-3)]})
    foreach = [(k, v) for k, v, _ in out if v.get("what") == "foreach"]
    assert foreach == [("lesson04.v.cmp_slower", {"what": "foreach", "than": tables.shown_name("forloop"), "ratio": pytest.approx(10),
                                                  "where": " (n=64)"})]


def test_adam_3_6x_at_64_and_2_3x_at_1_tensor_is_credited_to_fewer_passes_not_launches():
    # issue 19: the plot showed fused 0.51 vs for-loop 1.82 ms at 64 tensors, 2.3x at 1 tensor
    times = {"forloop": [0.92, 1.0, 1.82], "foreach": [0.6, 0.7, 0.9], "fused": [0.4, 0.45, 0.51]}
    out = lesson04.adam_verdicts([1, 8, 64], {k: [_rec(v) for v in vs] for k, vs in times.items()})
    assert _keys(out) == ["lesson04.v.cmp_faster"] * 3 + ["lesson04.v.adam_passes"]
    assert "3.6" in t(out[0][0], **out[0][1]) and "2.3" in t(out[1][0], **out[1][1])


def test_adam_gain_growing_with_tensors_is_credited_to_calls_and_no_gain_is_said():
    grows = lesson04.adam_verdicts([1, 64], {"forloop": [_rec(1.1), _rec(9.0)], "fused": [_rec(1.0), _rec(1.5)]})
    assert grows[-1][0] == "lesson04.v.adam_calls"
    flat = lesson04.adam_verdicts([1, 64], {"forloop": [_rec(1.0), _rec(1.05)], "fused": [_rec(1.0), _rec(1.0)]})
    assert flat[-1][0] == "lesson04.v.adam_little"


def test_adam_never_explains_a_noisy_row():
    rows = {"forloop": [_rec(1.1), _rec(9.0, noisy=True)], "fused": [_rec(1.0), _rec(1.5)]}
    out = lesson04.adam_verdicts([1, 64], rows)
    assert not {"lesson04.v.adam_calls", "lesson04.v.adam_passes", "lesson04.v.adam_little"} & set(_keys(out))
    (key, _, stands_on), = _causal(out)
    assert key == "lesson04.v.no_cause" and any(r.noisy for r in stands_on)


def _say_all(out, capsys):
    from fastrain_lib.core import verdicts

    for key, values, stands_on in out:
        verdicts.say(key, noise=stands_on, **values)
    return capsys.readouterr().out


def test_a_noisy_run_prints_the_noisy_line_once_and_no_cause(capsys):
    rows = {"forloop": [_rec(1.1, noisy=True), _rec(9.0, noisy=True)], "fused": [_rec(1.0), _rec(1.5)]}
    lesson04.say_adam([1, 64], rows)
    printed = capsys.readouterr().out
    assert printed.count("⚠️") == 1 and t("lesson04.v.adam_calls", n=64, ratio=6.0, ratio1=1.1)[:20] not in printed


def test_gelu_bound_comes_from_intensity_against_the_ridge_not_from_the_share_of_the_roof():
    # issue 27: GELU called compute-bound at 9% of the roof, in a run flagged noisy
    assert lesson04.gelu_bound(0.5, 10.0) == "memory" and lesson04.gelu_bound(20.0, 10.0) == "compute"
    numel = 1024 * 1024
    chain, library = _rec(78e-3), _rec(16.5e-3)
    roof = [_rec(0.1, name="roof")]
    args = {"chain_bytes": 100_700_000, "library_bytes": 5 * 4 * numel, "flops": 10 * numel, "peak_gflops": 100.0,
                "roof_gbs": 9.22, "roof_records": roof}
    quiet = lesson04.gelu_verdicts(chain=chain, library=library, **args)   # 1.27 GB/s of 9.22: 14%
    assert "lesson04.v.gelu_memory_by_roofline" in _keys(quiet)
    assert "lesson04.v.gelu_compute_by_roofline" not in _keys(quiet)
    assert _keys(quiet)[-1] == "lesson04.v.gelu_far_below"  # far below the roof: no cause for the time
    assert not any("compute-bound" in t(k, "en", **v) for k, v, _ in quiet)
    noisy_run = lesson04.gelu_verdicts(chain=chain, library=_rec(16.5e-3, noisy=True), **args)
    assert _keys(noisy_run)[-1] == "lesson04.v.no_cause"
    assert "lesson04.v.gelu_follows_bytes" not in _keys(noisy_run)
    # near the roof on a quiet machine: the cause (time follows bytes) is said, standing on the timings
    near = lesson04.gelu_verdicts(chain=chain, library=_rec(3e-3), **args)
    assert _keys(near)[-1] == "lesson04.v.gelu_follows_bytes" and library not in near[-1][2]


def test_gelu_above_its_own_roof_is_flagged_not_explained():
    out = lesson04.gelu_verdicts(chain=_rec(2e-3), library=_rec(1e-3), chain_bytes=80e6, library_bytes=40e6,
                                 flops=10e6, peak_gflops=100.0, roof_gbs=20.0)  # 40 GB/s against 20
    assert _keys(out)[-1] == "lesson04.v.gelu_above_roof" and out[-1][2] == ()


def test_compile_break_even_uses_the_cold_compile():
    # issue 19: "19 calls" came from a warm cache while the text spoke of a first compile
    out = lesson04.compile_verdicts(cold_s=9.5, warm_s=0.4, eager=_rec(3e-3), compiled=_rec(1e-3))
    key, values, stands_on = out[-1]
    assert key == "lesson04.v.compile_break_even" and len(stands_on) == 2
    assert values["calls"] == pytest.approx(4750) and values["warm_calls"] == pytest.approx(200)
    same = lesson04.compile_verdicts(cold_s=9.5, warm_s=0.4, eager=_rec(1e-3), compiled=_rec(1e-3))
    assert _keys(same) == ["lesson04.v.cmp_same", "lesson04.v.compile_no_gain"]


def _ablation(times: dict[str, float], precision="bf16", mfu=0.05):
    return [bench.Record(name=f"ablation:{stage}", median_s=s, params={"stage": stage, "precision": precision},
                         metrics={"mfu": mfu if stage == "fp32" else None}, noise=dict(QUIET))
            for stage, s in times.items()]


@pytest.mark.parametrize("facts, factor, mfu, key", [
    # issue 19: AMP 1.00x on a CPU whose hardware report says bf16 is native: not "CPUs lack bf16"
    (XEON_AVX512_BF16, 1.00, 0.05, "lesson04.v.amp_overhead"),
    # measured here (lab mode, Xeon with AMX): 0.78x, while the sentence said "the total does not change"
    (XEON_AVX512_BF16, 0.78, 0.12, "lesson04.v.amp_overhead_slower"),
    (XEON_AVX512_BF16, 0.97, 0.12, "lesson04.v.amp_overhead"),  # within ±5%: "no change" is right
    (XEON_AVX512_BF16, 1.00, 0.6, "lesson04.v.amp_native_small"),
    (XEON_AVX512_BF16, 1.5, 0.05, "lesson04.v.amp_native_fast"),
    (EPYC_AVX2, 0.2, 0.05, "lesson04.v.amp_no_native"),
    (EPYC_AVX2, 1.00, 0.05, "lesson04.v.amp_no_native"),
    (EPYC_AVX2, 1.3, 0.05, "lesson04.v.amp_emulated_fast"),
    (A100, 2.5, 0.3, "lesson04.v.amp_native_fast"),
])
def test_amp_reason_follows_the_measurement_and_the_hardware_facts(facts, factor, mfu, key):
    records = _ablation({"fp32": 1.0, "amp": 1.0 / factor, "fused_adamw": 0.9 / factor}, mfu=mfu)
    out = lesson04.amp_verdicts(records, facts.device_type, hardware.fast_formats(facts))
    # the ratio is said once, by switch_verdicts (issue 38: the AMP line was printed twice); here the why
    assert len(out) == 1 and out[0][0] == key and out[0][2]  # the why stands on the stages' timings
    said = [v for k, v, _ in lesson04.switch_verdicts(records, []) if k.startswith("lesson04.v.cmp_")]
    assert said[0]["what"] == tables.stage_label(records[1])
    text = hardware.t(out[0][0], lang="en", **out[0][1])
    if factor < 0.95:  # a slower stage is never explained as "no change" or "a gain"
        assert "slower" in text and f"{factor:.2f}×" in text or key == "lesson04.v.amp_no_native"
        assert "do not change the total" not in text


def test_a_slower_amp_stage_is_explained_by_the_profiler_not_a_guess():
    """Measured here (lab, Xeon with AMX): the AMP stage 0.78x. The reason line comes from profiling
    the stage before and the AMP stage: the operator that grew most, and the matmuls' change."""
    before = {"aten::mm": 6.0, "aten::_scaled_dot_product_flash_attention_for_cpu_backward": 1.5, "aten::gelu": 0.5}
    after = {"aten::mm": 3.1, "aten::_scaled_dot_product_flash_attention_for_cpu_backward": 9.0, "aten::gelu": 0.6}
    profiled = []

    def fake(record):
        profiled.append(record.params["stage"])
        return after if record.params["stage"] == "amp" else before

    slower = _ablation({"fp32": 1.0, "amp": 1 / 0.78, "fused_adamw": 1.2})
    (key, values, _), = lesson04.amp_measured_why(slower, profile=fake)
    assert profiled == ["fp32", "amp", "fp32", "amp"] and key == "launches.why_op_grew_mm_faster"
    assert values["op"] == "aten::_scaled_dot_product_flash_attention_for_cpu_backward"
    assert "6.00 to 3.10 ms" in hardware.t(key, lang="en", **values)
    profiled.clear()
    assert lesson04.amp_measured_why(_ablation({"fp32": 1.0, "amp": 0.5, "fused_adamw": 0.45}), profile=fake) == []
    assert lesson04.amp_measured_why(_ablation({"fp32": 1.0, "amp": 1.02}), profile=fake) == []  # within ±5%
    assert profiled == []  # nothing slower: nothing profiled


def test_stage_op_times_profiles_the_stage_that_was_measured():
    from fastrain_lib.lessons.l04_fused_kernels import ablation

    records = ablation.ablation("cpu", stages=["fp32", "amp"], include_compile=False, steps=2, warmup=1)
    fp32, amp = (ablation.stage_op_times(r, calls=2) for r in records)
    assert {"aten::mm", "aten::addmm"} & set(fp32) and all(v > 0 for v in fp32.values())
    assert set(fp32) & set(amp) and fp32 != amp


def test_the_profile_of_a_stage_uses_the_threads_its_steps_were_timed_with(monkeypatch):
    """Beside a busy core the stage was timed with 1 thread; profiled with torch's 2 it waited for the busy
    core (219.6 ms of operators for an fp32 step timed at 22.5 ms in a lab-mode run), so the 'why' compared
    another step. The profile runs with the record's threads, and torch's own count comes back after."""
    import torch

    from fastrain_lib.lessons.l04_fused_kernels import ablation
    from fastrain_lib.measure import launches

    seen = []
    monkeypatch.setattr(launches, "op_ms_per_call", lambda fn, calls: seen.append(torch.get_num_threads()) or {})
    params = {"vocab_size": 16, "block_size": 8, "n_layer": 1, "n_head": 2, "n_embd": 16, "norm": "torch",
              "optimizer": "foreach", "batch_size": 2, "device": "cpu", "precision": "fp32"}
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        for threads in (1, 2):
            ablation.stage_op_times(bench.Record(name="ablation:fp32", median_s=0.02, params=params,
                                                 noise={"verdict": "quiet", "threads": threads}), calls=1)
            assert torch.get_num_threads() == 2
        ablation.stage_op_times(bench.Record(name="ablation:fp32", median_s=0.02, params=params), calls=1)
    finally:
        torch.set_num_threads(before)
    assert seen == [1, 2, 2]  # no record of threads: torch's own


def test_amp_on_a_t4_is_fp16_and_compared_with_the_tf32_stage_before_it():
    records = _ablation({"fp32": 1.0, "tf32": 1.0, "amp": 0.4}, precision="fp16")
    out = lesson04.amp_verdicts(records, "cuda", hardware.fast_formats(T4))
    assert _keys(out) == ["lesson04.v.amp_native_fast"]
    ratio = lesson04.switch_verdicts(records, [])[1]
    assert ratio[1]["ratio"] == pytest.approx(2.5) and ratio[1]["than"] == tables.stage_label(records[1])


def _ablation_run(folder, name, meta, device="cpu"):
    from fastrain_lib.measure import reference

    records = [bench.Record(name=f"ablation:{stage}", median_s=0.1, params={"stage": stage, "device": device,
                            "experiment": reference.ABLATION_EXPERIMENT, "family": "ablation"}, meta=meta)
               for stage in ("fp32", "amp", "fused_adamw", "compile")]
    bench.save_records(records, folder / name)


def test_reference_ablations_one_series_per_run(tmp_path):
    # issue 19: two CPU runs of one day became one 8-bar waterfall with a second FP32 bar
    cpu = {"cpu_name": "AMD EPYC", "date": "2026-11-30T07:06:31+00:00", "mode": "lab"}
    _ablation_run(tmp_path, "a.json", cpu)
    _ablation_run(tmp_path, "b.json", dict(cpu, date="2026-11-30T07:09:00+00:00"))
    runs, any_gpu = measurements.reference_ablation_runs(tmp_path)
    assert not any_gpu and len(runs) == 2 and all(len(r) == 4 for r in runs.values())
    assert all("AMD EPYC" in label for label in runs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a lab-mode run printed matplotlib's "layout has changed to tight" here
        fig = tables.ablation_figure(_ablation({"fp32": 1.0, "amp": 1.0}), runs)
        fig.canvas.draw()
    assert len(fig.axes) == 3  # this machine + one panel per run
    titles = [ax.title.get_window_extent() for ax in fig.axes]  # side by side, none runs into the next
    assert all(left.x1 <= right.x0 for left, right in zip(titles, titles[1:])), [(b.x0, b.x1) for b in titles]
    _ablation_run(tmp_path, "h200.json", {"gpu_name": "NVIDIA H200", "date": "2026-12-01"}, "cuda")
    assert measurements.reference_ablation_runs(tmp_path)[1] is True


def test_compile_cold_is_slower_than_warm():
    def f(x):
        return torch.tanh(x * 0.5 + 1.0) * x

    x = torch.randn(64, 64)
    out, code, cold, warm = measurements.compile_cold_and_warm(f, x)
    assert torch.allclose(out, f(x), atol=1e-6) and code
    assert cold > warm > 0  # a fresh cache compiles C++ again; a filled one does not


def test_panel_compile_checkbox_label_is_short():
    # the label was cut off with "…" in the panel
    assert len(t("lesson04.compile", "bn")) <= 16 and len(t("lesson04.compile", "en")) <= 16


def test_verdict_keys_have_no_bengali_in_english():
    keys = [k for k in CATALOG if k.startswith("lesson04.v.")]
    assert len(keys) >= 15
    for k in keys:
        assert not re.search("[\\u0980-\\u09ff]", CATALOG[k]["en"]), k


def _overhead(mode, seconds, launches=None, compile_s=None):
    metrics = {}
    if launches:
        metrics.update(launches=launches, us_per_launch=seconds * 1e6 / launches)
    if compile_s is not None:
        metrics["compile_s"] = compile_s
    return bench.Record(f"overhead:{mode}", seconds, params={"mode": mode}, metrics=metrics, noise=dict(QUIET))


def test_overhead_verdicts_on_a_cpu_say_graphs_were_not_measured():
    records = [_overhead("eager", 400e-6, launches=40), _overhead("compile", 100e-6, compile_s=12.0)]
    out = lesson04.overhead_verdicts(records, "cpu", bigger=_rec(500e-6), factor=8)
    assert _keys(out) == ["lesson04.v.overhead_per_call", "lesson04.v.overhead_bound", "lesson04.v.cmp_faster",
                          "lesson04.v.graphs_not_here"]
    assert out[0][1]["us"] == pytest.approx(10.0) and out[1][1]["ratio"] == pytest.approx(1.25)
    assert out[2][1]["ratio"] == pytest.approx(4.0)
    assert "10.0 µs" in t(out[0][0], **out[0][1]) and "1.25" in t(out[1][0], **out[1][1])


def test_overhead_verdicts_when_more_work_costs_more_and_on_a_gpu():
    records = [_overhead("eager", 400e-6, launches=40), _overhead("compile", 200e-6, compile_s=9.0),
               _overhead("reduce-overhead", 50e-6, compile_s=11.0)]
    out = lesson04.overhead_verdicts(records, "cuda", bigger=_rec(3000e-6), factor=8)
    assert _keys(out)[1] == "lesson04.v.overhead_not_bound" and out[-1][1]["what"] == "CUDA Graphs"
    assert out[-1][1]["ratio"] == pytest.approx(4.0) and "lesson04.v.graphs_not_here" not in _keys(out)
    only = _keys(lesson04.overhead_verdicts(records[:1], "cpu", bigger=_rec(420e-6)))
    assert only == ["lesson04.v.overhead_per_call", "lesson04.v.overhead_bound", "lesson04.v.graphs_not_here"]


def test_the_overhead_causes_stand_on_their_timings(capsys):
    records = [_overhead("eager", 400e-6, launches=40)]
    out = lesson04.overhead_verdicts(records, "cpu", bigger=_rec(420e-6, noisy=True))
    assert out[1][2][1].noisy  # "overhead-bound: the proof" stands on the noisy bigger batch
    printed = _say_all(out, capsys)
    assert "overhead-bound" not in printed and "ওভারহেড-সীমিত।" not in printed and "⚠️" in printed


def _stage(stage, seconds, noisy=False, alone=False, **extra):
    params = {"stage": stage, "precision": "bf16" if stage != "fp32" else "fp32", **extra}
    if alone:
        params["alone"] = True
    return bench.Record(f"ablation:{stage}", seconds, params=params, noise=dict(NOISY if noisy else QUIET),
                        metrics={"speedup": 0.044 / seconds, "tokens_per_s": 1 / seconds, "mfu": None})


def test_each_switch_is_also_measured_alone_on_the_fp32_baseline():
    # issue 27: on a CPU bf16 is 14x slower, so "+fused AdamW" stacked on it hides its own effect
    stacked = [_stage("fp32", 0.044), _stage("amp", 0.642), _stage("fused_adamw", 0.640)]
    alone = [_stage("fused_adamw", 0.040, alone=True)]
    out = lesson04.switch_verdicts(stacked, alone)
    said = [(k, v["what"], v["than"], round(v.get("ratio", 1), 2)) for k, v, _ in out if k.startswith("lesson04.v.cmp")]
    amp, fused, fp32 = (tables.stage_label(r) for r in stacked[1:] + stacked[:1])
    assert said[0] == ("lesson04.v.cmp_slower", amp, fp32, 14.59)
    assert said[1][0] == "lesson04.v.cmp_same" and said[1][1] == fused  # stacked on bf16: hidden
    assert said[2] == ("lesson04.v.cmp_faster", fused, fp32, 1.1)       # alone on fp32: seen
    assert _causal(out) == []
    rows = tables.ablation_rows(stacked + alone)
    assert len(rows) == 3 and rows[2][4].startswith("1.1") and rows[1][4] == "=" and rows[0][4] == "—"
    noisy = lesson04.switch_verdicts(stacked, [_stage("fused_adamw", 0.040, noisy=True, alone=True)])
    assert _keys(noisy)[-1] == "lesson04.v.no_cause"


def test_alone_settings_switch_one_thing_on_the_baseline():
    from fastrain_lib.lessons.l04_fused_kernels import ablation

    plan = ablation.ablation_stages("cpu", include_compile=True)
    alone = ablation.alone_settings(plan)
    assert [a["stage"] for a in alone] == ["fused_adamw", "compile"]  # amp alone is the stacked amp itself
    assert alone[0]["precision"] == "fp32" and alone[0]["optimizer"] == "fused" and not alone[0]["compile"]
    assert alone[1]["compile"] and alone[1]["optimizer"] == "foreach" and all(a["alone"] for a in alone)


def test_mfu_is_always_said_with_the_peak_it_divides_by():
    # issue 27: "MFU 56.2%" printed without the peak it divides by
    record = bench.Record("ablation:fp32", 0.044, params={"stage": "fp32", "peak_source": "measured here (fp32 matmul)"},
                          metrics={"mfu": 0.562, "tflops": 0.0562, "peak_tflops": 0.1})
    key, values, _stands_on = lesson04.mfu_line(record)
    text = t(key, "en", **values)
    assert "56.2%" in text and "0.1 TFLOP/s" in text and "measured here" in text
    assert tables.ablation_headers([record])[5] == "MFU (÷ 0.1 TFLOP/s)"
    record.metrics["mfu"] = None
    assert lesson04.mfu_line(record)[0] == "lesson04.v.mfu_unknown"


def test_no_verdict_rule_gives_a_cause_for_a_noisy_row():
    noisy = {"verdict": "noisy", "reasons": ["load"]}
    def bad(r):
        r.noise = dict(noisy)
        return r
    rules = [
        lesson04.adam_verdicts([1, 64], {"forloop": [bad(_rec(1.0)), _rec(9.0)], "fused": [_rec(1.0), _rec(1.5)]}),
        lesson04.gelu_verdicts(chain=_rec(2e-3), library=bad(_rec(1e-3)), chain_bytes=20e6, library_bytes=8e6,
                               flops=4e6, peak_gflops=100, roof_gbs=10),
        lesson04.amp_verdicts([_stage("fp32", 1.0), bad(_stage("amp", 0.5))], "cpu", {"bf16"}),
        lesson04.switch_verdicts([_stage("fp32", 1.0), bad(_stage("amp", 2.0))], []),
    ]
    for out in rules:
        for key, values, stands_on in _causal(out):
            assert key == "lesson04.v.no_cause" or not any(getattr(r, "noisy", False) for r in stands_on), key
        assert "lesson04.v.no_cause" in _keys(out)


def test_variant_backend_and_size_names_are_bengali_in_bengali_mode():
    """Issue 27: identifiers stay English in code; what a Bengali reader sees is a Bengali name
    (forloop, naive, efficient, tiny/small/medium), and names that are terms (foreach, fused, sdpa) stay."""
    for name in ("forloop", "naive", "naive_compiled", "efficient", "unknown", "tiny", "small", "medium"):
        assert re.search("[\u0980-\u09FF]", t(tables.NAME_KEYS[name], "bn")), name
        assert t(tables.NAME_KEYS[name], "en")
    assert tables.shown_name("foreach") == "foreach" and tables.shown_name("sdpa") == "sdpa"


def test_a_verdict_cell_s_one_call_prints_what_its_rules_say(capsys):
    """The # VERDICT cells call say_*: each prints exactly the sentences its rule picks (noisy rows still get
    only the noisy line), and say_compile() with nothing compiled says so instead of staying silent."""
    for rows in ({"forloop": [_rec(1.1), _rec(9.0)], "fused": [_rec(1.0), _rec(1.5)]},
                 {"forloop": [_rec(1.1, noisy=True), _rec(9.0, noisy=True)], "fused": [_rec(1.0), _rec(1.5)]}):
        expected = _say_all(lesson04.adam_verdicts([1, 64], rows), capsys)
        lesson04.say_adam([1, 64], rows)
        printed = capsys.readouterr().out
        if any(r.noisy for r in rows["forloop"]):  # one noisy line for the cell, no ratio from a noisy row
            assert printed.count("⚠️") == 1 and "×" not in printed.replace("লুপ × ", "").replace("fused × ", "")
            assert not any(_sentences.is_finding(line) and "⚠️" not in line for line in printed.splitlines())
        else:
            assert printed == expected and expected
    lesson04.say_compile()
    assert t("lesson04.v.compile_off") in capsys.readouterr().out
    eager, compiled = _rec(2e-3), _rec(1e-3)
    expected = _say_all(lesson04.compile_verdicts(cold_s=9.0, warm_s=0.5, eager=eager, compiled=compiled), capsys)
    lesson04.say_compile(9.0, 0.5, eager, compiled)
    assert capsys.readouterr().out == expected


def _printed_by_every_verdict_cell(noisy: bool, capsys) -> dict[str, list[str]]:
    """What each # VERDICT function prints for one table of rows, every row noisy or every row quiet."""
    r = lambda s, **p: _rec(s, noisy=noisy, **p)
    roof = type("Roof", (), {"peak_gflops": 100.0, "bandwidth_gbs": 10.0, "records": [r(0.1, kernel="copy")]})()
    attn = [bench.Record(f"attention:{v}", s, params={"variant": v, "seq": seq},
                         metrics={"saved_bytes": b * seq, "max_diff": 0.0}, noise=dict(NOISY if noisy else QUIET))
            for seq in (128, 256) for v, s, b in (("naive", 2e-3 * seq, 8 * seq), ("sdpa", 1e-3 * seq, 16))]
    overhead = [bench.Record("overhead:eager", 1e-3, params={"mode": "eager", "batch": 8},
                             metrics={"us_per_launch": 20.0, "launches": 32}, noise=dict(NOISY if noisy else QUIET))]
    bigger = bench.Record("overhead:eager", 1.2e-3, params={"mode": "eager", "batch": 64}, metrics={},
                          noise=dict(NOISY if noisy else QUIET))
    ablation_records = _ablation({"fp32": 1.0, "amp": 0.5, "fused_adamw": 0.45})
    for rec in ablation_records:
        rec.noise = dict(NOISY if noisy else QUIET)
    calls = {
        "gelu": lambda: lesson04.say_gelu(r(6e-3), r(3e-3), chain_bytes=100_000_000, library_bytes=16_000_000,
                                          elements=1_000_000, roof=roof),
        "adam": lambda: lesson04.say_adam([1, 64], {"forloop": [r(1.1, name="forloop × 1"), r(9.0, name="forloop × 64")],
                                                     "foreach": [r(1.3, name="foreach × 1"), r(3.0, name="foreach × 64")],
                                                     "fused": [r(1.0, name="fused × 1"), r(1.5, name="fused × 64")]}),
        "compile": lambda: lesson04.say_compile(9.0, 0.5, r(2e-3), r(1e-3)),
        "attention": lambda: lesson04.say_attention(attn),
        "overhead": lambda: lesson04.say_overhead(overhead, "cpu", bigger=bigger, factor=8),
        "ablation": lambda: lesson04.say_ablation(ablation_records, "cpu"),
    }
    out = {}
    for name, call in calls.items():
        call()
        out[name] = capsys.readouterr().out.splitlines()
    return out


def test_every_verdict_cell_on_noisy_rows_marks_each_finding_and_gives_no_cause(capsys, tmp_path, monkeypatch):
    """Issue 38: fed noisy rows, no verdict function states a ratio, a ranking or a cause without the noisy
    mark on its own line (tests/_sentences.py's rule, read from say()'s audit log: a count stands on no
    timing); the noisy line is printed once per cell and names its rows briefly."""
    import json
    from types import SimpleNamespace

    from fastrain_lib.core import verdicts

    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv(verdicts.LOG_ENV, str(log))
    for name, lines in _printed_by_every_verdict_cell(True, capsys).items():
        assert sum("⚠️" in line for line in lines) == 1, (name, lines)
        records = [json.loads(line) for line in log.read_text().splitlines()]
        cell = SimpleNamespace(index=0, stdout="\n".join(lines), execution_count=None)
        assert not _sentences.unmarked_findings(records, [cell]), (name, lines)
        assert not any(_sentences.CAUSE.search(line) and "⚠️" not in line for line in lines), name
        warning = next(line for line in lines if "⚠️" in line)
        assert "device=" not in warning and "n_params=" not in warning, warning  # short row names


def test_every_verdict_cell_on_quiet_rows_states_its_finding(capsys):
    """The same cells on quiet rows state their findings (a ratio worded faster/slower), with no noisy line."""
    printed = _printed_by_every_verdict_cell(False, capsys)
    for name, lines in printed.items():
        assert not any("⚠️" in line for line in lines), (name, lines)
        if name != "overhead":  # on a CPU the overhead cell states per-call costs, not a ratio
            assert any(_sentences.RATIO.search(line) for line in lines), (name, lines)
