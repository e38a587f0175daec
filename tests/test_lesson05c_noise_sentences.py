"""Issue 38: every verdict function of lesson 05c fed noisy AND quiet rows, its printed sentences read.
Noisy: every line that states a finding carries its noise status and the finding's sentence is not
printed (no cause); quiet: the finding is stated. Counts (bytes, live micro-batches) stand on nothing
timed and are stated either way."""

import pytest
from _sentences import is_finding, says_its_noise

from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l05c_sharding_and_pipelines import verdicts as V

NOISY = {"verdict": "noisy", "reasons": ["load"], "other_cores": 1.0, "cores": 2, "threads": 2}
QUIET = {"verdict": "quiet", "reasons": [], "other_cores": 0.0, "cores": 2, "threads": 2}


@pytest.fixture(params=["bn", "en"])
def lang(request, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", request.param)
    return request.param


def _printed(capsys, say, *args) -> list[str]:
    capsys.readouterr()
    say(*args)
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def _zero_rows(info):
    def row(strategy, measured, payload, step_s):
        return {"strategy": strategy, "params_bytes": measured, "grads_bytes": 0, "optim_bytes": 0,
                "formula": {"total": measured}, "payload": payload, "step_s": step_s, "noise": info}
    return [row("ddp", 4000, 1000, 0.010), row("zero3", 2000, 1500, 0.030)]


def _sweep_rows(info):
    return [{"width": w, "allreduce_s": a / 1e3, "compute_s": c / 1e3, "tp_s": (a + c) / 1e3, "single_s": 2 * c / 1e3,
             "comm_share": a / (a + c), "allreduce_bytes": 32 * w * 4, "noise": info}
            for w, a, c in ((64, 0.5, 0.2), (256, 1.2, 1.0), (1024, 3.0, 9.0), (2048, 6.0, 30.0))]


def _schedule_rows(info):
    def row(name, idle, alive):
        return {"schedule": name, "micro_batches": 8, "idle": idle, "formula": 0.11, "alive": alive,
                "alive_rule": alive, "activation_bytes": [8 * 1024 * 1024, 4 * 1024 * 1024], "stages": 2, "noise": info}
    return [row("gpipe", 0.30, [8, 8]), row("1f1b", 0.18, [2, 1])]


COST_ROWS = [("ddp", 1.0, 2.0, 2.5, 1.25), ("zero3", 1.0, 3.0, 4.5, 1.5)]


def _cases(info):
    return [
        (V.say_zero, (_zero_rows(info),), "lesson05c.v_zero_step", V.zero_verdicts(_zero_rows(info))[-1][1]),
        (V.say_sweep, (_sweep_rows(info),), "lesson05c.v_sweep_ar_grows", V.sweep_verdicts(_sweep_rows(info))[0][1]),
        (V.say_schedules, (_schedule_rows(info),), "lesson05c.v_sched_idle_differ",
         V.schedule_verdicts_noise(_schedule_rows(info))[-1][1]),
        (V.say_cost, (COST_ROWS, [info, info]), "lesson05c.v_cost_close", V.cost_verdict(COST_ROWS)[1]),
    ]


def _counted(which, info):
    if which == 0:
        return V.zero_verdicts(_zero_rows(info))
    if which == 2:
        return V.schedule_verdicts_noise(_schedule_rows(info))
    return []


@pytest.mark.parametrize("which", range(4))
def test_noisy_rows_give_no_finding_without_its_mark(which, lang, capsys):
    say, args, key, values = _cases(NOISY)[which]
    lines = _printed(capsys, say, *args)
    assert any(says_its_noise(line) for line in lines), lines
    counts = {t(k, **v) for k, v, m in _counted(which, NOISY) if not m}  # said with noise=(): exempt
    assert [line for line in lines if is_finding(line) and not says_its_noise(line)
            and not any(c in line for c in counts)] == []
    assert t(key, **values).split("।")[0].split(". ")[0] not in "\n".join(lines)  # the finding is not stated


@pytest.mark.parametrize("which", range(4))
def test_quiet_rows_state_the_finding(which, lang, capsys):
    say, args, key, values = _cases(QUIET)[which]
    lines = _printed(capsys, say, *args)
    assert any(t(key, **values) in line for line in lines), (key, lines)
    assert not any("⚠️" in line for line in lines)


def test_counts_are_stated_either_way_and_never_as_a_list(lang, capsys):
    for info in (NOISY, QUIET):
        text = "\n".join(_printed(capsys, V.say_schedules, _schedule_rows(info)))
        assert "8, 8" in text and "[8, 8]" not in text and "[2, 1]" not in text
        zero = "\n".join(_printed(capsys, V.say_zero, _zero_rows(info)))
        assert "3.815" in zero or "0.004" in zero or "MB" in zero
        # the bytes each step communicates are counted: stated on a busy machine too, with their ratio
        assert t("lesson05c.v_zero_comm", ddp_mb=1000 / 2**20, z3_mb=1500 / 2**20, ratio=1.5) in zero
    tp = [{"rank": 0, "forward_comms": {"all_reduce": 1}, "backward_comms": {"all_reduce": 1}, "error": 4.8e-07}]
    line, = _printed(capsys, V.say_tp, tp)
    assert "4.8e-07" in line and "e-07" in line and "4.8000" not in line


@pytest.mark.parametrize("which", range(3))
def test_the_noisy_line_names_its_rows(which, lang, capsys):
    say, args, _, _ = _cases(NOISY)[which]
    noisy = [line for line in _printed(capsys, say, *args) if "⚠️" in line]
    want = {0: "DDP", 1: "d = 64", 2: "GPipe"}[which]
    assert noisy and all(want in line for line in noisy), noisy
