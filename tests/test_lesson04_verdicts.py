"""Lesson 04's verdict cells pick their sentence from the measurement and the device's facts:
tested on tables of results (the numbers issue 19 reported among them) and real device
descriptions, so the lesson's words cannot contradict its own plots."""

import re

import pytest
import torch

from fastrain_lib.measure import bench, hardware
from fastrain_lib.core.i18n import CATALOG, t
from fastrain_lib.lessons.l04_fused_kernels import measurements, tables
from fastrain_lib.lessons.l04_fused_kernels import verdicts as lesson04

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
    (key, values), = lesson04.baseline_verdicts("cpu")
    assert key == "lesson04.v.baseline_differs" and values == {"device": "cpu", "default": "forloop"}
    assert "not PyTorch's default" in t(key, "en", **values) and "forloop" in t(key, "en", **values)
    monkeypatch.setattr(lesson04, "default_adam_impl", lambda device: "foreach")
    (key, values), = lesson04.baseline_verdicts("cuda")
    assert key == "lesson04.v.baseline_same" and "is the default" in t(key, "en", **values)


def test_bias_gelu_at_8_8_of_42_gbs_is_compute_bound_and_near_the_roof_memory_bound():
    # issue 19: the chain reached 8.8 GB/s against a 42 GB/s roof, but the text said memory-bound
    assert lesson04.gelu_bound(8.8, 42.0) == "compute"
    assert lesson04.gelu_bound(3500.0, 4300.0) == "memory"  # an H200-like GPU: near its copy roof
    out = lesson04.gelu_verdicts(chain_s=4e-3, library_s=1e-3, chain_bytes=10_000_000, library_bytes=8_800_000,
                                 roof_gbs=42.0)
    assert [k for k, _ in out] == ["lesson04.v.gelu_ratio", "lesson04.v.gelu_compute"]
    assert "8.8 GB/s" in t(out[1][0], **out[1][1]) and "(42 GB/s)" in t(out[1][0], **out[1][1])


def test_adam_3_6x_at_64_and_2_3x_at_1_tensor_is_credited_to_fewer_passes_not_launches():
    # issue 19: the plot showed fused 0.51 vs for-loop 1.82 ms at 64 tensors, 2.3x at 1 tensor,
    # while the text said the variants differ little on a CPU
    times = {"forloop": [0.92, 1.0, 1.82], "foreach": [0.6, 0.7, 0.9], "fused": [0.4, 0.45, 0.51]}
    out = lesson04.adam_verdicts([1, 8, 64], times)
    keys = [k for k, _ in out]
    assert keys == ["lesson04.v.adam_ratio", "lesson04.v.adam_foreach", "lesson04.v.adam_passes"]
    assert "3.6" in t(keys[0], **out[0][1]) and "2.3" in t(keys[0], **out[0][1])


def test_adam_gain_growing_with_tensors_is_credited_to_calls_and_no_gain_is_said():
    grows = lesson04.adam_verdicts([1, 64], {"forloop": [1.1, 9.0], "fused": [1.0, 1.5]})
    assert grows[-1][0] == "lesson04.v.adam_calls"
    flat = lesson04.adam_verdicts([1, 64], {"forloop": [1.0, 1.05], "fused": [1.0, 1.0]})
    assert flat[-1][0] == "lesson04.v.adam_little"


def test_compile_break_even_uses_the_cold_compile():
    # issue 19: "19 calls" came from a warm cache while the text spoke of a first compile
    out = lesson04.compile_verdicts(cold_s=9.5, warm_s=0.4, eager_s=3e-3, compiled_s=1e-3)
    key, values = out[0]
    assert key == "lesson04.v.compile_break_even"
    assert values["calls"] == pytest.approx(4750) and values["warm_calls"] == pytest.approx(200)
    assert lesson04.compile_verdicts(cold_s=9.5, warm_s=0.4, eager_s=1e-3, compiled_s=1e-3)[0][0] == "lesson04.v.compile_no_gain"


