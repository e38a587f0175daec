"""class_results: a folder of the whole class's files, malformed ones included."""

from __future__ import annotations

import json

import pytest

from fastrain_lib.measure import bench
from fastrain_lib.ui import class_results

CPU = {"cpu_name": "Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz", "cpu_cores": 8, "schema": 1}
T4 = {"cpu_name": "Intel(R) Xeon(R) CPU @ 2.20GHz", "cpu_cores": 2, "gpu_name": "Tesla T4", "gpu_count": 1}


def record(name, seconds, meta, **params):
    return bench.Record(name=name, median_s=seconds, params=params, meta=dict(meta))


def save(folder, filename, records):
    return bench.save_records(records, folder / filename)


@pytest.fixture
def folder(tmp_path):
    """Three students, two machines, AMP and fused pairs, plus every kind of broken file."""
    save(tmp_path, "lesson03-rahim-1.json", [
        record("amp step", 0.020, T4, panel="lesson03", student="rahim", precision="fp32", batch=64),
        record("amp step", 0.008, T4, panel="lesson03", student="rahim", precision="fp16", batch=64),
    ])
    save(tmp_path, "lesson03-mitu-1.json", [
        record("amp step", 0.100, CPU, panel="lesson03", student="mitu", precision="fp32", batch=64),
        record("amp step", 0.080, CPU, panel="lesson03", student="mitu", precision="bf16", batch=64),
    ])
    save(tmp_path, "lesson04-rahim-1.json", [
        record("adam", 0.010, T4, panel="lesson04", student="rahim", optimizer="forloop"),
        record("adam", 0.004, T4, panel="lesson04", student="rahim", optimizer="fused"),
    ])
    (tmp_path / "broken.json").write_text('{"schema": 1, "records": [{"name": "x", ', encoding="utf-8")
    (tmp_path / "not_results.json").write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    (tmp_path / "missing_time.json").write_text(json.dumps({"schema": 1, "records": [{"name": "x"}]}))
    (tmp_path / "negative.json").write_text(json.dumps({"schema": 1, "records": [{"name": "x", "median_s": -1}]}))
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "notes.txt").write_text("not json at all")  # not *.json: ignored
    return tmp_path


def test_malformed_files_are_skipped_and_named(folder):
    result = class_results.load_folder(folder)
    skipped = {s.path.name: s.reason for s in result.skipped}
    assert set(skipped) == {"broken.json", "not_results.json", "missing_time.json", "negative.json", "binary.json"}
    assert "JSON" in skipped["broken.json"]
    assert "median_s" in skipped["missing_time.json"]
    assert result.files == 3 and len(result.records) == 6
    summary = result.summary()
    for name in skipped:
        assert name in summary  # the instructor sees which file to ask for again


def test_duplicates_are_counted_once(folder):
    # the same file copied twice (e.g. sent by e-mail and by USB), under another name
    (folder / "copy-of-rahim.json").write_text((folder / "lesson03-rahim-1.json").read_text())
    result = class_results.load_folder(folder)
    assert len(result.records) == 6 and result.duplicates == 2


def test_order_of_files_does_not_matter(tmp_path):
    a = [record("m", 0.01, CPU, student="a", dtype="float32"), record("m", 0.005, CPU, student="a", dtype="bfloat16")]
    for names in (("1.json", "2.json"), ("2.json", "1.json")):
        folder = tmp_path / "-".join(names)
        save(folder, names[0], a[:1])
        save(folder, names[1], a[1:])
        rows = class_results.speedups(class_results.load_folder(folder).records)
        assert [r["speedup"] for r in rows] == [pytest.approx(2.0)]


def test_mixed_schema_versions(tmp_path):
    current = save(tmp_path, "v2.json", [record("m", 0.01, CPU, student="a")])  # today's: schema 2, with noise
    assert json.loads(current.read_text())["schema"] == 2
    v1 = {"schema": 1, "records": [{k: v for k, v in record("m", 0.015, CPU, student="d").to_dict().items()
                                    if k != "noise"}]}
    (tmp_path / "v1.json").write_text(json.dumps(v1))  # before noise was measured
    old = [record("m", 0.02, CPU, student="b").to_dict()]
    (tmp_path / "v0.json").write_text(json.dumps(old))  # before versions: a bare list
    newer = {"schema": 3, "records": [dict(record("m", 0.03, CPU, student="c").to_dict(), energy_j=1.5)],
             "device_notes": "new field"}
    (tmp_path / "v3.json").write_text(json.dumps(newer))
    (tmp_path / "weird.json").write_text(json.dumps({"schema": "one", "records": old}))
    result = class_results.load_folder(tmp_path)
    assert result.schemas == {0: 1, 1: 1, 2: 1, 3: 1}
    assert sorted(r.params["student"] for r in result.records) == ["a", "b", "c", "d"]
    assert [s.path.name for s in result.skipped] == ["weird.json"]


