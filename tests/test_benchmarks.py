"""The benchmark suite: every reference/ file is a quiet, self-consistent suite output; a tiny
run of the suite writes such a file; every family runs in its tiny (ci) size; the suite will
not write into reference/ while a real CPU hog runs; two runs can be compared."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

from benchmarks import FAMILIES, ceilings, headlines, interleave, schema, suite
from fastrain_lib.measure import bench, noise

REFERENCE = Path(__file__).resolve().parent.parent / "reference"
REFERENCE_FILES = sorted(REFERENCE.glob("*.json"))


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=[p.name for p in REFERENCE_FILES])
def test_reference_file_is_valid_quiet_suite_output(path):
    assert schema.problems(path) == []


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=[p.name for p in REFERENCE_FILES])
def test_reference_metrics_re_derive_from_median_and_stay_under_the_ceiling(path):
    payload = json.loads(path.read_text(encoding="utf-8"))
    peaks = payload["run"]["ceilings"]["matmul_gflops"]
    for r in payload["records"]:
        if r["params"]["family"] == "matmul":
            gflops = 2 * r["params"]["size"] ** 3 / r["median_s"] / 1e9
            assert gflops == pytest.approx(r["metrics"]["gflops"], rel=1e-9)
            assert gflops <= peaks[r["params"]["format"]] * (1 + 1e-9)
        for share, slack in (("share_of_peak", schema.CEILING_SLACK), ("share_of_bandwidth", schema.BANDWIDTH_SLACK)):
            if r["metrics"].get(share) is not None:
                assert 0 < r["metrics"][share] <= slack, (r["name"], share)


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=[p.name for p in REFERENCE_FILES])
def test_reference_mfu_divides_by_the_runs_own_measured_ceiling(path):
    """Every training record's MFU = tokens/s × FLOPs per token ÷ its peak, and a CPU's (measured)
    peak is what the same run's matmul reached with all its threads: the capstone and DDP records
    of all three files of 2026-12-01 morning divided by a one-thread peak (MFU 88% instead of 46%)."""
    payload = json.loads(path.read_text(encoding="utf-8"))
    peaks = payload["run"]["ceilings"]["matmul_gflops"]
    training = [r for r in payload["records"] if r["metrics"].get("mfu") is not None and "peak_flops" in r["metrics"]]
    ran = {name for name, info in payload["run"]["families"].items() if info.get("status") == "ok"}
    # a run of some families (README: --only) has none; one whose capstone family ran has them
    assert bool(training) == bool(ran & {"capstone", "ddp"}), "an MFU record is missing, or appeared from nowhere"
    for r in training:
        m = r["metrics"]
        assert m["mfu"] == pytest.approx(m["tokens_per_s"] * m["flops_per_token"] / m["peak_flops"], rel=1e-9)
        if m["peak_kind"] == "measured":
            ceiling = max(peaks.get(r["params"].get("precision", "fp32")) or 0, peaks["fp32"]) * 1e9
            assert 1 / schema.MFU_PEAK_SLACK <= m["peak_flops"] / ceiling <= schema.MFU_PEAK_SLACK, r["name"]
        assert 0 < m["mfu"] <= 1, r["name"]


def test_the_check_rejects_a_one_thread_peak_and_rederive_fixes_only_the_mfu(tmp_path):
    """The morning's AMD EPYC file as committed then (peak 92.5 GFLOP/s on one thread, ceiling 178.8
    with two): --check names its five training records; --rederive-mfu recomputes peak_flops and mfu
    from the file's own ceiling, leaves every measurement alone and says so in run.rederived."""
    import subprocess

    from benchmarks import rederive

    name = "cpu-amd-epyc-2c_20261201-0751_lab"
    root = REFERENCE.parent
    original = subprocess.run(["git", "show", f"8c1ff6a:reference/{name}.json"], cwd=root, capture_output=True,
                              text=True)
    if original.returncode != 0:
        pytest.skip("no git history here (an sdist): the committed original cannot be read")
    path = tmp_path / f"{name}.json"
    path.write_text(original.stdout, encoding="utf-8")
    (tmp_path / f"{name}.log").write_text((REFERENCE / f"{name}.log").read_text(encoding="utf-8"), encoding="utf-8")
    flagged = [p for p in schema.problems(path) if "measured matmul ceiling" in p]
    assert len(flagged) == 5 and all("92.51 GFLOP/s" in p or "88.3 GFLOP/s" in p or "91.83 GFLOP/s" in p
                                     for p in flagged)
    before = json.loads(path.read_text(encoding="utf-8"))
    changed = rederive.rederive_mfu(path)
    after = json.loads(path.read_text(encoding="utf-8"))
    assert schema.problems(path) == []
    assert changed == ["capstone fp32 fused x1", "capstone bf16 fused x1", "capstone fp16 fused x1", "ddp x1", "ddp x2"]
    assert after["run"]["rederived"][0]["records"] == changed
    for old, new in zip(before["records"], after["records"]):
        assert old["median_s"] == new["median_s"] and old["times_s"] == new["times_s"]
        touched = {k for k in old["metrics"] if old["metrics"][k] != new["metrics"][k]}
        assert touched <= {"mfu", "peak_flops"} and (not touched or old["name"] in changed)
    fp32 = next(r for r in after["records"] if r["name"] == "capstone fp32 fused x1")["metrics"]
    assert fp32["mfu"] == pytest.approx(0.4567, abs=1e-4)  # was 0.8828
    assert rederive.rederive_mfu(path) == []  # nothing left to do: a second call changes nothing
    assert path.with_suffix(".json").read_text(encoding="utf-8") == json.dumps(after, ensure_ascii=False, indent=1)


