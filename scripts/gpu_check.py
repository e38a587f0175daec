"""make gpu-check: everything a GPU must prove about the course, in one prepared call.

On one modern NVIDIA GPU, within a time budget (default 8 minutes), with no network:

  1. preflight    the GPU, its datasheet row, the tools each step needs (installs missing ones
                  from a folder of wheels carried along: --wheels DIR, pip --no-index)
  2. pytest_gpu   pytest -m gpu tests/test_gpu.py: real CUDA properties (pinned copies, fused
                  AdamW launches, Triton compiled, bf16 speed, GradScaler, NCCL, torchrun on one
                  GPU over gloo, the forced T4 policy, MFU ≤ 100%)
  3. apex         optional (--apex PATH): builds NVIDIA Apex's CUDA extensions for this GPU's
                  architecture only, if the time left allows; otherwise says why not
  4. benchmarks   python -m benchmarks --mode full → reference/ (run alone: nothing else loads
                  the machine while it measures)
  5. notebooks    every notebook, exercise and solution in lab mode on CUDA, several at a time,
                  with a per-cell timeout (nbclient)

Everything lands in one folder (--out, default gpu-check/<time>/): summary.json, summary.txt,
each step's log, the executed notebooks. `--dry-run` lists every step with its command and
budget and runs nothing (it works on any machine; `make test` runs it).

    python scripts/gpu_check.py [--dry-run] [--budget 480] [--wheels DIR] [--apex PATH] [--jobs 4]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fastrain_lib.core.i18n import t

PY = sys.executable


@dataclass(frozen=True)
class Step:
    name: str
    default_s: float  # the budget it gets when there is time
    minimum_s: float  # below this it is not started (recorded as not run)
    tools: tuple[str, ...] = ()  # importable modules it needs


STEPS = (
    Step("preflight", 30, 5),
    Step("pytest_gpu", 150, 60, ("pytest",)),
    Step("apex", 240, 120),
    Step("benchmarks", 150, 60, ("matplotlib",)),
    Step("notebooks", 240, 60, ("nbclient", "nbformat", "ipykernel", "jupyter_client", "ipywidgets", "matplotlib")),
)
# import name -> the wheel (distribution) name to carry
DISTRIBUTIONS = {"pytest": "pytest", "nbclient": "nbclient", "nbformat": "nbformat", "ipykernel": "ipykernel",
                 "jupyter_client": "jupyter-client", "ipywidgets": "ipywidgets", "matplotlib": "matplotlib"}


@dataclass
class Result:
    name: str
    status: str  # passed | failed | skipped | not_run | planned
    seconds: float = 0.0
    budget_s: float = 0.0
    detail: str = ""
    command: list = field(default_factory=list)
    files: list = field(default_factory=list)


# ------------------------------------------------------------------ pure decisions (tested on a CPU)

def budget_for(step: Step, remaining_s: float, later: list[Step]) -> float:
    """Seconds this step may use: its default, but leaving the later steps their minimum."""
    return max(0.0, min(step.default_s, remaining_s - sum(s.minimum_s for s in later)))


def missing_tools(needed, importable=None) -> list[str]:
    """The modules in `needed` that cannot be imported here."""
    importable = importable or (lambda name: importlib.util.find_spec(name) is not None)
    return [name for name in needed if not importable(name)]


def wheels_command(missing: list[str], wheels: str | Path) -> list[str]:
    """pip install from a local folder only (a GPU server often has no network)."""
    return [PY, "-m", "pip", "install", "--no-index", "--find-links", str(wheels)] + \
        [DISTRIBUTIONS.get(m, m) for m in missing]


def missing_message(missing: list[str]) -> str:
    dists = " ".join(DISTRIBUTIONS.get(m, m) for m in missing)
    return t("gpucheck.missing", names=", ".join(missing), dists=dists)


def arch_list(capability: tuple[int, int]) -> str:
    """TORCH_CUDA_ARCH_LIST for this GPU only ('9.0' for an H100/H200): one architecture builds fastest."""
    return f"{capability[0]}.{capability[1]}"


def apex_command(path: str | Path) -> list[str]:
    return [PY, "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps", "--no-index", str(path)]


def apex_env(capability: tuple[int, int], cpus: int) -> dict:
    # NVIDIA/apex README: APEX_CPP_EXT=1 APEX_CUDA_EXT=1 pip install -v --no-build-isolation .
    return {"TORCH_CUDA_ARCH_LIST": arch_list(capability), "MAX_JOBS": str(max(1, cpus)),
            "APEX_CPP_EXT": "1", "APEX_CUDA_EXT": "1", "NVCC_APPEND_FLAGS": f"--threads {min(4, max(1, cpus))}"}


def notebook_paths(root: Path = ROOT) -> list[Path]:
    return [p for folder in ("notebooks", "solutions", "exercises") for p in sorted((root / folder).glob("*.ipynb"))]


def pytest_command(out: Path) -> list[str]:
    return [PY, "-m", "pytest", "-m", "gpu", "tests/test_gpu.py", "-q", "-p", "no:cacheprovider",
            f"--junitxml={out / 'pytest-gpu.xml'}"]


def benchmarks_command() -> list[str]:
    return [PY, "-m", "benchmarks", "--mode", "full", "--allow-noisy"]


def notebook_command(path: Path, out: Path, cell_timeout: int) -> list[str]:
    return [PY, str(Path(__file__).resolve()), "--run-notebook", str(path), "--notebook-out",
            str(out / "notebooks" / f"{path.parent.name}__{path.name}"), "--cell-timeout", str(cell_timeout)]


def exit_code(results: list[Result]) -> int:
    """0 when nothing that ran failed (steps left out for lack of time are reported, not failures)."""
    return 1 if any(r.status == "failed" for r in results) else 0


# ------------------------------------------------------------------ running one notebook

def run_notebook(path: Path, out: Path | None, cell_timeout: int) -> int:
    """Execute one notebook with nbclient; cells marked NBVAL_SKIP are left out, cells marked
    NBVAL_RAISES_EXCEPTION (or tagged raises-exception) may fail, as under nbval. Returns 0/1."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and "NBVAL_SKIP" in cell.source:
            cell.source = "# NBVAL_SKIP (left out by gpu_check, as nbval does)"
    client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    failures = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        allowed = "NBVAL_RAISES_EXCEPTION" in cell.source or "raises-exception" in cell.metadata.get("tags", [])
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors and not allowed:
            failures.append(f"cell {i}: {errors[0].get('ename')}: {errors[0].get('evalue', '')[:200]}")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out)
    if failures:
        print("\n".join(failures))
        return 1
    print("ok")
    return 0


