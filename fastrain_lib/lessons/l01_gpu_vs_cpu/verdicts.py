"""Lesson 01's verdict rules (issue 27). Each `# VERDICT` cell calls one printing function at the end
(threads, sizes_and_adds, gpu_vs_cpu, under_roofs, regimes_found, batches, dtypes, load); they build on
pure rules (`*_lines`: a table of `Row`s in, catalog `Line`s out, tested in tests/test_lesson01_verdicts.py)
that keep three promises: a noisy row is never explained (only the measured statement, which
verdicts.say turns into the noisy mark); a cause is said only when the numbers fit it (the per-call
cost measured in the same run, the tensors' bytes against this machine's cache, no smaller batch
slower than a bigger batch's whole step); a point above its own ceiling is a measurement problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from fastrain_lib.core import verdicts
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import noise as noise_mod
from fastrain_lib.measure import regimes

# The smallest matmul's extra time may be this many times the measured per-call cost of a tiny op
# and still be "the fixed cost of each call" (a matmul call also wakes a thread team).
FIXED_COST_FACTOR = 10.0
# A rate this many times below the best counts as a drop worth a sentence.
DROP = 1.3
# A smaller batch's step may take this much longer than a bigger batch's step (timer jitter)
# before "a fixed per-step cost" is ruled out.
STEP_TOLERANCE = 1.2
# A point this far above its own ceiling is flagged (1.05: 5% for the ceiling's own jitter).
ABOVE_CEILING = 1.05
# Within this band two rates are "about the same".
SAME_BAND = 0.05

# The keys that give a cause: a rule must never return one of them for a table with a noisy row.
CAUSAL_KEYS = frozenset({"lesson01.v_sizes_fixed_cost", "lesson01.v_add_ram", "lesson01.v_batch_fixed_cost",
                         "lesson01.v_batch_flattening", "lesson01.v_batch_growing", "lesson01.v_threads_below",
                         "lesson01.v_threads_none"})


@dataclass(frozen=True)
class Row:
    """One measured row: x (matrix size, elements or batch), median seconds per call, the rate
    (GFLOP/s, GB/s or samples/s) and the noise information (`{"verdict": "quiet"|"noisy", ...}`)."""

    x: float
    seconds: float
    rate: float
    noise: dict = field(default_factory=dict)

    @property
    def noisy(self) -> bool:
        return noise_mod.is_noisy(self.noise)


class Line(NamedTuple):
    key: str
    values: dict
    noise: tuple  # the measurements the sentence stands on; () for a sentence on no timing


# How a noisy line names each row (issue 38: a warning names the row it is about), per x_key of `rows`.
ROW_KEYS = {"threads": "lesson01.row_threads", "size": "lesson01.row_matmul", "numel": "lesson01.row_add",
            "batch_size": "lesson01.row_batch"}


def row_label(record, x_key: str) -> str:
    """The row's name in the reader's language ('ম্যাট্রিক্স গুণ 128 (cpu)', 'batch 16 (cpu)')."""
    params = getattr(record, "params", None) or {}
    key = ROW_KEYS.get(x_key)
    if key is None:
        return verdicts.row_name(getattr(record, "name", "?"))
    label = t(key, x=params.get(x_key), device=params.get("device", "cpu"))
    dtype = params.get("dtype")
    return f"{label} {dtype}" if dtype and dtype != "float32" else label  # bf16 and fp16 rows apart


def named(records) -> list:
    """The noise information of `records` (bench Records or None), each named as a noisy line names its row
    in the reader's language (not the record's English name with every setting)."""
    infos = []
    for r in records:
        info = getattr(r, "noise", None)
        if not info:
            continue
        params = getattr(r, "params", None) or {}
        key = next((k for k in ("kind", "threads", "batch_size", "size", "numel", "ops") if k in params), None)
        if key == "kind":  # one of §4's examples (measure.regimes): its display name and its size
            names = {regimes.OVERHEAD: ("regimes.name_tiny", {"ops": params.get("calls")}),
                     regimes.MEMORY: ("regimes.name_chain", {"ops": params.get("calls")}),
                     regimes.COMPUTE: ("regimes.name_matmul", {"n": params.get("size")})}
            name, values = names.get(params["kind"], ("regimes.name_matmul", {"n": params.get("size")}))
            label = f"{t(name, **values)} ({params.get('size')}, {params.get('device', 'cpu')})"
        elif key == "ops":  # the per-call cost of a tiny op
            label = t("lesson01.row_overhead", ops=params["ops"], device=params.get("device", "cpu"))
        elif key == "numel" and params.get("kernel"):
            label = t("lesson01.row_stream", kernel=params["kernel"], x=params["numel"], device=params.get("device", "cpu"))
        else:
            label = row_label(r, key) if key else verdicts.row_name(getattr(r, "name", "?"))
        infos.append({**info, "row": label})
    return infos


def rows(records, x_key: str, metric: str) -> list[Row]:
    """Rows from bench Records (params[x_key], median_s, metrics[metric], noise), sorted by x. Each row's
    noise information carries the row's name, so a noisy line says which rows were noisy."""
    found = [Row(r.params[x_key], r.median_s, r.metrics[metric],
                 {**r.noise, "row": row_label(r, x_key)} if r.noise else {}) for r in records]
    return sorted(found, key=lambda r: r.x)