def test_speedups_per_machine(folder):
    rows = class_results.speedups(class_results.load_folder(folder).records)
    found = {(r["machine"], r["kind"], r["variant"]): r["speedup"] for r in rows}
    assert found == {
        ("Tesla T4", "precision", "fp16 / fp32"): pytest.approx(2.5),
        ("Tesla T4", "fused", "fused / forloop"): pytest.approx(2.5),
        ("CPU Intel Core i5-8250U @ 1.60GHz (8)", "precision", "bf16 / fp32"): pytest.approx(1.25),
    }


def test_no_speedup_across_different_settings(tmp_path):
    # fp32 at batch 64 vs fp16 at batch 128: not the same experiment, so no pair
    records = [record("s", 0.02, CPU, student="a", precision="fp32", batch=64),
               record("s", 0.01, CPU, student="a", precision="fp16", batch=128)]
    assert class_results.speedups(records) == []


def test_ddp_speedup_uses_one_process_as_baseline():
    records = [record("ddp", 0.4, CPU, student="a", world_size=1), record("ddp", 0.25, CPU, student="a", world_size=2)]
    [row] = class_results.speedups(records)
    assert row["kind"] == "ddp" and row["speedup"] == pytest.approx(1.6) and row["variant"] == "2 / 1"


def test_ddp_speedup_prefers_throughput():
    # 2 processes, each with its own batch: a step takes longer but twice the samples go through
    one = bench.Record("ddp 1", 0.10, params={"student": "a", "processes": 1}, metrics={"samples_per_s": 640.0},
                       meta=CPU)
    two = bench.Record("ddp 2", 0.12, params={"student": "a", "processes": 2}, metrics={"samples_per_s": 1066.0},
                       meta=CPU)
    [row] = class_results.speedups([one, two])
    assert row["speedup"] == pytest.approx(1066 / 640)


def test_leaderboard_ranks_fastest_first(folder):
    rows = class_results.leaderboard(class_results.load_folder(folder).records, name="amp step")
    assert [(r["rank"], r["student"]) for r in rows] == [(1, "rahim"), (2, "mitu")]
    assert rows[0]["median_s"] == pytest.approx(0.008)
    assert rows[0]["vs_slowest"] == pytest.approx(0.080 / 0.008)


def test_most_measured_prefers_more_students(folder):
    assert class_results.most_measured(class_results.load_folder(folder).records) == "amp step"
    assert class_results.most_measured([]) is None


def test_hardware_label():
    assert class_results.hardware_label(T4) == "Tesla T4"
    assert class_results.hardware_label(dict(T4, gpu_count=4)) == "Tesla T4 ×4"
    assert class_results.hardware_label({}) == "CPU ?"


def test_plots_and_tables_draw(folder):
    import matplotlib.pyplot as plt

    records = class_results.load_folder(folder).records
    fig, (left, right) = plt.subplots(1, 2)
    class_results.plot_speedups(left, class_results.speedups(records))
    class_results.plot_leaderboard(right, class_results.leaderboard(records))
    assert left.patches and right.patches
    headers, rows = class_results.speedup_table(class_results.speedups(records))
    assert len(rows) == 3 and len(headers) == len(rows[0])
    empty_fig, ax = plt.subplots()
    class_results.plot_speedups(ax, [])  # no pairs: a sentence, not a crash
    plt.close(fig)
    plt.close(empty_fig)


def _noisy(record_, other=1.7):
    record_.noise = {"verdict": "noisy", "reasons": ["load"], "cores": 2, "threads": 2, "other_cores": other,
                     "steal_cores": 0.0, "cores_free": 0.3}
    return record_


