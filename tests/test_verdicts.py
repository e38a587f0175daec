"""verdicts.say never explains a noisy measurement, and says so instead (issue 27)."""

import json

from fastrain_lib.core import verdicts
from fastrain_lib.measure import noise

QUIET = {"verdict": "quiet", "reasons": []}
NOISY = {"verdict": "noisy", "reasons": ["load"]}


class Rec:  # the shape of a bench Record: the noise information under .noise
    def __init__(self, info):
        self.noise = info


def test_a_cause_is_printed_only_when_every_measurement_it_stands_on_is_quiet(capsys):
    cause = "fused 2.0x faster because it launches fewer kernels"
    for noise_arg, explained in [([Rec(QUIET), QUIET], True), ((), True), ([Rec(QUIET), Rec(NOISY)], False),
                                 (NOISY, False), ([[QUIET], [Rec(NOISY)]], False)]:
        verdicts.say(cause, noise=noise_arg)
        out = capsys.readouterr().out
        assert out.count(verdicts.PREFIX) == 1, out
        assert (cause in out) is explained, (noise_arg, out)
        assert out.startswith(verdicts.PREFIX + verdicts.NOISY_MARK) is (not explained)


def test_the_noisy_sentence_counts_and_names_the_reasons(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    text = verdicts.noisy_line([QUIET, NOISY, {"verdict": "noisy", "reasons": ["spread", "load"]}])
    assert "2 of the 3" in text and "other load" in text and "repeats disagree" in text


def test_an_undeclared_sentence_after_a_noisy_window_is_written_to_the_audit_log(tmp_path, monkeypatch):
    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv(verdicts.LOG_ENV, str(log))
    verdicts._pending.clear()
    window = noise.Window()
    window.start = window.end = noise.sample()
    info = window.assess(threads=99)  # more threads than cores: noisy by the verdict's own rule
    assert info["verdict"] == "noisy"
    verdicts.say("a cause nobody declared")
    verdicts.say("the next sentence stands on nothing new", noise=())
    rows = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert [r["measurement"] for r in rows if "measurement" in r] == ["noisy"]
    said = [r for r in rows if "sentence" in r]
    assert [(r["declared"], r["pending_noisy"], r["stood_on"]) for r in said] == [(False, 1, 0), (True, 0, 0)]


def test_one_cell_prints_the_same_noisy_warning_once(capsys, monkeypatch):
    """Two explanations in one cell, both on noisy measurements: one warning, not the same line twice
    (lesson 05b printed it twice under a busy core). The next cell warns again."""
    import IPython

    class Shell:
        execution_count = 41

    shell = Shell()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    verdicts.say("ring is faster because of bandwidth", noise=[Rec(NOISY)])
    verdicts.say("tree is slower because of latency", noise=[NOISY])
    verdicts.say("the count is 8", noise=())  # a sentence on no timing is still said
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith(verdicts.PREFIX + verdicts.NOISY_MARK) and out[1] == "➤ the count is 8"
    shell.execution_count += 1
    verdicts.say("ring is faster because of bandwidth", noise=[Rec(NOISY)])
    assert capsys.readouterr().out.startswith(verdicts.PREFIX + verdicts.NOISY_MARK)
    verdicts.say("2 of 3 noisy", noise=[NOISY, NOISY, QUIET])  # a different warning (other counts): printed
    assert capsys.readouterr().out.startswith(verdicts.PREFIX + verdicts.NOISY_MARK)
    # the first warning again, after the other one (lesson 01's limits, then its findings): not a second copy
    verdicts.say("ring is faster because of bandwidth", noise=[Rec(NOISY)])
    assert capsys.readouterr().out == ""


def test_a_finding_on_quiet_rows_says_so_only_in_a_cell_with_a_noisy_measurement(capsys, monkeypatch):
    """Lesson 01's addition sentence stood on its quiet table in a cell whose matmul table was noisy, and
    did not say so on its line (the sentence rule failed in CI). It says so there; in a quiet cell, in the
    next cell, and outside IPython it does not (no clutter where nothing was noisy)."""
    import IPython

    monkeypatch.setenv("FASTRAIN_LANG", "en")
    mark = "(✓ on quiet measurements)"
    verdicts.say("fused is 2.0x faster", noise=[Rec(QUIET)])  # outside IPython: nothing added
    assert mark not in capsys.readouterr().out

    class Shell:
        execution_count = 70

    shell = Shell()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    verdicts.say("fused is 2.0x faster", noise=[Rec(QUIET)])  # a quiet cell
    assert mark not in capsys.readouterr().out
    shell.execution_count += 1
    verdicts.note_measurement(NOISY)  # another table of this cell was noisy
    verdicts.say("fused is 2.0x faster", noise=[Rec(QUIET)])
    verdicts.say("the count is 8", noise=())  # stands on no measurement: nothing to mark
    assert capsys.readouterr().out.splitlines() == ["➤ fused is 2.0x faster " + mark, "➤ the count is 8"]
    shell.execution_count += 1
    verdicts.say("fused is 2.0x faster", noise=[Rec(NOISY)])  # a noisy warning printed here marks the cell too
    verdicts.say("loop is 3.0x slower", noise=[Rec(QUIET)])
    assert capsys.readouterr().out.splitlines()[-1] == "➤ loop is 3.0x slower " + mark
    shell.execution_count += 1
    verdicts.say("fused is 2.0x faster", noise=[Rec(QUIET)])
    assert mark not in capsys.readouterr().out
