"""Lesson 05b's # VERDICT functions, fed noisy and quiet rows, read sentence by sentence (issue 38):
noisy -> every finding line carries the noisy mark, names its rows and gives no cause, and the lesson
offers one more measurement; quiet -> the finding is stated; a busy run whose interleaved rounds agree
states its ratio, marked on its line; a rerun of the measuring cell measures anew (once)."""

import pytest

from fastrain_lib.measure import noise

from _sentences import is_finding, says_its_noise
from fastrain_lib.core.i18n import t
from fastrain_lib.distributed import cost_model
from fastrain_lib.lessons.l05b_ddp_in_depth import panel as P
from fastrain_lib.lessons.l05b_ddp_in_depth import runs as R
from fastrain_lib.lessons.l05b_ddp_in_depth import verdicts as V

QUIET = {"verdict": "quiet", "reasons": [], "cores": 2, "threads": 2, "other_cores": 0.0, "steal_cores": 0.0}
BUSY = {"verdict": "noisy", "reasons": ["load"], "cores": 2, "threads": 2, "other_cores": 1.0, "steal_cores": 0.0}
SPREAD = {**BUSY, "reasons": ["load", "spread"]}
CAUSE_WORDS = ("কারণ", "because", "due to", "C++", "latency", "লেটেন্সি")

DP = {"scatter": 0.004, "replicate": 0.010, "forward": 0.020, "gather_loss": 0.006, "backward": 0.040,
      "reduce_grads": 0.012, "optimizer": 0.008}


