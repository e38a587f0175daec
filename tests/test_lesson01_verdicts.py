"""Lesson 01's verdict rules on tables of numbers (issue 27): no cause from a noisy row, a cause only
where the numbers fit it, points above their own ceiling flagged, ratios worded right. The tables
include the numbers the issue measured on a busy 2-core lab PC, with and without noisy marks."""

from __future__ import annotations

import re

import pytest

from _sentences import CAUSE, is_finding, says_its_noise

from fastrain_lib.core import verdicts as core_verdicts
from fastrain_lib.lessons.l01_gpu_vs_cpu import verdicts as V
from fastrain_lib.measure import bench

QUIET = {"verdict": "quiet", "reasons": []}
NOISY = {"verdict": "noisy", "reasons": ["load"]}
MB = 1e6


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")


def matmul_row(n, ms, noise=QUIET):
    return V.Row(n, ms / 1e3, 2 * n**3 / (ms / 1e3) / 1e9, dict(noise))


def keys(lines):
    return [line.key for line in lines]


def printed(lines, capsys) -> str:
    V.say(lines)
    return capsys.readouterr().out


def assert_no_cause(lines, capsys):
    """No causal key chosen, and what is printed for the noisy rows is the noisy-measurement sentence."""
    assert not set(keys(lines)) & V.CAUSAL_KEYS
    out = printed(lines, capsys)
    assert core_verdicts.PREFIX + core_verdicts.NOISY_MARK in out
    return out


# ---------------------------------------------------------------- ratios


@pytest.mark.parametrize("ratio, text", [(3.2, "3.2× faster"), (0.1, "10.0× slower"), (0.7, "1.4× slower"),
                                         (1.02, "about the same speed (1.02×)"), (1.0, "about the same")])
def test_a_ratio_below_one_is_said_as_slower(ratio, text):
    assert text in V.compare(ratio)
    assert "0.7×" not in V.compare(0.7) and "faster" not in V.compare(0.1)


# ---------------------------------------------------------------- §2 matmul sizes: the fixed cost of a call

ISSUE_SIZES = [(32, 22.7), (64, 22.8), (128, 22.0), (256, 2.87)]  # ms: the busy lab PC of issue 27
ISSUE_OVERHEAD_S = 8.5e-6  # its per-call cost, measured in the same notebook


def test_issue_sizes_quiet_marks_are_not_read_as_the_fixed_cost(capsys):
    """22.7 ms against 8.5 µs per call is 2670× the per-call cost: never 'the fixed cost of each call'."""
    table = [matmul_row(n, ms) for n, ms in ISSUE_SIZES]
    lines = V.size_lines(table, ISSUE_OVERHEAD_S)
    assert keys(lines) == ["lesson01.v_sizes_measured", "lesson01.v_sizes_unexplained"]
    assert lines[1].values["times"] > 1000
    out = printed(lines, capsys)
    assert "fixed cost of each call is large" not in out and "no cause is given" in out


def test_issue_sizes_with_noisy_marks_give_only_the_noisy_sentence(capsys):
    table = [matmul_row(n, ms, NOISY if n < 256 else QUIET) for n, ms in ISSUE_SIZES]
    lines = V.size_lines(table, ISSUE_OVERHEAD_S)
    assert keys(lines) == ["lesson01.v_sizes_measured"]
    out = assert_no_cause(lines, capsys)
    assert "3 of the 4" in out


def test_a_gap_of_the_per_call_cost_is_the_fixed_cost(capsys):
    """Quiet: a 32² matmul at 10 µs beside 100 GFLOP/s at 1024², with 4 µs per call."""
    table = [matmul_row(32, 0.010), matmul_row(1024, 2 * 1024**3 / 100e9 * 1e3)]
    lines = V.size_lines(table, 4e-6)
    assert keys(lines) == ["lesson01.v_sizes_measured", "lesson01.v_sizes_fixed_cost"]
    assert lines[1].values["times"] == pytest.approx(9.345 / 4, rel=0.01)  # 10 µs less its FLOPs at 100 GFLOP/s
    assert "fixed cost of each call" in printed(lines, capsys)


