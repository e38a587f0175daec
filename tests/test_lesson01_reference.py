"""Lesson 01 reads reference/ per run: one series and one roof per run file, roofs only from
fp32 matmul and copy records, every series named by its hardware (issue 19)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fastrain_lib.measure import bench  # noqa: E402
from fastrain_lib.lessons.l01_gpu_vs_cpu import panel as lesson01  # noqa: E402

CPU = {"cpu_name": "AMD EPYC Test", "cpu_cores": 2, "date": "2026-11-30T07:06:00", "mode": "lab"}


def _run(path, meta, scale=1.0):
    records = [bench.Record(f"matmul {n}", 0.01, params={"size": n, "device": "cpu", "dtype": "float32", "family": "matmul"},
                            metrics={"gflops": scale * n / 8}, meta=meta) for n in (256, 512, 1024)]
    # a bf16 matmul and an optimizer record with a big GB/s: neither may set the fp32 roof
    records.append(bench.Record("matmul 1024 bf16", 0.01, params={"size": 1024, "device": "cpu", "dtype": "bfloat16",
                                "family": "matmul"}, metrics={"gflops": 9999.0}, meta=meta))
    records.append(bench.Record("adamw fused", 0.01, params={"family": "optim"}, metrics={"gbs": 5555.0}, meta=meta))
    records.append(bench.Record("copy 1048576", 0.01, params={"numel": 1 << 20, "family": "copy", "device": "cpu"},
                                metrics={"gbs": 10.0 * scale}, meta=meta))
    bench.save_records(records, path)


def test_two_runs_on_one_machine_stay_two_series_and_two_roofs(tmp_path):
    _run(tmp_path / "cpu-a_20261130-0706_lab.json", CPU)
    _run(tmp_path / "cpu-a_20261130-0906_lab.json", dict(CPU, date="2026-11-30T09:06:00"), scale=0.5)
    series = lesson01.reference_series("matmul", "size", "gflops", folder=tmp_path)
    assert len(series) == 2
    for label, points in series.items():
        assert "AMD EPYC Test" in label and "lab" in label
        assert [x for x, _ in points] == [256, 512, 1024]  # no zig-zag: one run's points only, fp32 only
    fig, ax = plt.subplots()
    assert lesson01.plot_reference(ax, "matmul", "size", "gflops", folder=tmp_path) == 2
    plt.close(fig)
    roofs = lesson01.reference_roofs(folder=tmp_path)
    assert sorted((r.peak_gflops, r.bandwidth_gbs) for r in roofs) == [(64.0, 5.0), (128.0, 10.0)]
    assert all(r.kind == "reference" and "AMD EPYC Test" in r.label for r in roofs)


def test_same_hardware_date_and_mode_still_two_labels(tmp_path):
    _run(tmp_path / "one.json", CPU)
    _run(tmp_path / "two.json", CPU, scale=2.0)
    assert len(lesson01.reference_series("matmul", "size", "gflops", folder=tmp_path)) == 2


def test_a_run_without_copy_has_no_roof(tmp_path):
    records = [bench.Record("matmul 256", 0.01, params={"size": 256, "dtype": "float32", "family": "matmul"},
                            metrics={"gflops": 10.0}, meta=CPU)]
    bench.save_records(records, tmp_path / "r.json")
    assert lesson01.reference_roofs(folder=tmp_path) == []
    assert lesson01.reference_roofs(folder=tmp_path / "missing") == []


def test_setup_says_no_gpu_results_yet_instead_of_promising_them(tmp_path, monkeypatch):
    from fastrain_lib import setup_env
    from fastrain_lib.core import config
    from fastrain_lib.core.i18n import t

    monkeypatch.setattr(config, "reference_dir", lambda: tmp_path)
    _run(tmp_path / "cpu.json", CPU)  # a CPU run only
    report = setup_env.prepare(dry_run=True, colab=False, gpu={}, quiet=True)
    assert t("lesson00.no_gpu_results") in report.messages
    gpu_meta = dict(CPU, gpu_name="NVIDIA H200", gpu_count=1)
    bench.save_records([bench.Record("matmul 8192", 0.01, params={"device": "cuda", "dtype": "float32", "size": 8192},
                                     metrics={"gflops": 5e4}, meta=gpu_meta)], tmp_path / "h200.json")
    report = setup_env.prepare(dry_run=True, colab=False, gpu={}, quiet=True)
    assert t("lesson00.gpu_results", gpus="NVIDIA H200") in report.messages