def say(lines: list[Line]) -> None:
    """Print each line once through verdicts.say (the noisy-measurement sentence where its rows are noisy);
    a line on quiet rows beside a noisy one says so on its line, also when it comes first."""
    verdicts.beside([list(line.noise) for line in lines])
    for line in lines:
        verdicts.say(line.key, noise=list(line.noise), **line.values)


def compare(ratio: float, lang: str | None = None) -> str:
    """'3.2× faster', '10.0× slower' (for a ratio of 0.1) or 'about the same speed (1.02×)'."""
    if abs(ratio - 1.0) <= SAME_BAND:
        return t("lesson01.ratio_same", lang, ratio=ratio)
    if ratio > 1.0:
        return t("lesson01.ratio_faster", lang, n=ratio)
    return t("lesson01.ratio_slower", lang, n=1.0 / ratio if ratio > 0 else float("inf"))


def noise_word(item) -> str:
    """'quiet' / 'noisy' for a Row, a Record or a noise dict (the table's per-row mark)."""
    info = item if isinstance(item, dict) else getattr(item, "noise", None)
    if not info or "verdict" not in info:
        return "–"
    return t("noise.noisy_word") if noise_mod.is_noisy(info) else t("noise.quiet_word")


def _noisy(rows_: list[Row]) -> bool:
    return any(r.noisy for r in rows_)


# ---------------------------------------------------------------- §1 threads


def thread_lines(table: list[Row]) -> list[Line]:
    """table: x = threads, rate = GFLOP/s. Speed-up over 1 thread, worded right, and what it shows."""
    one, top = table[0], table[-1]
    threads = int(top.x)
    if threads <= 1:
        return [Line("lesson01.v_threads_single", {}, ())]
    speedup = one.seconds / top.seconds
    values = {"threads": threads, "speedup": speedup, "phrase": compare(speedup)}
    stand = tuple(table)
    if _noisy(table):
        return [Line("lesson01.v_threads_measured", values, stand)]
    if speedup >= 0.8 * threads:
        return [Line("lesson01.v_threads_near_ideal", values, stand)]
    if speedup > 1.1:
        return [Line("lesson01.v_threads_measured", values, stand), Line("lesson01.v_threads_below", values, stand)]
    return [Line("lesson01.v_threads_measured", values, stand), Line("lesson01.v_threads_none", values, stand)]


# ---------------------------------------------------------------- §2 matmul sizes


def size_lines(table: list[Row], overhead_s: float | None, overhead_noise=None, device: str = "cpu") -> list[Line]:
    """table: x = n, rate = GFLOP/s. The fixed cost of each call explains a small matmul's low
    GFLOP/s only when its extra time (beyond its FLOPs at the big one's rate) is about the per-call
    cost measured in the same run (at most FIXED_COST_FACTOR times it)."""
    small, big = table[0], table[-1]
    ratio = big.rate / small.rate if small.rate > 0 else float("inf")
    values = {"device": device, "small": int(small.x), "big": int(big.x), "small_rate": small.rate,
              "big_rate": big.rate, "phrase": compare(ratio)}
    stand = tuple(table)
    measured = Line("lesson01.v_sizes_measured", values, stand)
    if _noisy(table):
        return [measured]
    if ratio <= 1.5:
        return [measured, Line("lesson01.v_sizes_flat", {}, stand)]
    extra = small.seconds * (1.0 - small.rate / big.rate)  # time beyond its FLOPs at the big one's rate
    over = {"extra_us": extra * 1e6, "overhead_us": (overhead_s or 0.0) * 1e6,
            "times": extra / overhead_s if overhead_s else float("inf")}
    with_overhead = stand + ((overhead_noise,) if overhead_noise is not None else ())
    if overhead_s and extra <= FIXED_COST_FACTOR * overhead_s:
        return [measured, Line("lesson01.v_sizes_fixed_cost", over, with_overhead)]
    return [measured, Line("lesson01.v_sizes_unexplained", over, with_overhead)]