def test_the_fixed_cost_needs_a_quiet_per_call_measurement(capsys):
    table = [matmul_row(32, 0.010), matmul_row(1024, 21.5)]
    lines = V.size_lines(table, 4e-6, overhead_noise={"verdict": "noisy", "reasons": ["spread"]})
    assert "No cause" in printed(lines, capsys)


# ---------------------------------------------------------------- §2 addition: the cache

def add_row(numel, gbs, noise=QUIET):
    seconds = 12 * numel / (gbs * 1e9)
    return V.Row(numel, seconds, gbs, dict(noise))


ISSUE_ADDS = [(1024, 20.0), (16384, 36.0), (65536, 0.098), (262144, 30.0), (1048576, 25.0)]  # 65536 el. = 0.8 MB


@pytest.mark.parametrize("cache_mb", [32.0, 1.0])
def test_issue_add_of_0_8_mb_is_not_said_to_miss_the_cache(cache_mb, capsys):
    table = [add_row(n, g) for n, g in ISSUE_ADDS]
    lines = V.add_lines(table, cache_mb * MB)
    assert "lesson01.v_add_ram" not in keys(lines)
    assert keys(lines)[-1] == "lesson01.v_add_unexplained" and lines[-1].values["slow_n"] == 65536
    assert lines[-1].values["slow_mb"] == pytest.approx(0.786, abs=0.001)
    out = printed(lines, capsys)
    assert "does not fit" not in out and "fit in this machine's cache" in out


def test_issue_adds_with_the_noisy_mark_give_only_the_noisy_sentence(capsys):
    table = [add_row(n, g, NOISY if n == 65536 else QUIET) for n, g in ISSUE_ADDS]
    assert_no_cause(V.add_lines(table, 32 * MB), capsys)


def test_beyond_the_cache_is_said_only_with_the_cache_size():
    """16 MB working set against an 8 MB cache: RAM. Without a cache size: no claim at all."""
    table = [add_row(2**16, 40.0), add_row(2**20, 38.0), add_row(2**22, 12.0)]  # 0.8, 12.6, 50 MB
    lines = V.add_lines(table, 32 * MB)
    assert keys(lines)[-1] == "lesson01.v_add_ram" and lines[-1].values["slow_mb"] == pytest.approx(50.3, abs=0.1)
    assert keys(V.add_lines(table, None))[-1] == "lesson01.v_add_cache_unknown"
    # both fit in a 64 MB cache: the drop is not the cache
    assert keys(V.add_lines(table, 64 * MB))[-1] == "lesson01.v_add_unexplained"


def test_no_drop_no_cause():
    table = [add_row(2**10, 20.0), add_row(2**16, 30.0), add_row(2**20, 28.0)]
    assert keys(V.add_lines(table, 32 * MB)) == ["lesson01.v_add_measured", "lesson01.v_add_flat"]


# ---------------------------------------------------------------- §3/§4 a point above its own ceiling


def test_points_above_the_roof_measured_next_to_them_are_flagged(capsys):
    """Issue 27: a roof of 37.4 GFLOP/s and 9.6 GB/s measured minutes after 97.8 and 36.1."""
    points = [("256²", 256 / 6, 97.8), ("a+b", 1 / 12, 36.1 / 12), ("64²", 64 / 6, 5.0)]
    lines = V.ceiling_lines(points, 37.4, 9.6)
    assert [line.values["name"] for line in lines] == ["256²", "a+b"]
    assert lines[0].values["share"] == pytest.approx(97.8 / 37.4)
    out = printed(lines, capsys)
    assert "measurement problem" in out and "No explanation" in out
    assert V.ceiling_lines(points, 100.0, 40.0) == []  # re-measured on a quiet machine: nothing to flag


def test_element_counts_and_sample_rates_read_with_thousands_separators(capsys):
    """A busy lab run printed 'fastest at 262144 elements' and '1596 -> 169920 samples/s' (issue 38: numbers a
    student reads easily): counts and rates in these sentences carry separators, as the tables' numbers do."""
    adds = [add_row(n, g) for n, g in [(1024, 20.0), (262144, 85.0), (16777216, 23.0)]]
    batches = [batch_row(b, ms) for b, ms in [(1, 0.63), (1024, 6.2), (4096, 24.1)]]
    out = printed(V.add_lines(adds, 32 * MB) + V.batch_lines(batches), capsys)
    assert "262,144" in out and "16,777,216" in out and "169,959" in out, out
    assert not re.search(r"(?<![\d,.])\d{5,}(?![\d,.])", out), out


