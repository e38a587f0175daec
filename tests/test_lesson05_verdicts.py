"""Lesson 05's # VERDICT functions, fed noisy and quiet rows, read sentence by sentence (issue 38):
noisy -> every finding line carries the noisy mark, names its rows and gives no cause, and one rerun at
the quieter setting is offered; quiet -> the finding is stated, with the quiet mark on its line; the
count sentences (more processes than cores) hold no timing and no speed-up; the rerun measures anew,
once, and gives up honestly when the machine is still busy."""

import json
import types

import pytest
from _sentences import is_finding, says_its_noise
from test_lesson05_panels import _run_file  # a reference/ file of DDP records, as the suite writes it

from fastrain_lib.lessons.l05_data_vs_model_parallel import panel as P
from fastrain_lib.lessons.l05_data_vs_model_parallel import reruns as R
from fastrain_lib.lessons.l05_data_vs_model_parallel import verdicts as V
from fastrain_lib.measure import bench

QUIET = {"verdict": "quiet", "reasons": [], "cores": 2, "threads": 1, "other_cores": 0.0, "steal_cores": 0.0}
BUSY = {"verdict": "noisy", "reasons": ["load"], "cores": 2, "threads": 1, "other_cores": 1.0, "steal_cores": 0.0}
CAUSE_WORDS = ("কারণ", "because", "due to", "waiting", "অপেক্ষা", "latency", "লেটেন্সি", "memory", "মেমরি",
               "can never", "take turns", "পালা করে")


@pytest.fixture(autouse=True)
def english(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    monkeypatch.setenv("FASTRAIN_VERDICT_LOG", str(tmp_path / "verdicts.jsonl"))
    monkeypatch.setattr(V, "cores", lambda: 2)


def _exempt(tmp_path) -> set:
    log = tmp_path / "verdicts.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {r["sentence"].strip() for r in records if r.get("declared") and r.get("stood_on") == 0 and "sentence" in r}


def _lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def _row(w, speedup, info, compute=0.012, allreduce=0.001, step=0.013):
    return {"processes": w, "speedup": speedup, "compute_s": compute, "allreduce_s": allreduce, "step_s": step,
            "noise": info}


def _findings_carry_noise(lines, exempt):
    return [line for line in lines if is_finding(line) and not says_its_noise(line) and line.strip() not in exempt]


# ---------------------------------------------------------------- DDP panel (issue 38: cells 17/18)


def test_ddp_noisy_w4_row_states_no_speed_up_as_a_finding_and_no_ceiling_cause(capsys, tmp_path):
    """The issue's run: W = 4 on 2 cores, 0.56×, noisy; the old line said '... so the speed-up is 0.56× —
    2 cores can never give more than 2×' (a cause, and one that cannot explain a value below 1×)."""
    V.say_ddp([_row(1, 1.0, QUIET), _row(2, 0.74, BUSY), _row(4, 0.56, BUSY)])
    lines = _lines(capsys)
    assert not _findings_carry_noise(lines, _exempt(tmp_path)), lines
    assert not any("0.56" in line for line in lines)  # the noisy speed-up is not stated: the warning names its row
    assert any("DDP W=4" in line and "⚠️" in line for line in lines)
    assert not any("can never" in line or "2×" in line for line in lines)
    count = [line for line in lines if "4 processes but only 2 cores" in line]
    assert len(count) == 1 and not is_finding(count[0])  # the count: no ratio, no speed word, no cause
    assert sum("next cell" in line for line in lines) == 1 and len(lines) == len(set(lines))


def test_ddp_quiet_rows_state_the_finding_with_the_quiet_mark(capsys, tmp_path):
    V.say_ddp([_row(1, 1.0, QUIET), _row(2, 1.83, QUIET)])
    lines = _lines(capsys)
    assert any("1.83× faster" in line and "✓ quiet" in line for line in lines), lines
    assert not any("⚠️" in line for line in lines) and not any("next cell" in line for line in lines)


def test_ddp_quiet_oversubscribed_row_states_its_measured_speed_up_marked(capsys, tmp_path):
    V.say_ddp([_row(1, 1.0, QUIET), _row(2, 1.6, QUIET), _row(4, 0.56, QUIET)])
    lines = _lines(capsys)
    assert any("0.56×" in line and "✓ quiet" in line for line in lines), lines
    assert not any("can never" in line for line in lines)


def test_ddp_noisy_base_run_gives_no_cause_for_a_quiet_w2_row(capsys, tmp_path):
    V.say_ddp([_row(1, 1.0, BUSY), _row(2, 1.83, QUIET)])
    lines = _lines(capsys)
    assert not _findings_carry_noise(lines, _exempt(tmp_path)), lines
    assert not any(word in line for line in lines for word in ("communication costs less", "because"))
    assert any("DDP W=1" in line for line in lines)


@pytest.fixture
def cores_free(monkeypatch):
    """The cores a rerun waits for are free (the real look would find make test's other work on them)."""
    from fastrain_lib.measure import noise

    waited = []
    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=10.0: waited.append(needed) or needed)
    return waited