@pytest.fixture(autouse=True)
def english(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    monkeypatch.setenv("FASTRAIN_VERDICT_LOG", str(tmp_path / "verdicts.jsonl"))
    monkeypatch.setattr(V, "cores", lambda: 2)


def _exempt(tmp_path) -> set:
    """Sentences say() printed on no measurement (a count, a formula): exempt from the noise rule."""
    import json

    log = tmp_path / "verdicts.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {r["sentence"].strip() for r in records if r.get("declared") and r.get("stood_on") == 0 and "sentence" in r}


def _dp(replicas=2):
    return {"phases": DP, "step_s": sum(DP.values()), "replicas": replicas, "single_s": 0.05, "piece_s": 0.03,
            "serial_forward_backward_s": 0.11}


def _ddp():
    return [{"rank": r, "phases": {"forward": 0.01, "backward_allreduce": 0.03 + r * 0.005, "optimizer": 0.004},
             "step_s": 0.044 + r * 0.005} for r in range(2)]


def _sweep(info):
    return [{"bucket_cap_mb": 0.25, "step_s": 0.020, "ours_s": 0.022, "buckets": 8, "hidden_share": 0.3, "noise": info},
            {"bucket_cap_mb": 25.0, "step_s": 0.024, "ours_s": 0.025, "buckets": 1, "hidden_share": 0.0, "noise": info}]


def _summary(ratios=()):
    return {"k": 4, "every_ms": 40.0, "no_sync_ms": 30.0, "saving": 0.25, "every_allreduces": 8.0,
            "no_sync_allreduces": 2.0, "every_mb": 8.0, "no_sync_mb": 2.0, "ratios": list(ratios)}


def _fits():
    fitted = {2: cost_model.Fit(60e-6, 1e-9, 2), 3: cost_model.Fit(300e-6, 1.2e-9, 3)}
    return fitted, {2: (262_144, 0.0006), 3: (262_144, 0.0012)}


CALLS = {
    "compare": lambda info: V.compare(_dp(), _ddp(), [info, info]),
    "sweep": lambda info: V.sweep(_sweep(info)),
    "accumulation": lambda info: V.accumulation(_summary(), info),
    "fits": lambda info: V.fits(*_fits(), {2: info, 3: info}),
    "predictions": lambda info: V.predictions(0.02, {"ddp": 0.03, "zero1": 0.05}, cost_model.Fit(60e-6, 1e-9, 2),
                                              4_000_000, {"zero1": {"reduce_scatter": 1, "all_gather": 1}},
                                              {"compute": info, "fit": info, "ddp": info, "zero1": info}),
    "comm": lambda info: V.comm({"p": 2, "kb": 4000.0, "gloo_pred": 2.0, "gloo_meas": 3.0, "ring_pred": 2.0,
                                 "ring_meas": 6.0, "ps_pred": 5.0, "ps_meas": 5.5},
                                cost_model.Fit(60e-6, 1e-9, 2), [info, info]),
}


def _lines(capsys):
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_noisy_rows_every_finding_marked_rows_named_no_cause_and_a_rerun_offered(name, capsys, tmp_path):
    CALLS[name](BUSY)
    lines = _lines(capsys)
    warnings = [line for line in lines if line.startswith("➤ ⚠️")]
    assert warnings, lines
    exempt = _exempt(tmp_path)
    for line in lines:
        assert not is_finding(line) or says_its_noise(line) or line.strip() in exempt, line
    for line in warnings:
        assert "noisy rows:" in line, line  # the warning names its rows
        assert not any(w in line.split("(")[0] for w in CAUSE_WORDS), line
    assert len(lines) == len(set(lines))  # no line twice
    assert any(t("lesson05b.v_rerun") in line for line in lines)  # one more measurement offered


@pytest.mark.parametrize("name", sorted(CALLS))
def test_quiet_rows_state_the_finding_and_offer_no_rerun(name, capsys):
    CALLS[name](QUIET)
    lines = _lines(capsys)
    assert lines and not any("⚠️" in line for line in lines), lines
    assert not any(t("lesson05b.v_rerun") in line for line in lines)


def test_quiet_compare_says_who_was_faster(capsys):
    V.compare(_dp(), _ddp(), [QUIET, QUIET])
    out = capsys.readouterr().out
    assert "DDP" in out and any(is_finding(line) for line in out.splitlines())


def test_noisy_compare_names_the_dataparallel_and_ddp_runs(capsys):
    V.compare(_dp(), _ddp(), [BUSY, QUIET])
    out = capsys.readouterr().out
    assert "DataParallel ×2" in out and "DDP ×2" not in out.split("noisy rows:")[1].split(".")[0]


def test_a_quiet_fit_beside_a_noisy_one_says_quiet_on_its_own_line(capsys):
    V.fits(*_fits(), {2: QUIET, 3: BUSY})
    lines = _lines(capsys)
    alpha_lines = [line for line in lines if "α =" in line]
    assert alpha_lines and all(says_its_noise(line) for line in alpha_lines), lines
    assert any("(from a quiet run)" in line and "Fit on 2 processes" in line for line in lines)


def test_interleaved_rounds_that_agree_make_a_busy_ratio_usable_and_say_so(capsys):
    ratios = [0.74, 0.76, 0.75, 0.77, 0.73, 0.75, 0.76, 0.74]
    V.accumulation(_summary(ratios), BUSY)
    lines = _lines(capsys)
    ratio_line = [line for line in lines if "ratio" in line]
    assert len(ratio_line) == 1 and ratio_line[0].startswith("➤ ✓") and "busy machine" in ratio_line[0]
    assert "0.75" in ratio_line[0] and "8 rounds" in ratio_line[0]
    assert not any(w in ratio_line[0] for w in CAUSE_WORDS)
    assert not any(t("lesson05b.v_rerun") in line for line in lines)


@pytest.mark.parametrize("ratios, info", [
    ([0.5, 1.2, 0.7, 1.6, 0.4, 1.0], BUSY),   # the rounds disagree: still noisy
    ([0.75, 0.76, 0.74], BUSY),               # too few rounds to judge
    ([0.75] * 8, SPREAD),                     # noisy for a reason interleaving does not cancel
])
def test_interleaving_does_not_rescue_rounds_that_disagree_or_are_too_few(ratios, info, capsys):
    V.accumulation(_summary(ratios), info)
    lines = _lines(capsys)
    assert any(line.startswith("➤ ⚠️") for line in lines) and not any("➤ ✓" in line for line in lines)
    assert any(t("lesson05b.v_rerun") in line for line in lines)


def test_round_ratios_need_an_interleaving_worker():
    rank = {"micro_batches": 4, "every": {"step_s": 0.04, "times": [0.04, 0.05], "allreduces_per_step": 8,
                                          "bytes_per_step": 1e6},
            "no_sync": {"step_s": 0.03, "times": [0.03, 0.035], "allreduces_per_step": 2, "bytes_per_step": 2.5e5}}
    assert P.accumulation_summary([rank])["ratios"] == []
    ratios = P.accumulation_summary([{**rank, "interleaved": True}])["ratios"]
    assert ratios == pytest.approx([0.75, 0.7])


@pytest.fixture
def runs_cache(monkeypatch):
    """lesson05b's run cache empty, and the running cell whatever the test puts in `runs_cache.cell["now"]`."""
    import types

    state = types.SimpleNamespace(cell={"now": None})
    monkeypatch.setattr(R, "_cell_now", lambda: state.cell["now"])
    monkeypatch.setattr(R, "_CACHE", {})
    monkeypatch.setattr(R, "_MADE_IN", {})
    monkeypatch.setattr(R, "_RERUN", set())
    return state


def test_a_noisy_run_asked_again_by_the_same_cell_is_measured_once_more(monkeypatch, runs_cache):
    calls, cell = [], {"now": ("dp = lesson05b.dp_run(cfg)", 5)}
    runs_cache.cell = cell
    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=0: needed)

    def make():
        calls.append(1)
        return {"noise": BUSY if len(calls) == 1 else QUIET}
    R._cached(("k",), make, 2)
    R._cached(("k",), make, 2)                     # the same execution asks again: the cached run
    assert len(calls) == 1
    cell["now"] = ("panel.run()", 6)
    R._cached(("k",), make, 2)                     # another cell (the panel): the cached run
    assert len(calls) == 1
    cell["now"] = ("dp = lesson05b.dp_run(cfg)", 7)
    assert R._cached(("k",), make, 2) == {"noise": QUIET}   # the measuring cell run again: measured anew
    cell["now"] = ("dp = lesson05b.dp_run(cfg)", 8)
    R._cached(("k",), make, 2)
    assert len(calls) == 2                         # once, then the result stays