def test_noisy_records_are_flagged_and_not_ranked_or_compared(tmp_path):
    quiet_fp32 = record("amp step", 0.020, T4, panel="p", student="rahim", precision="fp32")
    quiet_fp16 = record("amp step", 0.010, T4, panel="p", student="rahim", precision="fp16")
    # mitu's CPU ran beside a video call: 10x too slow, and a fake "speed-up" of 4x
    busy_fp32 = _noisy(record("amp step", 0.400, CPU, panel="p", student="mitu", precision="fp32"))
    busy_bf16 = _noisy(record("amp step", 0.100, CPU, panel="p", student="mitu", precision="bf16"))
    # karim is fast only because his baseline was slowed down by load
    karim = _noisy(record("amp step", 0.005, T4, panel="p", student="karim", precision="fp32"))
    save(tmp_path, "a.json", [quiet_fp32, quiet_fp16])
    save(tmp_path, "b.json", [busy_fp32, busy_bf16, karim])
    result = class_results.load_folder(tmp_path)
    assert len(result.records) == 5 and {r.params["student"] for r in result.noisy} == {"mitu", "karim"}
    assert "3" in result.summary() and "mitu: amp step" in result.summary()
    rows = class_results.speedups(result.records)
    assert [(r["machine"], r["speedup"]) for r in rows] == [("Tesla T4", pytest.approx(2.0))]
    board = class_results.leaderboard(result.records, name="amp step")
    assert [r["student"] for r in board] == ["rahim"]  # karim's noisy 5 ms is not ranked first
    everything = class_results.leaderboard(result.records, name="amp step", include_noisy=True)
    # karim shares rahim's machine (a T4): one row per machine, karim's noisy 5 ms is one run of its fp32 group
    assert [r["machine"] for r in everything] == ["Tesla T4", "CPU ?"] or len(everything) == 2
    assert everything[0]["settings"] == "precision=fp16" and "karim" not in everything[0]["student"]
    assert len(class_results.speedups(result.records, include_noisy=True)) == 2


def test_records_without_noise_information_are_still_compared(folder):
    # files saved before noise was measured have no verdict: used as they are
    result = class_results.load_folder(folder)
    assert result.noisy == [] and len(class_results.speedups(result.records)) == 3


def test_issue27_two_runs_of_one_pc_are_one_machine_not_a_ranking():
    """Issue 27: the leaderboard ranked two runs of the same PC and settings "1.24×" apart. Runs of
    one machine and settings are one group (their median), whoever ran them; the spread between
    them is that group's noise, and another machine within it is a tie, not a ranking."""
    runs = [record("matmul", 0.0100, CPU, panel="lesson00", student="rahim", max_size=256, dtype="float32"),
            record("matmul", 0.0124, CPU, panel="lesson00", student="mitu", max_size=256, dtype="float32")]
    board = class_results.leaderboard(runs, name="matmul")
    assert len(board) == 1  # one machine: nothing to rank
    (row,) = board
    assert row["runs"] == 2 and row["student"] == "mitu, rahim"
    assert row["median_s"] == pytest.approx(0.0112) and row["spread"] == pytest.approx(0.24 / 1.12)
    # a second machine 10 % slower than that group's median: inside its 21 % spread -> tied, same rank
    other = dict(CPU, cpu_name="AMD Ryzen 5 3600")
    near = record("matmul", 0.0123, other, panel="lesson00", student="karim", max_size=256, dtype="float32")
    board = class_results.leaderboard(runs + [near], name="matmul")
    assert [(r["rank"], r["tied"]) for r in board] == [(1, False), (1, True)]
    headers, rows = class_results.leaderboard_table(board)
    assert rows[1][0] == "1 =" and rows[1][-1] == class_results.t("class_results.tie")
    # a machine twice as slow is ranked below
    far = record("matmul", 0.0250, other, panel="lesson00", student="karim", max_size=256, dtype="float32")
    board = class_results.leaderboard(runs + [far], name="matmul")
    assert [(r["rank"], r["tied"]) for r in board] == [(1, False), (2, False)]
    assert board[0]["vs_slowest"] == pytest.approx(0.025 / 0.0112)


@pytest.mark.parametrize("a, b, spread_a, spread_b, tie", [
    (1.00, 1.04, 0.0, 0.0, True),    # inside the 5 % floor
    (1.00, 1.06, 0.0, 0.0, False),
    (1.00, 1.20, 0.25, 0.0, True),   # inside the faster group's own spread
    (1.00, 1.20, 0.0, 0.25, True),   # or the slower one's
    (1.00, 1.30, 0.25, 0.1, False),
])
def test_tie_rule_on_numbers(a, b, spread_a, spread_b, tie):
    assert class_results.tied({"median_s": a, "spread": spread_a}, {"median_s": b, "spread": spread_b}) is tie