def test_rerun_ddp_measures_again_once_at_processes_that_fit_and_gives_up_when_still_noisy(capsys, monkeypatch,
                                                                                           cores_free):
    calls = []

    def fake_runs(counts, batch, hidden, backend, steps=None, *, fresh=False):
        calls.append((tuple(counts), fresh))
        info = BUSY  # busy before and after the rerun
        return {w: [{"median_step_s": 0.01 * (1 + 0.1 * w), "batch_per_rank": 64, "global_batch": 64 * w,
                     "param_hashes": ["a"], "step_times": [0.01], "backend": "gloo", "noise": info,
                     "allreduce_s": 0.001}] for w in counts}

    monkeypatch.setattr(P, "ddp_runs", fake_runs)
    panel = types.SimpleNamespace(settings=lambda: {"processes": 4, "batch_size": 64, "hidden": 32, "backend": "gloo"})
    R.rerun_ddp(panel)
    lines = _lines(capsys)
    assert calls == [((1, 2, 4), False), ((1, 2), True)]  # the panel's rows, then ONE fresh run without W = 4
    assert cores_free == [2]
    assert any("Measured again" in line and "1, 2" in line for line in lines)
    gave_up = next(i for i, line in enumerate(lines) if line.startswith("➤ ⚠️ Noisy again"))
    assert not any("next cell" in line for line in lines)
    # after giving up, only the quiet machines' numbers from reference/ (when it has any), labelled as theirs
    assert lines[gave_up + 1:] == ([_reference_line(2)] if _reference_line(2) else [])


def test_rerun_ddp_does_nothing_after_a_quiet_run(capsys, monkeypatch):
    calls = []

    def fake_runs(counts, *args, fresh=False, **kwargs):
        calls.append(fresh)
        return {w: [{"median_step_s": 0.01, "batch_per_rank": 64, "global_batch": 64 * w, "param_hashes": ["a"],
                     "step_times": [0.01], "backend": "gloo", "noise": QUIET, "allreduce_s": 0.0}] for w in counts}

    monkeypatch.setattr(P, "ddp_runs", fake_runs)
    panel = types.SimpleNamespace(settings=lambda: {"processes": 2, "batch_size": 64, "hidden": 32, "backend": "gloo"})
    R.rerun_ddp(panel)
    assert calls == [False] and "no need" in capsys.readouterr().out


# ---------------------------------------------------------------- all-reduce table (issue 38: cell 28)

ROWS = [(2, 1000, 1.30, 0.15, 0.3, 0.0), (2, 1_000_000, 7.22, 8.0, 5.29, 0.0),
        (3, 1000, 20.0, 0.9, 8.0, 0.0), (3, 1_000_000, 30.0, 25.0, 20.0, 0.0),
        (4, 1000, 17.02, 0.69, 8.0, 0.0), (4, 1_000_000, 40.0, 35.0, 20.0, 0.0)]


def test_allreduce_noisy_rows_carry_the_mark_name_their_rows_and_give_no_cause(capsys, tmp_path):
    """The issue's run: N = 4 server faster than at N = 3, all rows noisy: no 'waiting for a core' cause."""
    V.say_allreduce(ROWS, [BUSY] * 6)
    lines = _lines(capsys)
    assert not _findings_carry_noise(lines, _exempt(tmp_path)), lines
    exempt = _exempt(tmp_path)
    assert not any(word in line for line in lines if line.strip() not in exempt for word in CAUSE_WORDS), lines
    assert any("N=2, 1,000" in line and "⚠️" in line for line in lines)
    assert len(lines) == len(set(lines))


