"""Pool the whole class's saved results: load, check, compare per machine, rank.

Every experiment panel can save its last run (`panel.save("rahim")` or the "ফল সংরক্ষণ" button) as
results/<panel>-<student>-<stamp>.json; the instructor collects them into one folder, and this module gives:

- load_folder(): every record, in a stable order; a malformed file is skipped and named with the
  reason; a record that arrives twice is counted once; older and newer schemas are read as far as understood.
- speedups(): per machine, how much faster AMP / a fused optimizer / more DDP processes made the same experiment.
- leaderboard(): who ran the most-measured experiment fastest, on which machine.

Noisy records (a busy machine) are kept, counted and named (noisy_lines), never compared or ranked; records
from before noise was measured (schema < 2) are used as they are.
"""

from __future__ import annotations

import collections
import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from fastrain_lib.measure import bench, noise
from fastrain_lib.core.i18n import t

# Parameter names that mark a comparison, and the baseline values, most preferred first.
# A lesson whose records use one of these parameter names is compared automatically.
COMPARISONS = {
    "precision": {"keys": ("precision", "amp", "dtype"), "baseline": ("fp32", "float32", False, "off")},
    "fused": {"keys": ("optimizer", "fused"), "baseline": ("forloop", "for-loop", "foreach", False, "off")},
    "ddp": {"keys": ("world_size", "processes", "nproc", "workers"), "baseline": (1,)},
}
# Work per second, where a record has it (preferred over time: work per step may differ).
THROUGHPUT = ("samples_per_s", "tokens_per_s", "gflops")
# Parameters that say who/where, not what was measured: never part of "the same experiment".
IDENTITY = ("student", "panel")


@dataclass
class Skipped:
    path: Path
    reason: str


@dataclass
class ClassResults:
    records: list[bench.Record] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    duplicates: int = 0  # records dropped because an identical one was already loaded
    files: int = 0  # files read successfully
    schemas: dict[int, int] = field(default_factory=dict)  # schema version -> number of files

    @property
    def noisy(self) -> list[bench.Record]:
        """Records whose noise verdict says the machine was busy: flagged, not compared."""
        return [r for r in self.records if r.noisy]

    def summary(self) -> str:
        """One Bengali (or English) paragraph: what was loaded, what was skipped and why."""
        lines = [t("class_results.loaded", records=len(self.records), files=self.files, duplicates=self.duplicates,
                   machines=len({hardware_label(r.meta) for r in self.records}))]
        lines += [t("class_results.skipped", name=s.path.name, reason=s.reason) for s in self.skipped]
        if self.noisy:  # every noisy record named, with what it measured: the count and the names agree
            lines.append(t("noise.dropped", count=len(self.noisy)) + " " + ", ".join(_counted(self.noisy)))
        return "\n".join(lines)


KIND_KEYS = {"precision": "class_results.kind.precision", "fused": "class_results.kind.fused", "ddp": "core.ddp_processes"}


def quiet(records: list[bench.Record]) -> list[bench.Record]:
    """The records fit to compare: all but the noisy ones."""
    return [r for r in records if not noise.is_noisy(r.noise)]


def hardware_label(meta: dict) -> str:
    """A short, human name for the machine a record came from: the GPU(s), else the CPU."""
    if meta.get("gpu_name"):
        count = meta.get("gpu_count") or 1
        return f"{meta['gpu_name']}" + (f" ×{count}" if count > 1 else "")
    cpu = str(meta.get("cpu_name") or "?")
    for junk in ("(R)", "(TM)", "CPU ", "Processor"):
        cpu = cpu.replace(junk, "")
    cores = meta.get("cpu_cores")
    return f"CPU {' '.join(cpu.split())}" + (f" ({cores})" if cores else "")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_record(raw) -> str | None:
    """None when `raw` is a usable record, else the Bengali reason."""
    if not isinstance(raw, dict):
        return t("class_results.not_object")
    missing = [key for key in ("name", "median_s") if key not in raw]
    if missing:
        return t("class_results.missing", fields=", ".join(missing))
    if not isinstance(raw["name"], str) or not _number(raw["median_s"]) or raw["median_s"] <= 0:
        return t("class_results.bad_value")
    for key in ("params", "metrics", "meta"):
        if key in raw and not isinstance(raw[key], dict):
            return t("class_results.bad_value")
    return None