# ---------------------------------------------------------------- §5 batch size


def batch_row(batch, ms, noise=QUIET):
    return V.Row(batch, ms / 1e3, batch / (ms / 1e3), dict(noise))


ISSUE_BATCHES = [(1, 150.0), (4, 163.9), (16, 2.0), (64, 2.35)]  # batch 4 at 163.9 ms, batch 64 at 2.35 ms


def test_issue_batches_quiet_marks_no_fixed_cost_bigger_than_the_big_step(capsys):
    table = [batch_row(b, ms) for b, ms in ISSUE_BATCHES]
    lines = V.batch_lines(table)
    assert keys(lines) == ["lesson01.v_batch_measured", "lesson01.v_batch_unexplained"]
    assert lines[1].values["small_ms"] > lines[1].values["big_ms"]
    out = printed(lines, capsys)
    assert "fixed per-step cost, which" not in out and "no cause is given" in out


def test_issue_batches_with_noisy_marks_give_only_the_noisy_sentence(capsys):
    table = [batch_row(b, ms, NOISY if b == 4 else QUIET) for b, ms in ISSUE_BATCHES]
    assert_no_cause(V.batch_lines(table), capsys)


def test_a_quiet_sweep_explains_the_fixed_cost_and_words_the_last_step():
    table = [batch_row(1, 0.30), batch_row(16, 0.40), batch_row(256, 2.0), batch_row(1024, 7.9)]
    lines = V.batch_lines(table)
    assert keys(lines) == ["lesson01.v_batch_measured", "lesson01.v_batch_fixed_cost", "lesson01.v_batch_flattening"]
    assert "faster" in lines[0].values["phrase"]
    # the last step: 4× the batch, 0.89× the throughput -> "1.1× slower", never "0.89× faster"
    table[-1] = batch_row(1024, 9.0)
    last = V.batch_lines(table)[-1]
    assert last.key == "lesson01.v_batch_flattening" and "slower" in last.values["phrase"]


def test_the_bench_record_of_a_step_leaves_the_warm_up_out():
    """A step whose first calls are slow (warm-up) does not move the median the batch rule reads."""
    import time

    calls = []

    def step():
        calls.append(1)
        if len(calls) <= 2:
            time.sleep(0.2)

    record = bench.measure(step, "step", min_run_time=0.02)
    assert record.median_s < 0.05 and len(calls) > 3


# ---------------------------------------------------------------- §1 threads and §7 the load


def test_the_cost_of_oversubscription_is_this_runs_ratio_with_each_rows_noise_on_its_line(capsys):
    """§7 (issue 38): beside the load, all threads against the threads that fit, measured in this run;
    the all-threads row is noisy by design, so its word stands on the line and no cause is given."""
    quiet_all = V.Row(2, 0.01, 100.0, QUIET)
    busy_all, busy_fit = V.Row(2, 0.5, 2.0, NOISY), V.Row(1, 0.02, 50.0, QUIET)
    lines = V.load_lines(quiet_all, busy_all, busy_fit, 1)
    assert keys(lines) == ["lesson01.v_load_cost", "lesson01.v_load_fit_kept"]
    assert "25.0× slower" in lines[0].values["cost_phrase"] and lines[1].values["kept"] == pytest.approx(0.5)
    out = printed(lines, capsys)
    assert "all 2 threads 2.0 GFLOP/s (noisy)" in out and "1 thread(s) that fit the free cores 50.0 GFLOP/s (quiet)" in out
    for line in out.splitlines():
        assert says_its_noise(line) and not CAUSE.search(line), line


