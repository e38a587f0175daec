"""Issue 38: lesson 06's verdict functions on real-process runs fed noisy AND quiet rows, the printed
sentences read (noisy: every finding line carries its noise status and the finding is not stated;
quiet: it is). The simulator's sentences stand on no measurement (noise=()) and are stated always."""

import pytest
from _sentences import is_finding, says_its_noise
from test_lesson06_verdicts import _hog, _ps

from fastrain_lib.async_sgd import problems
from fastrain_lib.async_sgd import simulator as A
from fastrain_lib.async_sgd.local_sgd import LocalSGDRun
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l06_sync_vs_async_sgd import verdicts as V

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


def _hogwild(info):
    losses = [2.0 - 0.015 * i for i in range(100)]
    one = _hog(1, False, [0.02 * i for i in range(1, 101)], losses)
    two = _hog(2, False, [0.01 * i for i in range(1, 101)], losses)
    one.noise = two.noise = info
    return ([one, two],)


def _server(info):
    asyn = _ps("async", 6, 0.01, [0, 0, 1, 0, 0, 5], [0, 0, 0, 0, 0, 1], 1.5)
    sync = _ps("sync", 6, 0.04, [0] * 6, [0, 1] * 3, 1.4)
    twin = A.SimResult(config={}, times=[0], grads=[0], losses=[2.0], accuracies=[0.1], staleness=[0, 0, 1, 1, 0, 4],
                       events=[])
    asyn.noise = sync.noise = info
    return asyn, sync, twin


def _local(info):
    runs = {h: LocalSGDRun(period=h, config={"steps": 24}, rounds=r, bytes_per_round=4, wall_s=w, compute_s=0.0,
                           comm_s=0.0, losses=[2.0, loss]) for h, r, w, loss in ((1, 24, 0.08, 1.10), (8, 3, 0.02, 1.15))}
    for r in runs.values():
        r.noise = info
    return runs, 8


CASES = [(V.say_hogwild, _hogwild, lambda a: V.hogwild_verdicts(*a)),
         (V.say_ps, _server, lambda a: V.ps_verdicts(*a)),
         (V.say_local, _local, lambda a: V.local_verdicts(*a))]


@pytest.mark.parametrize("which", range(len(CASES)))
def test_noisy_runs_state_no_finding_without_their_mark(which, lang, capsys):
    say, make, rules = CASES[which]
    args = make(NOISY)
    lines = _printed(capsys, say, *args)
    assert lines and any(says_its_noise(line) for line in lines), lines
    assert [line for line in lines if is_finding(line) and not says_its_noise(line)] == []
    for key, values in rules(args):
        stated = t(key, **values) in "\n".join(lines)
        assert stated == (key in COUNTED), key  # a count is stated on a busy machine too; a timing is not


# Sentences that stand on nothing timed: all-reduces counted, the losses of seeded synchronous averaging
COUNTED = {"lesson06.real_v_local"}


@pytest.mark.parametrize("which", range(len(CASES)))
def test_quiet_runs_state_the_finding(which, lang, capsys):
    say, make, rules = CASES[which]
    args = make(QUIET)
    lines = _printed(capsys, say, *args)
    text = "\n".join(lines)
    assert "⚠️" not in text
    for key, values in rules(args):
        assert t(key, **values) in text


def test_the_simulators_sentences_stand_on_no_measurement(lang, capsys):
    problem = problems.make_problem("blobs", 200, n_eval=50, seed=0)
    results = A.compare_modes(problem, A.SimConfig(workers=3, gradients=30, speeds=(1, 1, 0.3)))
    text = "\n".join(_printed(capsys, V.say_modes, results))
    assert "⚠️" not in text and t(*V.modes_verdicts(results)[0][:1], **V.modes_verdicts(results)[0][1]) in text


@pytest.mark.parametrize("which, want", [(0, None), (2, "H = 8")])
def test_the_noisy_line_names_its_rows(which, want, lang, capsys):
    from fastrain_lib.async_sgd import hogwild

    say, make, _ = CASES[which]
    args = make(NOISY)
    want = want or hogwild.label(args[0][1])
    noisy = [line for line in _printed(capsys, say, *args) if "⚠️" in line]
    assert noisy and all(want in line for line in noisy), noisy
