"""One of each (issue 37): the library holds one AMP training step, one dtype map, one process
launcher and one DDP training worker, found by parsing the code (an AST), not by a pattern a
reformatted copy walks around. Each finder is also shown the wrong examples it must catch."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fastrain_lib"


def _library() -> list[tuple[str, ast.AST]]:
    return [(p.relative_to(ROOT).as_posix(), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PKG.rglob("*.py"))]


def _called_name(call: ast.Call) -> str:
    """'autocast' for torch.amp.autocast(...), autocast(...), x.autocast(...)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _scopes(tree: ast.AST) -> list[tuple[str, list[ast.AST]]]:
    """(name, nodes) for every function, and '<module>' for code outside functions."""
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    module = [n for n in ast.walk(tree) if id(n) not in inside and n not in functions]
    return [(f.name, list(ast.walk(f))) for f in functions] + [("<module>", module)]


# --- one AMP training step ---------------------------------------------------------------------------

# The step is written in lesson 03's cell and saved here (make sync). Lesson 03's exercise IS writing
# this step: its checks keep a reference step and the named wrong steps they tell apart.
STEP_HOME = "fastrain_lib/precision/step.py"


def amp_steps(tree: ast.AST) -> list[str]:
    """Functions (or module code) that run a mixed-precision step themselves: an autocast and a
    GradScaler's scale(...) in one body, whatever the expression inside scale() and however the
    backward is written after it."""
    found = []
    for name, nodes in _scopes(tree):
        calls = {_called_name(n) for n in nodes if isinstance(n, ast.Call)}
        if "autocast" in calls and "scale" in calls:
            found.append(name)
    return found


def test_one_amp_training_step_in_the_library():
    extra = {rel: names for rel, tree in _library()
             if rel != STEP_HOME and not rel.startswith("fastrain_lib/lessons/l03_mixed_precision/check")
             and (names := amp_steps(tree))}
    assert extra == {}, f"autocast + GradScaler steps outside {STEP_HOME}: {extra}"
    assert amp_steps(ast.parse((ROOT / STEP_HOME).read_text(encoding="utf-8"))), "the one real step is seen too"


def test_the_step_finder_sees_every_way_of_writing_the_step():
    nested = ("import torch\ndef probe(m, opt, scaler, x):\n"
              "    with torch.amp.autocast('cpu', dtype=torch.bfloat16):\n        out = m(x)\n"
              "    scaler.scale(out.float().sum()).backward()\n    scaler.step(opt)\n    scaler.update()\n")
    split = ("from torch.amp import autocast\ndef step(m, s, x):\n    with autocast('cpu'):\n        loss = m(x).sum()\n"
             "    scaled = s.scale(loss)\n    scaled.backward()\n")
    script = "with torch.autocast('cpu'):\n    loss = m(x)\nscaler.scale(loss).backward()\n"
    forward_only = "def fine(m, x):\n    with torch.autocast('cpu'):\n        return m(x)\n"
    assert amp_steps(ast.parse(nested)) == ["probe"]
    assert amp_steps(ast.parse(split)) == ["step"]
    assert amp_steps(ast.parse(script)) == ["<module>"]
    assert amp_steps(ast.parse(forward_only)) == []


# --- one dtype map -------------------------------------------------------------------------------------

DTYPE_HOME = "fastrain_lib/core/dtypes.py"
_FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64", "half", "float"}


def dtype_maps(tree: ast.AST) -> list[int]:
    """Line numbers of dict literals that map names to two or more torch float dtypes."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            dtypes = [v for v in node.values if isinstance(v, ast.Attribute) and v.attr in _FLOAT_DTYPES
                      and isinstance(v.value, ast.Name) and v.value.id == "torch"]
            if len(dtypes) >= 2:
                found.append(node.lineno)
    return found


def test_one_dtype_map_in_the_library():
    extra = {rel: lines for rel, tree in _library() if rel != DTYPE_HOME and (lines := dtype_maps(tree))}
    assert extra == {}, f"dtype maps outside {DTYPE_HOME} (import it from there): {extra}"


def test_the_dtype_map_finder_sees_a_copy():
    assert dtype_maps(ast.parse('D = {"float32": torch.float32, "bfloat16": torch.bfloat16}')) == [1]
    assert dtype_maps(ast.parse('x = 1\nD = dict()\nD2 = {\n "a": torch.half, "b": torch.float}')) == [3]
    assert dtype_maps(ast.parse('D = {"bf16": torch.bfloat16, "n": 3}')) == []
    assert dtype_maps(ast.parse((ROOT / DTYPE_HOME).read_text(encoding="utf-8")))  # the real map is seen


# --- one process launcher ------------------------------------------------------------------------------

LAUNCHER = "fastrain_lib/distributed/launcher.py"
_STARTS = {"Process", "spawn", "start_processes"}


def process_starts(tree: ast.AST) -> list[int]:
    """Lines that start Python worker processes: ctx.Process(...), mp.Process(...), mp.spawn(...),
    start_processes(...) (psutil.Process only reads a process and is not counted)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in _STARTS:
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "psutil":
                continue
            found.append(node.lineno)
    return found


