"""Lesson 05's one rerun at the quieter setting (issue 38): when a panel's verdict stood on noisy rows,
the cell below it measures once more — only process counts (or stages) that fit the cores, one thread
each — says the new verdict, and gives up honestly when the machine is still busy. A quiet run is not
measured again, nor one whose cores another program still takes (rerun.cores_ready says why)."""

from __future__ import annotations

from fastrain_lib.core.verdicts import say
from fastrain_lib.lessons.l05_data_vs_model_parallel import panel as lesson_panel
from fastrain_lib.lessons.l05_data_vs_model_parallel import verdicts as lesson_verdicts
from fastrain_lib.measure import rerun


def rerun_ddp(panel) -> list[dict] | None:
    """One rerun of the DDP panel's measurement at the quieter setting, when its rows were noisy:
    only process counts that fit the cores (one thread each), measured anew; its sentences, then,
    when it is noisy again, the line that gives up (no cause from a busy machine). Returns the new rows."""
    from fastrain_lib.core.i18n import t

    settings = panel.settings()
    rows = lesson_panel.panel_rows(settings)
    if not lesson_verdicts.any_noisy([r.get("noise") for r in rows]):
        say("lesson05.rerun_not_needed", noise=())
        return None
    counts = [w for w in lesson_panel.process_counts(settings["processes"]) if w <= max(2, lesson_verdicts.cores())]
    if not rerun.cores_ready(max(counts)):
        say_reference_ddp(counts)
        return None
    rows = lesson_panel.summarise(lesson_panel.ddp_runs(counts, settings["batch_size"], settings["hidden"],
                                                        settings["backend"], fresh=True))
    say("lesson05.rerun_done", noise=(), what=t("lesson05.rerun_what_ddp", counts=", ".join(map(str, counts))))
    lesson_verdicts.say_ddp(rows, offer_rerun=False)
    if lesson_verdicts.any_noisy([r.get("noise") for r in rows]):
        say("rerun.gave_up", noise=())  # the same words as lessons 05b-06 (measure/rerun.py)
        say_reference_ddp(counts)
    return rows


def say_reference_ddp(counts, folder=None) -> bool:
    """When this PC could not measure DDP quietly: the speed-up quiet machines reached at these process counts,
    from reference/ (the benchmark suite's ddp family on named hardware, the panel plot's dotted lines), so a busy
    lab still sees what the measurement shows, labelled as other machines' and with how those runs differ (a small
    GPT; one process ran one thread per core). Nothing when reference/ has no such run. A sentence standing on no
    timing of this run (noise=())."""
    from fastrain_lib.core.i18n import t

    items = [t("lesson05.reference_ddp_item", hardware=run["hardware"], date=run["date"], w=w, speedup=w * efficiency,
               efficiency=round(100 * efficiency))
             for run in lesson_panel.reference_runs(folder) if run["workload"] == "GPT"  # the suite's ddp family
             for w, efficiency in run["points"] if w > 1 and w in counts]
    if items:
        say("lesson05.reference_ddp", noise=(), runs="; ".join(items))
    return bool(items)


def rerun_pipeline(panel):
    """One rerun of the pipeline panel's measurement at the quieter setting (no more stages than
    cores), when its run was noisy; its sentence, then the line that gives up if it is noisy again."""
    import matplotlib.pyplot as plt

    from fastrain_lib.core.i18n import t

    last = getattr(panel, "last", None)
    if last is None or not last.records or not last.records[0].noisy:
        say("lesson05.rerun_not_needed", noise=())
        return None
    settings = dict(panel.settings())
    settings["stages"] = max(2, min(settings["stages"], lesson_verdicts.cores()))
    if not rerun.cores_ready(settings["stages"]):
        return None
    outcome = lesson_panel.pipeline_experiment(**settings)
    if outcome.figure is not None:
        plt.close(outcome.figure)  # the sentence is the result; the panel keeps its own chart
    record = outcome.records[0]
    say("lesson05.rerun_done", noise=(), what=t("lesson05.rerun_what_pipe", k=settings["stages"],
                                                m=settings["micro_batches"]))
    lesson_verdicts.say_pipeline(record, offer_rerun=False)
    if record.noisy:
        say("rerun.gave_up", noise=())  # the same words as lessons 05b-06 (measure/rerun.py)
    return record


def rerun_allreduce(rows: list[tuple], row_noise: list[dict], numels: list[int], repeats: int):
    """One rerun of the all-reduce table (allreduce_table's rows and their noise) at the quieter setting,
    when a row was noisy: the largest process count that fits the cores (at least 2), one thread each,
    after waiting for those cores (rerun.wait_s); its sentences, then the line that gives up if it is noisy
    again. Returns (rows, noise) of the new run, or None when nothing needed it."""
    from fastrain_lib.core.i18n import t
    from fastrain_lib.distributed import measured, ring

    if not lesson_verdicts.any_noisy(row_noise):
        say("lesson05.rerun_not_needed", noise=())
        return None
    n = max(2, min(max(r[0] for r in rows), lesson_verdicts.cores()))
    if not rerun.cores_ready(n):  # still taken: a new run would be noisy too (it said why)
        return None
    run = measured.launch(ring.compare_worker, n, args=(numels, repeats, None), threads=1, timeout_s=300)
    new_rows, new_noise, _ = lesson_panel.allreduce_table({n: run})
    say("lesson05.rerun_done", noise=(), what=t("lesson05.rerun_what_ar", n=n))
    lesson_verdicts.say_allreduce(new_rows, new_noise, offer_rerun=False)
    if lesson_verdicts.any_noisy(new_noise):
        say("rerun.gave_up", noise=())  # the same words as lessons 05b-06 (measure/rerun.py)
    return new_rows, new_noise