def read_file(path: Path) -> tuple[int, list[bench.Record]]:
    """(schema, records) of one file, or ValueError with a Bengali reason. Schema 0: a bare list; 1+: {"records": [...]}."""
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(t("class_results.bad_json", error=f"{type(exc).__name__}: {str(exc)[:80]}")) from exc  # Python's own words, named as such
    if isinstance(payload, list):
        schema, raw_records = 0, payload
    elif isinstance(payload, dict) and isinstance(payload.get("records"), list):
        schema = payload.get("schema", 0)
        if not isinstance(schema, int) or isinstance(schema, bool) or schema < 0:
            raise ValueError(t("class_results.bad_schema"))
        raw_records = payload["records"]
    else:
        raise ValueError(t("class_results.bad_schema"))  # noqa: TRY004 (bad file content, not a bad argument)
    if not raw_records:
        raise ValueError(t("class_results.empty"))
    records = []
    for index, raw in enumerate(raw_records):
        problem = _check_record(raw)
        if problem:
            raise ValueError(t("class_results.bad_record", index=index + 1, problem=problem))
        records.append(bench.Record.from_dict(raw))
    return schema, records


def _fingerprint(record: bench.Record) -> str:
    return json.dumps(record.to_dict(), sort_keys=True, default=str)


def load_folder(folder: str | Path) -> ClassResults:
    """Every record of every *.json file under `folder` (sorted by name, so the order the
    files arrived in does not matter); malformed files are skipped and named."""
    result, seen = ClassResults(), set()
    for path in sorted(Path(folder).rglob("*.json")):
        try:
            schema, records = read_file(path)
        except (OSError, ValueError) as exc:
            result.skipped.append(Skipped(path, str(exc)))
            continue
        result.files += 1
        result.schemas[schema] = result.schemas.get(schema, 0) + 1
        for record in records:
            key = _fingerprint(record)
            if key in seen:
                result.duplicates += 1
                continue
            seen.add(key)
            result.records.append(record)
    return result


def _student(record: bench.Record) -> str:
    return str(record.params.get("student") or record.meta.get("student") or "?")


def record_label(record: bench.Record) -> str:
    """Who measured what, with the settings its name does not say: 'মিতু: matmul 64 (cpu, bfloat16)'."""
    words = record.name.split()
    settings = [str(v) if isinstance(v, str) else f"{k}={v}" for k, v in sorted(record.params.items())
                if k not in IDENTITY and not isinstance(v, (dict, list)) and str(v) not in words]
    return f"{_student(record)}: {record.name}" + (f" ({', '.join(settings)})" if settings else "")


def _counted(records: list[bench.Record]) -> list[str]:
    """Each record's label once, with '×n' where n records share it (the names add up to the count)."""
    counts = collections.Counter(record_label(r) for r in records)
    return [label + (f" ×{n}" if n > 1 else "") for label, n in sorted(counts.items())]


def noisy_lines(records: list[bench.Record]) -> list[str]:
    """The noisy records and their noise sentence, each sentence once under the records it is about."""
    groups: dict[str, list[bench.Record]] = {}
    for record in (r for r in records if noise.is_noisy(r.noise)):
        groups.setdefault(noise.sentence(record.noise), []).append(record)
    return [line for sentence, group in groups.items() for line in (", ".join(_counted(group)), "   " + sentence)]


def _factor(record: bench.Record, kind: str) -> str | None:
    """The parameter of `record` that this comparison kind varies (None if it has none)."""
    return next((k for k in COMPARISONS[kind]["keys"] if k in record.params), None)


def _ratio(baseline: bench.Record, other: bench.Record) -> float:
    """How many times faster `other` is: by throughput when both report one (DDP does more work per step), else time."""
    for metric in THROUGHPUT:
        a, b = baseline.metrics.get(metric), other.metrics.get(metric)
        if _number(a) and _number(b) and a > 0:
            return b / a
    return baseline.median_s / other.median_s


def speedups(records: list[bench.Record], *, include_noisy: bool = False) -> list[dict]:
    """Per machine and comparison: baseline time ÷ variant time for the same experiment.

    "The same experiment" = same machine, student, panel and every other parameter equal;
    only the compared parameter differs. Several matches are summarised by their median.
    Noisy records take no part unless include_noisy=True."""
    records = records if include_noisy else quiet(records)
    found: dict[tuple, list[float]] = {}
    for kind, rule in COMPARISONS.items():
        groups: dict[tuple, dict] = {}
        for record in records:
            factor = _factor(record, kind)
            if factor is None:
                continue
            rest = tuple(sorted((k, json.dumps(v, sort_keys=True, default=str)) for k, v in record.params.items()
                                if k != factor and k not in IDENTITY))
            key = (hardware_label(record.meta), _student(record), record.params.get("panel"), factor, rest)
            # several records of one setting (repeats): keep the fastest median
            by_value = groups.setdefault(key, {})
            value = record.params[factor]
            if value not in by_value or record.median_s < by_value[value].median_s:
                by_value[value] = record
        for (machine, _student_name, _panel, factor, _rest), by_value in groups.items():
            baseline = next((b for b in rule["baseline"] if b in by_value), None)
            if baseline is None:
                continue
            for value, record in by_value.items():
                if value != baseline:
                    found.setdefault((machine, kind, f"{value} / {baseline}"), []).append(
                        _ratio(by_value[baseline], record))
    return [{"machine": machine, "kind": kind, "variant": variant, "speedup": statistics.median(values),
             "matches": len(values)} for (machine, kind, variant), values in sorted(found.items())]


