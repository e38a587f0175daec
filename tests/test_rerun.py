"""measure/rerun.py, the one rerun at the quieter setting of lessons 05c and 06 (issue 38): it measures only
after a noisy verdict, once, after waiting for the cores it needs; it says the new verdict, and gives up in
plain words exactly when the new measurement is noisy too. Lessons 05c's and 06's verdicts offer it only
when they stood on a noisy row."""

import types

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fastrain_lib.lessons.l05c_sharding_and_pipelines import panel as P05c
from fastrain_lib.lessons.l05c_sharding_and_pipelines import verdicts as V05c
from fastrain_lib.lessons.l06_sync_vs_async_sgd import panel as P06
from fastrain_lib.lessons.l06_sync_vs_async_sgd import verdicts as V06
from fastrain_lib.measure import noise, rerun

QUIET = {"verdict": "quiet", "reasons": [], "cores": 2, "threads": 1, "other_cores": 0.0, "steal_cores": 0.0}
BUSY = {"verdict": "noisy", "reasons": ["load"], "cores": 2, "threads": 1, "other_cores": 1.0, "steal_cores": 0.0}


@pytest.fixture(autouse=True)
def english(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    monkeypatch.setenv("FASTRAIN_VERDICT_LOG", str(tmp_path / "verdicts.jsonl"))


@pytest.fixture
def waits(monkeypatch):
    monkeypatch.setattr(noise, "cores", lambda: 8)  # a machine with the cores every case here asks for
    asked = []
    monkeypatch.setattr(noise, "wait_for_cores", lambda cores, max_s: asked.append((cores, max_s)) or cores)
    return asked


def _lines(capsys):
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


@pytest.mark.parametrize("new_noisy", [False, True])
def test_a_noisy_verdict_is_measured_once_more_and_given_up_only_when_noisy_again(capsys, waits, new_noisy):
    measured, said = [], []
    new = rerun.once(True, lambda: measured.append(1) or {"noisy": new_noisy}, said.append,
                     lambda r: r["noisy"], cores=3)
    lines = _lines(capsys)
    assert measured == [1] and said == [new] and waits == [(3, rerun.wait_s())]
    assert lines[0].endswith("Measuring again: the 3 cores it needs are free now.")
    assert any("Noisy again" in line for line in lines) == new_noisy


@pytest.mark.parametrize("free", [0, 1, 2])
def test_while_the_cores_are_still_taken_nothing_is_measured_and_the_line_says_why(capsys, monkeypatch, free):
    monkeypatch.setattr(noise, "cores", lambda: 8)
    monkeypatch.setattr(noise, "wait_for_cores", lambda cores, max_s: free)
    assert rerun.once(True, lambda: pytest.fail("measured"), lambda r: pytest.fail("said"), bool, cores=3) is None
    lines = _lines(capsys)
    assert len(lines) == 1 and "Not measured again" in lines[0] and f"only {free} of the 3 cores" in lines[0]
    assert not any("Noisy again" in line for line in lines)


@given(cores=st.integers(1, 64), needed=st.integers(1, 64), other=st.floats(0, 64, allow_nan=False))
def test_cores_not_free_is_exactly_a_load_noisy_measurement(cores, needed, other):
    """The rerun skips a measurement exactly when noise.verdict would call it noisy for load: wait_for_cores,
    given a look at the machine that finds `other` cores taken by other programs, against the cores needed."""
    assume(needed <= cores)  # every rerun asks for no more processes than cores
    load = {"cores": cores, "other_cores": other, "steal_cores": 0.0}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(noise, "sample", lambda: None)
        mp.setattr(noise, "load_between", lambda a, b: load)
        mp.setattr(noise.time, "sleep", lambda s: None)
        free = noise.wait_for_cores(needed, max_s=0)
    _, reasons = noise.verdict({"cores": cores, "threads": needed, "other_cores": other, "steal_cores": 0.0})
    assert 0 <= free <= needed and (free < needed) == ("load" in reasons)


@given(have=st.integers(1, 16), needed=st.integers(1, 32))
def test_a_rerun_that_needs_more_cores_than_the_machine_has_is_not_measured_and_says_so(have, needed):
    """Lesson 06's server and two workers on a 2-core PC: a new run would be noisy for "threads" whatever the other
    programs do, so nothing waits and nothing is measured, exactly when noise.verdict would say "threads"."""
    import contextlib
    import io

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out):
        mp.setenv("FASTRAIN_LANG", "en")
        mp.setattr(noise, "cores", lambda: have)
        mp.setattr(noise, "wait_for_cores", lambda cores, max_s: cores)  # the other programs leave every core free
        measured = rerun.once(True, lambda: "new", lambda r: None, lambda r: False, cores=needed)
    _, reasons = noise.verdict({"cores": have, "threads": needed, "other_cores": 0.0, "steal_cores": 0.0})
    assert (measured is None) == ("threads" in reasons)
    said = out.getvalue()
    assert (f"this machine has only {have} cores" in said) == ("threads" in reasons)
    assert "Not measured again" not in said or "Measuring again" not in said


def test_lesson06_ps_rerun_asks_for_the_server_core_too(capsys, waits, monkeypatch):
    """The server is a process beside the workers (the run's noise asked for workers + 1 cores): its rerun waits for as many."""
    noisy = types.SimpleNamespace(noise=BUSY)
    monkeypatch.setattr(P06, "real_runs", lambda *a, **k: (noisy, noisy, None, {}))
    monkeypatch.setattr(V06, "say_ps", lambda *a, **k: None)
    P06.rerun_ps(noisy, noisy, workers=2)
    assert waits and waits[0][0] == 3