def test_a_rerun_whose_cores_are_still_taken_measures_nothing_and_may_be_asked_again(monkeypatch, capsys, runs_cache):
    """The measuring cell run again while another program still takes a core: the cached run and the line that
    says why (a new run would be noisy by the same load rule); the rerun is not used up, so a later try measures."""
    cell, free, calls = {"now": ("dp = lesson05b.dp_run(cfg)", 5)}, {"n": 1}, []
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    runs_cache.cell = cell
    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=0: min(needed, free["n"]))

    def make():
        calls.append(1)
        return {"noise": BUSY if len(calls) == 1 else QUIET}
    R._cached(("k",), make, 2)
    cell["now"] = ("dp = lesson05b.dp_run(cfg)", 6)
    assert R._cached(("k",), make, 2) == {"noise": BUSY} and len(calls) == 1
    assert "Not measured again: after waiting" in capsys.readouterr().out
    free["n"], cell["now"] = 2, ("dp = lesson05b.dp_run(cfg)", 7)
    assert R._cached(("k",), make, 2) == {"noise": QUIET} and len(calls) == 2


def test_the_bucket_and_accumulation_cells_measure_anew_when_run_again_after_a_noisy_run(monkeypatch, runs_cache):
    """Their verdicts offer 'run the measuring cell again: it measures anew after waiting for free cores'
    (lesson05b.v_rerun); cells 20 and 24 start measured.launch themselves, through measured_once."""
    cell, waited, calls = {"now": ("bucket_results, bucket_info = ...", 3)}, [], []
    runs_cache.cell = cell
    monkeypatch.setattr(noise, "wait_for_cores", lambda needed, max_s=0: waited.append(needed) or needed)

    def launch():
        calls.append(1)
        return [{"rank": 0}], (BUSY if len(calls) == 1 else QUIET)
    cfg = {"width": 8, "bucket_caps_mb": [0.1, 25.0]}
    assert P.measured_once("buckets", cfg, 2, launch)[1] == BUSY
    assert P.measured_once("buckets", {**cfg, "width": 16}, 2, launch)[1] == QUIET  # another setting: its own run
    cell["now"] = ("bucket_results, bucket_info = ...", 4)
    assert P.measured_once("buckets", cfg, 2, launch)[1] == QUIET and waited == [2] and len(calls) == 3