def test_all_threads_faster_beside_the_load_is_not_called_a_cost(capsys):
    """A quiet lab run here measured all threads beside the load at 141.8 GFLOP/s (noisy) and the thread that fit at
    94.1: 'the cost of oversubscription: ... 1.5× faster' contradicted itself. Faster is said as no cost seen."""
    quiet_all, busy_all, busy_fit = V.Row(2, 0.01, 106.8, QUIET), V.Row(2, 0.01, 141.8, NOISY), V.Row(1, 0.02, 94.1, QUIET)
    lines = V.load_lines(quiet_all, busy_all, busy_fit, 1)
    assert keys(lines) == ["lesson01.v_load_no_cost", "lesson01.v_load_fit_kept"]
    out = printed(lines, capsys)
    assert "oversubscription showed no cost" in out and "1.5× faster" in out and "cost of oversubscription" not in out
    for line in out.splitlines():
        assert says_its_noise(line) and not CAUSE.search(line), line


def test_oversubscription_with_a_noisy_fitting_row_says_only_noisy_and_names_it(capsys):
    timings = {("quiet", 2): _rec("matmul 128", "cpu", {"size": 128, "threads": 2}, {"gflops": 100.0}, "noisy"),
               ("busy", 2): _rec("matmul 128", "cpu", {"size": 128, "threads": 2}, {"gflops": 2.0}, "noisy"),
               ("busy", 1): _rec("matmul 128", "cpu", {"size": 128, "threads": 1}, {"gflops": 50.0}, "noisy")}
    V.load(timings, 2, 1)
    out = capsys.readouterr().out
    assert out.count(core_verdicts.NOISY_MARK) == 1 and "beside the load, 1 thread(s)" in out
    assert "slower" not in out and not CAUSE.search(out.replace(core_verdicts.NOISY_MARK, ""))


def test_when_every_thread_fits_there_is_no_cost_to_show():
    lines = V.load_lines(V.Row(4, 0.01, 100.0, QUIET), V.Row(4, 0.011, 90.0, QUIET), V.Row(4, 0.011, 90.0, QUIET), 4)
    assert keys(lines) == ["lesson01.v_load_all_fit"]


@pytest.mark.parametrize("noise", [QUIET, NOISY])
def test_threads_slower_with_more_is_worded_slower(noise, capsys):
    table = [V.Row(1, 0.010, 10.0, dict(noise)), V.Row(2, 0.014, 7.0, dict(noise))]
    lines = V.thread_lines(table)
    assert "1.4× slower" in lines[0].values["phrase"]
    if noise is NOISY:
        assert_no_cause(lines, capsys)
    else:
        assert keys(lines)[-1] == "lesson01.v_threads_none"


def test_rows_from_records_keep_their_noise():
    rec = bench.Record("matmul 64", 0.001, params={"size": 64}, metrics={"gflops": 0.5}, noise=dict(NOISY))
    (row,) = V.rows([rec], "size", "gflops")
    assert row.noisy and (row.x, row.seconds, row.rate) == (64, 0.001, 0.5)
    assert V.noise_word(row) == "noisy" and V.noise_word(bench.Record("x", 1.0)) == "–"


# ---------------------------------------------------------------- what the # VERDICT cells call (they print)


def _rec(name, device, params, metrics, verdict="quiet"):
    return bench.Record(name, 0.01, params={"device": device, **params}, metrics=metrics,
                        noise={"verdict": verdict, "reasons": ["load"] if verdict == "noisy" else []})


def test_gpu_vs_cpu_compares_the_best_of_each_or_says_there_is_no_gpu(capsys):
    mm = [_rec("matmul 64", d, {"size": 64}, {"gflops": g}) for d, g in (("cpu", 50.0), ("cpu", 80.0), ("cuda", 800.0))]
    add = [_rec("add 1024", d, {"numel": 1024}, {"gbs": g}) for d, g in (("cpu", 20.0), ("cuda", 10.0))]
    V.gpu_vs_cpu(mm, add)
    out = capsys.readouterr().out
    assert "matmul GPU 800 GFLOP/s, CPU 80 GFLOP/s" in out and V.compare(10.0) in out and V.compare(0.5) in out
    V.gpu_vs_cpu(mm[:2], add[:1])
    assert capsys.readouterr().out.strip() == core_verdicts.line("lesson01.v_no_gpu", mm=80.0, add=20.0)