def test_allreduce_quiet_rows_state_their_finding_marked(capsys):
    V.say_allreduce(ROWS[:2], [QUIET, QUIET])
    lines = _lines(capsys)
    assert any("simple server was faster" in line and "✓ quiet" in line for line in lines), lines
    assert not any("⚠️" in line for line in lines)


# ---------------------------------------------------------------- pipeline (issue 38: cell 40)


def _pipe_record(info, stages=2, idle=0.68, formula=0.2):
    return bench.Record(name=f"pipeline K={stages} M=4", median_s=0.02,
                        params={"panel": "lesson05_pipeline", "stages": stages, "micro_batches": 4, "width": 64},
                        metrics={"idle_share": idle, "formula": formula}, noise=info)


def test_pipeline_k2_on_2_cores_noisy_blames_no_cores_and_offers_one_rerun(capsys, tmp_path):
    V.say_pipeline(_pipe_record(BUSY))
    lines = _lines(capsys)
    assert not _findings_carry_noise(lines, _exempt(tmp_path)), lines
    assert not any("cores" in line and "only" in line for line in lines)  # K = 2 fits 2 cores
    assert not any("68%" in line for line in lines) and any("pipeline K=2 M=4" in line for line in lines)
    assert sum("next cell" in line for line in lines) == 1


def test_pipeline_quiet_run_states_the_gap_marked(capsys):
    V.say_pipeline(_pipe_record(QUIET))
    lines = _lines(capsys)
    assert any("68%" in line and "20%" in line and "✓ quiet" in line for line in lines), lines


def test_reruns_measure_nothing_while_another_program_takes_a_core(capsys, monkeypatch):
    from fastrain_lib.measure import noise

    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=10.0: needed - 1)
    monkeypatch.setattr(P, "pipeline_experiment", lambda **k: pytest.fail("the pipeline was measured"))
    monkeypatch.setattr(P, "ddp_runs", lambda counts, *a, fresh=False, **k: pytest.fail("measured again") if fresh else
                        {w: [{"median_step_s": 0.01, "batch_per_rank": 64, "global_batch": 64 * w, "param_hashes": ["a"],
                              "step_times": [0.01], "backend": "gloo", "noise": BUSY, "allreduce_s": 0.0}] for w in counts})
    ddp_panel = types.SimpleNamespace(settings=lambda: {"processes": 2, "batch_size": 64, "hidden": 32, "backend": "gloo"})
    pipe_panel = types.SimpleNamespace(last=types.SimpleNamespace(records=[_pipe_record(BUSY, 2)]),
                                       settings=lambda: {"stages": 2, "micro_batches": 4, "width": 64})
    assert R.rerun_ddp(ddp_panel) is None and R.rerun_pipeline(pipe_panel) is None
    lines = [line for line in _lines(capsys) if line != _reference_line(2)]  # (the DDP rerun's last line: below)
    assert len(lines) == 2 and all("Not measured again" in line and "only 1 of the 2 cores" in line for line in lines)


