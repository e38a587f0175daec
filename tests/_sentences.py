"""What a lesson printed, read sentence by sentence (issue 38): the noise rule and output hygiene.

The noise rule. A line that states a finding from measured rows (a ratio "2.7 গুণ ধীর", "1.4x faster",
a ranking "সবচেয়ে দ্রুত", a cause "কারণ", "because") in a cell where a measurement was noisy must say
its own noise status on that line: the noisy mark (verdicts.NOISY_MARK, "গোলমেলে", "noisy") or, for a
finding from quiet rows beside noisy ones, the quiet mark ("শান্ত", "quiet", "✓"). A cell is noisy
when say()'s audit log (FASTRAIN_VERDICT_LOG) recorded a noisy measurement while it ran, or when it
printed the noisy mark itself (a table of noisy rows). A sentence say() printed on no measurement
(noise=()) stands on a count or a formula and is exempt.

Output hygiene: plain numbers (no 4.991e+04), no line printed twice in a cell.
tests/test_sentences.py shows each rule the wrong output it must catch.
"""

from __future__ import annotations

import collections
import re

from _nbrun import table_cells

from fastrain_lib.core import verdicts

# A ratio or a speed comparison, a ranking, or a cause: the sentences that may not stand on noisy rows.
RATIO = re.compile(r"\d\s*(গুণ|×)|\d(\.\d+)?x\b|\btimes (faster|slower)|\bspeed-?up\b|গতিবৃদ্ধি"
                   r"|(দ্রুত|ধীর)(তর)?\b(?! ?কর্মী)|\b(faster|slower)\b", re.IGNORECASE)
RANKING = re.compile(r"সবচেয়ে (দ্রুত|ধীর)|সবার আগে|\b(fastest|slowest|ranked first|ranks? (first|last))\b", re.IGNORECASE)
CAUSE = re.compile(r"কারণ|এর জন্য|জন্যই|\bbecause\b|\bdue to\b|\bcaused by\b|\bthe reason\b", re.IGNORECASE)
NOISY_WORDS = re.compile(re.escape(verdicts.NOISY_MARK.strip()) + r"|গোলমেলে|\bnoisy\b", re.IGNORECASE)
QUIET_WORDS = re.compile(r"শান্ত|\bquiet\b|✓")
# Numbers in e-notation that a student stumbles on: any e+ (4.991e+04 samples/s: write 49,910) and a raw
# float repr (2.2351741790771484e-08); a tiny difference with a short mantissa (7.45e-09) may stay.
# A tensor's own print is PyTorch's.
SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(\.\d+)?e\+\d+|\d\.\d{5,}e-\d+)\b", re.IGNORECASE)
# A warning Python's warnings module wrote to a cell's stderr ("path.py:131: UserWarning: ..."): a student reads
# it as a fault of the lesson. A lesson that shows a warning on purpose (lesson 03's old AMP API) catches it
# and prints it as its own line, which this does not match.
PYTHON_WARNING = re.compile(r"^\S+:\d+: \w*Warning: .*", re.MULTILINE)
TENSOR_PRINT = re.compile(r"tensor\(|^\s*\[[-\d.e+, ]+\]\)?,?$")


def is_finding(line: str) -> bool:
    return bool(RATIO.search(line) or RANKING.search(line) or CAUSE.search(line))


def says_its_noise(line: str) -> bool:
    return bool(NOISY_WORDS.search(line) or QUIET_WORDS.search(line))


def noisy_cells(records: list[dict], cells) -> set[int]:
    """Indices of the cells in which a measurement was noisy (audit log) or which printed the noisy mark."""
    # IPython counts the running cell as one more than the number the notebook shows (tests/browser/conftest.py)
    noisy_counts = {r["cell"] - 1 for r in records if r.get("measurement") == "noisy" and r.get("cell") is not None}
    return {cell.index for cell in cells
            if (cell.execution_count is not None and cell.execution_count in noisy_counts)
            or NOISY_WORDS.search(cell.stdout)}


