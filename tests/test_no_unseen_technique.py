"""No unseen technique in the library (issue 37).

The library may hold a technique a lesson teaches in two ways only: as a saved cell (the student read it
in the lesson; `make sync` copied it), or as a variant the lesson's prose names (its file and function), so
a student can open it. This test finds, by parsing the code, every library function that uses a technique
the course teaches (DDP and its hooks, the collectives, RPC, shared memory, a Triton kernel, FSDP2, tensor
and pipeline parallel, pinned and non-blocking copies, the DataLoader's workers, autocast and GradScaler,
torch.compile, checkpoints) and fails for each one that is neither.

Not counted: the measuring instruments (measure/, ui/, core/), the exercise checks (lessons/*/check*.py:
their reference answers are what a student's answer is compared with), and the message tables."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fastrain_lib"

TECHNIQUE_CALLS = {
    "DistributedDataParallel", "no_sync", "register_comm_hook", "register_post_accumulate_grad_hook",
    "all_reduce", "reduce_scatter", "reduce_scatter_tensor", "all_gather", "all_gather_into_tensor",
    "rpc_sync", "rpc_async", "share_memory", "fully_shard", "parallelize_module", "PipelineStage",
    "ScheduleGPipe", "Schedule1F1B", "GradScaler", "autocast", "pin_memory",
}
TECHNIQUE_KEYWORDS = {"non_blocking", "pin_memory", "bucket_cap_mb"}
NOT_COUNTED = re.compile(r"^fastrain_lib/(measure|ui|core)/|^fastrain_lib/lessons/[^/]+/check[^/]*\.py$|/messages\.py$")
SAVED = '"""Saved from '


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def techniques_used(tree: ast.AST) -> dict[str, set[str]]:
    """{function name: the technique names it uses} for every top-level function and class of a module
    (a method counts for its class; a triton.jit decorator counts as 'triton.jit')."""
    found = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        used = set()
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                if _name(inner) in TECHNIQUE_CALLS:
                    used.add(_name(inner))
                used |= {f"{k.arg}=" for k in inner.keywords if k.arg in TECHNIQUE_KEYWORDS}
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                used |= {"triton.jit" for d in inner.decorator_list if "jit" in ast.unparse(d)}
        if used:
            found[node.name] = used
    return found


def library_techniques(pkg: Path = PKG) -> dict[str, dict[str, set[str]]]:
    """{'fastrain_lib/x/y.py': {function: names}} for every counted, unsaved library module."""
    found = {}
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        if NOT_COUNTED.search(rel) or text.startswith(SAVED):
            continue
        used = techniques_used(ast.parse(text))
        if used:
            found[rel] = used
    return found


def prose(folders=("notebooks", "solutions")) -> str:
    """Every markdown cell of the lessons and the exercises (a student reads the solutions' task text in
    the exercises, which are generated from them), one text."""
    cells = []
    for folder in folders:
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            nb = json.loads(path.read_text(encoding="utf-8"))
            cells += ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return "\n\n".join(cells)


def unseen(found: dict[str, dict[str, set[str]]], text: str) -> list[str]:
    """'file:function (names)' for every technique function that no markdown cell names: with its file (the
    path under fastrain_lib/, e.g. `distributed/overlap.py` ... `timeline_of`) or as module.function
    (`overlap.timeline_of`, the way the lesson's cells import and call it)."""
    cells = text.split("\n\n")
    missing = []
    for rel, functions in found.items():
        short = rel.removeprefix("fastrain_lib/")
        stem = Path(short).stem
        for name, used in sorted(functions.items()):
            named = re.compile(rf"\b{re.escape(name)}\b")
            qualified = re.compile(rf"\b{re.escape(stem)}\.{re.escape(name)}\b")
            if not any((short in cell and named.search(cell)) or qualified.search(cell) for cell in cells):
                missing.append(f"{short}:{name} ({', '.join(sorted(used))})")
    return missing


# Functions that use a collective to MEASURE, not to teach: each with why it is an instrument.
INSTRUMENTS = {
    "distributed/pipeline.py:_to_common_clock": "one all-reduce MIN after training puts every rank's events on "
                                                "one clock for the timeline picture",
    "distributed/tensor_parallel.py:_sweep_point": "times the saved tp_mlp (lesson 05c's cell) beside its compute "
                                                   "alone and a bare all-reduce of the same size",
    "precision/amp.py:_autocast_works": "a capability probe for the setup report: does autocast in this dtype "
                                        "really give that dtype on this device (old versions only warned)",
    "precision/amp.py:_scaler_works": "a capability probe: does GradScaler exist for this device type here",
    "distributed/zero.py:_ddp_model": "DDP with PyTorch's own default all-reduce hook, only so that the byte "
                                      "counter sees DDP's buckets like every other collective",
}


def test_every_technique_in_the_library_is_a_saved_cell_or_a_named_variant():
    found = library_techniques()
    listed = {f"{rel.removeprefix('fastrain_lib/')}:{name}" for rel, functions in found.items() for name in functions}
    assert set(INSTRUMENTS) <= listed, f"instruments listed here that no longer exist: {set(INSTRUMENTS) - listed}"
    missing = [m for m in unseen(found, prose()) if m.split(" (")[0] not in INSTRUMENTS]
    assert missing == [], ("library functions that use a technique a lesson teaches, but are neither a saved "
                           "cell (#@save) nor named, with their file, in a lesson's prose:\n  " + "\n  ".join(missing))


def test_the_finder_sees_a_hidden_technique_and_accepts_a_named_one(tmp_path):
    pkg = tmp_path / "fastrain_lib"
    (pkg / "distributed").mkdir(parents=True)
    (pkg / "measure").mkdir()
    (pkg / "distributed" / "hidden.py").write_text(
        "import torch.distributed as dist\n"
        "def average(grads):\n    for g in grads:\n        dist.all_reduce(g)\n"
        "class Buckets:\n    def hook(self, p):\n        p.register_post_accumulate_grad_hook(self.ready)\n"
        "def copy(x):\n    return x.to('cuda', non_blocking=True)\n"
        "def plain(x):\n    return x + 1\n")
    (pkg / "distributed" / "cell.py").write_text('"""Saved from notebooks/05b.ipynb"""\ndef f(m):\n    m.no_sync()\n')
    (pkg / "measure" / "timer.py").write_text("def t(x):\n    return x.to('cuda', non_blocking=True)\n")
    found = library_techniques(pkg)
    assert found == {"fastrain_lib/distributed/hidden.py": {
        "average": {"all_reduce"}, "Buckets": {"register_post_accumulate_grad_hook"}, "copy": {"non_blocking="}}}
    text = "intro\n\n`distributed/hidden.py`-এর `Buckets` খুলে দেখো\n\n`average` আছে অন্য কোথাও"
    assert unseen(found, text) == ["distributed/hidden.py:average (all_reduce)",
                                   "distributed/hidden.py:copy (non_blocking=)"]
    assert unseen(found, text + "\n\n`hidden.copy` কপি করে; `hidden.averaged` অন্য জিনিস") == [
        "distributed/hidden.py:average (all_reduce)"]
