"""Lesson 02's verdict sentences (fastrain_lib/lessons/l02_to_device/verdicts.py), fed noisy and quiet rows
(issue 38): on noisy rows every printed line that states a finding carries its noise mark and no cause is
given; on quiet rows the finding is stated, and every ratio names what is faster or slower than what."""

import re
import types

import pytest
from _sentences import is_finding, says_its_noise

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l02_to_device import verdicts as V
from fastrain_lib.lessons.l02_to_device.transfer import PIN_STEPS


def info(verdict="quiet", **extra):
    return {"verdict": verdict, "reasons": ["load"] if verdict == "noisy" else [], **extra}


def rec(name, params, metrics, verdict="quiet", median_s=0.01, iqr_s=0.0):
    return types.SimpleNamespace(name=name, params=params, metrics=metrics, noise=info(verdict), median_s=median_s,
                                 iqr_s=iqr_s)


def loader(workers, pin, rate, verdict="quiet"):
    return rec(f"loader w{workers} pin{int(pin)}", {"batch_size": 64, "num_workers": workers, "pin_memory": pin,
                                                     "batches": 30},
               {"samples_per_s": rate, "startup_s": 0.03}, verdict)


def printed(capsys, fn, *args, **kwargs) -> list[str]:
    verdicts._noisy_printed.update(cell=None, lines=set())
    fn(*args, **kwargs)
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def assert_noisy_lines_marked(lines, *quiet_keys, **values):
    """Every finding line carries its noise mark; none of the quiet sentences (their causes) is printed."""
    unmarked = [line for line in lines if is_finding(line) and not says_its_noise(line)]
    assert not unmarked, unmarked
    assert any(verdicts.NOISY_MARK.strip() in line or "গোলমেলে" in line or "noisy" in line for line in lines), lines
    for key in quiet_keys:  # the longest fixed part of the quiet sentence (between its {values})
        text = t(key, **values) if values else max(re.split(r"\{[^}]*\}", t(key)), key=len)
        assert len(text) > 10 and not any(text[:40] in line for line in lines), (key, lines)


# ---------------------------------------------------------------- DataLoader: workers and pin_memory (core path)

LOADERS_QUIET = [loader(0, False, 20000.0), loader(0, True, 20400.0), loader(1, False, 28000.0)]


def test_loaders_quiet_states_the_finding_with_its_subject(capsys):
    lines = printed(capsys, V.loaders, LOADERS_QUIET, cuda=False, cores=2)
    key, values = V.workers_verdict(LOADERS_QUIET)
    assert key == "lesson02.workers_helped"
    assert verdicts.line(key, **values) in lines
    ratio_lines = [line for line in lines if is_finding(line)]
    assert ratio_lines and all("num_workers=0" in line or "pin_memory" in line for line in ratio_lines), ratio_lines
    assert all(says_its_noise(line) for line in ratio_lines), ratio_lines  # quiet findings say so (a noisy cell beside)


@pytest.mark.parametrize("noisy", [0, 2])
def test_loaders_noisy_gives_no_cause_and_marks_every_finding(capsys, noisy):
    records = [loader(r.params["num_workers"], r.params["pin_memory"], r.metrics["samples_per_s"],
                      "noisy" if i == noisy else "quiet") for i, r in enumerate(LOADERS_QUIET)]
    lines = printed(capsys, V.loaders, records, cuda=False, cores=2)
    assert_noisy_lines_marked(lines, "lesson02.workers_helped", "lesson02.workers_hurt", "lesson02.workers_same")
    if noisy == 2:  # the workers row: the ratio line names both sides
        line = next(line for line in lines if "গোলমেলে" in line and "num_workers=0-এর তুলনায়" in line)
        assert "1টি কর্মী" in line


def test_the_issue_38_ratio_without_a_subject_is_gone(capsys):
    """issue 38: '1.92 গুণ ধীর' stood alone; now every ratio line says what is slower than what."""
    records = [loader(0, False, 20000.0, "noisy"), loader(0, True, 20000.0), loader(2, False, 10400.0)]
    lines = printed(capsys, V.loaders, records, cuda=False, cores=2)
    for line in lines:
        if "গুণ" in line:
            assert "তুলনায়" in line or "বনাম" in line, line


# ---------------------------------------------------------------- the seeds' training loop (core path)


def test_training_quiet_and_noisy(capsys):
    results = {"cpu": ([2.0, 1.0], [1.6, 1.0, 1.1], 0.9)}
    quiet = {"cpu": info("quiet", threads=1, threads_wanted=2)}
    lines = printed(capsys, V.training, results, quiet, 3)
    assert verdicts.line("lesson02.v_epochs", device="cpu", first=1.6, mean=1.05) + " " + \
        t("core.verdict_fewer_threads", threads=1, wanted=2) in lines  # measured with the threads that fit, said so
    lines = printed(capsys, V.training, results, {"cpu": info("noisy")}, 3)
    assert_noisy_lines_marked(lines)
    assert not any(line.startswith(verdicts.line("lesson02.v_epochs", device="cpu", first=1.6, mean=1.05)[:20])
                   for line in lines)


def test_devices_ratio_names_both_devices(capsys):
    results = {"cpu": ([1.0], [2.0, 1.0, 1.0], 0.9), "cuda": ([1.0], [1.0, 0.5, 0.5], 0.9)}
    lines = printed(capsys, V.training, results, {"cpu": info(), "cuda": info()}, 3)
    line = next(line for line in lines if "গুণ" in line)
    assert "cuda, CPU-র তুলনায় 2.00 গুণ দ্রুত" in line
    lines = printed(capsys, V.training, results, {"cpu": info(), "cuda": info("noisy")}, 3)
    assert_noisy_lines_marked(lines)