def test_rank_groups_ties_against_the_block_leader_not_a_chain():
    groups = [{"median_s": 1.00, "spread": 0.0}, {"median_s": 1.04, "spread": 0.0}, {"median_s": 1.08, "spread": 0.0}]
    ranked = class_results.rank_groups(groups)
    assert [(g["rank"], g["tied"]) for g in ranked] == [(1, False), (1, True), (3, False)]


def test_group_spread_uses_runs_and_their_own_iqr():
    one = bench.Record("m", 0.010, iqr_s=0.003, params={}, meta=CPU)
    assert class_results.group_spread([one]) == pytest.approx(0.3)
    two = [bench.Record("m", 0.010, params={}, meta=CPU), bench.Record("m", 0.012, params={}, meta=CPU)]
    assert class_results.group_spread(two) == pytest.approx(0.002 / 0.011)


def test_noisy_records_are_named_with_their_settings_and_each_warning_is_said_once():
    """Issue 38 (lesson 98): '12 noisy' named 9 (a student's fp32 and bf16 runs had one name), and the same
    warning stood 2-5 times in a cell. Every noisy record is named with its settings; a sentence shared
    by several records is printed once, under all their names."""
    from fastrain_lib.measure import bench, noise

    busy = {"verdict": "noisy", "reasons": ["load"], "cores": 2, "other_cores": 1.5, "steal_cores": 0.0,
            "threads": 1, "cores_free": 0.5}
    records = [bench.Record(f"matmul {n}", 1e-3, params={"size": n, "device": "cpu", "dtype": dtype, "student": "mitu"},
                            noise=dict(busy)) for n in (64, 128) for dtype in ("float32", "bfloat16")]
    result = class_results.ClassResults(records=records)
    summary = result.summary().splitlines()[-1]
    assert "matmul 64 (cpu, bfloat16)" in summary and "matmul 64 (cpu, float32)" in summary
    assert summary.count("mitu: matmul") == 4
    lines = class_results.noisy_lines(records)
    assert len(lines) == len(set(lines)) == 2  # one sentence, once, under the four names
    assert lines[1].strip() == noise.sentence(busy) and lines[0].count("mitu: ") == 4


@pytest.mark.parametrize("lang", ["bn", "en"])
def test_leaderboard_sentences_stand_on_their_runs_noise(capsys, monkeypatch, lang):
    """Issue 38: the sentences under the board passed noise=(), so a board built with include_noisy=True
    stated a noisy group's spread ("measurement noise, not a ranking") and a tie between noisy runs as
    findings. Each sentence now stands on the runs it reads: the quiet ones are said, a noisy one is not."""
    monkeypatch.setenv("FASTRAIN_LANG", lang)
    quiet_runs = [record("matmul", 0.0100, CPU, panel="lesson00", student="rahim", dtype="float32"),
                  record("matmul", 0.0124, CPU, panel="lesson00", student="mitu", dtype="float32")]
    class_results.say_leaderboard(class_results.leaderboard(quiet_runs, name="matmul"))
    said = capsys.readouterr().out
    assert "rahim" in said and "mitu" in said  # the grouped sentence, stated

    other = dict(CPU, cpu_name="AMD Ryzen 5 3600")
    noisy_runs = [_noisy(record("matmul", 0.0101, other, panel="lesson00", student="karim", dtype="float32")),
                  _noisy(record("matmul", 0.0180, other, panel="lesson00", student="sumi", dtype="float32"))]
    board = class_results.leaderboard(quiet_runs + noisy_runs, name="matmul", include_noisy=True)
    assert [r["runs"] for r in board] == [2, 2]
    class_results.say_leaderboard(board)
    said = capsys.readouterr().out
    assert "rahim" in said  # the quiet machine's grouped runs are still said
    assert "Ryzen" not in said  # neither the noisy machine's spread nor its tie is stated as a finding
    noisy_word = {"bn": "গোলমেলে", "en": "noisy"}[lang]
    assert noisy_word in said.lower()
    # and without include_noisy the noisy runs never reach the board or its sentences
    class_results.say_leaderboard(class_results.leaderboard(quiet_runs + noisy_runs, name="matmul"))
    said = capsys.readouterr().out
    assert "Ryzen" not in said and "karim" not in said and noisy_word not in said.lower()
