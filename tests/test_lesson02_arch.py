"""Issue 40: lesson 02, its exercise and its solution choose their device through the course's one choice
(hardware.best_device(), which checks torch.cuda.get_arch_list() against the GPU's capability), so on a GPU
the installed torch cannot run (a V100, sm_70, and a P100, sm_60, with an sm_75+ wheel) they reach no CUDA
call, while the lesson still teaches the seed's `torch.device("cuda" if torch.cuda.is_available() else "cpu")`.

What runs, with CUDA detection faked (tests/fakecuda: real CUDA work raises FakeCudaReached and is logged to
FAKECUDA_LOG first, so a reach that a cell catches, errors.explained() included, is still seen; forked
DataLoader workers inherit the fake and the log):
- lesson 02 as a V100: every code cell, setup cell included, top to bottom in ci mode. In this process
  rather than a kernel (a kernel's start and imports cost more than the cells), and with
  FASTRAIN_OPTIONAL=none: the one optional cell that reads it is the long profiler cell, which profiles on
  "cpu" whatever the device (it then prints that it is off). Any cell that raises fails the test.
- lesson 02 as a P100: the cells up to section 5's first GPU use (setup, the device choice, the table of
  GPUs, sections 2-4). A P100 differs from a V100 only in the arch check's answer, which these cells show;
  the rest of the lesson then takes the same CPU path, so a second full run (about as long as all the
  other cases together) would test nothing new.
- the solution and the exercise: every cell before their diagnosis section, as each GPU. That section is
  the timing checks (50-80 s a notebook) and names no device at all, which the last test checks, so that a
  device added there later is not left out unseen.
And, to show the test can fail, the seed's choice put back in place of the course's reaches CUDA.

Why the course does not hide such a GPU (CUDA_VISIBLE_DEVICES, or a patched is_available()): the lesson's
first code cell must show the trap itself. With the GPU hidden the seed's line would say "cpu" and the
student would never see why it is not enough; so torch.cuda.is_available() stays True after the setup cell
(asserted below: the cell prints the seed's choice as cuda), and only the course's choice refuses the GPU."""

import ast
import json
import re
import sys
import warnings
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakecuda"))
import fakecuda

from fastrain_lib.measure import hardware, probe

# a P100 (Kaggle's): sm_60, which the installed wheel (sm_75 and newer) cannot run either
fakecuda.GPUS.setdefault("P100", fakecuda.GPU("Tesla P100-PCIE-16GB", (6, 0), 17_071_734_784, 56))
SEED_CHOICE = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'
LESSON = "notebooks/02_to_device.ipynb"
ASSIGNMENTS = ("solutions/02_to_device.ipynb", "exercises/02_to_device.ipynb")
DIAGNOSIS = "import diagnose"  # the first cell of the assignments' diagnosis section (not run here)
LESSON_PART_END = "pinned_copy(batch, device)"  # the last cell the P100 runs of the lesson
# the course's choice in each notebook, and the seed's in its place (the last test)
CHOICE = {LESSON: ("hardware.best_device()", SEED_CHOICE),
          **{path: ('hardware.best_device().type == "cuda"', "torch.cuda.is_available()") for path in ASSIGNMENTS}}
# what a cell that picks or uses a device writes: none of it may stand in a cell this test does not run
NAMES_A_DEVICE = re.compile(r"\bdevice\b|cuda|hardware\.|pin_memory|non_blocking|\.to\(")