def _ablation(times: dict[str, float], precision="bf16", mfu=0.05):
    return [bench.Record(name=f"ablation:{stage}", median_s=s, params={"stage": stage, "precision": precision},
                         metrics={"mfu": mfu if stage == "fp32" else None}) for stage, s in times.items()]


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
    assert out[0][0] == "lesson04.v.amp_factor" and out[0][1]["factor"] == pytest.approx(factor)
    assert out[1][0] == key
    text = hardware.t(out[1][0], lang="en", **out[1][1])
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
    (key, values), = lesson04.amp_measured_why(slower, profile=fake)
    assert profiled == ["fp32", "amp", "fp32", "amp"] and key == "launches.why_op_grew_mm_faster"
    assert values["op"] == "aten::_scaled_dot_product_flash_attention_for_cpu_backward"
    assert "6.00 to 3.10 ms" in hardware.t(key, lang="en", **values)
    profiled.clear()
    assert lesson04.amp_measured_why(_ablation({"fp32": 1.0, "amp": 0.5, "fused_adamw": 0.45}), profile=fake) == []
    assert lesson04.amp_measured_why(_ablation({"fp32": 1.0, "amp": 1.02}), profile=fake) == []  # within ±5%
    assert profiled == []  # nothing slower: nothing profiled


def test_stage_op_times_profiles_the_stage_that_was_measured():
    from fastrain_lib.fused import ablation

    records = ablation.ablation("cpu", stages=["fp32", "amp"], include_compile=False, steps=2, warmup=1)
    fp32, amp = (ablation.stage_op_times(r, calls=2) for r in records)
    assert {"aten::mm", "aten::addmm"} & set(fp32) and all(v > 0 for v in fp32.values())
    assert set(fp32) & set(amp) and fp32 != amp


def test_amp_on_a_t4_is_fp16_and_compared_with_the_tf32_stage_before_it():
    records = _ablation({"fp32": 1.0, "tf32": 1.0, "amp": 0.4}, precision="fp16")
    out = lesson04.amp_verdicts(records, "cuda", hardware.fast_formats(T4))
    assert out[0][1]["factor"] == pytest.approx(2.5) and out[1][0] == "lesson04.v.amp_native_fast"


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
    fig = tables.ablation_figure(_ablation({"fp32": 1.0, "amp": 1.0}), runs)
    assert len(fig.axes) == 3  # this machine + one panel per run
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
    return bench.Record(f"overhead:{mode}", seconds, params={"mode": mode}, metrics=metrics)


def test_overhead_verdicts_on_a_cpu_say_graphs_were_not_measured():
    records = [_overhead("eager", 400e-6, launches=40), _overhead("compile", 100e-6, compile_s=12.0)]
    out = lesson04.overhead_verdicts(records, "cpu", bigger=500e-6, factor=8)
    keys = [k for k, _ in out]
    assert keys == ["lesson04.v.overhead_per_call", "lesson04.v.overhead_bound", "lesson04.v.overhead_compile",
                    "lesson04.v.graphs_not_here"]
    assert out[0][1]["us"] == pytest.approx(10.0) and out[1][1]["ratio"] == pytest.approx(1.25)
    assert out[2][1]["ratio"] == pytest.approx(4.0)
    assert "10.0 µs" in t(keys[0], **out[0][1]) and "1.25" in t(keys[1], **out[1][1])


def test_overhead_verdicts_when_more_work_costs_more_and_on_a_gpu():
    records = [_overhead("eager", 400e-6, launches=40), _overhead("compile", 200e-6, compile_s=9.0),
               _overhead("reduce-overhead", 50e-6, compile_s=11.0)]
    out = lesson04.overhead_verdicts(records, "cuda", bigger=3000e-6, factor=8)
    keys = [k for k, _ in out]
    assert keys[1] == "lesson04.v.overhead_not_bound" and keys[-1] == "lesson04.v.graphs_gain"
    assert out[-1][1]["ratio"] == pytest.approx(4.0) and out[-1][1]["eager_ratio"] == pytest.approx(8.0)
    assert "lesson04.v.graphs_not_here" not in keys
    # eager only (ci mode): the per-call cost and the proof, nothing about compiling
    only = [k for k, _ in lesson04.overhead_verdicts(records[:1], "cpu", bigger=420e-6)]
    assert only == ["lesson04.v.overhead_per_call", "lesson04.v.overhead_bound", "lesson04.v.graphs_not_here"]
