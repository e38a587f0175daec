"""Lesson 02's verdict rules: (catalog key, values) from what the lesson measured.

Every rule here is a pure function of numbers and noise verdicts (measure.noise): a rule never picks
a sentence that explains a cause when a row it stands on is noisy; it picks the sentence that says
the row is noisy and what to do. Ratios are worded by direction (0.5× "faster" is "2× slower"), and
averages over epochs leave out the first (warm-up) epoch, as lessons 00 and 01 teach.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l02_to_device.transfer import PIN_STEPS, overlap_model
from fastrain_lib.measure import bench, noise

SAME_BAND = 0.10  # two speeds within 10% of each other are "about the same"
PIN_GAP_LIMIT = 0.15  # on a CPU, a pin_memory on/off gap above 15% on a quiet machine is called large
# the names pin_cost gives its records, as the lesson's tables show them
PIN_LABELS = {"host copy": "transfer.step_host_copy", PIN_STEPS[0]: "transfer.step_pageable",
              PIN_STEPS[1]: "transfer.step_pin_only", PIN_STEPS[2]: "transfer.step_pin_and_copy",
              PIN_STEPS[3]: "transfer.step_pinned_copy"}


def _noisy(item) -> bool:
    """A noise-information dict, a Record (its .noise), a bool, or None (no information: not noisy)."""
    if isinstance(item, bool):
        return item
    if isinstance(item, dict):
        return noise.is_noisy(item)
    return noise.is_noisy(getattr(item, "noise", None))


def noise_word(item) -> str:
    """The per-row mark of a table: quiet / noisy (in the lesson's language)."""
    return t("noise.noisy_word") if _noisy(item) else t("noise.quiet_word")


def speed_words(ratio: float) -> str:
    """'1.50× faster' for 1.5, '2.00× slower' for 0.5 (never '0.5× faster'), 'about the same' near 1."""
    if not math.isfinite(ratio) or ratio <= 0:
        return "?"
    if abs(ratio - 1) <= SAME_BAND / 2:
        return t("lesson02.same_speed", ratio=ratio)
    return t("lesson02.faster", ratio=ratio) if ratio > 1 else t("lesson02.slower", ratio=1 / ratio)


# the sentences a rule picks for a noisy row: they explain nothing, they say the row is noisy and to
# rerun, so they stand on the noise verdict itself (noise=() in verdicts.say), not on the timings
NOISY_KEYS = frozenset({"transfer.verdict_pin_noisy", "lesson02.workers_noisy", "lesson02.pin_gap_noisy",
                        "lesson02.pipeline_noisy", "lesson02.reconcile_noisy"})


def stands_on(key: str, measurements):
    """What verdicts.say(key, noise=...) gets: () for a noisy-row sentence (it explains nothing and
    must be printed as it is), else the measurements the sentence stands on."""
    return () if key in NOISY_KEYS else measurements


@dataclass(frozen=True)
class Marked:
    """A noise-information dict seen as a record (plots.mark_noisy_figure reads .noisy)."""

    noise: dict

    @property
    def noisy(self) -> bool:
        return noise.is_noisy(self.noise)


def marked(info: dict) -> Marked:
    return Marked(info or {})


def pin_label(name: str) -> str:
    return t(PIN_LABELS[name]) if name in PIN_LABELS else name


# ---------------------------------------------------------------- epochs: warm-up left out


def steady_mean(times: list[float]) -> tuple[float, bool]:
    """(mean, warm_up_left_out): the mean of per-epoch times without the first epoch when there are
    two or more (the first pays one-off costs: allocating, caches, the data's first read); with one
    epoch there is nothing else to average, and the flag says the warm-up is inside."""
    times = [float(x) for x in times]
    if not times:
        return float("nan"), False
    if len(times) == 1:
        return times[0], False
    return statistics.fmean(times[1:]), True


# ---------------------------------------------------------------- pinning every batch (transfer.pin_cost)


def pin_verdict(records: list[bench.Record]) -> tuple[str, dict]:
    """(catalog key, values) for pin_cost's records: does pinning every batch pay here?"""
    by_name = {r.name: r for r in records}
    if "host copy" in by_name:
        r = by_name["host copy"]
        values = {"mb": r.params["bytes"] / 1e6, "ms": r.metrics["ms"], "gbs": r.metrics["gbs"]}
        return ("transfer.verdict_pin_noisy" if _noisy(r) else "transfer.verdict_pin_cpu"), values
    pageable, pin_only, both, pinned = (by_name[n].metrics["ms"] for n in PIN_STEPS)
    values = {"mb": records[0].params["bytes"] / 1e6, "pageable": pageable, "pin": pin_only, "both": both,
              "pinned": pinned, "saved": pageable - pinned}
    if any(_noisy(r) for r in records):
        return "transfer.verdict_pin_noisy", {**values, "ms": both, "gbs": float("nan")}
    return ("transfer.verdict_pin_loses" if both > pageable else "transfer.verdict_pin_wins"), values


# ---------------------------------------------------------------- DataLoader: workers and pin_memory


def _rate(r) -> float:
    return r.metrics["samples_per_s"]


def workers_verdict(records: list[bench.Record]) -> tuple[str, dict]:
    """loader_throughput's records: did worker processes help? Compared: num_workers=0 without
    pinning, and the fastest setting with workers. Noisy -> no cause."""
    base = next(r for r in records if r.params["num_workers"] == 0 and not r.params["pin_memory"])
    fastest = max((r for r in records if r.params["num_workers"] > 0), key=_rate)
    ratio = _rate(fastest) / _rate(base)
    values = {"ratio": ratio, "speed": speed_words(ratio), "workers": fastest.params["num_workers"]}
    if _noisy(base) or _noisy(fastest):
        return "lesson02.workers_noisy", values
    if ratio > 1 + SAME_BAND:
        return "lesson02.workers_helped", values
    if ratio < 1 - SAME_BAND:
        return "lesson02.workers_hurt", values
    return "lesson02.workers_same", values


def pin_gap_verdicts(records: list[bench.Record], cuda: bool) -> list[tuple[str, dict, list]]:
    """For each num_workers measured with pin_memory off and on: (key, values, the two records).

    Without CUDA PyTorch ignores pin_memory, so a gap between the two is never pin_memory's doing:
    within PIN_GAP_LIMIT (or on a noisy machine) it is called noise; quiet and larger, the sentence
    says it is not pinning and asks for a rerun. With CUDA a quiet gap is reported as measured."""
    lines = []
    for w in sorted({r.params["num_workers"] for r in records}):
        pair = {r.params["pin_memory"]: r for r in records if r.params["num_workers"] == w}
        if set(pair) != {False, True}:
            continue
        off, on = pair[False], pair[True]
        gap = _rate(on) / _rate(off) - 1
        values = {"workers": w, "gap": abs(gap), "speed": speed_words(_rate(on) / _rate(off)),
                  "limit": PIN_GAP_LIMIT}
        if _noisy(off) or _noisy(on):
            key = "lesson02.pin_gap_noisy"
        elif not cuda:
            key = "lesson02.pin_gap_cpu_large" if abs(gap) > PIN_GAP_LIMIT else "lesson02.pin_gap_cpu_noise"
        else:
            key = "lesson02.pin_gap_gpu"
        lines.append((key, values, [off, on]))
    return lines


# ---------------------------------------------------------------- is the input pipeline the bottleneck?


def pipeline_verdicts(pipeline: dict[int, dict], cores: int, noise_by_workers: dict | None = None
                      ) -> list[tuple[str, dict]]:
    """(catalog key, values) for lesson 02's input-pipeline verdict, from wait_vs_compute results
    per num_workers ({0: ..., 1: ..., 2: ...}): is waiting for data the bottleneck with no workers,
    which worker count was fastest, and — when workers made training slower — why, from the
    measured step times. noise_by_workers: {num_workers: noise info}; when a row the sentence
    stands on is noisy, one line says so and nothing is explained.
    Measured here once (2 cores): waiting fell from 91% to 33% with 2 workers, yet training ran
    1.32× slower, because the step itself grew from 1.31 to 13.63 ms."""
    def step_ms(w):
        return statistics.median(pipeline[w]["step_s"]) * 1e3 if pipeline[w]["step_s"] else float("nan")

    best = max((w for w in pipeline if w > 0), key=lambda w: pipeline[w]["steps_per_s"])
    ratio = pipeline[best]["steps_per_s"] / pipeline[0]["steps_per_s"]
    values = {"best": best, "share": pipeline[best]["wait_share"], "ratio": ratio, "speed": speed_words(ratio),
              "share0": pipeline[0]["wait_share"]}
    infos = noise_by_workers or {}
    if _noisy(infos.get(0)) or _noisy(infos.get(best)):
        return [("lesson02.pipeline_noisy", values)]
    lines = [("lesson02.bottleneck_data" if pipeline[0]["wait_share"] > 0.5 else "lesson02.bottleneck_step", values)]
    if ratio < 1 - SAME_BAND / 2:
        slower_step = step_ms(best) > 1.2 * step_ms(0)
        lines.append(("lesson02.workers_took_cores" if slower_step else "lesson02.workers_cost_more",
                      {**values, "step0_ms": step_ms(0), "step_ms": step_ms(best), "cores": cores}))
    return lines


def _side(ratio: float) -> int:
    return 0 if abs(ratio - 1) <= SAME_BAND else (1 if ratio > 1 else -1)


def reconcile_verdict(before: dict[int, float], profiled: dict[int, float], workers: int = 2,
                      before_noisy=False, profiled_noisy=False) -> tuple[str, dict]:
    """The profiler's run beside the timed run just before it: steps/s per num_workers in each
    ({0: ..., 2: ...}). Do both say the same about `workers` against none?

    agree        both faster, both slower, or both about the same
    overhead     they disagree on a quiet machine: the profiler records every op of the training
                 process (and a step on shared cores), so its speeds are not the plain loop's; the
                 values say how much slower the profiled loop ran
    noisy        either run was noisy: no comparison is made"""
    r_before = before[workers] / before[0]
    r_prof = profiled[workers] / profiled[0]
    values = {"workers": workers, "before": speed_words(r_before), "profiled": speed_words(r_prof),
              "r_before": r_before, "r_prof": r_prof,
              "overhead0": speed_words(profiled[0] / before[0]),
              "overhead_w": speed_words(profiled[workers] / before[workers])}
    if _noisy(before_noisy) or _noisy(profiled_noisy):
        return "lesson02.reconcile_noisy", values
    if _side(r_before) == _side(r_prof):
        return "lesson02.reconcile_agree", values
    return "lesson02.reconcile_overhead", values


# ---------------------------------------------------------------- what each # VERDICT cell calls (one call per cell)


def _say_rule(key: str, values: dict, measurements) -> None:
    verdicts.say(key, noise=stands_on(key, measurements), **values)


def pin(records: list[bench.Record]) -> None:
    """Pinning every batch (transfer.pin_cost): does it pay here?"""
    _say_rule(*pin_verdict(records), records)


def launch(measured: list[dict]) -> None:
    """transfer.launch_vs_sync per device: did the call return before its result was ready?"""
    verdicts.beside([r["noise"] for r in measured])
    for r in measured:
        launch_ms, total_ms = r["launch_s"] * 1e3, r["total_s"] * 1e3
        verdicts.say("lesson02.v_launch", noise=r["noise"], device=r["device"], launch_ms=launch_ms, total_ms=total_ms)
        verdicts.say("lesson02.v_launch_async" if launch_ms < 0.5 * total_ms else "lesson02.v_launch_sync", noise=r["noise"])


def item(records: list[bench.Record]) -> None:
    """transfer.item_cost per device: .item() every step vs once; a CPU gap is never .item()'s cost."""
    verdicts.beside(records)
    for device in dict.fromkeys(r.params["device"] for r in records):
        mine = {r.params["item_every_step"]: r for r in records if r.params["device"] == device}
        pair, every, once = [mine[True], mine[False]], mine[True].metrics["ms_per_step"], mine[False].metrics["ms_per_step"]
        verdicts.say("lesson02.v_item", noise=pair, device=device, every=every, once=once, speed=speed_words(once / every))
        spread = (mine[True].iqr_s + mine[False].iqr_s) / mine[True].params["steps"] * 1e3  # the timings' spread
        costs = every - once > max(spread, 0.1 * once)
        key = "lesson02.v_item_cpu" if costs and device == "cpu" else "lesson02.v_item_costs" if costs else "lesson02.v_item_same"
        verdicts.say(key, noise=pair)


def early_read(early: dict, gpu: str | None = None) -> None:
    """A non_blocking copy back read before and after synchronizing: on the GPU `gpu`, or simulated (None)."""
    def word(ok):
        return t("lesson02.right" if ok else "lesson02.wrong")
    verdicts.say("lesson02.v_early_gpu" if gpu else "lesson02.v_early_sim", noise=(), gpu=gpu, early=early["early"],
                 early_word=word(early["early_ok"]), late=early["late"], late_word=word(early["late_ok"]),
                 expected=early["expected"])  # a value right or wrong: no timing


def overlap(copy_s: float, compute_s: float, batches: int, measured=None, gpu: str | None = None) -> None:
    """The second stream: the model's numbers (a formula), then the GPU's two records when measured."""
    model = overlap_model(copy_s, compute_s, batches)
    verdicts.say("lesson02.v_overlap_model", noise=(), copy_ms=copy_s * 1e3, compute_ms=compute_s * 1e3, batches=batches,
                 serial_ms=model["serial_s"] * 1e3, overlapped_ms=model["overlapped_s"] * 1e3, speedup=model["speedup"])
    if measured:
        serial, overlapped = measured
        verdicts.say("lesson02.v_overlap_gpu", noise=[serial, overlapped], gpu=gpu, batches=serial.params["batches"],
                     serial_ms=serial.metrics["ms"], overlapped_ms=overlapped.metrics["ms"],
                     speed=speed_words(serial.median_s / overlapped.median_s))


def loaders(records: list[bench.Record], cuda: bool, cores: int) -> None:
    """loader_throughput's records: what was measured, did workers help, and pin_memory on vs off."""
    base = next(r for r in records if r.params["num_workers"] == 0 and not r.params["pin_memory"])
    fastest = max((r for r in records if r.params["num_workers"] > 0), key=_rate)
    verdicts.say("lesson02.v_loader", noise=[base, fastest], base=_rate(base), workers=fastest.params["num_workers"],
                 fastest=_rate(fastest), startup=fastest.metrics["startup_s"], cores=cores)
    _say_rule(*workers_verdict(records), [base, fastest])
    for key, values, pair in pin_gap_verdicts(records, cuda=cuda):
        _say_rule(key, values, pair)


def pipeline(results: dict[int, dict], cores: int) -> None:
    """wait_vs_compute per num_workers: each row, then where the bottleneck is (pipeline_verdicts)."""
    def ms(xs):
        return 1e3 * sum(xs) / max(len(xs), 1)
    verdicts.beside([r["noise"] for r in results.values()])
    for w, r in results.items():
        verdicts.say("lesson02.v_pipeline_row", noise=r["noise"], workers=w, wait_ms=ms(r["wait_s"]), step_ms=ms(r["step_s"]),
                     share=r["wait_share"], steps_per_s=r["steps_per_s"], startup=r["startup_s"])
    infos = {w: r["noise"] for w, r in results.items()}
    for key, values in pipeline_verdicts(results, cores, infos):
        _say_rule(key, values, list(infos.values()))


def reconcile(timed: dict[int, dict], profiled: dict[int, dict] | None, workers: int = 2) -> None:
    """The profiled run beside the timed one (both wait_vs_compute results per num_workers); None: it did not run."""
    if not profiled:
        verdicts.say("lesson02.v_profiler_off", noise=())  # nothing measured
        return
    pair = (0, workers)
    key, values = reconcile_verdict({w: timed[w]["steps_per_s"] for w in pair}, {w: profiled[w]["steps_per_s"] for w in pair},
                                    workers=workers, before_noisy=any(_noisy(timed[w]["noise"]) for w in pair),
                                    profiled_noisy=any(_noisy(profiled[w]["noise"]) for w in pair))
    _say_rule(key, values, [timed[w]["noise"] for w in pair] + [profiled[w]["noise"] for w in pair])


def training(results: dict[str, tuple], epoch_noise: dict[str, dict], epochs: int) -> None:
    """The seeds' loop per device ({device: (losses, epoch times, accuracy)}): accuracy, epochs, devices compared."""
    epoch_s = {name: steady_mean(times)[0] for name, (_, times, _) in results.items()}  # warm-up left out
    verdicts.beside(list(epoch_noise.values()))
    for name, (_, times, accuracy) in results.items():
        verdicts.say("lesson02.v_accuracy", noise=(), device=name, epochs=epochs, accuracy=accuracy)  # a count, not a time
        verdicts.say("lesson02.v_epochs", noise=epoch_noise[name], device=name, first=times[0], mean=epoch_s[name])
    for name in epoch_s:
        if name != "cpu" and "cpu" in epoch_s:
            verdicts.say("lesson02.v_devices", noise=[epoch_noise["cpu"], epoch_noise[name]], cpu=epoch_s["cpu"],
                         other=epoch_s[name], device=name, speed=speed_words(epoch_s["cpu"] / epoch_s[name]))