# ---------------------------------------------------------------- §2 addition's bandwidth


def working_set_bytes(numel: float, bytes_per_element: int = 4) -> float:
    """c = a + b touches three tensors of numel elements."""
    return 3 * numel * bytes_per_element


def add_lines(table: list[Row], cache_bytes: float | None, device: str = "cpu",
              bytes_per_element: int = 4) -> list[Line]:
    """table: x = elements, rate = GB/s. "Does not fit in the cache" only for rows whose three
    tensors are larger than this machine's cache (cache_bytes, None when unknown: then no claim);
    a drop at a size that fits in the cache is left unexplained (a measurement to repeat)."""
    best = max(table, key=lambda r: r.rate)
    biggest = table[-1]

    def mb(r: Row) -> float:
        return working_set_bytes(r.x, bytes_per_element) / 1e6

    values = {"device": device, "best_n": int(best.x), "best_rate": best.rate, "best_mb": mb(best),
              "big_n": int(biggest.x), "big_rate": biggest.rate, "big_mb": mb(biggest)}
    stand = tuple(table)
    measured = Line("lesson01.v_add_measured", values, stand)
    if _noisy(table):
        return [measured]
    slow = [r for r in table if r.x > best.x and r.rate * DROP < best.rate]
    if not slow:
        return [measured, Line("lesson01.v_add_flat", {}, stand)]
    if not cache_bytes:
        return [measured, Line("lesson01.v_add_cache_unknown", {"slow_n": int(slow[0].x), "slow_rate": slow[0].rate},
                               stand)]
    cache_mb = cache_bytes / 1e6
    inside = [r for r in slow if working_set_bytes(r.x, bytes_per_element) <= cache_bytes]
    if inside:
        r = inside[0]
        return [measured, Line("lesson01.v_add_unexplained", {"slow_n": int(r.x), "slow_rate": r.rate,
                                                               "slow_mb": mb(r), "cache_mb": cache_mb}, stand)]
    if working_set_bytes(best.x, bytes_per_element) > cache_bytes:  # even the best is beyond the cache
        return [measured, Line("lesson01.v_add_cache_unknown", {"slow_n": int(slow[0].x), "slow_rate": slow[0].rate},
                               stand)]
    r = slow[0]
    return [measured, Line("lesson01.v_add_ram", {"slow_n": int(r.x), "slow_mb": mb(r), "cache_mb": cache_mb}, stand)]


# ---------------------------------------------------------------- §3/§4 points and their ceilings


def ceiling_lines(points: list[tuple[str, float, float]], peak_gflops: float, bandwidth_gbs: float) -> list[Line]:
    """points: (name, FLOP per byte, GFLOP/s). A point above its own ceiling (min(peak, bandwidth ×
    intensity), measured next to it) is flagged as a measurement problem: one of the two numbers
    is off (the machine was busy during one of them); no cause is given."""
    lines = []
    for name, intensity, gflops in points:
        ceiling = min(peak_gflops, bandwidth_gbs * intensity)
        if ceiling > 0 and gflops > ABOVE_CEILING * ceiling:
            lines.append(Line("lesson01.v_above_ceiling", {"name": name, "got": gflops, "ceiling": ceiling,
                                                          "share": gflops / ceiling}, ()))
    return lines


# ---------------------------------------------------------------- §5 batch size