def test_reference_holds_only_suite_output():
    assert schema.stray_files(REFERENCE) == []
    assert (REFERENCE / "README.md").is_file()
    logs = {p.name for p in REFERENCE.glob("*.log")}
    assert logs == {p.with_suffix(".log").name for p in REFERENCE_FILES}  # no orphan logs either


@pytest.fixture
def smoke(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.setenv("FASTRAIN_RESULTS", str(tmp_path / "results"))
    out = tmp_path / "out"
    rc = suite.main(["--only", "matmul,copy", "--out", str(out), "--mode", "ci"])
    return rc, out


def noise_problems(found: list[str]) -> list[str]:
    return [p for p in found if "noisy" in p or "verdict" in p or p.startswith("file name")]


def test_smoke_run_writes_a_valid_file_and_log(smoke):
    rc, out = smoke
    assert rc == 0  # not reference/: a noisy run is written there too, marked
    (path,) = out.glob("*.json")
    payload = json.loads(path.read_text(encoding="utf-8"))
    found = schema.problems(path)
    if payload["run"]["verdict"] == "quiet":
        assert found == [] and not path.stem.endswith("-noisy")
    else:  # on a busy machine the only problems are the noise ones, and the name says so
        assert path.stem.endswith("-noisy") and found == noise_problems(found) != []
    assert payload["run"]["command"].endswith("python -m benchmarks --only matmul,copy --out "
                                              f"{out} --mode ci")
    assert set(payload["run"]["families"]) == {"matmul", "copy"}
    names = {r["name"] for r in payload["records"]}
    assert {"matmul fp32 128", "matmul bf16 128"} <= names
    for r in payload["records"]:  # every metric re-derived from the median time
        assert r["noise"]["verdict"] in ("quiet", "noisy")
        if r["params"]["family"] == "matmul":
            assert r["metrics"]["gflops"] == pytest.approx(2 * 128**3 / r["median_s"] / 1e9)
            best = payload["run"]["ceilings"]["matmul_gflops"][r["params"]["format"]]
            assert r["metrics"]["share_of_peak"] == pytest.approx(r["metrics"]["gflops"] / best)
        else:  # bytes read + written per element: copy 2, in-place scale 2, in-place add 3, sum 1
            per_element = {"copy": 2, "scale": 2, "add": 3, "sum": 1}[r["params"]["kernel"]]
            assert r["metrics"]["gbs"] == pytest.approx(per_element * (1 << 18) * 4 / r["median_s"] / 1e9)
    assert {r["params"].get("kernel") for r in payload["records"] if r["params"]["family"] == "copy"} == \
        {"copy", "scale", "add", "sum"}
    assert payload["run"]["ceilings"]["copy_gbs"] == max(r["metrics"]["gbs"] for r in payload["records"]
                                                         if r["params"]["family"] == "copy")
    assert payload["run"]["verdict"] == ("noisy" if any(r["noise"]["verdict"] == "noisy"
                                                        for r in payload["records"]) else "quiet")
    assert "matmul" in path.with_suffix(".log").read_text(encoding="utf-8")


def test_validator_catches_broken_files(smoke):
    _, out = smoke
    (path,) = out.glob("*.json")
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload["records"][0]["median_s"] = -1
    payload["run"]["meta"].pop("torch")
    payload["run"]["meta"]["hostname"] = "lab-pc-7"
    payload["records"][1]["noise"] = {}
    payload["records"][2]["metrics"]["gflops"] *= 3  # a hand-edited number
    bad = out / path.name
    bad.write_text(json.dumps(payload), encoding="utf-8")
    found = " | ".join(schema.problems(bad))
    assert "median_s" in found and "'torch'" in found and "hostname" in found
    assert "no noise information" in found and "is not 2·n³/median_s" in found
    renamed = out / "my results.json"
    path.rename(renamed)
    assert any("file name" in p for p in schema.problems(renamed))
    (out / "notes.txt").write_text("x")
    assert schema.stray_files(out) == ["notes.txt"]


def test_check_rejects_files_without_noise_information(smoke, capsys):
    _, out = smoke
    (path,) = out.glob("*.json")
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload["schema"] = 1  # a file from before noise was measured
    for r in payload["records"]:
        r.pop("noise")
    del payload["run"]["verdict"], payload["run"]["noise"]
    path.write_text(json.dumps(payload), encoding="utf-8")
    assert suite.main(["--check", str(path)]) == 1
    text = capsys.readouterr().out
    assert "schema is 1" in text and "no noise information" in text and "run lacks 'verdict'" in text


def test_a_broken_family_does_not_lose_the_others(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.setitem(FAMILIES, "copy", "benchmarks.no_such_module")
    rc = suite.main(["--only", "copy,matmul", "--out", str(tmp_path)])
    assert rc == 1
    (path,) = tmp_path.glob("*.json")
    payload = json.loads(path.read_text(encoding="utf-8"))
    assert payload["run"]["families"]["copy"]["status"] == "failed"
    assert payload["run"]["families"]["matmul"]["status"] == "ok" and payload["records"]


def test_unknown_family_is_refused():
    with pytest.raises(SystemExit, match="unknown family"):
        suite.main(["--only", "warp-drive", "--out", "/nonexistent"])


def test_ceilings_are_measured_first():
    assert suite.selected("optim", "") == ["matmul", "copy", "optim"]
    assert suite.selected("amp,matmul", "copy") == ["matmul", "amp"]  # skipped on purpose: not added back
    assert suite.selected("matmul", "") == ["matmul"]


def test_hardware_slug_has_no_host_name():
    meta = {"gpu_name": "NVIDIA H100 80GB HBM3", "gpu_count": 8, "cpu_name": "x", "cpu_cores": 2}
    assert suite.hardware_slug(meta) == schema.hardware_slug(meta) == "nvidia-h100-80gb-hbm3-x8"
    assert suite.hardware_slug({"cpu_name": "Intel(R) Xeon(R) CPU @ 2.20GHz", "cpu_cores": 2}) == "cpu-intel-xeon-2c"


def test_schema_does_not_import_the_suite():
    # benchmarks.schema <-> benchmarks.suite used to import each other; the validator needs no torch
    import subprocess
    import sys

    code = "import sys, benchmarks.schema; print('benchmarks.suite' in sys.modules, 'torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------- interleaving and agreement


def test_variants_are_measured_interleaved_and_speedup_is_the_median_of_round_ratios():
    order = []
    # A takes 10 ms each round; B takes 5, 5, then 20 ms (a burst of load in round 3)
    times = {"A": iter([0.010, 0.010, 0.010]), "B": iter([0.005, 0.005, 0.020])}

    def variant(name):
        def once():
            order.append(name)
            return bench.Record(name, next(times[name]), times_s=[0.0], noise={"verdict": "quiet", "reasons": []})
        return once

    records = interleave.run({"A": variant("A"), "B": variant("B")}, 3, baseline="A")
    assert order == ["A", "B", "A", "B", "A", "B"]
    b = records["B"]
    assert b.metrics["speedup_rounds"] == pytest.approx([2.0, 2.0, 0.5])
    assert b.metrics["speedup"] == pytest.approx(2.0)  # the burst does not decide the answer
    assert b.metrics["speedup_spread"] == pytest.approx(1.5 / 2.0)
    assert b.median_s == pytest.approx(0.005) and records["A"].metrics["speedup"] == 1.0


def test_one_noisy_round_makes_the_variant_noisy():
    infos = [{"verdict": "quiet", "reasons": [], "other_cores": 0.1},
             {"verdict": "noisy", "reasons": ["load"], "other_cores": 1.7}]
    merged = interleave.merge_noise(infos)
    assert merged["verdict"] == "noisy" and merged["other_cores"] == 1.7 and merged["noisy_rounds"] == 1


def test_a_minority_of_disturbed_rounds_does_not_make_the_median_noisy():
    quiet = {"verdict": "quiet", "reasons": [], "other_cores": 0.05}
    burst = {"verdict": "noisy", "reasons": ["spread"], "other_cores": 0.17, "spread": 0.31}
    one_of_five = interleave.merge_noise([quiet, quiet, burst, quiet, quiet], round_spread=0.05)
    assert one_of_five["verdict"] == "quiet" and one_of_five["noisy_rounds"] == 1
    assert one_of_five["reasons"] == [] and one_of_five["round_reasons"] == ["spread"]
    three_of_five = interleave.merge_noise([burst, quiet, burst, burst, quiet], round_spread=0.05)
    assert three_of_five["verdict"] == "noisy" and three_of_five["reasons"] == ["spread"]
    # every round quiet, but their medians drift apart (31 ms ... 45 ms): the number is not stable
    drifting = interleave.merge_noise([quiet] * 5, round_spread=0.41)
    assert drifting["verdict"] == "noisy" and drifting["reasons"] == ["rounds"]
    text = noise.sentence(drifting, "en")
    assert "5 interleaved rounds differ by 41%" in text and "25%" in text


def test_interleaved_record_is_noisy_when_its_round_medians_disagree():
    def variant(times):
        it = iter(times)
        return lambda: bench.Record("v", next(it), times_s=[0.01] * 5, params={}, meta={},
                                    noise={"verdict": "quiet", "reasons": []})
    stable = interleave.run({"A": variant([0.010, 0.011, 0.010, 0.010, 0.0105])}, 5)["A"]
    one_slow_round = interleave.run({"A": variant([0.0057, 0.0035, 0.0036, 0.0034, 0.0036])}, 5)["A"]
    assert one_slow_round.noise["verdict"] == "quiet"  # the median of five is 3.5 ms either way
    drifting = interleave.run({"A": variant([0.030, 0.034, 0.040, 0.046, 0.052])}, 5)["A"]
    assert stable.noise["verdict"] == "quiet"
    assert drifting.noise["verdict"] == "noisy" and drifting.noise["round_spread"] == pytest.approx(0.012 / 0.040)


def test_shares_of_the_ceiling():
    ceil = {"matmul_gflops": {"fp32": 100.0, "bf16": 20.0}, "copy_gbs": 10.0}
    mm = bench.Record("matmul bf16 512", 1.0, params={"family": "matmul", "format": "bf16"}, metrics={"gflops": 10.0})
    step = bench.Record("amp bf16", 0.1, params={"family": "amp", "precision": "bf16"},
                        metrics={"tokens_per_s": 1000.0, "flops_per_token": 5e7})
    optim = bench.Record("adamw fused", 0.1, params={"family": "optim"}, metrics={"gbs": 4.0})
    ceilings.apply([mm, step, optim], ceil)
    assert mm.metrics["share_of_peak"] == pytest.approx(0.5)  # its own format's peak
    # a training step: 50 GFLOP/s against the better of bf16 and fp32 peaks (a CPU emulates bf16)
    assert step.metrics["share_of_peak"] == pytest.approx(0.5)
    assert optim.metrics["share_of_bandwidth"] == pytest.approx(0.4)


def _payload(values: dict[str, float]) -> dict:
    records = [
        {"name": "matmul fp32 512", "median_s": 1.0, "params": {"family": "matmul", "format": "fp32"},
         "metrics": {"gflops": values["peak"]}},
        {"name": "copy", "median_s": 1.0, "params": {"family": "copy"}, "metrics": {"gbs": values["copy"]}},
        {"name": "adamw fused", "median_s": values["adam"], "params": {"family": "optim", "impl": "fused"},
         "metrics": {}},
        {"name": "amp bf16", "median_s": 1.0, "params": {"family": "amp", "precision": "bf16", "baseline": "fp32"},
         "metrics": {"speedup": values["amp"]}},
    ]
    return {"schema": 2, "run": {"verdict": "quiet"}, "records": records}


def test_compare_reports_agreement_per_headline_figure(tmp_path, capsys):
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps(_payload({"peak": 100, "copy": 10, "adam": 0.002, "amp": 1.5})))
    b.write_text(json.dumps(_payload({"peak": 90, "copy": 11, "adam": 0.0022, "amp": 1.4})))
    c.write_text(json.dumps(_payload({"peak": 60, "copy": 11, "adam": 0.0022, "amp": 1.4})))
    assert suite.main(["--compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "4/4 figures agree within 25%" in text and "matmul peak fp32" in text and "adamw fused time" in text
    assert suite.main(["--compare", str(a), str(c)]) == 1
    text = capsys.readouterr().out
    assert "3/4 figures agree" in text
    [line] = [ln for ln in text.splitlines() if ln.startswith("matmul peak fp32")]
    assert line.endswith("✗") and "1.667" in line
    rows = headlines.headlines(_payload({"peak": 100, "copy": 10, "adam": 0.002, "amp": 1.5})["records"])
    assert rows == {"matmul peak fp32": 100, "memory bandwidth": 10, "adamw fused time": pytest.approx(2.0),
                    "amp bf16 speed-up": 1.5}


# ---------------------------------------------------------------- every family, tiny


@pytest.fixture
def ctx(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    from benchmarks.common import make_context

    context = make_context(log=lambda line: None)
    context.ceilings = {"matmul_gflops": {"fp32": 1e6, "bf16": 1e6, "fp16": 1e6}, "copy_gbs": 1e6}
    return context


def _check_records(records, family):
    assert records, family
    for r in records:
        assert r.median_s > 0 and math.isfinite(r.median_s), r.name
        assert {"verdict", "other_cores", "threads"} <= r.noise.keys(), r.name
        if "tokens_per_step" in r.metrics:
            assert r.metrics["tokens_per_s"] == pytest.approx(r.metrics["tokens_per_step"] / r.median_s)
        if "speedup_rounds" in r.metrics:
            assert r.metrics["speedup"] == pytest.approx(statistics.median(r.metrics["speedup_rounds"]))


@pytest.mark.parametrize("family", ["optim", "layernorm", "amp", "ablation"])
def test_family_runs_in_ci_size(ctx, family):
    records = suite.run_family(family, ctx)
    _check_records(records, family)
    assert all(len(r.metrics["speedup_rounds"]) == ctx.rounds for r in records)  # interleaved rounds
    assert any(r.metrics["speedup_rounds"] == [1.0] * ctx.rounds for r in records)  # the baseline itself


@pytest.mark.slow
def test_compile_family_warms_up_until_nothing_recompiles(ctx):
    records = {r.params["compile"]: r for r in suite.run_family("compile", ctx)}
    compiled, eager = records[True], records[False]
    _check_records([compiled, eager], "compile")
    assert compiled.metrics["compiles"] >= 1 and compiled.metrics["recompiles_timed"] == 0
    assert compiled.metrics["compile_s"] > 5 * compiled.median_s  # compiling is not in the step time
    assert "recompile" not in compiled.noise["reasons"]


@pytest.mark.slow
@pytest.mark.parametrize("family", ["capstone", "ddp", "allreduce", "zero"])
def test_process_families_run_in_ci_size(ctx, family):
    records = suite.run_family(family, ctx)
    _check_records(records, family)
    if family == "allreduce":  # lesson 05b's fit, on the lesson's processes: 2 ranks of gloo, one thread each
        (record,) = records
        from fastrain_lib.distributed import cost_model

        fit = cost_model.fit(list(zip(record.params["sizes_bytes"], record.times_s)), 2)
        assert record.params["processes"] == 2 and record.params["backend"] == "gloo"
        assert (record.metrics["alpha_s"], record.metrics["beta_s_per_byte"]) == (fit.alpha_s, fit.beta_s_per_byte)
        assert record.median_s == dict(zip(record.params["sizes_bytes"], record.times_s))[record.params["nbytes"]]
        assert record.metrics["max_fit_error"] == max(fit.relative_errors())
    if family == "zero":  # lesson 05c's table, row by row: each stage holds what its formula says, trains as DDP
        from fastrain_lib.distributed import zero

        by = {r.params["strategy"]: r for r in records}
        assert set(by) == set(zero.STRATEGIES) and {r.params["processes"] for r in records} == {2}
        assert by["zero3"].metrics["params_bytes"] < by["ddp"].metrics["params_bytes"]  # FSDP shards the weights
        assert by["zero1"].metrics["optim_bytes"] < by["ddp"].metrics["optim_bytes"]
        for r in records:  # the slowest rank's median step, its warm-up step left out; the same training
            assert r.median_s == statistics.median(r.times_s[1:]) and r.metrics["max_error"] < 1e-4, r.name
    if family == "ddp":
        assert [r.params["processes"] for r in records] == [1, 2]
        assert records[0].metrics["scaling_efficiency"] == 1.0
        assert records[1].params["backend"] == "gloo" and records[1].params["threads_per_process"] >= 1


def test_ddp_never_calls_two_processes_on_one_gpu_scaling(ctx, monkeypatch):
    from benchmarks import ddp
    from benchmarks.common import Skip
    from fastrain_lib.measure import hardware

    ctx.device = "cuda"
    assert ddp.world_sizes(ctx, gpus=1) == [1]
    assert ddp.world_sizes(ctx, gpus=2) == [1, 2]
    ctx.device = "cpu"
    assert ddp.world_sizes(ctx, cores=1) == [1, 2]  # on one core, 2 processes show why not
    ctx.device = "cuda"
    monkeypatch.setattr(hardware, "gpu_count", lambda: 1)
    with pytest.raises(Skip, match="one GPU"):
        ddp.run(ctx)


# ---------------------------------------------------------------- refusing reference/ under load


def test_suite_refuses_to_write_into_reference_while_a_cpu_hog_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.setenv("FASTRAIN_RESULTS", str(tmp_path / "results"))
    reference = tmp_path / "reference"
    reference.mkdir()
    with noise.hog(noise.cores() + 1):
        rc = suite.main(["--only", "matmul", "--out", str(reference)])
    assert rc == suite.EXIT_NOISY
    assert list(reference.iterdir()) == []  # nothing written into reference/
    (kept,) = (tmp_path / "results" / "benchmarks").glob("*.json")
    assert kept.stem.endswith("-noisy") and kept.with_suffix(".log").is_file()
    payload = json.loads(kept.read_text(encoding="utf-8"))
    assert payload["run"]["verdict"] == "noisy" and "load" in payload["run"]["noise"]["reasons"]
    assert any("noisy" in p for p in schema.problems(kept))
    assert "reference" in capsys.readouterr().out
    # with the explicit flag: still not in reference/, but the run counts as done
    with noise.hog(noise.cores() + 1):
        assert suite.main(["--only", "matmul", "--out", str(reference), "--allow-noisy"]) == 0
    assert list(reference.iterdir()) == []


def test_a_run_without_records_never_lands_in_reference(tmp_path, monkeypatch, capsys):
    """gpu-check's faked run: every family failed, and a 0-record file was written into reference/,
    ready to be committed as a reference run of that GPU."""
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.setenv("FASTRAIN_RESULTS", str(tmp_path / "results"))
    reference = tmp_path / "reference"
    reference.mkdir()

    def broken(name, ctx):
        raise RuntimeError("CUDA error: no kernel image is available")

    monkeypatch.setattr(suite, "run_family", broken)
    assert suite.main(["--only", "matmul", "--out", str(reference)]) == 1  # failed, and said so
    assert list(reference.iterdir()) == []
    (kept,) = (tmp_path / "results" / "benchmarks").glob("*.json")
    assert json.loads(kept.read_text(encoding="utf-8"))["records"] == []
    assert "no records" in capsys.readouterr().out


# --- issue 26: no tf32 stage or record on a GPU without TF32; GPU mode sized to the device ---------------------
def test_no_tf32_record_or_matmul_format_where_the_gpu_has_none(monkeypatch):
    from benchmarks import amp, matmul
    from benchmarks.common import Context
    from fastrain_lib.measure import hardware

    ctx = Context(device="cuda", mode="lab")
    t4 = hardware.Facts("cuda", "Tesla T4", (7, 5), 1, 16 * 10**9)
    a100 = hardware.Facts("cuda", "NVIDIA A100-SXM4-80GB", (8, 0), 1, 80 * 10**9)
    reason = amp.tf32_missing(ctx, t4)
    assert reason and "Tesla T4" in reason and "TF32" in reason and "fp32" in reason  # a sentence says why
    assert amp.tf32_missing(ctx, a100) is None
    assert "tf32" not in [label for label, _, _ in matmul.formats("cuda", tf32=False)]
    assert "tf32" in [label for label, _, _ in matmul.formats("cuda", tf32=True)]
    monkeypatch.setattr(hardware, "facts", lambda device=None: t4)
    assert "tf32" not in [label for label, _, _ in matmul.formats("cuda")]


def test_gpu_mode_sizes_fit_the_smallest_gpu_and_its_estimate():
    from benchmarks import budget
    from fastrain_lib.measure.datasheet import DATASHEET

    for key, cc in budget.PLANNED:
        dev = budget.from_sheet(DATASHEET[key], cc)
        sizes = budget.sizes(dev)
        layers, width = sizes["optim"]
        adamw_bytes = 16 * (layers * (12 * width * width + 13 * width))
        assert adamw_bytes <= budget.MEMORY_SHARE * dev.memory_gb * 1e9, key  # full mode held 14.6 GB on a T4
        assert 3 * 4 * sizes["matmul"][-1] ** 2 <= budget.MEMORY_SHARE * dev.memory_gb * 1e9, key
        assert 8 * sizes["copy_numel"] <= budget.MEMORY_SHARE * dev.memory_gb * 1e9, key
        assert budget.total(dev) < 200, key
        assert "compile" not in budget.estimate(dev)
    t4 = budget.from_sheet(DATASHEET["T4"], (7, 5))
    assert budget.amp_modes(t4) == ["fp32", "fp16"]  # no tf32, no (emulated) bf16 on a T4
