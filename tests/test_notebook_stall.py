"""Executing a notebook of experiment panels never stalls between cells (issue 14).

nbclient (nbconvert --execute, papermill, Voilà) emulates the ipywidgets Output widget: while a
cell writes into an Output through its capture context, nbclient sends comm_msg updates back to
the kernel on the shell channel, and then the kernel often did not start the NEXT cell until the
client's per-cell timeout fired — with nbconvert's default (no timeout) never. The panels now
set Output.outputs instead (widgets.set_outputs). This executes a notebook of panels shown in ci
mode (each runs once, as in the lessons) and reads the kernel-side timestamps nbclient records:
the wait between one cell's reply and the next cell's start must stay short. With the capture
context this failed in 3 of 3 runs here (waits of exactly the per-cell timeout).
"""

from __future__ import annotations

from datetime import datetime

import nbformat
import pytest
from nbclient import NotebookClient

CELL_TIMEOUT_S = 20  # a stall ends when this fires, so a stall shows as a wait this long
MAX_WAIT_S = 5.0
PANEL_CELLS = 12

SETUP = """import matplotlib
matplotlib.use("module://matplotlib_inline.backend_inline")
import matplotlib.pyplot as plt
from fastrain_lib.ui.widgets import ExperimentPanel, Outcome
import ipywidgets as w

def experiment(n):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(range(n))
    return Outcome(figure=fig, headers=["n", "n²"], rows=[(n, n * n)], note="নোট: " + str(n))
"""
PANEL = 'ExperimentPanel("প্যানেল", {"n": w.IntSlider(value=3, min=1, max=9)}, experiment).show()'


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.slow
def test_panel_cells_run_back_to_back(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")  # show() runs each panel once, as in the lessons
    monkeypatch.setenv("FASTRAIN_RESULTS", str(tmp_path))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(PANEL) for _ in range(PANEL_CELLS)]
    nb = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    waits = []
    for before, after in zip(nb.cells, nb.cells[1:]):
        reply = _when(before.metadata.execution["shell.execute_reply"])
        busy = _when(after.metadata.execution["iopub.status.busy"])
        waits.append((busy - reply).total_seconds())
    assert max(waits) < MAX_WAIT_S, f"the kernel waited {max(waits):.1f} s before starting a cell: {waits}"
    outputs = [o for cell in nb.cells[1:] for o in cell.outputs]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)


def test_hang_loop_record_counts_each_lesson():
    """scripts/notebook_hang_loop.py's committed record: one row per lesson with its own counts,
    the hang listed with its detail (a record that merged lessons or dropped hangs would lie)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "notebook_hang_loop.py"
    spec = importlib.util.spec_from_file_location("notebook_hang_loop", path)
    loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loop)
    base = {"ipykernel": "7.4.0", "nbclient": "0.11.0", "ipywidgets": "8.1.9", "detail": "", "worst_gap_s": 0.1}
    rows = [dict(base, notebook="00_a.ipynb", lang="bn", outcome="ok", wall_s=10.0, time="t1"),
            dict(base, notebook="00_a.ipynb", lang="en", outcome="ok", wall_s=20.0, time="t2"),
            dict(base, notebook="01_b.ipynb", lang="bn", outcome="hang", wall_s=200.0, time="t3",
                 detail="CellTimeoutError | cell: panel.show()", worst_gap_s=0.0)]
    text = loop.results_markdown(rows, "cmd")
    assert "| 00_a.ipynb | 2 (1/1) | 2 | 0 | 0 | 15.0 | 20.0 | 0.10 |" in text
    assert "| 01_b.ipynb | 1 (1/0) | 0 | 1 | 0 | 200.0 | 200.0 | 0.00 |" in text
    assert "Total: 3 runs, 2 ok, 1 hang, 0 error." in text
    assert "01_b.ipynb bn: hang after 200.0 s — CellTimeoutError | cell: panel.show()" in text
