"""Every lesson on a busy lab PC (issue 27): executed in Bengali, ci mode (lab mode with -m labmode), beside a real background
load (one busy core: tests/_load.py tops up what other programs already burn to a core, as
noise.hog(1) alone would), with say()'s audit log on (FASTRAIN_VERDICT_LOG).

One execution per lesson notebook, one test each (xdist --dist loadfile spreads them). In `make test`
(ci mode) a lesson the browser suite opens (BROWSER_LESSONS: 00-07) is not executed here when Chromium
is present: tests/browser/test_lessons.py's Run All, beside the same load, is its execution in Bengali
and applies these same checks to what it showed (issue 29); here run 98, 99, and every lesson without
Chromium. Lab mode (-m labmode) executes every lesson here. It fails on
- any cell error (this run replaces nbval's Bengali run of notebooks/: "runs without error in Bengali");
- a sentence said without noise= after a noisy measurement (the audit log: declared=False and
  pending_noisy > 0): a cause explained from a noisy measurement;
- a verdict line printed twice in one cell (or returned as the cell's value, in quotes);
- a raw dict/list/tuple/str value, a library dataclass repr, `Text(...)`, `<matplotlib...>` in an output;
- a finding (ratio, ranking, cause) in a cell with a noisy measurement without its noise status on its line,
  e-notation numbers, a line printed twice in a cell (tests/_sentences.py, issue 38);
- English words in Bengali output, outside code-like tokens (identifiers with _ or ., numbers, units,
  acronyms, CamelCase names), the glossary's Latin terms and PyTorch's own error/warning text (stderr,
  tracebacks, a line carrying "SomethingError:" / "Warning:").
A lesson that measures time but printed no verdict in its noisy form is SKIPPED with the reason: the
load did not take effect there, so the run proved nothing about noisy verdicts.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import os
import re
from pathlib import Path

import pytest
from _load import busy_core_beside
from _sentences import finding_counts, hygiene_problems, unmarked_findings
from _nbrun import (
    ROOT,
    CellShown,
    english_left,
    execute,
    glossary_latin,
    raw_values,
    table_cells,
    visible_text,
    widget_labels,
)

from fastrain_lib.core import verdicts

LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The lessons tests/browser/test_lessons.py runs in JupyterLab (found there with this pattern).
BROWSER_LESSONS = re.compile(r"0\d[a-z]?_")


def browser_suite_runs() -> bool:
    """Chromium and Playwright are here, so tests/browser/test_lessons.py executes BROWSER_LESSONS."""
    chromium = Path(os.environ.get("FASTRAIN_CHROMIUM", "/usr/bin/chromium"))  # as tests/browser/conftest.py
    return chromium.exists() and importlib.util.find_spec("playwright") is not None


CI_LESSONS = [p for p in LESSONS if not (BROWSER_LESSONS.match(p.name) and browser_suite_runs())]
# Latin words a Bengali output may hold besides the glossary's: the names of devices, backends and
# libraries as code spells them, and words that are PyTorch's own (a dtype, a mode, a state).
ALLOWED_LATIN = glossary_latin() | {
    "cpu", "cuda", "mps", "gpu", "gloo", "nccl", "torch", "numpy", "triton", "python", "pytorch", "jupyter",
    "colab", "matplotlib", "apex", "sdpa", "flash", "math", "eager", "inductor", "auto", "on", "off", "true", "false",
    "none", "nan", "inf", "float", "int", "bf", "fp", "tf", "amp", "foreach", "fused", "adam", "adamw", "sgd", "relu",
    "gelu", "softmax", "layernorm", "linear", "mlp", "gpt", "ddp", "zero", "fsdp", "ok", "vs", "matmul", "mm", "bmm",
    "ci", "lab", "full", "bn", "en",  # FASTRAIN_MODE / FASTRAIN_LANG values as the code prints them
    "google", "nvidia", "intel", "amd", "apple", "linux", "windows", "ampere", "hopper", "ada", "tesla", "volta",
    "turing", "blackwell", "pascal",  # makers and GPU generations (proper names)
    "datasheet", "whitepaper",  # the kind of a cited source, in its title (hardware.datasheet_rows)
    "processor", "xeon", "ryzen", "epyc", "core",  # CPU model strings ("AMD EPYC 7B13 64-Core Processor")
    "autograd", "cudnn", "dtype",  # PyTorch components and attributes by their names
    "sum", "mean", "exp", "log",  # torch ops as a list of ops names them (lesson 03's autocast table)
}
# PyTorch's (or Python's) own message on a line: left in English on purpose (the lesson explains it).
LIBRARY_TEXT = re.compile(r"\b[A-Z]\w*(Error|Exception|Warning)\b:|^\s*(Traceback|File \")|warnings\.warn")


def rel(path) -> str:
    return path.relative_to(ROOT).as_posix()


def cell_of(cells: list[CellShown], sentence: str) -> str:
    """'cell N' whose printed output holds `sentence` (the audit log has no cell numbers)."""
    for cell in cells:
        if sentence.strip() and sentence.strip() in cell.stdout:
            return f"cell {cell.index}"
    return "cell ?"


def undeclared_after_noise(records: list[dict], cells) -> list[str]:
    return [f"{cell_of(cells, r['sentence'])}: said without noise= after {r['pending_noisy']} noisy of "
            f"{r['pending']} measurement(s): {r['sentence'][:140]!r}"
            for r in records if not r.get("declared") and r.get("pending_noisy", 0) > 0]


def doubled_verdicts(cells) -> list[str]:
    problems = []
    for cell in cells:
        lines = [line.strip() for line in cell.stdout.splitlines() if line.startswith(verdicts.PREFIX)]
        for line, n in collections.Counter(lines).items():
            if n > 1:
                problems.append(f"cell {cell.index}: verdict printed {n} times: {line[:100]!r}")
        for output in cell.outputs:
            plain = output.get("data", {}).get("text/plain", "") if output.get("output_type") == "execute_result" else ""
            if verdicts.PREFIX.strip() in plain:
                problems.append(f"cell {cell.index}: a verdict is also the cell's value (printed twice): {plain[:100]!r}")
    return problems


def english_problems(cells, widget_text: str) -> list[str]:
    problems = []
    for cell in cells:
        words, lines = [], []
        for output in cell.outputs:
            if output.get("output_type") == "error" or output.get("name") == "stderr":
                continue  # PyTorch's / Python's own messages
            # each line, then each table cell as prose (its row labels are not code, see table_cells)
            texts = [(line, True) for line in visible_text(output).splitlines()] + [(c, False) for c in table_cells(output)]
            for line, code_lines in texts:
                found = [] if LIBRARY_TEXT.search(line) else english_left(line, ALLOWED_LATIN, code_lines=code_lines)
                if found:
                    words += found
                    start = max(0, line.find(found[0]) - 40)
                    lines.append(line[start:start + 100].strip())
        if words:
            problems.append(f"cell {cell.index} ({cell.source.splitlines()[0][:50] if cell.source else ''!r}): "
                            f"English in Bengali mode: {sorted(set(words))[:10]} in {lines[:3]}")
    labels = english_left(widget_labels(widget_text).replace("null", " "), ALLOWED_LATIN)
    if labels:
        problems.append(f"a widget label is English in Bengali mode: {sorted(set(labels))[:10]}")
    return problems


def raw_problems(cells) -> list[str]:
    return [f"cell {cell.index}: {found}" for cell in cells for found in raw_values(cell)]


# ci mode in `make test`; lab mode (the sizes a lab PC runs, issue 27's "Done means") with -m labmode:
#     .venv/bin/python -m pytest -m labmode tests/test_lessons_loaded.py
RUNS = ([pytest.param(p, "ci", id=f"{rel(p)}-ci") for p in CI_LESSONS]
        + [pytest.param(p, "lab", id=f"{rel(p)}-lab", marks=pytest.mark.labmode) for p in LESSONS])


@pytest.mark.slow
@pytest.mark.parametrize("path, mode", RUNS)
def test_lesson_on_a_loaded_machine(path, mode, tmp_path):
    log = tmp_path / "verdicts.jsonl"
    with busy_core_beside(max_seconds=3600):
        cells, widget_text = execute(path, lang="bn", mode=mode, env={verdicts.LOG_ENV: str(log)})
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    print(f"findings {rel(path)} {mode} beside a busy core: {json.dumps(finding_counts(records))}")  # shown with -s
    problems = (undeclared_after_noise(records, cells) + doubled_verdicts(cells) + raw_problems(cells)
                + english_problems(cells, widget_text) + unmarked_findings(records, cells) + hygiene_problems(cells))
    assert not problems, f"{rel(path)} (Bengali, {mode} mode, one busy core beside it):\n  " + "\n  ".join(problems)
    # Beside the busy core each CPU measurement takes the threads that fit the free cores (bench.measure), so a
    # run may come out all quiet (lesson 98 always did: a skip here never decided). Then the run proves the other
    # half of the rule: every verdict that stood on those quiet measurements stated its finding. The noisy form of
    # each verdict function is proved on noisy rows by its unit tests (tests/test_class_results.py for 98).
    counts = finding_counts(records)
    if counts["measurements"] and not counts["noisy_measurements"]:
        assert counts["noisy"] == 0 and counts["stated"] == counts["verdicts"], (
            f"{rel(path)}: every measurement was quiet, yet {counts['noisy']} verdicts printed the noisy form")


# --- each check shown the wrong thing it must catch ---------------------------------------------------

def _cell(index=0, source="x", stdout="", outputs=()):
    outputs = list(outputs) or ([{"output_type": "stream", "name": "stdout", "text": stdout}] if stdout else [])
    return CellShown(index, source, stdout, stdout, outputs)


def test_the_audit_check_names_the_cell_and_sentence():
    cells = [_cell(3, stdout="➤ fused is faster because it launches fewer kernels\n")]
    records = [{"sentence": "➤ fused is faster because it launches fewer kernels", "declared": False,
                "printed_noisy_form": False, "pending": 2, "pending_noisy": 1},
               {"sentence": "➤ a count", "declared": True, "printed_noisy_form": False, "pending": 2, "pending_noisy": 2},
               {"sentence": "➤ quiet", "declared": False, "printed_noisy_form": False, "pending": 2, "pending_noisy": 0}]
    [problem] = undeclared_after_noise(records, cells)
    assert problem.startswith("cell 3: said without noise= after 1 noisy of 2") and "fewer kernels" in problem


def test_a_doubled_verdict_is_caught():
    twice = _cell(1, stdout="➤ এখানে ৩ গুণ দ্রুত\n➤ এখানে ৩ গুণ দ্রুত\n")
    value = _cell(2, outputs=[{"output_type": "stream", "name": "stdout", "text": "➤ এক\n"},
                              {"output_type": "execute_result", "data": {"text/plain": "'➤ এক'"}}])
    once = _cell(3, stdout="➤ এক\n➤ দুই\n")
    assert [p.split(":")[0] for p in doubled_verdicts([twice, value, once])] == ["cell 1", "cell 2"]


def test_raw_values_are_caught_and_tables_are_not():
    def result(plain):
        return _cell(outputs=[{"output_type": "execute_result", "data": {"text/plain": plain}}])

    assert raw_values(result("{'fc1': False, 'fc2': True}"))
    assert raw_values(result("[0.1, 0.2]")) and raw_values(result("'➤ verdict'"))
    assert raw_values(result("Text(0.5, 1.0, 'সময়')")) and raw_values(result("[<matplotlib.lines.Line2D at 0x7f>]"))
    assert raw_values(_cell(stdout="{'aten::item': 128}\n"))
    assert raw_values(_cell(stdout="{'ring': 1968750000.0, 'tree': 2.0}\n"))
    assert raw_values(_cell(stdout="['a.json', 'b.json']\n"))
    assert raw_values(_cell(stdout="Outcome(figure=None, headers=[])\n"))
    assert raw_values(result("<fastrain_lib.dashboard.Dashboard object at 0x7f3a2c>"))
    assert not raw_values(_cell(stdout="সময়: 12 ms (3টি রান)\n[1, 2, 3]\ntensor([[1., 2.],\n        [3., 4.]])\n"))
    html = {"output_type": "display_data", "data": {"text/html": "<table><tr><td>[1]</td></tr></table>",
                                                     "text/plain": "<IPython.core.display.HTML object>"}}
    assert not raw_values(_cell(outputs=[html]))  # the front end draws the HTML, not the plain fallback
    png = {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=",
                                                    "text/plain": "<Figure size 800x450 with 1 Axes>"}}
    assert not raw_values(_cell(outputs=[png]))  # a plot as JupyterLab saves it: the picture is drawn
    assert english_problems([_cell(outputs=[png])], "") == []


def test_english_in_bengali_output_is_caught_but_code_units_and_terms_are_not():
    def words(text):
        return english_left(text, ALLOWED_LATIN)

    assert words("tiny ops ×200") == ["tiny", "ops"]
    assert words("৩টি host copy শেষ") == ["copy"]
    assert words("test loss: 0.52") == ["test"]
    assert words("সময় 12.5 ms, 3.1 GB/s, batch 64, GPU-তে torch.float32, batch_size=8, MFU 41%") == []
    assert words("মেমরি-সীমিত (memory-bound), PyTorch ও DataLoader, all-reduce 2×") == []
    assert words("গোলমেলে (noisy) মাপ, মোড (mode): ci") == []  # a term's first use: English in brackets
    assert words("def kernel(x_ptr, n):\n    pid = tl.program_id(0)\n    if pid < n:\n        return y") == []
    assert words("extern \"C\" void kernel(const float* in_ptr0) {\n    for(long x0=0; x0<4; x0++)") == []
    assert words("pip install -v --no-build-isolation .") == []  # a command
    assert words("    del arg0_1\n    assert_size_stride(buf0, (4, ), (1, ))") == []  # generated Python (lesson 04)
    assert words("the deleted value passed") == ["the", "deleted", "value", "passed"]  # keywords only at a line start
    assert words("ইনস্টল করতে: pip install -v --no-build-isolation . অথবা conda-forge থেকে nvidia-apex") == []
    assert words("T = 128 টোকেন, q·kᵀ: q, k, v") == []  # single letters are math
    assert words("the loss went down") == ["the", "went", "down"]  # an English sentence is not code
    assert words("➤ lr = 0.1: 1 জন কর্মী — শেষ লস 0.524") == []  # a setting as code writes it
    assert words("DataLoader next()  10  1.03e+05") == []  # a call is code
    assert words("ডেটাশিট: PCI-SIG, PCI Express Base Specification 3.0 (8 GT/s per lane)") == []  # a cited title
    assert words("মাপ: PCI Express Base Specification") == ["Express", "Base", "Specification"]  # not cited
    assert words("গোলমেলে মাপ (too noisy to trust)") == ["too", "noisy", "to", "trust"]  # a sentence, not a term
    assert words("মাপ (সময়: noisy run)") == ["noisy", "run"]  # not a gloss: English inside a Bengali bracket
    # a menu path is the screen's own English (lesson 01's verdict without a GPU); a sentence about it is not
    assert words("Colab-এ GPU নিয়ে (Runtime → Change runtime type → T4 GPU) আবার চালাও।") == []
    assert words("Kernel → Restart Kernel… চাপো") == []
    assert words("Colab-এ change the runtime type to GPU") == ["change", "the", "runtime", "type", "to"]
    assert words("Runtime → GPU, then run it again") == ["then", "run", "again"]
    cells = [_cell(4, source="print(x)", stdout="ধাপ শেষ, the loss went down\n"),
             _cell(5, outputs=[{"output_type": "stream", "name": "stderr", "text": "UserWarning: something odd\n"}]),
             _cell(6, stdout="ভুল: RuntimeError: Expected all tensors to be on the same device\n")]
    problems = english_problems(cells, "")
    assert len(problems) == 1 and problems[0].startswith("cell 4") and "went" in problems[0]
    svg = {"output_type": "display_data", "data": {"image/svg+xml": "<svg><metadata>Matplotlib v3.11</metadata>"
                                                                     "<style>*{stroke-linejoin: round}</style>"
                                                                     "<text>throughput বনাম batch</text></svg>"}}
    assert english_problems([_cell(7, outputs=[svg])], "") == []  # throughput is a glossary term
    table = {"output_type": "display_data", "data": {"text/html": "<table><tr><td>ডেটাশিট: NVIDIA T4 Tensor Core GPU "
                                                                   "datasheet (no tensor cores)</td><td>tiny ops</td></tr>"}}
    [problem] = english_problems([_cell(8, outputs=[table])], "")
    assert "['ops', 'tiny']" in problem  # the cited title's cell is skipped, the next cell is not
    assert english_problems([], '{"a": {"state": {"description": "Run"}}}') != []


def test_english_in_a_table_row_is_caught_though_the_row_reads_like_code():
    """Issue 38: a table cell "eager - baseline" became the line " eager - baseline ", which looks_like_code
    skipped whole (" - " is an operator in code), so English row labels in HTML tables slipped through.
    Table cells are read as prose; code inside <code> stays code, and the same text as a line is still skipped."""
    from fastrain_lib.ui.tables import html_table

    html = html_table(["রূপ", "সময় (ms)"], [("eager - baseline", 1.5), ("+ fused AdamW", 1.2), ("লুপ", 2.0)])
    table = {"output_type": "display_data", "data": {"text/html": html, "text/plain": "<IPython.core.display.HTML object>"}}
    problems = english_problems([_cell(9, outputs=[table])], "")
    assert len(problems) == 1 and "eager" in problems[0] and "baseline" in problems[0]
    assert "AdamW" not in problems[0]  # a CamelCase name
    assert english_left(" eager - baseline ", ALLOWED_LATIN) == []  # as a line of text it reads like code
    code = {"output_type": "display_data", "data": {"text/html": "<table><tr><td><code>x - y if done else z</code></td></tr></table>"}}
    assert english_problems([_cell(10, outputs=[code])], "") == []