def most_measured(records: list[bench.Record]) -> str | None:
    """The record name that the most students measured (ties: the most records, then the
    longest-running one: a bigger workload is measured more steadily)."""
    students: dict[str, set] = {}
    times: dict[str, list[float]] = {}
    for record in records:
        students.setdefault(record.name, set()).add(_student(record))
        times.setdefault(record.name, []).append(record.median_s)
    if not times:
        return None
    return max(sorted(times), key=lambda name: (len(students[name]), len(times[name]),
                                                 statistics.median(times[name])))


# Two machines whose medians are closer than this share (or than their own runs' spread, if larger)
# are tied: a difference a repeated run on one PC can show is not a ranking.
TIE_FLOOR = 0.05


def _settings(record: bench.Record) -> str:
    """What was measured, without who measured it: the parameters but student and panel."""
    rest = {k: v for k, v in record.params.items() if k not in IDENTITY}
    return ", ".join(f"{k}={v}" for k, v in sorted(rest.items(), key=lambda kv: kv[0]))


def group_spread(records: list[bench.Record]) -> float:
    """The noise of one machine+settings group, as a share of its median: the larger of the
    spread between its runs ((max - min) / median of the runs' medians) and each run's own
    IQR / median. 0.0 for a single run with no IQR."""
    medians = [r.median_s for r in records]
    middle = statistics.median(medians)
    between = (max(medians) - min(medians)) / middle if len(medians) > 1 and middle > 0 else 0.0
    within = max(((r.iqr_s or 0.0) / r.median_s for r in records if r.median_s > 0), default=0.0)
    return max(between, within)


def tied(faster: dict, slower: dict) -> bool:
    """A pure rule: `slower` is within the noise of `faster` (either group's spread, at least
    TIE_FLOOR), so the two are shown as a tie, not as a ranking."""
    limit = max(faster.get("spread", 0.0), slower.get("spread", 0.0), TIE_FLOOR)
    return slower["median_s"] <= faster["median_s"] * (1 + limit)


def rank_groups(groups: list[dict]) -> list[dict]:
    """Sort groups (dicts with median_s, spread) fastest first and number them; a group tied
    with the first of the block above it takes that block's rank and tied=True."""
    ordered = sorted(groups, key=lambda g: g["median_s"])
    out, leader = [], None
    for i, group in enumerate(ordered):
        if leader is not None and tied(leader, group):
            out.append({**group, "rank": leader["rank"], "tied": True})
            continue
        leader = {**group, "rank": i + 1, "tied": False}
        out.append(leader)
    return out


def leaderboard(records: list[bench.Record], name: str | None = None, *, include_noisy: bool = False) -> list[dict]:
    """For one experiment (default: the most measured), one row per MACHINE, fastest first.

    Runs of the same machine and settings are one group, summarised by their median (who ran them
    is listed, not ranked: two students on one PC are one machine); a machine's row is its fastest
    settings group. Machines within each other's noise (group_spread, at least TIE_FLOOR) are a
    tie with the same rank. Noisy records are not ranked unless include_noisy=True."""
    records = records if include_noisy else quiet(records)
    name = name or most_measured(records)
    groups: dict[tuple, list[bench.Record]] = {}
    for record in records:
        if record.name == name:
            groups.setdefault((hardware_label(record.meta), _settings(record)), []).append(record)
    if not groups:
        return []
    best: dict[str, dict] = {}
    for (machine, settings), runs in groups.items():
        group = {"machine": machine, "settings": settings, "name": name, "runs": len(runs),
                 "median_s": statistics.median(r.median_s for r in runs), "spread": group_spread(runs),
                 "student": ", ".join(sorted({_student(r) for r in runs})), "records": runs}
        if machine not in best or group["median_s"] < best[machine]["median_s"]:
            best[machine] = group
    slowest = max(g["median_s"] for g in best.values())
    return [{**g, "vs_slowest": slowest / g["median_s"]} for g in rank_groups(list(best.values()))]