def test_one_process_launcher_in_the_library():
    extra = {rel: lines for rel, tree in _library() if rel != LAUNCHER and (lines := process_starts(tree))}
    assert extra == {}, f"processes started outside {LAUNCHER} (use launcher.launch): {extra}"
    assert process_starts(ast.parse((ROOT / LAUNCHER).read_text(encoding="utf-8")))


def test_the_launcher_finder_sees_each_way_to_start_a_process():
    code = ("import multiprocessing as mp, psutil, torch.multiprocessing as tmp\n"
            "ctx = mp.get_context('spawn')\np = ctx.Process(target=f)\nq = mp.Process(target=f)\n"
            "tmp.spawn(f, nprocs=2)\nfrom torch.multiprocessing import start_processes\nstart_processes(f)\n"
            "r = psutil.Process(1)\n")
    assert process_starts(ast.parse(code)) == [3, 4, 5, 7]


# --- one DDP training worker ---------------------------------------------------------------------------

DDP_WORKER = "fastrain_lib/distributed/ddp.py"  # saved from lesson 05's cell: main() and train_worker()
# Besides the one worker, a DDP model may be built only where a student reads it (a saved cell: lesson 05b's
# buckets, no_sync and bucket_cap_mb need a DDP model of their own), in an exercise check (its reference
# answer), or in these places, each with why it is not a second training worker:
DDP_ELSEWHERE = {
    "fastrain_lib/distributed/zero.py": "ZeRO's stage 0 row: DDP with PyTorch's default hook, so the byte counter "
                                        "sees its buckets beside ZeRO 1-3 (lesson 05c names it)",
    "fastrain_lib/lessons/l07_capstone/capstone.py": "the capstone's GPT in several processes (lesson 07's prose "
                                                     "names it as the variant of lesson 05's worker)",
}


def ddp_constructions(tree: ast.AST) -> list[int]:
    """Lines that build a DistributedDataParallel model, by its name or by any alias it was imported as."""
    aliases = {"DistributedDataParallel"} | {a.asname for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                                             for a in n.names if a.name == "DistributedDataParallel" and a.asname}
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and _called_name(n) in aliases]


def _may_build_ddp(rel: str, text: str) -> bool:
    return (rel == DDP_WORKER or rel in DDP_ELSEWHERE or text.startswith('"""Saved from ')
            or (rel.startswith("fastrain_lib/lessons/") and Path(rel).name.startswith("check")))


def test_one_ddp_training_worker_in_the_library():
    extra = {}
    for path in sorted(PKG.rglob("*.py")):
        rel, text = path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
        if not _may_build_ddp(rel, text) and (lines := ddp_constructions(ast.parse(text))):
            extra[rel] = lines
    assert extra == {}, f"DDP models built outside {DDP_WORKER} and the saved cells (use ddp.train_worker): {extra}"
    assert ddp_constructions(ast.parse((ROOT / DDP_WORKER).read_text(encoding="utf-8"))), "the one worker is seen"
    for rel in DDP_ELSEWHERE:
        assert ddp_constructions(ast.parse((ROOT / rel).read_text(encoding="utf-8"))), f"{rel}: listed, builds none"


def test_the_ddp_finder_sees_every_alias():
    code = ("from torch.nn.parallel import DistributedDataParallel as Wrapper\nimport torch.nn.parallel as par\n"
            "a = Wrapper(m)\nb = par.DistributedDataParallel(m)\nc = torch.nn.DataParallel(m)\n")
    assert ddp_constructions(ast.parse(code)) == [3, 4]