def batch_lines(table: list[Row], device: str = "cpu") -> list[Line]:
    """table: x = batch size, rate = samples/s, seconds = one step (bench.measure: warm-up left out).
    "A fixed per-step cost shared by more samples" only when no smaller batch's step took longer than
    a bigger batch's whole step (a fixed part of the small step cannot exceed the big step)."""
    first, last = table[0], table[-1]
    gain = last.rate / first.rate if first.rate > 0 else float("inf")
    values = {"device": device, "first": int(first.x), "last": int(last.x), "first_rate": first.rate,
              "last_rate": last.rate, "phrase": compare(gain)}
    stand = tuple(table)
    measured = Line("lesson01.v_batch_measured", values, stand)
    if _noisy(table):
        return [measured]
    for i, small in enumerate(table):
        for big in table[i + 1:]:
            if small.seconds > STEP_TOLERANCE * big.seconds:
                return [measured, Line("lesson01.v_batch_unexplained",
                                       {"small": int(small.x), "small_ms": small.seconds * 1e3, "big": int(big.x),
                                        "big_ms": big.seconds * 1e3}, stand)]
    lines = [measured]
    if gain > 1.0 + SAME_BAND:
        lines.append(Line("lesson01.v_batch_fixed_cost",
                          {"first": int(first.x), "first_ms": first.seconds * 1e3, "last": int(last.x),
                           "last_ms": last.seconds * 1e3, "time_growth": last.seconds / first.seconds,
                           "batch_growth": last.x / first.x}, stand))
    if len(table) >= 2:
        before = table[-2]
        step_gain = last.rate / before.rate
        grew = step_gain > 1.0 and step_gain ** 2 >= last.x / before.x  # at least half the batch's growth (in logs)
        lines.append(Line("lesson01.v_batch_growing" if grew else "lesson01.v_batch_flattening",
                          {"phrase": compare(step_gain), "before": int(before.x), "last": int(last.x)}, stand))
    return lines


# ---------------------------------------------------------------- §7 the same matmul beside a load


def load_lines(quiet_all: Row, busy_all: Row, busy_fit: Row, fit: int) -> list[Line]:
    """rate = GFLOP/s; x = threads. Beside the load the same matmul with all threads and with the `fit`
    threads that fit the free cores (noise.threads_that_fit, this run). The cost of oversubscription is
    this run's ratio of the two, said with each row's noise word on the line: the all-threads row is
    noisy by design (it is the lesson's subject), so no cause is given from it. The comparison with the
    no-load run stands on quiet rows only (say() prints the noisy line, naming them, otherwise)."""
    threads = int(busy_all.x)
    values = {"threads": threads, "fit": int(fit), "all_rate": busy_all.rate, "fit_rate": busy_fit.rate,
              "all_word": noise_word(busy_all), "fit_word": noise_word(busy_fit),
              "quiet_rate": quiet_all.rate, "quiet_word": noise_word(quiet_all)}
    if threads <= 1:
        values["one_phrase"] = compare(busy_all.rate / quiet_all.rate if quiet_all.rate > 0 else 1.0)
        return [Line("lesson01.v_load_one_core", values, (quiet_all, busy_all))]
    if int(fit) >= threads:  # every thread found a free core: no oversubscription to show
        return [Line("lesson01.v_load_all_fit", values, (busy_all,))]
    values["cost_phrase"] = compare(busy_all.rate / busy_fit.rate if busy_fit.rate > 0 else 1.0)
    values["kept"] = busy_fit.rate / quiet_all.rate if quiet_all.rate > 0 else 0.0
    # "the cost of oversubscription" only when all threads were slower; faster is said as no cost seen
    cost = Line("lesson01.v_load_cost" if busy_all.rate < busy_fit.rate else "lesson01.v_load_no_cost", values, (busy_fit,))
    if busy_fit.noisy:  # nothing to stand on: one warning, naming the row
        return [cost]
    return [cost, Line("lesson01.v_load_fit_kept", values, (quiet_all, busy_fit))]


# ---------------------------------------------------------------- what each # VERDICT cell calls (prints)


def _of(records, device: str) -> list:
    return [r for r in records if r.params["device"] == device]


def threads(records) -> None:
    """§1: the same matmul with 1, 2, ... threads (Records with params['threads'])."""
    say(thread_lines(rows(records, "threads", "gflops")))


def sizes_and_adds(matmul_records, add_records, per_call: dict, cache: int | None) -> None:
    """§2, per device in `per_call` (its per-call cost Record): matmul GFLOP/s by size, addition GB/s by length."""
    for device, over in per_call.items():  # the matmul lines and the addition lines beside each other (say)
        say(size_lines(rows(_of(matmul_records, device), "size", "gflops"), over.metrics["overhead_s"], over.noise, device)
            + add_lines(rows(_of(add_records, device), "numel", "gbs"), cache if device == "cpu" else None, device))


