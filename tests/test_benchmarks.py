"""The benchmark suite: every reference/ file is valid suite output with provenance, and a tiny
run of the suite (ci sizes, into tmp_path) writes such a file."""

import json
from pathlib import Path

import pytest

from benchmarks import FAMILIES, schema, suite

REFERENCE = Path(__file__).resolve().parent.parent / "reference"
REFERENCE_FILES = sorted(REFERENCE.glob("*.json"))


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=[p.name for p in REFERENCE_FILES])
def test_reference_file_is_valid_suite_output(path):
    assert schema.problems(path) == []


def test_reference_holds_only_suite_output():
    assert schema.stray_files(REFERENCE) == []
    assert (REFERENCE / "README.md").is_file()
    logs = {p.name for p in REFERENCE.glob("*.log")}
    assert logs == {p.with_suffix(".log").name for p in REFERENCE_FILES}  # no orphan logs either


@pytest.fixture
def smoke(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    rc = suite.main(["--only", "matmul,copy", "--out", str(tmp_path), "--mode", "ci"])
    return rc, tmp_path


def test_smoke_run_writes_a_valid_file_and_log(smoke):
    rc, out = smoke
    assert rc == 0
    (path,) = out.glob("*.json")
    assert schema.problems(path) == []
    payload = json.loads(path.read_text(encoding="utf-8"))
    assert payload["run"]["command"].endswith("python -m benchmarks --only matmul,copy --out "
                                              f"{out} --mode ci")
    assert set(payload["run"]["families"]) == {"matmul", "copy"}
    names = {r["name"] for r in payload["records"]}
    assert {"matmul fp32 128", "matmul bf16 128"} <= names
    assert all(r["metrics"].get("gflops", 0) > 0 for r in payload["records"] if r["params"]["family"] == "matmul")
    assert "matmul" in path.with_suffix(".log").read_text(encoding="utf-8")


def test_validator_catches_broken_files(smoke):
    _, out = smoke
    (path,) = out.glob("*.json")
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload["records"][0]["median_s"] = -1
    payload["run"]["meta"].pop("torch")
    payload["run"]["meta"]["hostname"] = "lab-pc-7"
    bad = out / path.name
    bad.write_text(json.dumps(payload), encoding="utf-8")
    found = " | ".join(schema.problems(bad))
    assert "median_s" in found and "'torch'" in found and "hostname" in found
    renamed = out / "my results.json"
    path.rename(renamed)
    assert any("file name" in p for p in schema.problems(renamed))
    (out / "notes.txt").write_text("x")
    assert schema.stray_files(out) == ["notes.txt"]


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


def test_hardware_slug_has_no_host_name():
    meta = {"gpu_name": "NVIDIA H100 80GB HBM3", "gpu_count": 8, "cpu_name": "x", "cpu_cores": 2}
    assert suite.hardware_slug(meta) == "nvidia-h100-80gb-hbm3-x8"
    assert suite.hardware_slug({"cpu_name": "Intel(R) Xeon(R) CPU @ 2.20GHz", "cpu_cores": 2}) == "cpu-intel-xeon-2c"