def _code_cells(path: str) -> list[str]:
    nb = json.loads((ROOT / path).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _cells_to_run(path: str, gpu: str = "V100") -> list[str]:
    cells = _code_cells(path)
    if path == LESSON:
        return cells if gpu == "V100" else cells[:next(i for i, s in enumerate(cells) if LESSON_PART_END in s) + 1]
    end = next(i for i, s in enumerate(cells) if DIAGNOSIS in s)
    return cells[:end]


def _cells_not_run(path: str) -> list[str]:
    return _code_cells(path)[len(_cells_to_run(path)):]


def _run(cells: list[str]) -> dict:
    scope = {"__name__": "__main__"}
    for source in cells:
        exec(compile(source, "<cell>", "exec"), scope)  # noqa: S102 - a course notebook's own cells
    return scope


def _reaches(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [r for r in map(json.loads, log.read_text(encoding="utf-8").splitlines()) if r.get("event") == "reached"]


@pytest.fixture(params=["V100", "P100"])
def old_gpu(request, monkeypatch, tmp_path):
    """CUDA detection faked as an old GPU, ci mode, English; yields (the GPU, the log every CUDA reach is
    written to)."""
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    log = tmp_path / "fakecuda.jsonl"
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.setenv("FASTRAIN_OPTIONAL", "none")
    monkeypatch.setenv("FAKECUDA_LOG", str(log))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    threads = torch.get_num_threads()
    probe._facts_cached.cache_clear()
    probe.cuda_problem.cache_clear()
    try:
        with fakecuda.faked(request.param), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # UnsupportedGPUWarning, and the lesson's own demonstrations
            yield request.param, log
    finally:
        plt.close("all")
        torch.set_num_threads(threads)
        probe._facts_cached.cache_clear()
        probe.cuda_problem.cache_clear()


@pytest.mark.parametrize("path", [LESSON, *ASSIGNMENTS])
def test_a_gpu_this_torch_cannot_run_gets_no_cuda_call(old_gpu, path, capsys):
    gpu, log = old_gpu
    assert torch.cuda.is_available() and hardware.best_device().type == "cpu"
    scope = _run(_cells_to_run(path, gpu))  # an error in any cell fails the test
    out = capsys.readouterr().out
    assert _reaches(log) == [], _reaches(log)
    assert "FakeCudaReached" not in out, out  # errors.explained() prints an error instead of raising it
    if path == LESSON:
        # the GPU is not hidden: the seed's line still picks cuda, the course's choice does not
        assert "runs on this GPU? False" in out and "the seed's choice: cuda | will use: cpu" in out, out
        assert scope["seed_choice"].type == "cuda" and scope["device"].type == "cpu"
        # the table of known GPUs against this build's arch list: the faked GPU's kind is refused, the T4 runs
        verdicts = {name: verdict for name, _, verdict in scope["gpu_rows"]}
        assert verdicts["V100"].startswith("does not run") and verdicts["P100"].startswith("does not run")
        assert verdicts["T4 (Colab)"] == "runs" and verdicts["H100"] == "runs", verdicts


@pytest.mark.parametrize("path", [LESSON, *ASSIGNMENTS])
def test_the_seed_choice_in_its_place_would_reach_cuda(old_gpu, path, capsys):
    """The check above catches the old cells: with torch.cuda.is_available() choosing, CUDA is reached
    (raised, or caught and printed by errors.explained(); logged either way)."""
    gpu, log = old_gpu
    new, old = CHOICE[path]
    cells = [s.replace(new, old) for s in _cells_to_run(path, gpu)]
    assert any(old in s for s in cells)
    try:
        _run(cells)
    except fakecuda.FakeCudaReached:
        pass
    assert _reaches(log), capsys.readouterr().out


def _is_available_calls(source: str) -> int:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: not a device choice
        return 0
    return sum(isinstance(n, ast.Call) and ast.unparse(n.func) == "torch.cuda.is_available" for n in ast.walk(tree))


@pytest.mark.parametrize("path", [LESSON, *ASSIGNMENTS])
def test_only_the_teaching_cell_asks_torch_cuda_is_available(path):
    """Every other cell uses `device` (hardware.best_device()) or hardware.*, never the bare idiom."""
    asking = [s for s in _code_cells(path) if _is_available_calls(s)]
    if path == LESSON:
        assert len(asking) == 1 and SEED_CHOICE in asking[0] and "hardware.best_device()" in asking[0]
        assert "torch.cuda.get_arch_list()" in asking[0] and "torch.cuda.get_device_capability()" in asking[0]
    else:
        assert asking == []


@pytest.mark.parametrize("path", ASSIGNMENTS)
def test_the_cells_not_run_here_name_no_device(path):
    """The diagnosis section runs on the CPU by construction (no device in it); a device named there later
    would need the section run above."""
    skipped = _cells_not_run(path)
    assert skipped and DIAGNOSIS in skipped[0]
    named = [(s.splitlines()[0], NAMES_A_DEVICE.findall(s)) for s in skipped if NAMES_A_DEVICE.search(s)]
    assert named == [], named