def gpu_vs_cpu(matmul_records, add_records) -> None:
    """§2: the best matmul and the best addition of the GPU against the CPU's (or the CPU's alone)."""
    def best(records, device, metric):
        return max(_of(records, device), key=lambda r: r.metrics[metric], default=None)

    cpu_mm, cpu_add = best(matmul_records, "cpu", "gflops"), best(add_records, "cpu", "gbs")
    gpu_mm, gpu_add = best(matmul_records, "cuda", "gflops"), best(add_records, "cuda", "gbs")
    if gpu_mm is None or gpu_add is None:
        verdicts.say("lesson01.v_no_gpu", noise=named([cpu_mm, cpu_add]), mm=cpu_mm.metrics["gflops"], add=cpu_add.metrics["gbs"])
        return
    verdicts.say("lesson01.v_gpu_vs_cpu", noise=named([gpu_mm, cpu_mm, gpu_add, cpu_add]),
                 gpu_mm=gpu_mm.metrics["gflops"], cpu_mm=cpu_mm.metrics["gflops"],
                 mm_phrase=compare(gpu_mm.metrics["gflops"] / cpu_mm.metrics["gflops"]),
                 gpu_add=gpu_add.metrics["gbs"], cpu_add=cpu_add.metrics["gbs"],
                 add_phrase=compare(gpu_add.metrics["gbs"] / cpu_add.metrics["gbs"]))


def under_roofs(roofs: dict, points: dict) -> None:
    """§3: {device: its measured Roof}, {device: (points, their Records)}: how many sit under the roof."""
    verdicts.beside([[*named(roof.records), *named(points[device][1])] for device, roof in roofs.items()])
    for device, roof in roofs.items():
        found, records = points[device]
        flags = ceiling_lines(found, roof.peak_gflops, roof.bandwidth_gbs)
        verdicts.say("lesson01.v_roof_count", noise=named([*roof.records, *records]), device=device, n=len(found),
                     below=len(found) - len(flags), above=len(flags))
        say(flags)


def regimes_found(machines: dict, findings: dict) -> None:
    """§4: the three limits measured next to the examples, then each example's regime (regimes.finding_verdicts)."""
    if not machines:  # the cell was off (RUN_REGIMES = False): say so, do not stay silent
        verdicts.say("lesson01.v_regimes_off", noise=())
        return
    verdicts.beside([named([*m.records, *(r for f in findings[d] for r in (f.record, f.bigger))])
                     for d, m in machines.items()])
    for device, machine in machines.items():
        verdicts.say("lesson01.v_regime_limits", noise=named(machine.records), device=device, overhead_us=machine.overhead_s * 1e6,
                     bandwidth=machine.bandwidth_gbs, peak=machine.peak_gflops, border=machine.border_numel())
        for f in findings[device]:
            for key, values, stand in regimes.finding_verdicts(f, machine):  # no regime for a noisy or impossible point
                verdicts.say(key, noise=named(stand), **values)


def batches(records) -> None:
    """§5: samples/s of the training step by batch size, per device."""
    for device in dict.fromkeys(r.params["device"] for r in records):
        say(batch_lines(rows(_of(records, device), "batch_size", "samples_per_s"), device))


def dtypes(by_dtype: dict) -> None:
    """§6: the same CPU matmul in fp32, bf16 and fp16 ({name: Record}; empty when the cell was off)."""
    if not by_dtype:
        verdicts.say("lesson01.v_dtypes_off", noise=())
        return
    gflops = {name: r.metrics["gflops"] for name, r in by_dtype.items()}
    verdicts.say("lesson01.v_dtypes_measured", noise=named(by_dtype.values()), n=by_dtype["fp32"].params["size"], **gflops)
    fastest = max(("bf16", "fp16"), key=gflops.get)  # the faster of the two 16-bit formats
    ratio = gflops[fastest] / gflops["fp32"]
    verdicts.say("lesson01.v_dtypes_fast" if ratio > 1.1 else "lesson01.v_dtypes_slow",
                 noise=named([by_dtype[fastest], by_dtype["fp32"]]), fastest=fastest, phrase=compare(ratio))


SITUATION_KEYS = {"quiet": "lesson01.situation_quiet", "busy": "lesson01.situation_busy"}


def load(timings: dict, all_threads: int, fit: int) -> None:
    """§7: {(situation, threads): Record}: no load with all threads, beside the load with all threads and
    with the `fit` threads that fit the free cores."""
    def row(situation, count):
        r = timings[(situation, count)]
        label = t("lesson01.row_load", situation=t(SITUATION_KEYS[situation]), x=count)
        return Row(count, r.median_s, r.metrics["gflops"], {**r.noise, "row": label} if r.noise else {})

    say(load_lines(row("quiet", all_threads), row("busy", all_threads), row("busy", fit), fit))