# ------------------------------------------------------------------ the steps

def _run(cmd, timeout_s: float, log: Path, env: dict | None = None) -> tuple[int | None, float]:
    """Run a command with a timeout, output into `log`; (exit code or None on timeout, seconds)."""
    start = time.monotonic()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT, env={**os.environ, **(env or {})},
                                start_new_session=True)
        try:
            code = proc.wait(timeout=max(1.0, timeout_s))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            code = None
    return code, time.monotonic() - start


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def preflight(args, out: Path) -> tuple[Result, dict]:
    """The GPU and the tools; installs missing tools from --wheels."""
    import torch

    from fastrain_lib.measure import hardware

    info = {"torch": torch.__version__, "cuda": torch.version.cuda, "cuda_available": hardware.cuda_available()}
    needed = sorted({tool for s in STEPS for tool in s.tools})
    missing = missing_tools(needed)
    if missing and args.wheels:
        code, _ = _run(wheels_command(missing, args.wheels), 120, out / "wheels.log")
        missing = missing_tools(needed)
        info["wheels_install_exit"] = code
    info["missing_tools"] = missing
    if not hardware.cuda_available():
        return Result("preflight", "failed", detail=t("gpucheck.no_cuda")), info
    facts = hardware.facts("cuda")
    sheet = hardware.datasheet_for(facts.name)
    info.update(gpu=facts.name, capability=list(facts.capability), gpu_count=facts.count,
                memory_gb=round((facts.memory_bytes or 0) / 1e9, 1), precision=hardware.precision_for(facts),
                datasheet=sheet.key if sheet else None)
    detail = f"{facts.name} (sm{facts.capability[0]}{facts.capability[1]}, {info['memory_gb']} GB) · " + \
             (t("gpucheck.datasheet_row", key=sheet.key) if sheet else t("gpucheck.no_datasheet_row"))
    if missing:
        detail += "\n" + missing_message(missing)
    return Result("preflight", "passed", detail=detail), info


def step_pytest(budget: float, out: Path) -> Result:
    cmd = pytest_command(out)
    code, seconds = _run(cmd, budget, out / "pytest-gpu.log")
    status = "passed" if code == 0 else "failed"
    detail = _tail(out / "pytest-gpu.log", 25) if code != 0 else _tail(out / "pytest-gpu.log", 1)
    if code is None:
        detail = t("gpucheck.timeout", seconds=round(budget)) + "\n" + detail
    return Result("pytest_gpu", status, seconds, budget, detail, cmd, ["pytest-gpu.log", "pytest-gpu.xml"])


