"""Issue 40: lesson 02, its exercise and its solution choose their device through the course's one choice
(hardware.best_device(), which checks torch.cuda.get_arch_list() against the GPU's capability), so on a GPU
the installed torch cannot run (a V100, sm_70, and a P100, sm_60, with an sm_75+ wheel) they reach no CUDA
call. The device-choosing cells are run in this process with CUDA detection faked (tests/fakecuda: any real
CUDA work raises FakeCudaReached); the seed's `torch.cuda.is_available()` choice put back in their place is
shown to reach CUDA, so the test catches the old cells."""

import ast
import json
import sys
import warnings
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakecuda"))
import fakecuda  # noqa: E402

from fastrain_lib.measure import hardware, probe  # noqa: E402

# a P100 (Kaggle's): sm_60, which the installed wheel (sm_75 and newer) cannot run either
fakecuda.GPUS.setdefault("P100", fakecuda.GPU("Tesla P100-PCIE-16GB", (6, 0), 17_071_734_784, 56))
SEED_CHOICE = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'
NOTEBOOKS = {  # notebook: (cells run, in order: up to the first one that uses the choice on a GPU) + the old choice
    "notebooks/02_to_device.ipynb": ("seed_choice =", "pinned_copy(batch, device)",
                                     ("hardware.best_device()", SEED_CHOICE)),
    "solutions/02_to_device.ipynb": ("other_device =", "losses = train_epoch(model, batches",
                                     ('hardware.best_device().type == "cuda"', "torch.cuda.is_available()")),
    "exercises/02_to_device.ipynb": ("other_device =", "losses = train_epoch(model, batches",
                                     ('hardware.best_device().type == "cuda"', "torch.cuda.is_available()")),
}


def _code_cells(path: str) -> list[str]:
    nb = json.loads((ROOT / path).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _cells_to_run(path: str) -> list[str]:
    """The code cells after setup, from the one that chooses the device to the last that uses it on a GPU."""
    first, last, _ = NOTEBOOKS[path]
    cells = _code_cells(path)
    start = next(i for i, s in enumerate(cells) if first in s)
    end = next(i for i, s in enumerate(cells) if last in s)
    return cells[start:end + 1]


def _run(cells: list[str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    scope = {"__name__": "lesson02_arch", "display": lambda *a, **k: None}
    for source in cells:
        exec(compile(source, "<cell>", "exec"), scope)


@pytest.fixture(params=["V100", "P100"])
def old_gpu(request, monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "en")
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    probe._facts_cached.cache_clear()
    probe.cuda_problem.cache_clear()
    with fakecuda.faked(request.param), warnings.catch_warnings():
        warnings.simplefilter("ignore", hardware.UnsupportedGPUWarning)
        yield request.param
    probe._facts_cached.cache_clear()
    probe.cuda_problem.cache_clear()


@pytest.mark.parametrize("path", list(NOTEBOOKS))
def test_a_gpu_this_torch_cannot_run_gets_no_cuda_call(old_gpu, path, capsys):
    assert torch.cuda.is_available() and hardware.best_device().type == "cpu"
    _run(_cells_to_run(path))  # FakeCudaReached (or any other error) fails the test
    out = capsys.readouterr().out
    assert "FakeCudaReached" not in out, out  # errors.explained() prints an error instead of raising it
    if path.startswith("notebooks/"):
        assert "runs on this GPU? False" in out and "the seed's choice: cuda | will use: cpu" in out, out


@pytest.mark.parametrize("path", list(NOTEBOOKS))
def test_the_seed_choice_in_its_place_would_reach_cuda(old_gpu, path, capsys):
    """The check above catches the old cells: with torch.cuda.is_available() choosing, CUDA is reached
    (raised, or caught and printed by errors.explained())."""
    _, _, (new, old) = NOTEBOOKS[path]
    cells = [s.replace(new, old) for s in _cells_to_run(path)]
    assert any(old in s for s in cells)
    try:
        _run(cells)
    except fakecuda.FakeCudaReached:
        return
    assert "FakeCudaReached" in capsys.readouterr().out


def _is_available_calls(source: str) -> int:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: not a device choice
        return 0
    return sum(isinstance(n, ast.Call) and ast.unparse(n.func) == "torch.cuda.is_available" for n in ast.walk(tree))


@pytest.mark.parametrize("path", list(NOTEBOOKS))
def test_only_the_teaching_cell_asks_torch_cuda_is_available(path):
    """Every other cell uses `device` (hardware.best_device()) or hardware.*, never the bare idiom."""
    asking = [s for s in _code_cells(path) if _is_available_calls(s)]
    if path.startswith("notebooks/"):
        assert len(asking) == 1 and SEED_CHOICE in asking[0] and "hardware.best_device()" in asking[0]
        assert "torch.cuda.get_arch_list()" in asking[0] and "torch.cuda.get_device_capability()" in asking[0]
    else:
        assert asking == []
