"""Only fastrain_lib.measure.hardware asks torch.cuda / torch.backends.mps / torch.mps for a decision,
and the library has no import circles. Both are read from the code (AST), not from comments."""

import ast
import importlib
from pathlib import Path

import fastrain_lib

LIB = Path(fastrain_lib.__file__).parent
OWNER = {"measure/probe.py"}  # detection; hardware.py decides from what it found
PREFIXES = ("torch.cuda", "torch.backends.mps", "torch.mps")
# Execution, not decisions: saving and restoring the CUDA RNG streams in a checkpoint.
ALLOWED = {
    ("checkpoint.py", "torch.cuda.is_available"), ("checkpoint.py", "torch.cuda.is_initialized"),
    ("checkpoint.py", "torch.cuda.get_rng_state_all"), ("checkpoint.py", "torch.cuda.set_rng_state_all"),
}


# Issue 37: a saved cell is the code a student copies, so it writes the technique with torch's own calls:
# waiting for the GPU before reading a clock, and, in the torchrun main(), one GPU per local rank. These
# execute a choice already made through hardware (cfg["device"], best_device); whether to use CUDA at all
# (is_available, the arch check) is still only hardware's to say.
EXECUTION_IN_SAVED_CELLS = {"torch.cuda.synchronize", "torch.mps.synchronize", "torch.cuda.set_device",
                            "torch.cuda.device_count"}


def _saved_cell(path: Path) -> bool:
    return path.read_text(encoding="utf-8").startswith('"""Saved from ')


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _device_uses(path: Path):
    found = list(_raw_uses(path))
    # report each chain once, at its longest: torch.backends.mps.is_available, not also torch.backends.mps
    return [(line, name) for line, name in found
            if not any(o != name and o.startswith(name + ".") and ln == line for ln, o in found)]


def _raw_uses(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = _dotted(node)
            if name and name.startswith(PREFIXES) and name.count(".") >= 2:
                yield node.lineno, name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            names = [module] + [f"{module}.{a.name}" if module else a.name for a in node.names]
            if any(n.startswith(PREFIXES) for n in names):
                yield node.lineno, "import " + ", ".join(names)


def test_only_hardware_asks_the_device():
    offenders = []
    for path in sorted(LIB.rglob("*.py")):
        rel = path.relative_to(LIB).as_posix()
        if rel in OWNER:
            continue
        for line, name in _device_uses(path):
            if (rel, name) not in ALLOWED and not name.startswith("torch.cuda.amp") and not (
                    name in EXECUTION_IN_SAVED_CELLS and _saved_cell(path)):
                offenders.append(f"{rel}:{line}: {name}")
    assert offenders == [], "ask fastrain_lib.measure.hardware instead:\n" + "\n".join(offenders)


def test_the_boundary_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nif torch.cuda.is_available():\n    x = 1\ny = torch.backends.mps.is_available()\n"
                   "# torch.cuda.is_available() in a comment is fine\ns = 'torch.cuda.synchronize'\n")
    assert [name for _, name in _device_uses(bad)] == ["torch.cuda.is_available", "torch.backends.mps.is_available"]


def _imports(module: str) -> set[str]:
    """fastrain_lib modules a module imports, at its top or inside a function (a lazy import still
    ties the two modules together: bench -> hardware -> widgets -> bench was one)."""
    path = LIB / (module.removeprefix("fastrain_lib.").replace(".", "/"))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else (node.module or "")
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _exists(candidate) else base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m.startswith("fastrain_lib") and _exists(m) and m != "fastrain_lib"}


def _exists(module: str) -> bool:
    path = LIB / module.removeprefix("fastrain_lib").lstrip(".").replace(".", "/")
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def test_no_import_circles():
    def name(p):
        rel = p.relative_to(LIB).with_suffix("").as_posix().replace("/", ".")
        return "fastrain_lib." + rel.removesuffix("__init__").rstrip(".") if rel != "__init__" else "fastrain_lib"

    modules = [name(p) for p in LIB.rglob("*.py") if "catalog" not in p.parts and name(p) != "fastrain_lib"]
    graph = {m: _imports(m) for m in modules}
    cycles = []

    def visit(node, stack):
        for nxt in graph.get(node, ()):
            if nxt in stack:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif len(stack) < 12:
                visit(nxt, stack + [nxt])

    for mod in modules:
        visit(mod, [mod])
    # the graph really holds the edges (a reader that found none would pass vacuously)
    assert {"fastrain_lib.measure.probe", "fastrain_lib.measure.peaks", "fastrain_lib.measure.datasheet"} <= graph["fastrain_lib.measure.hardware"]
    assert "fastrain_lib.core.config" in graph["fastrain_lib.measure.peaks"]
    assert "fastrain_lib.fused.apex" in graph["fastrain_lib.lessons.l04_fused_kernels.ablation"]  # fused/__init__ is empty since ce75046
    assert "fastrain_lib.distributed" in graph["fastrain_lib.lessons.l07_capstone.capstone"]
    assert "fastrain_lib.distributed.launcher" in graph["fastrain_lib.distributed"]
    assert cycles == [], cycles
    assert "fastrain_lib.ui.widgets" not in graph["fastrain_lib.measure.hardware"]