def leaderboard_lines(rows: list[dict]) -> list[tuple[str, dict, list]]:
    """(catalog key, values, its records) under the board: grouped runs, every tie, or one machine alone."""
    lines = []
    for r in rows:
        if r.get("runs", 1) > 1:
            lines.append(("class_results.board_grouped", {"machine": r["machine"], "runs": r["runs"],
                                                          "students": r["student"], "spread": r["spread"]},
                          r.get("records", [])))
    for above, r in zip(rows, rows[1:]):
        if r.get("tied"):
            lines.append(("class_results.board_tie", {"a": above["machine"], "b": r["machine"],
                                                      "ratio": r["median_s"] / above["median_s"]},
                          above.get("records", []) + r.get("records", [])))
    if len(rows) == 1:
        lines.append(("class_results.board_one", {"machine": rows[0]["machine"]}, []))
    if not rows:
        lines.append(("class_results.board_empty", {}, []))
    return lines


def say_leaderboard(rows: list[dict]) -> None:
    """Print the sentences under the leaderboard (lesson 98's verdict cell), each on the records it stands
    on: a board built with include_noisy=True then says a noisy group's spread or tie is noisy."""
    from fastrain_lib.core import verdicts

    for key, values, records in leaderboard_lines(rows):
        verdicts.say(key, noise=records, **values)


def plot_speedups(ax, rows: list[dict]) -> None:
    """Horizontal bars: one per machine and comparison; the line at 1× means "no gain"."""
    from fastrain_lib.ui import plots

    if not rows:
        ax.axis("off")
        ax.text(0.5, 0.5, plots.label("class_results.no_pairs"), ha="center", va="center", wrap=True)
        return
    names = [f"{r['machine']}\n{plots.label(KIND_KEYS[r['kind']])}: {r['variant']}" for r in rows]
    values = [r["speedup"] for r in rows]
    colors = plots.accessible_colors()
    kinds = list(COMPARISONS)
    drawn = ax.barh(range(len(rows)), values, height=0.6,
                    color=[colors[kinds.index(r["kind"]) % len(colors)] for r in rows])
    ax.bar_label(drawn, labels=[f"{v:.2f}×" for v in values], padding=3)
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xlabel(plots.label("class_results.speedup_axis"))
    ax.set_title(plots.label("class_results.speedup_title"))


def plot_leaderboard(ax, rows: list[dict]) -> None:
    """Horizontal bars of each entry's median time, fastest on top."""
    from fastrain_lib.ui import plots

    if not rows:
        ax.axis("off")
        ax.text(0.5, 0.5, plots.label("class_results.no_records"), ha="center", va="center")
        return
    names = [f"{r['rank']}{'=' if r.get('tied') else ''}. {r['machine']} ({r['student']})" for r in rows]
    values = [r["median_s"] * 1e3 for r in rows]
    drawn = ax.barh(range(len(rows)), values, height=0.6, color=plots.accessible_colors()[0])
    ax.bar_label(drawn, labels=[f"{v:.3g} ms" for v in values], padding=3)
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    ax.set_xlabel(plots.label("core.median_ms"))
    ax.set_title(plots.label("class_results.leaderboard_title", name=rows[0]["name"]))


def speedup_table(rows: list[dict]) -> tuple[list[str], list[tuple]]:
    """Headers and rows for widgets.html_table."""
    headers = [t("class_results.machine"), t("class_results.comparison"), t("class_results.variant"), t("core.speedup"), t("class_results.matches")]
    return headers, [(r["machine"], t(KIND_KEYS[r["kind"]]), r["variant"], f"{r['speedup']:.2f}×", r["matches"])
                     for r in rows]


def leaderboard_table(rows: list[dict]) -> tuple[list[str], list[tuple]]:
    """One row per machine: rank ('2 =' for a tie with the row above), who ran it, how many runs,
    the median of the runs, their spread, and the comparison with the slowest machine."""
    headers = ["#", t("class_results.machine"), t("class_results.student"), t("class_results.runs"),
               t("core.median_ms"), t("class_results.spread"), t("class_results.vs_slowest"), t("class_results.tie_col")]
    return headers, [(f"{r['rank']} =" if r.get("tied") else r["rank"], r["machine"], r["student"], r.get("runs", 1),
                      r["median_s"] * 1e3, f"±{100 * r.get('spread', 0.0) / 2:.0f}%", f"{r['vs_slowest']:.2f}×",
                      t("class_results.tie") if r.get("tied") else "") for r in rows]