def step_apex(args, budget: float, out: Path, info: dict) -> Result:
    if not args.apex:
        return Result("apex", "skipped", detail=t("gpucheck.apex_not_asked"))
    path = Path(args.apex)
    if not (path / "setup.py").exists():
        return Result("apex", "failed", detail=t("gpucheck.apex_bad_path", path=path))
    cmd = apex_command(path)
    env = apex_env(tuple(info["capability"]), os.cpu_count() or 1)
    code, seconds = _run(cmd, budget, out / "apex-build.log", env)
    if code is None:
        return Result("apex", "failed", seconds, budget, t("gpucheck.apex_timeout", seconds=round(budget)), cmd,
                      ["apex-build.log"])
    check = subprocess.run([PY, "-c", "from fastrain_lib.fused import apex_status; print(apex_status().state)"],
                           check=False, capture_output=True, text=True, cwd=ROOT, timeout=120)
    state = check.stdout.strip()
    ok = code == 0 and state == "ok"
    detail = f"TORCH_CUDA_ARCH_LIST={env['TORCH_CUDA_ARCH_LIST']} · apex_status: {state or check.stderr[-300:]}"
    return Result("apex", "passed" if ok else "failed", seconds, budget, detail, cmd, ["apex-build.log"])


def _files(folders) -> set[Path]:
    return {p for folder in folders if folder.is_dir() for p in folder.glob("*")}


def step_benchmarks(budget: float, out: Path) -> Result:
    # reference/ gets a quiet run; a noisy one is kept in results/benchmarks/ (benchmarks --allow-noisy)
    folders = (ROOT / "reference", ROOT / "results" / "benchmarks")
    before = _files(folders)
    cmd = benchmarks_command()
    code, seconds = _run(cmd, budget, out / "benchmarks.log", {"FASTRAIN_MODE": "full"})
    new = sorted(str(p.relative_to(ROOT)) for p in _files(folders) - before)
    detail = t("gpucheck.bench_files", files=", ".join(new) or "—")
    if code is None:
        detail = t("gpucheck.timeout", seconds=round(budget)) + "\n" + detail
    elif code != 0:
        detail += "\n" + _tail(out / "benchmarks.log")
    return Result("benchmarks", "passed" if code == 0 else "failed", seconds, budget, detail, cmd,
                  ["benchmarks.log"] + new)


def step_notebooks(args, budget: float, out: Path) -> Result:
    paths = notebook_paths()
    deadline = time.monotonic() + budget
    start = time.monotonic()
    outcome: dict[str, str] = {}
    from fastrain_lib.measure import hardware

    threads = hardware.threads_for(max(1, args.jobs))  # the kernels share the cores instead of fighting

    def one(path: Path):
        left = deadline - time.monotonic()
        name = f"{path.parent.name}/{path.name}"
        if left < 20:
            outcome[name] = "not_run"
            return
        log = out / "notebooks" / f"{path.parent.name}__{path.stem}.log"
        code, _ = _run(notebook_command(path, out, args.cell_timeout), left, log,
                       {"FASTRAIN_MODE": "lab", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": str(threads)})
        outcome[name] = "passed" if code == 0 else ("timeout" if code is None else "failed: " + _tail(log, 3))

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, paths))
    failed = {k: v for k, v in outcome.items() if v != "passed" and v != "not_run"}
    not_run = [k for k, v in outcome.items() if v == "not_run"]
    lines = [t("gpucheck.notebooks_count", passed=sum(v == "passed" for v in outcome.values()), total=len(paths))]
    lines += [f"  ✗ {k}: {v}" for k, v in sorted(failed.items())]
    if not_run:
        lines.append(t("gpucheck.not_run_time", names=", ".join(sorted(not_run))))
    status = "failed" if failed else ("passed" if not not_run else "not_run")
    return Result("notebooks", status, time.monotonic() - start, budget, "\n".join(lines),
                  ["<notebook_command per file>"], ["notebooks/"])


# ------------------------------------------------------------------ the whole run