@pytest.mark.parametrize("have", [2, 3, 4])
def test_lesson06_offers_the_ps_rerun_only_where_it_can_come_out_quiet(capsys, monkeypatch, have):
    """Two workers and the server need 3 cores: a 2-core PC is not told that the next cell measures again."""
    monkeypatch.setattr(noise, "cores", lambda: have)
    monkeypatch.setattr(V06, "_say", lambda *a, **k: None)
    monkeypatch.setattr(V06, "ps_verdicts", lambda *a: [])
    noisy = types.SimpleNamespace(noise=BUSY, config={"workers": 2, "straggler_ms": 10.0, "mode": "async"})
    V06.say_ps(noisy, noisy, None)
    assert ("measures once more" in capsys.readouterr().out) == (have >= 3)


def test_a_quiet_verdict_measures_nothing(capsys, waits):
    assert rerun.once(False, lambda: pytest.fail("measured"), lambda r: pytest.fail("said"), bool, cores=2) is None
    assert waits == [] and "no need to measure again" in capsys.readouterr().out


def test_the_offer_is_a_line_only_after_a_noisy_verdict(capsys):
    rerun.offer(False)
    assert capsys.readouterr().out == ""
    rerun.offer(True)
    assert "the next cell waits up to" in capsys.readouterr().out


def _sweep_rows(info):
    return [{"width": w, "compute_s": 1e-3 * w / 64, "allreduce_s": 2e-4, "comm_share": 0.2, "tp_s": 2e-3 * w / 64,
             "single_s": 1.5e-3 * w / 64, "noise": info, "spread": 0.01, "repeats": 3} for w in (64, 256)]


@pytest.mark.parametrize("info, offered", [(QUIET, False), (BUSY, True)])
def test_lesson05c_offers_the_rerun_only_beside_a_noisy_row(capsys, info, offered):
    V05c.say_sweep(_sweep_rows(info))
    assert any("the next cell waits up to" in line for line in _lines(capsys)) == offered


@pytest.mark.parametrize("new_info", [QUIET, BUSY])
def test_lesson05c_sweep_rerun_measures_the_same_sweep_once_and_says_the_new_verdict(capsys, waits, monkeypatch, new_info):
    """The real processes behind it run in the lesson's own executions (make test runs lesson 05c twice)."""
    asked = []
    monkeypatch.setattr(P05c, "tp_runs", lambda processes, width, widths: asked.append((processes, width, widths)) or "runs")
    monkeypatch.setattr(P05c, "sweep_table", lambda runs: _sweep_rows(new_info))
    new = P05c.rerun_sweep(_sweep_rows(BUSY), 2, 64, (64, 256))
    lines = _lines(capsys)
    assert asked == [(2, 64, (64, 256))] and waits == [(2, rerun.wait_s())] and new == _sweep_rows(new_info)
    assert not any("the next cell" in line for line in lines)  # no second offer
    assert any("Noisy again" in line for line in lines) == (new_info is BUSY)


def test_a_quiet_sweep_whose_times_follow_no_rule_is_offered_the_rerun_and_measured_again(capsys, waits, monkeypatch):
    """A busy lab run: all-reduce times 0.3, 0.5, 2.9, 0.5 ms over four widths, each measurement quiet by the
    load counters. The verdict calls them noise; its rerun cell used to say 'the measurement above was quiet'."""
    rows = _sweep_rows(QUIET) + _sweep_rows(QUIET)
    for row, ms, width in zip(rows, (0.3, 0.5, 2.9, 0.5), (64, 256, 1024, 2048)):
        row.update(width=width, allreduce_s=ms / 1e3, allreduce_bytes=width * 4)
    V05c.say_sweep(rows)
    lines = _lines(capsys)
    assert any("follow no rule" in line for line in lines) and "the next cell waits up to" in lines[-1]
    monkeypatch.setattr(P05c, "tp_runs", lambda processes, width, widths: "runs")
    monkeypatch.setattr(P05c, "sweep_table", lambda runs: _sweep_rows(QUIET))
    assert P05c.rerun_sweep(rows, 2, 64, (64, 256, 1024, 2048)) == _sweep_rows(QUIET)
    assert not any("no need to measure again" in line for line in _lines(capsys))


def test_lesson06_ps_rerun_says_nothing_where_the_server_never_ran(capsys, waits):
    assert P06.rerun_ps(None, None) is None
    assert capsys.readouterr().out == "" and waits == []


def test_lesson06_hogwild_rerun_trains_the_same_variants_again_and_keeps_the_baseline(capsys, waits, monkeypatch):
    from fastrain_lib.async_sgd import hogwild

    trained = []
    run = lambda w, noise_info: types.SimpleNamespace(workers=w, noise=noise_info)
    monkeypatch.setattr(hogwild, "train", lambda w, **k: trained.append((w, k["lock"], k["total_steps"])) or run(w, QUIET))
    monkeypatch.setattr(V06, "say_hogwild", lambda results, offer_rerun=True: print("said", len(results), offer_rerun))
    baseline = run(2, QUIET)
    new = P06.rerun_hogwild([run(2, BUSY), run(1, QUIET), baseline], [(2, False), (1, False)], None, 30)
    assert trained == [(2, False, 30), (1, False, 30)] and new[-1] is baseline and waits == [(2, rerun.wait_s())]
    lines = _lines(capsys)
    assert "said 3 False" in lines and not any("Noisy again" in line for line in lines)