# ---------------------------------------------------------------- the optional sections


def test_pipeline_quiet_and_noisy(capsys):
    def row(wait, step, share, rate, verdict="quiet"):
        return {"wait_s": [wait] * 3, "step_s": [step] * 3, "startup_s": 0.01, "wait_share": share,
                "steps_per_s": rate, "noise": info(verdict)}
    quiet = {0: row(0.1, 0.01, 0.9, 9.0), 1: row(0.01, 0.012, 0.4, 40.0), 2: row(0.01, 0.03, 0.2, 25.0)}
    lines = printed(capsys, V.pipeline, quiet, 2)
    assert any(t("lesson02.bottleneck_data", share0=0.9, best=1, share=0.4, speed=V.speed_words(40 / 9))[:30] in line
               for line in lines)
    noisy = {**quiet, 1: row(0.01, 0.012, 0.4, 40.0, "noisy")}
    lines = printed(capsys, V.pipeline, noisy, 2)
    assert_noisy_lines_marked(lines, "lesson02.workers_took_cores", "lesson02.workers_cost_more")


def test_reconcile_quiet_and_noisy(capsys):
    timed = {0: {"steps_per_s": 10.0, "noise": info()}, 2: {"steps_per_s": 20.0, "noise": info()}}
    profiled = {0: {"steps_per_s": 5.0, "noise": info()}, 2: {"steps_per_s": 4.0, "noise": info()}}
    lines = printed(capsys, V.reconcile, timed, profiled)
    assert lines and lines[0].startswith(verdicts.PREFIX + t("lesson02.reconcile_overhead", workers=2, before="x",
                                                                profiled="x", overhead0="x", overhead_w="x")[:20])
    profiled[2]["noise"] = info("noisy")
    lines = printed(capsys, V.reconcile, timed, profiled)
    assert_noisy_lines_marked(lines, "lesson02.reconcile_agree")
    assert not any(line.startswith(verdicts.PREFIX + t("lesson02.reconcile_overhead", workers=2, before="x",
                                                         profiled="x", overhead0="x", overhead_w="x")[:20]) for line in lines)


def _item_records(verdict):
    return [rec(f"item_{'every_step' if every else 'once'}", {"device": "cpu", "item_every_step": every, "steps": 5},
                {"ms_per_step": 4.0 if every else 2.0}, verdict, iqr_s=0.001) for every in (True, False)]


def test_item_quiet_and_noisy(capsys):
    lines = printed(capsys, V.item, _item_records("quiet"))
    assert any("শেষে একবারের তুলনায় 2.00 গুণ ধীর" in line for line in lines)
    assert verdicts.line("lesson02.v_item_cpu") in lines
    lines = printed(capsys, V.item, _item_records("noisy"))
    assert_noisy_lines_marked(lines, "lesson02.v_item_cpu", "lesson02.v_item_costs")


def test_launch_quiet_and_noisy(capsys):
    measured = [{"device": "cpu", "launch_s": 0.010, "total_s": 0.0101, "noise": info()}]
    lines = printed(capsys, V.launch, measured)
    assert verdicts.line("lesson02.v_launch_sync") in lines
    measured[0]["noise"] = info("noisy")
    lines = printed(capsys, V.launch, measured)
    assert_noisy_lines_marked(lines, "lesson02.v_launch_sync", "lesson02.v_launch_async")


def test_pin_quiet_and_noisy(capsys):
    host = rec("host copy", {"bytes": 12.8e6}, {"ms": 4.0, "gbs": 3.2})
    lines = printed(capsys, V.pin, [host])
    assert any(t("transfer.verdict_pin_cpu", mb=12.8, ms=4.0, gbs=3.2)[:20] in line for line in lines)
    four = [rec(name, {"bytes": 12.8e6}, {"ms": ms, "gbs": 1.0}, "noisy" if name == PIN_STEPS[1] else "quiet")
            for name, ms in zip(PIN_STEPS, (4.0, 1.0, 3.5, 2.0))]
    lines = printed(capsys, V.pin, four)
    assert_noisy_lines_marked(lines, "transfer.verdict_pin_loses", "transfer.verdict_pin_wins")


def test_overlap_formula_and_gpu_rows(capsys):
    lines = printed(capsys, V.overlap, 2e-3, 3e-3, 6)
    assert len(lines) == 1 and "মাপা নয়" in lines[0]  # a formula: stands on no timing
    serial = rec("serial", {"batches": 8}, {"ms": 30.0}, median_s=0.03)
    both = rec("overlapped", {"batches": 8}, {"ms": 20.0}, median_s=0.02)
    lines = printed(capsys, V.overlap, 2e-3, 3e-3, 6, [serial, both], "H100")
    assert any("এক স্ট্রিমের তুলনায় 1.50 গুণ দ্রুত" in line for line in lines)
    both.noise = info("noisy")
    lines = printed(capsys, V.overlap, 2e-3, 3e-3, 6, [serial, both], "H100")
    assert_noisy_lines_marked(lines[1:])


def test_early_read_stands_on_no_timing(capsys):
    early = {"early": [0.0], "early_ok": False, "late": [8.0], "late_ok": True, "expected": [8.0]}
    lines = printed(capsys, V.early_read, early)
    assert len(lines) == 1 and "সিমুলেশন" in lines[0]