def unmarked_findings(records: list[dict], cells) -> list[str]:
    """Lines of noisy cells that state a finding without saying their noise status (see the module)."""
    exempt = {r["sentence"].strip() for r in records if r.get("declared") and r.get("stood_on") == 0 and "sentence" in r}
    noisy = noisy_cells(records, cells)
    problems = []
    for cell in cells:
        if cell.index not in noisy:
            continue
        for line in cell.stdout.splitlines():
            if is_finding(line) and not says_its_noise(line) and line.strip() not in exempt:
                problems.append(f"cell {cell.index}: a finding beside a noisy measurement, without its noise status "
                                f"on the line: {line.strip()[:120]!r}")
    return problems


def finding_counts(records: list[dict]) -> dict:
    """From say()'s audit log: the verdicts that stood on measurements, how many stated their finding and
    how many printed only the noisy form; the measurements assessed and how many were noisy (issue 38's
    per-lesson count, scripts/finding_count.py and the lab-mode loaded runs)."""
    said = [r for r in records if "sentence" in r and r.get("stood_on", 0) > 0]
    noisy = sum(1 for r in said if r.get("printed_noisy_form"))
    measured = [r for r in records if "measurement" in r]
    return {"verdicts": len(said), "stated": len(said) - noisy, "noisy": noisy, "measurements": len(measured),
            "noisy_measurements": sum(r["measurement"] == "noisy" for r in measured)}


SVG_TEXT = re.compile(r"<text[^>]*>([^<]*)</text>")


def plot_texts(cell) -> list[str]:
    """Each text a plot of `cell` drew: the <text> elements of its SVG outputs (the tests render plots as SVG with
    real text; the browser test adds the text its PNG plots drew as such an output)."""
    import html

    found = []
    for output in getattr(cell, "outputs", []) or []:
        svg = (output.get("data") or {}).get("image/svg+xml") if isinstance(output, dict) else None
        if svg:
            svg = svg if isinstance(svg, str) else "".join(svg)
            found += [html.unescape(t).strip() for t in SVG_TEXT.findall(svg) if t.strip()]
    return found


def hygiene_problems(cells) -> list[str]:
    """Numbers in e-notation, a line printed twice in one cell (a warning repeated, a verdict twice), and a
    Python warning written under a cell."""
    problems = []
    for cell in cells:
        lines = [line.strip() for line in cell.stdout.splitlines()]
        for line in lines:
            match = SCIENTIFIC.search(line)
            if match and not TENSOR_PRINT.search(line):
                problems.append(f"cell {cell.index}: a number in e-notation ({match.group(0)}): {line[:100]!r}")
        for text in plot_texts(cell):  # the text a plot drew: its bar labels and annotations are read too
            match = SCIENTIFIC.search(text)
            if match and "e+" in match.group(0).lower():
                problems.append(f"cell {cell.index}: a plot shows a number in e-notation ({match.group(0)}): {text[:100]!r}")
        tables = [text for output in getattr(cell, "outputs", []) or [] if isinstance(output, dict)
                  for text in table_cells(output)]
        for text in tables:  # and a table's cells (lesson 03's 6.55e+04, lesson 04's 0.0e+00)
            match = SCIENTIFIC.search(text)
            if match and "e+" in match.group(0).lower():
                problems.append(f"cell {cell.index}: a table shows a number in e-notation ({match.group(0)}): {text[:100]!r}")
        stderr = "".join(o.get("text", "") for o in getattr(cell, "outputs", []) or []
                         if isinstance(o, dict) and o.get("output_type") == "stream" and o.get("name") == "stderr")
        problems += [f"cell {cell.index}: a Python warning under the cell: {m.group(0)[:140]!r}"
                     for m in PYTHON_WARNING.finditer(stderr)]
        repeated = collections.Counter(line for line in lines if len(line) >= 12 and re.search(r"[^\W\d_]", line))
        problems += [f"cell {cell.index}: printed {n} times: {line[:100]!r}" for line, n in repeated.items() if n > 1]
    return problems