def test_dtypes_names_the_faster_format_only_from_quiet_rows(capsys):
    by = {n: _rec("matmul 128", "cpu", {"size": 128}, {"gflops": g}) for n, g in (("fp32", 10.0), ("bf16", 30.0), ("fp16", 2.0))}
    V.dtypes(by)
    out = capsys.readouterr().out
    assert "bf16 is 3.0× faster than fp32" in out
    by["bf16"] = _rec("matmul 128", "cpu", {"size": 128}, {"gflops": 30.0}, "noisy")
    V.dtypes(by)
    out = capsys.readouterr().out
    assert core_verdicts.NOISY_MARK in out and "faster than fp32" not in out
    V.dtypes({})
    assert capsys.readouterr().out.strip() == core_verdicts.line("lesson01.v_dtypes_off")


def test_the_cell_functions_print_the_rules_lines(capsys):
    threads = [_rec("matmul 64", "cpu", {"size": 64, "threads": n}, {"gflops": g}) for n, g in ((1, 10.0), (2, 19.0))]
    threads[1].median_s = 0.01 / 1.9
    V.threads(threads)
    batches = [_rec(f"SimpleNN step b={b}", "cpu", {"batch_size": b}, {"samples_per_s": b / s}) for b, s in ((1, 1e-3), (16, 2e-3))]
    for r, s_ in zip(batches, (1e-3, 2e-3)):
        r.median_s = s_
    V.batches(batches)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(V.thread_lines(V.rows(threads, "threads", "gflops"))) + len(V.batch_lines(V.rows(batches, "batch_size", "samples_per_s")))


# ---------------------------------------------------------------- issue 38: every verdict function, noisy and quiet


def _all_cells(verdict):
    """Every # VERDICT function of the lesson, on records all with the noise verdict `verdict`."""
    return _calls(_cell_records(verdict))


def _cell_records(verdict) -> dict:
    """The records the # VERDICT functions read, all with the noise verdict `verdict`."""
    mm = [_rec(f"matmul {n}", "cpu", {"size": n}, {"gflops": g}, verdict) for n, g in ((64, 5.0), (512, 60.0))]
    for r, n in zip(mm, (64, 512)):
        r.median_s = 2 * n**3 / (r.metrics["gflops"] * 1e9)
    add = [_rec(f"add {n}", "cpu", {"numel": n}, {"gbs": g, "gflops": g / 12}, verdict)
           for n, g in ((1024, 20.0), (2**24, 8.0))]
    over = bench.Record("overhead", 5e-6, metrics={"overhead_s": 5e-6}, noise={"verdict": verdict, "reasons": []})
    threads = [_rec("matmul 128", "cpu", {"size": 128, "threads": n}, {"gflops": g}, verdict) for n, g in ((1, 10.0), (2, 15.0))]
    threads[1].median_s = 0.01 / 1.5
    batches = [_rec(f"step b={b}", "cpu", {"batch_size": b}, {"samples_per_s": b / s}, verdict)
               for b, s in ((1, 1e-3), (16, 2e-3), (128, 8e-3))]
    for r, s_ in zip(batches, (1e-3, 2e-3, 8e-3)):
        r.median_s = s_
    timings = {("quiet", 2): _rec("mm", "cpu", {"threads": 2}, {"gflops": 100.0}, verdict),
               ("busy", 2): _rec("mm", "cpu", {"threads": 2}, {"gflops": 5.0}, "noisy"),
               ("busy", 1): _rec("mm", "cpu", {"threads": 1}, {"gflops": 50.0}, verdict)}
    by = {n: _rec("matmul 128", "cpu", {"size": 128}, {"gflops": g}, verdict) for n, g in (("fp32", 10.0), ("bf16", 30.0), ("fp16", 2.0))}
    return dict(mm=mm, add=add, over=over, threads=threads, batches=batches, timings=timings, by=by)


def _calls(records: dict) -> list:
    from fastrain_lib.measure import roofline

    mm, add, over, threads, batches, timings, by = (records[k] for k in ("mm", "add", "over", "threads", "batches", "timings", "by"))
    roof = roofline.Roof("cpu", 100.0, 10.0, records=[over])
    return [lambda: V.threads(threads), lambda: V.sizes_and_adds(mm, add, {"cpu": over}, 2**20),
            lambda: V.gpu_vs_cpu(mm, add), lambda: V.under_roofs({"cpu": roof}, {"cpu": ([("mm", 10.0, 50.0)], mm)}),
            lambda: V.regimes_found({}, {}), lambda: V.batches(batches), lambda: V.dtypes(by),
            lambda: V.load(timings, 2, 1)]


