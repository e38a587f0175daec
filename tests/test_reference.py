"""fastrain_lib.measure.reference: one series per run file, labelled with hardware + date + mode."""

import json

import pytest

from fastrain_lib.measure import bench, reference

CPU_META = {"cpu_name": "AMD EPYC", "cpu_cores": 2, "date": "2026-11-30T07:06:31+00:00", "mode": "lab"}
GPU_META = {"cpu_name": "Intel Xeon", "cpu_cores": 16, "gpu_name": "NVIDIA H200", "gpu_count": 1,
            "date": "2026-12-01T05:00:00+00:00", "mode": "full"}


def _run(folder, name, meta, device, gflops32, gflops16, gbs):
    records = [
        bench.Record("matmul fp32 4096", 0.1, params={"family": "matmul", "format": "fp32", "device": device},
                     metrics={"gflops": gflops32}, meta=meta),
        bench.Record("matmul bf16 4096", 0.1, params={"family": "matmul", "format": "bf16", "device": device},
                     metrics={"gflops": gflops16}, meta=meta),
        bench.Record("copy 1", 0.1, params={"family": "copy", "device": device}, metrics={"gbs": gbs}, meta=meta),
    ]
    bench.save_records(records, folder / name)


def test_one_series_per_run_file(tmp_path):
    _run(tmp_path, "cpu_a.json", CPU_META, "cpu", 30, 60, 8)
    _run(tmp_path, "cpu_b.json", dict(CPU_META, date="2026-11-30T07:09:00+00:00"), "cpu", 20, 50, 7)
    (tmp_path / "broken.json").write_text("{not json")
    runs = reference.runs(tmp_path)
    assert [r.path.name for r in runs] == ["cpu_a.json", "cpu_b.json"]  # two runs, same machine: two series
    assert runs[0].label.startswith("AMD EPYC (2 ") and runs[0].label.endswith(" · 2026-11-30 07:06 · lab")
    # Roofs only from fp32 matmuls and copies: the bf16 matmul (60) is not the fp32 roof.
    assert reference.roof(runs[0]) == (30, 8) and reference.roof(runs[1]) == (20, 7)
    assert not reference.has_gpu_results(tmp_path)


def test_gpu_runs_are_named_by_their_gpu(tmp_path):
    _run(tmp_path, "h200.json", GPU_META, "cuda", 60000, 700000, 4300)
    _run(tmp_path, "h200x8.json", dict(GPU_META, gpu_count=8), "cuda", 60000, 700000, 4300)
    runs = reference.runs(tmp_path)
    assert runs[0].label == "NVIDIA H200 · 2026-12-01 05:00 · full"
    assert runs[1].hardware == "NVIDIA H200 ×8"
    assert reference.has_gpu_results(tmp_path)
    assert [len(r.records) for r in reference.runs(tmp_path, family="copy")] == [1, 1]


def test_hardware_names_never_show_a_question_mark(tmp_path):
    assert reference.hardware_name({"gpu_name": "Tesla T4"}) == "Tesla T4"
    assert "?" not in reference.hardware_name({})
    path = tmp_path / "old-run.json"
    path.write_text(json.dumps({"schema": 1, "records": [{"name": "copy 1", "median_s": 0.1, "params": {},
                                                          "metrics": {"gbs": 1.0}, "meta": {}}]}))
    assert reference.runs(tmp_path)[0].hardware == "old-run"  # no names in its meta: the file's name


def test_no_reference_folder_means_no_runs(tmp_path):
    assert reference.runs(tmp_path / "missing") == [] and not reference.has_gpu_results(tmp_path / "missing")


def test_repository_reference_results_are_read():
    for run in reference.runs():  # whatever reference/ holds now (the benchmark helper renews it)
        assert "?" not in run.hardware and run.date


def test_two_ablation_runs_on_one_machine_and_day_stay_two_series(tmp_path):
    # They were keyed by hardware + day + mode, so the second run silently replaced the first.
    from fastrain_lib.measure import bench

    for name, date, ms in (("a.json", "2026-11-30T07:06:31+00:00", 30.0), ("b.json", "2026-11-30T07:09:00+00:00", 40.0)):
        rec = bench.Record(name="ablation fp32", median_s=ms / 1000, params={"experiment": reference.ABLATION_EXPERIMENT},
                           meta=dict(CPU_META, date=date))
        bench.save_records([rec], tmp_path / name)
    series = reference.ablations(tmp_path)
    assert len(series) == 2
    assert sorted(rs[0].median_s for rs in series.values()) == [0.03, 0.04]


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_two_cpus_with_one_name_are_told_apart_by_bf16(lang, monkeypatch):
    """The reference AMD EPYC (no bf16 in hardware) and this machine's AMD EPYC (avx512_bf16) were both
    "AMD EPYC (2 cores)", yet lesson 03's bf16 row differs between them: the name now says which it is, where
    the run recorded it (cpu_bf16), and says nothing where it did not."""
    monkeypatch.setenv("FASTRAIN_LANG", lang)
    epyc = {"cpu_name": "AMD EPYC", "cpu_cores": 2}
    with_bf16 = reference.hardware_name({**epyc, "cpu_bf16": True})
    without = reference.hardware_name({**epyc, "cpu_bf16": False})
    unknown = reference.hardware_name(epyc)
    assert len({with_bf16, without, unknown}) == 3 and all(n.startswith("AMD EPYC (2 ") for n in (with_bf16, without))
    assert "bf16" in with_bf16 and "bf16" in without and "bf16" not in unknown
    assert reference.hardware_name({"gpu_name": "NVIDIA H100", "cpu_name": "AMD EPYC", "cpu_bf16": True}) == "NVIDIA H100"