def _interleaved_sweep(info, small_rounds, large_rounds, ours_rounds):
    """A sweep whose worker timed every setting in the same interleaved rounds (panel.sweep_rows' rounds_*)."""
    rows = _sweep(info)
    rows[0].update(ours_buckets=8, rounds_ddp=list(small_rounds), rounds_ours=list(ours_rounds))
    rows[1].update(ours_buckets=1, rounds_ddp=list(large_rounds), rounds_ours=list(large_rounds))
    return rows


@pytest.mark.parametrize("small_over_large, ours_over_ddp", [(0.8, 1.1), (1.3, 0.9), (1.0, 1.0), (0.5, 2.0), (1.03, 0.96)])
def test_a_busy_sweep_whose_rounds_agree_states_both_ratios_marked_and_the_right_winner(small_over_large, ours_over_ddp,
                                                                                       capsys, tmp_path):
    """Every round slowed by its own load (×1 to ×3), the same ratio inside each round: both ratios are stated,
    each on a ✓ line that says it was a busy machine, with the median ratio and the side that took less time
    (neither, inside the rounds' spread); no cause; only the timeline's share stays the warning, and the rerun is offered."""
    load = [1.0, 2.5, 1.2, 3.0, 1.1, 2.0, 1.4, 2.7]
    large = [0.02 * f for f in load]
    small = [x * small_over_large * (1 + 0.01 * (i % 3)) for i, x in enumerate(large)]
    V.sweep(_interleaved_sweep(BUSY, small, large, [x * ours_over_ddp for x in small]))
    lines = _lines(capsys)
    ratio_lines = [line for line in lines if line.startswith("➤ ✓")]
    assert len(ratio_lines) == 2, lines
    for line, ratio in zip(ratio_lines, (small_over_large, ours_over_ddp)):
        assert "busy machine" in line and "8 rounds" in line and says_its_noise(line)
        winner = ("neither was faster" if abs(ratio - 1) <= 0.05 else
                  "the first took less time" if ratio < 1 else "the second took less time")
        assert winner in line, line
        median = float(line.split(" = ")[1].split(" ")[0])
        assert median == pytest.approx(ratio, rel=0.03), line
        assert not any(w in line for w in CAUSE_WORDS), line
    assert "bucket_cap_mb=0.25 (8 buckets)" in ratio_lines[0] and "bucket_cap_mb=25 (1 buckets)" in ratio_lines[0]
    assert "our hand-written buckets' step" in ratio_lines[1]
    warnings = [line for line in lines if line.startswith("➤ ⚠️")]
    assert len(warnings) == 1 and "noisy rows:" in warnings[0], lines
    assert any(t("lesson05b.v_rerun") in line for line in lines)
    assert len(lines) == len(set(lines))