def _reference_line(w):
    """The line say_reference_ddp prints for process count `w` from this checkout's reference/, or None."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        R.say_reference_ddp([w])
    return out.getvalue().strip() or None


def test_a_busy_pc_gets_the_quiet_machines_ddp_numbers_labelled_as_theirs(capsys, tmp_path):
    """Issue 38: when this PC cannot measure DDP quietly, the rerun cell ends with what quiet machines measured
    (reference/, the benchmark suite's ddp family): each run's hardware and date, the speed-up at the process
    counts the panel asked for (not others), and that it is not this PC's measurement; a sentence that stands on
    no timing of this run. A panel's own saved records (another workload) are not cited as the suite's."""
    folder = tmp_path / "reference"
    folder.mkdir()
    assert R.say_reference_ddp([1, 2], folder) is False and not _lines(capsys)  # nothing to cite: nothing said
    epyc = {"cpu_name": "AMD EPYC", "cpu_cores": 2, "date": "2026-12-01T07:51:00+00:00", "mode": "lab"}
    _run_file(folder, "epyc.json", epyc, [(1, 1.0), (2, 0.52), (4, 0.3)], panel=False)
    _run_file(folder, "panel.json", {**epyc, "cpu_name": "Panel CPU"}, [(1, 1.0), (2, 0.9)])
    assert R.say_reference_ddp([1, 2], folder) is True
    (line,) = _lines(capsys)
    assert "AMD EPYC" in line and "2026-12-01" in line and "2 processes, speed-up 1.04× (scaling efficiency 52%)" in line
    assert "4 processes" not in line and "Panel CPU" not in line  # only the counts asked for; only the suite's runs
    assert "not this PC's numbers" in line and "small GPT" in line
    assert line.strip() in _exempt(tmp_path)  # it stands on no measurement of this run


def test_rerun_pipeline_measures_once_more_and_says_so(capsys, monkeypatch, cores_free):
    seen = []

    def fake_experiment(stages, micro_batches, width):
        seen.append(stages)
        return types.SimpleNamespace(figure=None, records=[_pipe_record(QUIET, stages, idle=0.25, formula=0.2)])

    monkeypatch.setattr(P, "pipeline_experiment", fake_experiment)
    panel = types.SimpleNamespace(last=types.SimpleNamespace(records=[_pipe_record(BUSY, 4)]),
                                  settings=lambda: {"stages": 4, "micro_batches": 4, "width": 64})
    R.rerun_pipeline(panel)
    lines = _lines(capsys)
    assert seen == [2] and cores_free == [2]  # no more stages than cores
    assert any("K=2, M=4" in line for line in lines) and any("✓ quiet" in line for line in lines)
    assert not any("Noisy again" in line for line in lines)


def test_ddp_table_has_no_e_notation():
    from _sentences import SCIENTIFIC

    rows = P.summarise({1: [{"median_step_s": 0.0077, "batch_per_rank": 512, "global_batch": 512, "param_hashes": ["a"],
                             "step_times": [0.0077], "backend": "gloo", "noise": QUIET}]})
    assert not SCIENTIFIC.search(f"{rows[0]['samples_per_s']:,.0f}")


def test_rerun_allreduce_measures_once_in_real_processes_that_fit_the_cores(capsys, monkeypatch):
    """A noisy row: one new run in real processes, N = the cores (2 here, not the table's 3), after waiting
    for the cores; its sentences, and the give-up line exactly when the new run is noisy too."""
    from fastrain_lib.measure import noise

    waited = []
    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=10.0: waited.append(needed) or needed)
    rows = [(3, 1000, 20.0, 0.9, 8.0, 0.0)]
    new_rows, new_noise = R.rerun_allreduce(rows, [BUSY], [1000], 2)
    lines = _lines(capsys)
    assert waited == [2] and {r[0] for r in new_rows} == {2} and len(new_noise) == len(new_rows) == 1
    assert any("Measured again at the quieter setting: N=2" in line for line in lines)
    gave_up = any("Noisy again" in line for line in lines)
    assert gave_up == V.any_noisy(new_noise), lines
    assert not any("next cell" in line for line in lines)  # no second offer after the one rerun


def test_rerun_allreduce_measures_nothing_while_another_program_takes_a_core(capsys, monkeypatch):
    from fastrain_lib.distributed import measured
    from fastrain_lib.measure import noise

    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=10.0: needed - 1)
    monkeypatch.setattr(measured, "launch", lambda *a, **k: pytest.fail("measured while a core was taken"))
    assert R.rerun_allreduce([(3, 1000, 20.0, 0.9, 8.0, 0.0)], [BUSY], [1000], 2) is None
    lines = _lines(capsys)
    assert len(lines) == 1 and "Not measured again" in lines[0] and "only 1 of the 2 cores" in lines[0]


def test_rerun_allreduce_measures_nothing_after_quiet_rows(capsys, monkeypatch):
    from fastrain_lib.distributed import measured

    monkeypatch.setattr(measured, "launch", lambda *a, **k: pytest.fail("a quiet table was measured again"))
    assert R.rerun_allreduce([(2, 1000, 1.3, 0.15, 0.3, 0.0)], [QUIET], [1000], 2) is None
    assert "no need" in capsys.readouterr().out


def test_a_noisy_allreduce_table_offers_the_rerun_and_a_quiet_one_does_not(capsys):
    V.say_allreduce([(2, 1000, 1.30, 0.15, 0.3, 0.0)], [BUSY])
    assert _lines(capsys)[-1].startswith("➤ ⚠️ Some measurements were noisy: the next cell measures once more")
    V.say_allreduce([(2, 1000, 1.30, 0.15, 0.3, 0.0)], [QUIET])
    assert not any("next cell" in line for line in _lines(capsys))


def _busy_rounds(ring_over_server, ring_over_torch, agree=True):
    """A noisy row's per-round times of the three ways, timed in the same interleaved rounds (ring.compare_worker):
    each round slowed by its own load, the same ratios inside every round (or swinging, when not agree)."""
    load = [1.0, 2.4, 1.3, 3.1, 1.1, 1.9, 1.5, 2.8]
    server = [0.001 * f for f in load]
    swing = [1.0, 3.0] * 4 if not agree else [1.0] * 8
    ring = [s * ring_over_server * w for s, w in zip(server, swing)]
    torch = [s * ring_over_server / ring_over_torch for s in server]  # steady: ring ÷ torch swings with the ring
    return {**BUSY, "per_round": {"ring": ring, "naive": server, "torch": torch}}


@pytest.mark.parametrize("ring_over_server, ring_over_torch", [(8.0, 3.0), (0.7, 1.5), (1.02, 0.98)])
def test_a_busy_allreduce_table_whose_rounds_agree_reads_ring_over_server_and_over_gloo(ring_over_server,
                                                                                        ring_over_torch, capsys):
    rows = ROWS[:2]
    V.say_allreduce(rows, [_busy_rounds(ring_over_server, ring_over_torch)] * 2)
    lines = _lines(capsys)
    busy = [line for line in lines if line.startswith("➤ ✓") and "busy machine" in line]
    assert len(busy) == 3, lines  # ring ÷ server at both sizes, ring ÷ gloo at the largest
    for line, ratio in zip(busy, (ring_over_server, ring_over_server, ring_over_torch)):
        import re

        assert float(re.search(r"= ([\d.]+) \(median\)", line)[1]) == pytest.approx(ratio, rel=0.01), line
        winner = ("neither was faster" if abs(ratio - 1) <= 0.05 else
                  "the first took less time" if ratio < 1 else "the second took less time")
        assert winner in line and "quiet run" not in line, line
        assert not any(w in line for w in CAUSE_WORDS), line
    assert "the simple server" in busy[0] and "N = 2, 1,000 numbers" in busy[0] and "1,000,000" in busy[1]
    assert "gloo's dist.all_reduce" in busy[2]
    assert not any("⚠️" in line for line in lines), lines


def test_a_busy_allreduce_table_whose_rounds_disagree_or_are_out_of_order_states_no_ratio(capsys):
    V.say_allreduce(ROWS[:2], [_busy_rounds(8.0, 3.0, agree=False)] * 2)
    lines = _lines(capsys)
    assert not any(line.startswith("➤ ✓") for line in lines) and any("⚠️" in line for line in lines), lines
    out_of_order = [(2, 1000, 30.0, 0.15, 0.3, 0.0), (2, 1_000_000, 7.22, 8.0, 5.29, 0.0)]  # 1,000 slower than 10⁶
    V.say_allreduce(out_of_order, [_busy_rounds(8.0, 3.0)] * 2)
    lines = _lines(capsys)
    assert not any("N = 2, 1,000 numbers)" in line and line.startswith("➤ ✓") for line in lines), lines


def test_the_table_keeps_each_ways_slowest_rank_per_round_where_the_worker_interleaved():
    from fastrain_lib.lessons.l05_data_vs_model_parallel import ring_views

    def rank(ring, naive, torch, interleaved=True):
        size = {"numel": 1000, "ring_s": max(ring), "naive_s": max(naive), "torch_s": max(torch), "ring_error": 0.0,
                "ring_bytes": 8, "naive_bytes": 8, "ring_times": ring, "naive_times": naive, "torch_times": torch}
        return {"sizes": [size], "interleaved": interleaved}
    runs = {2: ([rank([1, 5, 2], [3, 1, 1], [2, 2, 2]), rank([4, 1, 1], [1, 2, 6], [1, 3, 1])], QUIET)}
    _rows, infos, _ = ring_views.allreduce_table(runs)
    assert infos[0]["per_round"] == {"ring": [4, 5, 2], "naive": [3, 2, 6], "torch": [2, 3, 2]}
    runs = {2: ([rank([1], [1], [1], interleaved=False), rank([1], [1], [1])], QUIET)}
    assert "per_round" not in ring_views.allreduce_table(runs)[1][0]
