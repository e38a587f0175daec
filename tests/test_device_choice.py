"""Every notebook, exercise and solution picks its device through the course's one choice (issue 40).

`torch.cuda.is_available()` and `torch.cuda.device_count()` are True and 1+ on a GPU the installed torch cannot
run (a V100 or P100 with an sm_75+ wheel): a cell that decides with them reaches CUDA there and fails at the
first kernel. The course's choice (hardware.best_device, cuda_available, gpu_count) includes the arch check.
The only cells allowed to ask torch directly are the ones that show the seed's idiom or only read a state."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIRECT = re.compile(r"torch\.cuda\.(is_available|device_count)\(\)")
# (notebook, a piece of the line): each allowed line and why
ALLOWED = {
    ("notebooks/00_setup.ipynb", 'plain = torch.device("cuda" if torch.cuda.is_available() else "cpu")'):
        "the seed's idiom, shown beside hardware.best_device()",
    ("notebooks/00_setup.ipynb", "for i in range(torch.cuda.device_count()):"):
        "lists what torch sees, each GPU with its capability, beside the course's verdict",
    ("notebooks/02_to_device.ipynb", 'seed_choice = torch.device("cuda" if torch.cuda.is_available() else "cpu")'):
        "the seed's idiom that lesson 02 teaches, beside the arch check",
    ("notebooks/02_to_device.ipynb", "if torch.cuda.is_available():"):
        "lesson 02's seed cell: shows what torch reports, reaches no kernel (tests/test_lesson02_arch.py)",
    ("notebooks/04_fused_kernels.ipynb", "INTERPRETED = not hardware.cuda_available()"):
        "a comment names torch.cuda.is_available(); the decision is hardware's",
    ("notebooks/05_data_vs_model_parallel.ipynb", 'if cfg["device"] == "cuda" else "cpu")'):
        "a DDP rank's own GPU; cfg['device'] is the caller's choice, made through hardware",
    ("notebooks/05_data_vs_model_parallel.ipynb", 'on_own_gpu = cfg["device"] == "cuda" and torch.cuda.device_count()'):
        "NCCL only when each rank has its own GPU; cfg['device'] is the caller's choice, made through hardware",
    ("notebooks/07_capstone_bengali_gpt.ipynb", "if torch.cuda.is_available() and torch.cuda.is_initialized():"):
        "saves the RNG state of a CUDA context that already exists; decides no device",
    ("notebooks/07_capstone_bengali_gpt.ipynb", 'if "cuda" in state and torch.cuda.is_available():'):
        "restores a saved CUDA RNG state; decides no device",
}


def direct_uses() -> list[tuple[str, str]]:
    found = []
    for folder in ("notebooks", "exercises", "solutions"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for cell in cells:
                if cell["cell_type"] != "code":
                    continue
                for line in "".join(cell["source"]).splitlines():
                    if DIRECT.search(line):
                        found.append((f"{folder}/{path.name}", line.strip()))
    return found


def test_no_cell_picks_a_device_past_the_arch_check():
    unexplained = [(nb, line) for nb, line in direct_uses()
                   if not any(nb == allowed_nb and piece in line for allowed_nb, piece in ALLOWED)]
    assert not unexplained, ("cells that decide with torch.cuda directly (use hardware.cuda_available(), "
                             f"hardware.gpu_count() or device = hardware.best_device()): {unexplained}")


def test_the_scan_finds_a_direct_choice():
    assert DIRECT.search('device = "cuda" if torch.cuda.is_available() else "cpu"')
    assert DIRECT.search("if torch.cuda.device_count() >= 2:")
    assert not DIRECT.search("if hardware.gpu_count() >= 2:")
