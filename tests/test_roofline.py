"""fastrain_lib.measure.roofline: counting FLOPs and bytes, roofs from three sources, the plot."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest
import torch

from fastrain_lib.measure import bench, hardware, roofline


@pytest.fixture(autouse=True)
def ci_mode(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")


def test_counts():
    assert roofline.matmul_flops(10) == 2000
    assert roofline.matmul_bytes(10, 4) == 1200
    assert roofline.matmul_intensity(3000, 4) == pytest.approx(500.0)
    assert roofline.add_intensity(4) == pytest.approx(1 / 12)
    # Doubling n doubles the intensity: bigger matmuls are more compute-bound.
    assert roofline.matmul_intensity(2048) == pytest.approx(2 * roofline.matmul_intensity(1024))


def test_roof_and_bound():
    roof = roofline.Roof("x", peak_gflops=1000, bandwidth_gbs=100)
    assert roof.ridge == 10
    assert roof.attainable(1) == 100
    assert roof.attainable(50) == 1000
    assert roofline.bound(20, 1000, 100) == "compute"
    assert roofline.bound(2, 1000, 100) == "memory"
    # The T4 datasheet: an elementwise add is memory-bound, a big fp32 matmul compute-bound.
    t4 = hardware.DATASHEET["T4"]
    assert roofline.bound(roofline.add_intensity(), t4.tflops_fp32 * 1000, t4.bandwidth_gbs) == "memory"
    assert roofline.bound(roofline.matmul_intensity(4096), t4.tflops_fp32 * 1000, t4.bandwidth_gbs) == "compute"


def test_datasheet_roofs_are_labelled():
    roofs = roofline.datasheet_roofs()
    assert [r.kind for r in roofs] == ["datasheet"] * 3
    assert roofs[0].peak_gflops == pytest.approx(8100) and roofs[0].bandwidth_gbs == 320
    for roof, key in zip(roofs, ("T4", "A100", "H100")):
        assert key in roof.label and hardware.DATASHEET[key].source in roof.label
    fp16 = roofline.datasheet_roofs(("A100",), precision="fp16")[0]
    assert fp16.peak_gflops == pytest.approx(312_000)


def test_measured_roof_is_the_measured_ceilings():
    roof = roofline.measured_roof("cpu")
    matmuls = [r for r in roof.records if r.name.startswith("matmul")]
    streams = [r for r in roof.records if "kernel" in r.params]
    n, numel = roofline.peak_sizes("cpu")
    assert [r.params["size"] for r in matmuls] == [n // 2, n]
    # all four streaming kernels over the same large tensor, as the suite's ceiling (benchmarks/copy.py)
    assert sorted(r.params["kernel"] for r in streams) == sorted(bench.BANDWIDTH_KERNELS)
    assert {r.params["numel"] for r in streams} == {numel}
    # the roof is re-derived from the measured times: the best matmul and the best streaming kernel
    # (a copy alone reads low where the CPU reads the destination before writing it)
    assert roof.peak_gflops == max(roofline.matmul_flops(r.params["size"]) / r.median_s / 1e9 for r in matmuls)
    assert roof.bandwidth_gbs == pytest.approx(
        max(bench.BANDWIDTH_KERNELS[r.params["kernel"]] * numel * 4 / r.median_s / 1e9 for r in streams))
    assert roof.kind == "measured" and roof.noisy == any(r.noisy for r in roof.records)


def test_a_noisy_roof_says_so_on_the_plot():
    import matplotlib.pyplot as plt

    busy = bench.Record("matmul 256", 0.01, noise={"verdict": "noisy", "reasons": ["load"]})
    fig, ax = plt.subplots()
    roofline.plot(ax, [roofline.Roof("here", 50, 10, "measured", [busy]), roofline.Roof("quiet", 50, 10)])
    labels = [text.get_text() for text in fig.legends[0].get_texts()]  # under the plot, not over its points
    assert labels[0].startswith("⚠ here") and labels[1] == "quiet"
    plt.close(fig)


def test_plot_draws_every_roof_and_point():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    roofs = [roofline.Roof("here", 50, 10)] + roofline.datasheet_roofs()
    roofline.plot(ax, roofs, [("n=256", 40.0, 30.0), ("a+b", 1 / 12, 0.5)])
    assert len(fig.legends[0].get_texts()) == len(roofs) and ax.get_legend() is None
    assert len(ax.lines) == len(roofs) + 2
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    plt.close(fig)


def test_matmul_record_matches_flop_count():
    record = bench.matmul(64)
    assert record.metrics["gflops"] == pytest.approx(roofline.matmul_flops(64) / record.median_s / 1e9)
    # measured with as many of torch's threads as fit beside other work (issue 38), torch's count kept beside
    wanted = torch.get_num_threads()
    assert record.noise["threads"] <= wanted and record.noise.get("threads_wanted", wanted) == wanted


# ---- lesson 01's measurements and panel (fastrain_lib.lessons.l01_gpu_vs_cpu.panel), which draw on the roofline


def test_thread_counts():
    from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01

    assert lesson01.thread_counts(1) == [1]
    assert lesson01.thread_counts(2) == [1, 2]
    assert lesson01.thread_counts(16) == [1, 2, 4, 8, 16]
    assert lesson01.thread_counts(12) == [1, 2, 4, 8, 12]


def test_thread_scaling_restores_the_thread_count():
    from fastrain_lib.lessons.l01_gpu_vs_cpu import saved

    before = torch.get_num_threads()
    records = [saved.time_matmul(32, threads=n) for n in (1, 2)]
    assert torch.get_num_threads() == before
    assert [r.params["threads"] for r in records] == [1, 2]
    with pytest.raises(ZeroDivisionError):
        saved.timed(lambda: 1 / 0, "boom", threads=1)
    assert torch.get_num_threads() == before  # restored even after an error


def test_add_and_batch_metrics_are_consistent():
    from fastrain_lib.lessons.l01_gpu_vs_cpu import saved

    add = saved.time_add(4096)
    assert add.metrics["gbs"] == pytest.approx(3 * 4096 * 4 / add.median_s / 1e9)
    step = saved.batch_throughput(8)
    assert step.params["batch_size"] == 8
    assert step.metrics["samples_per_s"] == pytest.approx(8 / step.median_s)


def test_panel_changes_with_controls_and_restores_threads():
    from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01

    before = torch.get_num_threads()
    panel = lesson01.make()
    first = panel.run(size=128, dtype="fp32", devices=("cpu",), threads=1)
    assert panel.last_error is None and first.figure is not None
    assert [row[1] for row in first.rows] == [64, 128] and all(row[2] == 1 for row in first.rows)
    second = panel.run(dtype="bf16")
    assert second is not first and second.figure is not first.figure
    assert all(r.params["dtype"] == "bfloat16" for r in second.records)
    assert torch.get_num_threads() == before


def test_reference_overlay(tmp_path):
    import matplotlib.pyplot as plt

    from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01

    fig, ax = plt.subplots()
    assert lesson01.plot_reference(ax, "matmul", "size", "gflops", folder=tmp_path) == 0
    meta = {"gpu_name": "NVIDIA Test GPU", "date": "2026-01-02T00:00:00"}
    records = [bench.Record(f"matmul {n}", 0.01, params={"size": n, "device": "cuda", "dtype": "float32"},
                            metrics={"gflops": float(n)}, meta=meta) for n in (256, 512)]
    bench.save_records(records, tmp_path / "ref.json")
    assert lesson01.plot_reference(ax, "matmul", "size", "gflops", folder=tmp_path) == 1
    assert "NVIDIA Test GPU" in ax.lines[-1].get_label()
    assert list(ax.lines[-1].get_xdata()) == [256, 512]
    plt.close(fig)


def test_a_point_above_its_roof_is_ringed_and_marked():
    """Issue 27: a matmul at '288% of the peak' stood on the plot like any other point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01

    roof = roofline.Roof("here", 37.4, 9.6)
    matmuls = [bench.Record(f"matmul {n}", 0.01, params={"size": n, "device": "cpu"}, metrics={"gflops": g},
                            noise={"verdict": "quiet", "reasons": []}) for n, g in ((64, 5.0), (256, 97.8))]
    adds = [bench.Record("add 1024", 0.01, params={"numel": 1024, "device": "cpu"}, metrics={"gflops": 0.5, "gbs": 6.0},
                         noise={"verdict": "noisy", "reasons": ["load"]})]
    fig = lesson01.roofline_figure([roof], matmuls, adds)
    ax = fig.axes[0]
    texts = [a.get_text() for a in ax.texts]
    assert texts == ["64²", "⚠ 256²", "⚠ a+b"]  # above its roof; noisy
    rings = [line for line in ax.lines if line.get_markersize() == 14]
    assert len(rings) == 2
    plt.close(fig)


def test_the_cache_size_is_read_or_unknown():
    from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01

    size = lesson01.cache_bytes()
    assert size is None or size >= 32 * 1024  # at least an L1 cache when it can be read