def test_every_verdict_function_on_noisy_rows_marks_every_finding_and_names_its_rows(capsys):
    for call in _all_cells("noisy"):
        call()
        out = capsys.readouterr().out
        assert out.strip(), call
        for line in out.splitlines():
            assert not is_finding(line) or says_its_noise(line), line
            if core_verdicts.NOISY_MARK in line:
                assert "noisy rows:" in line, line  # a warning names the rows it is about
        assert len(out.splitlines()) == len(set(out.splitlines())), out  # no line twice


def test_every_verdict_function_on_quiet_rows_states_its_finding(capsys):
    found = []
    for call in _all_cells("quiet"):
        call()
        out = capsys.readouterr().out
        assert out.strip() and core_verdicts.NOISY_MARK not in out.replace("beside the load", ""), (call, out)
        found += [line for line in out.splitlines() if is_finding(line)]
    assert len(found) >= 4, found


def _each_record(records: dict) -> list:
    return [r for group in records.values() for r in (group.values() if isinstance(group, dict) else
                                                      group if isinstance(group, list) else [group])]


def test_one_noisy_row_among_quiet_ones_leaves_no_finding_unmarked_in_a_notebook_cell(capsys, monkeypatch):
    """CI's failure: cell 19 printed the quiet matmul sentence, then the noisy addition warning, so the
    matmul ratio stood unmarked beside a noisy row. Each record made noisy in turn, every # VERDICT function
    run as a notebook cell: every line that states a finding says its noise status on that line."""
    import IPython

    class Shell:
        execution_count = 500

    shell = Shell()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    records = _cell_records("quiet")
    calls = _calls(records)
    unmarked = []
    for victim in _each_record(records):
        before = victim.noise
        victim.noise = {"verdict": "noisy", "reasons": ["load"]}
        for i, call in enumerate(calls):
            shell.execution_count += 1
            call()
            out = capsys.readouterr().out.splitlines()
            if any(core_verdicts.NOISY_MARK in line for line in out):  # the cell shows a noisy row
                unmarked += [(victim.name, i, line) for line in out if is_finding(line) and not says_its_noise(line)]
        victim.noise = before
    assert not unmarked, unmarked


def test_a_noisy_row_is_named_in_the_warning(capsys):
    mm = [_rec(f"matmul {n}", "cpu", {"size": n}, {"gflops": g}, "noisy") for n, g in ((64, 5.0), (512, 60.0))]
    add = [_rec(f"add {n}", "cpu", {"numel": n}, {"gbs": 10.0}) for n in (1024, 4096)]
    over = bench.Record("overhead", 5e-6, metrics={"overhead_s": 5e-6}, noise=dict(QUIET))
    V.sizes_and_adds(mm, add, {"cpu": over}, None)
    out = capsys.readouterr().out
    assert "matmul 64 (cpu)" in out and "matmul 512 (cpu)" in out


def test_noisy_rows_are_measured_once_more_before_the_verdict_and_quiet_ones_kept(capsys):
    """Issue 38: one rerun at the quieter setting (1 thread) before a verdict gives up on noisy rows."""
    from fastrain_lib.measure.bench import remeasure_noisy

    rows = [_rec("matmul 64", "cpu", {"size": 64}, {"gflops": 5.0}), _rec("matmul 512", "cpu", {"size": 512}, {"gflops": 9.0}, "noisy")]
    asked = []

    def again(record):
        asked.append(record.params["size"])
        return _rec(record.name, "cpu", {**record.params, "threads": 1}, {"gflops": 60.0})

    new = remeasure_noisy(rows, again)
    assert asked == [512] and new[0] is rows[0] and new[1].metrics["gflops"] == 60.0 and not new[1].noisy
    assert "1 of 2" in capsys.readouterr().out
    assert remeasure_noisy(new, again) == new and asked == [512]
    assert "None of the 2" in capsys.readouterr().out