@pytest.mark.parametrize("rounds, info", [
    ([0.02, 0.05, 0.021, 0.06, 0.02, 0.05, 0.02, 0.06], BUSY),   # the small cap's rounds swing against the large's
    ([0.02] * 3, BUSY),                                          # too few rounds to judge
    ([0.02] * 8, SPREAD),                                        # noisy for a reason interleaving does not cancel
])
def test_a_busy_sweep_states_no_ratio_when_its_rounds_disagree_are_too_few_or_the_noise_is_not_load(rounds, info,
                                                                                                    capsys):
    steady = [0.02] * len(rounds)
    V.sweep(_interleaved_sweep(info, rounds, steady, [x * 3 for x in reversed(rounds)]))
    lines = _lines(capsys)
    assert not any("➤ ✓" in line for line in lines), lines
    assert [line for line in lines if line.startswith("➤ ⚠️")] and any(t("lesson05b.v_rerun") in line for line in lines)


def test_sweep_rows_keep_the_slowest_rank_of_each_interleaved_round():
    def rank(times, ours):
        row = {"bucket_cap_mb": 0.25, "buckets": 8, "ours_buckets": 8, "hidden_share": 0.2, "events": [],
               "compute_end_s": 0.01, "backward_s": 0.01, "step_s": 0.02, "ours_s": 0.03, "times": times,
               "ours_times": ours}
        return {"rows": [row], "interleaved": True}
    rows = P.sweep_rows([rank([0.02, 0.05, 0.03], [0.03, 0.01, 0.04]), rank([0.04, 0.01, 0.03, 0.09], [0.01, 0.02, 0.05])],
                        BUSY)
    assert rows[0]["rounds_ddp"] == [0.04, 0.05, 0.03] and rows[0]["rounds_ours"] == [0.03, 0.02, 0.05]
    plain = P.sweep_rows([{**rank([0.02], [0.03]), "interleaved": False}], BUSY)
    assert plain[0]["rounds_ddp"] == [] and plain[0]["rounds_ours"] == []


def _comm_values(ring_over_gloo, agree=True):
    load = [1.0, 2.2, 1.3, 2.9, 1.1, 2.0, 1.6, 2.5]
    gloo = [0.003 * f for f in load]
    swing = [1.0, 3.0] * 4 if not agree else [1.0] * 8
    return {"p": 2, "kb": 4000.0, "gloo_pred": 2.0, "gloo_meas": 3.0, "ring_pred": 2.0, "ring_meas": 6.0,
            "ps_pred": 5.0, "ps_meas": 5.5,
            "rounds": {"gloo": gloo, "ring": [g * ring_over_gloo * w for g, w in zip(gloo, swing)], "ps": gloo}}


@pytest.mark.parametrize("ring_over_gloo", [2.0, 0.8, 1.01])
def test_a_busy_comm_run_reads_ring_over_gloo_from_its_rounds_and_leaves_the_model_to_the_warning(ring_over_gloo,
                                                                                                capsys):
    import re

    V.comm(_comm_values(ring_over_gloo), cost_model.Fit(60e-6, 1e-9, 2), [BUSY, BUSY])
    lines = _lines(capsys)
    busy = [line for line in lines if line.startswith("➤ ✓")]
    assert len(busy) == 1 and "our Python ring (lesson 05) ÷ gloo's dist.all_reduce" in busy[0], lines
    assert float(re.search(r"= ([\d.]+) \(median\)", busy[0])[1]) == pytest.approx(ring_over_gloo, rel=0.01)
    winner = ("neither was faster" if abs(ring_over_gloo - 1) <= 0.05 else
              "the first took less time" if ring_over_gloo < 1 else "the second took less time")
    assert winner in busy[0] and not any(w in busy[0] for w in CAUSE_WORDS)
    warnings = [line for line in lines if line.startswith("➤ ⚠️")]
    assert len(warnings) == 1 and "noisy rows:" in warnings[0]  # the server's model vs measurement: still noisy
    assert any(t("lesson05b.v_rerun") in line for line in lines)


def test_a_busy_comm_run_whose_rounds_disagree_states_no_ratio(capsys):
    V.comm(_comm_values(2.0, agree=False), cost_model.Fit(60e-6, 1e-9, 2), [BUSY, BUSY])
    lines = _lines(capsys)
    assert not any(line.startswith("➤ ✓") for line in lines) and any(line.startswith("➤ ⚠️") for line in lines)