def plan(args, out: Path) -> list[Result]:
    """What would run, with commands and budgets (--dry-run)."""
    results, remaining = [], args.budget
    for i, step in enumerate(STEPS):
        budget = budget_for(step, remaining, list(STEPS[i + 1:]))
        if step.name == "apex" and not args.apex:
            budget = 0.0  # nothing to build: the time goes to the later steps
        cmd = {"pytest_gpu": pytest_command(out), "benchmarks": benchmarks_command(),
               "apex": apex_command(args.apex) if args.apex else [],
               "notebooks": notebook_command(Path("notebooks/00_setup.ipynb"), out, args.cell_timeout)}.get(step.name, [])
        detail = ""
        if step.name == "apex":
            detail = "TORCH_CUDA_ARCH_LIST=<this GPU's capability>, MAX_JOBS=<cores>" if args.apex \
                else t("gpucheck.apex_not_asked")
        if step.name == "notebooks":
            detail = t("gpucheck.notebooks_planned", count=len(notebook_paths()), jobs=args.jobs)
        missing = missing_tools(step.tools)
        if missing:
            detail = (detail + "\n" if detail else "") + missing_message(missing)
        results.append(Result(step.name, "planned", 0.0, budget, detail, [str(c) for c in cmd]))
        remaining -= budget
    return results


def write_summary(out: Path, results: list[Result], info: dict, args, started: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    payload = {"started": started, "budget_s": args.budget, "dry_run": args.dry_run, "machine": info,
               "steps": [asdict(r) for r in results], "exit_code": exit_code(results)}
    (out / "summary.json").write_text(json.dumps(payload, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    lines = [t("gpucheck.title", started=started, budget=round(args.budget))]
    for r in results:
        lines.append(f"{r.status:8} {r.name:11} {r.seconds:6.0f} s / {r.budget_s:4.0f} s  {r.detail.splitlines()[0] if r.detail else ''}")
        lines += [f"{'':32}{line}" for line in r.detail.splitlines()[1:]]
        if args.dry_run and r.command:
            lines.append(f"{'':32}$ {' '.join(r.command)}")
    (out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(t("gpucheck.where", path=out))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dry-run", action="store_true", help="list every step with its command and budget; run nothing")
    p.add_argument("--budget", type=float, default=480.0, help="seconds for the whole run (default 8 minutes)")
    p.add_argument("--out", default=None, help="folder for the summary and logs (default gpu-check/<time>/)")
    p.add_argument("--wheels", default=None, help="folder of wheels to install missing tools from (pip --no-index)")
    p.add_argument("--apex", default=None, help="a checkout of NVIDIA Apex to build for this GPU")
    p.add_argument("--jobs", type=int, default=6, help="notebooks executed at the same time")
    p.add_argument("--cell-timeout", type=int, default=300, help="seconds one notebook cell may take")
    p.add_argument("--run-notebook", default=None, help=argparse.SUPPRESS)
    p.add_argument("--notebook-out", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.run_notebook:
        return run_notebook(Path(args.run_notebook), Path(args.notebook_out) if args.notebook_out else None,
                            args.cell_timeout)

    started = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = Path(args.out) if args.out else ROOT / "gpu-check" / started.replace(":", "")
    if args.dry_run:
        write_summary(out, plan(args, out), {"dry_run": True}, args, started)
        return 0

    clock = time.monotonic()
    results: list[Result] = []
    pre, info = preflight(args, out)
    pre.seconds = time.monotonic() - clock
    results.append(pre)
    if pre.status != "passed":
        for step in STEPS[1:]:
            results.append(Result(step.name, "not_run", detail=t("gpucheck.after_preflight")))
        write_summary(out, results, info, args, started)
        return 2
    for i, step in enumerate(STEPS[1:], start=1):
        remaining = args.budget - (time.monotonic() - clock)
        budget = budget_for(step, remaining, list(STEPS[i + 1:]))
        missing = missing_tools(step.tools)
        if missing:
            results.append(Result(step.name, "failed", detail=missing_message(missing)))
            continue
        if budget < step.minimum_s and not (step.name == "apex" and not args.apex):
            results.append(Result(step.name, "not_run", budget_s=budget,
                                  detail=t("gpucheck.no_time", seconds=round(budget), needs=round(step.minimum_s))))
            continue
        if step.name == "pytest_gpu":
            results.append(step_pytest(budget, out))
        elif step.name == "apex":
            results.append(step_apex(args, budget, out, info))
        elif step.name == "benchmarks":
            results.append(step_benchmarks(budget, out))
        elif step.name == "notebooks":
            results.append(step_notebooks(args, budget, out))
    write_summary(out, results, info, args, started)
    return exit_code(results)


if __name__ == "__main__":
    sys.exit(main())
