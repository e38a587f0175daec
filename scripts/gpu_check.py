"""make gpu-check: everything a GPU must prove about the course, in one prepared call.

On one modern NVIDIA GPU, within a time budget (default 8 minutes), with no network:

  1. preflight    the GPU, its datasheet row, the tools each step needs (installs missing ones
                  from a folder of wheels carried along: --wheels DIR, pip --no-index)
  2. pytest_gpu   pytest -m gpu tests/test_gpu.py: real CUDA properties (pinned copies, fused
                  AdamW launches, Triton compiled, bf16 speed, GradScaler, NCCL, torchrun on one
                  GPU over gloo, the forced T4 policy, MFU ≤ 100%)
  3. apex         optional (--apex PATH): builds NVIDIA Apex's CUDA extensions for this GPU's
                  architecture only, if the time left allows; otherwise says why not
  4. benchmarks   python -m benchmarks --mode gpu --time-budget <slot> → reference/ (sizes from this
                  GPU's ceilings, benchmarks/budget.py; run alone: nothing else loads the machine)
  5. notebooks    every notebook, exercise and solution in lab mode on CUDA, several at a time, longest
                  first, with a per-cell timeout (nbclient); each one's estimate is its measured time
                  (scripts/gpu_check_notebooks.json), the slot at least 20% above their plan; those that
                  do not fit are named with the reason; one still running at the deadline is reported as
                  not finished in time, with the cell it was in, not as failed

Every step's slot is an estimate of its own work on this GPU (estimates(), printed by the dry run for
this GPU and for a T4, L4, A100 and H200 from the datasheet table). A step whose slot does not fit the
time left is not started, with that reason; one that starts has its whole slot. Every process it
starts gets the checkout on PYTHONPATH, so it runs from any Python that has torch (no pip install -e).

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
import math
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
    tools: tuple[str, ...] = ()  # importable modules it needs


STEPS = (
    Step("preflight"),
    Step("pytest_gpu", ("pytest",)),
    Step("apex"),
    Step("benchmarks", ("matplotlib",)),
    Step("notebooks", ("nbclient", "nbformat", "ipykernel", "jupyter_client", "ipywidgets", "matplotlib")),
)
MARGIN = 1.3  # a slot is its estimate × this: room for a slower disk or a cold cache, not for a wrong plan
PREFLIGHT_S = 15.0  # import torch, CUDA context, the tool checks
# pytest -m gpu tests/test_gpu.py: each test is a few seconds of GPU work after CUDA starts; the
# torch.distributed.run test starts two processes (~25 s with their imports and gloo rendezvous)
PYTEST_START_S, PYTEST_PER_TEST_S, PYTEST_TORCHRUN_S = 15.0, 4.0, 25.0
# The notebooks: each one's measured seconds (scripts/gpu_check_notebooks.json says which runs of this repo's
# tests measured them, on what machine), scaled by the cores each notebook gets beside the others; planned
# longest first on `jobs` lanes, in a slot at least NOTEBOOK_MARGIN above that plan (issue 40: ≥ 20%).
NOTEBOOK_TABLE = Path(__file__).resolve().with_name("gpu_check_notebooks.json")
MEASURED_CORES = 2  # the machine those runs were measured on
NOTEBOOK_MARGIN = 1.2
# Apex: two extensions (amp_C, fused_layer_norm_cuda: 17 files from Apex's setup.py) for one architecture,
# built side by side with ninja. Measured here (--compile-apex, nvcc 13.0, torch 2.14.1, Apex 6424da3b, sm_75,
# MAX_JOBS=1, nice 19 on a 2-core machine at load 2-3): 24-49 s per file in one run, 37-116 s in another with
# more jobs beside it; link 1 s. 50 s per file and round is the quiet-machine bound of those runs.
APEX_FILE_S, APEX_SETUP_S = 50.0, 20.0
PLANNED_GPUS = (("T4", (7, 5)), ("L4", (8, 9)), ("A100", (8, 0)), ("H200", (9, 0)))
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
    # the notebooks step: {"estimate_s": {name: s}, "run": [...], "left_out": {name: why}} in a plan, and
    # {name: seconds} measured ("seconds") in a real run: the numbers a GPU's own table can be made from
    notebooks: dict = field(default_factory=dict)


# ------------------------------------------------------------------ pure decisions (tested on a CPU)

def pytest_estimate(tests: int = 12) -> float:
    return PYTEST_START_S + tests * PYTEST_PER_TEST_S + PYTEST_TORCHRUN_S


def apex_estimate(cu_files: int, cores: int) -> float:
    """The two extensions' .cu files compiled `cores` at a time (ninja), one architecture."""
    return APEX_SETUP_S + APEX_FILE_S * math.ceil(max(1, cu_files) / max(1, cores))


def notebook_name(path: Path) -> str:
    """'notebooks/00_setup.ipynb': the folder and file, as the table and the summary name a notebook."""
    return f"{Path(path).parent.name}/{Path(path).name}"


def notebook_table(path: Path = NOTEBOOK_TABLE) -> dict[str, float]:
    """{notebook: measured seconds on MEASURED_CORES cores}: its lab-mode core-route compute plus its whole
    ci-mode run (kernel start, every cell), both from runs this repository's tests made (the file says which)."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))["notebooks"]
    return {name: round(row["lab_core_s"] + row["ci_s"], 1) for name, row in rows.items()}


def notebook_estimates(names, *, jobs: int, cores: int | None = None, table: dict | None = None) -> dict[str, float]:
    """{notebook: seconds in lab mode here}, in the order given. The measured seconds, scaled by the cores one
    notebook gets when `jobs` run beside each other on `cores` (never below the measurement: lab sizes are
    fixed and a measuring cell runs for its fixed time, so a GPU does not make them shorter than this). A
    notebook missing from the table counts as the slowest one measured."""
    table = notebook_table() if table is None else table
    share = (cores / max(1, jobs)) if cores else MEASURED_CORES
    scale = max(1.0, MEASURED_CORES / max(share, 1e-9))
    slowest = max(table.values(), default=0.0)
    return {name: round(table.get(name, slowest) * scale, 1) for name in names}


def lanes_time(seconds, jobs: int) -> float:
    """The time `jobs` lanes take for these runs, each started on the lane that frees first, longest first
    (the order step_notebooks starts them in)."""
    lanes = [0.0] * max(1, jobs)
    for s in sorted(seconds, reverse=True):
        lanes[lanes.index(min(lanes))] += s
    return round(max(lanes), 1)


def notebook_plan(est: dict[str, float], jobs: int, slot_s: float | None = None,
                  margin: float = NOTEBOOK_MARGIN) -> tuple[list[str], float, dict[str, str]]:
    """(the notebooks to run, longest first; their planned seconds on `jobs` lanes; {left out: why}).
    Pure. Each notebook in the given order (lessons, then solutions, then exercises) is kept when the plan
    with it, × margin, still fits `slot_s` (None: no limit); one that would not is left out with the reason."""
    kept, left = [], []
    for name in est:
        fits = slot_s is None or lanes_time([est[n] for n in kept + [name]], jobs) * margin <= slot_s + 1e-9
        (kept if fits else left).append(name)
    planned = lanes_time([est[n] for n in kept], jobs)
    why = {}
    if left:
        reason = t("gpu_check.notebooks_left_out", names=", ".join(f"{n} ({est[n]:.0f} s)" for n in left),
                   slot=round(max(0.0, slot_s or 0.0)), count=len(kept), needs=round(planned * margin),
                   margin=round((margin - 1) * 100))
        why = {n: reason for n in left}
    return sorted(kept, key=lambda n: (-est[n], n)), planned, why


def estimates(dev, *, apex_files: int = 0, jobs: int = 6, notebooks=None,
              cores: int | None = None) -> dict[str, float]:
    """Seconds each step's own work takes on `dev` (benchmarks.budget.Device): the plan's basis. The
    notebooks' is their lanes' time from notebook_estimates (`notebooks`: their names, or that dict)."""
    from benchmarks import budget

    names = [notebook_name(p) for p in notebook_paths()] if notebooks is None else notebooks
    nb = names if isinstance(names, dict) else notebook_estimates(names, jobs=jobs, cores=cores)
    return {"preflight": PREFLIGHT_S, "pytest_gpu": pytest_estimate(),
            "apex": apex_estimate(apex_files, cores or os.cpu_count() or 1) if apex_files else 0.0,
            "benchmarks": budget.total(dev), "notebooks": lanes_time(nb.values(), jobs)}


def slots(est: dict[str, float], budget_s: float) -> dict[str, tuple[float, str]]:
    """(slot seconds, '' or why not started) per step, in order. Apex's time is reserved first (it is
    asked for explicitly); then each step in turn gets estimate × MARGIN if that fits the time left.
    The notebooks take what is left; notebook_plan then says which of them fit it with NOTEBOOK_MARGIN."""
    # Apex is asked for explicitly, so its time is reserved first, but only if the preflight and the GPU
    # tests still fit beside it: a build that would crowd out the course's own checks is not started.
    apex_want = est["apex"] * MARGIN
    apex_fits = apex_want + (est["preflight"] + est["pytest_gpu"]) * MARGIN <= budget_s
    plan, left = {}, budget_s - (apex_want if apex_fits else 0.0)
    for name in ("preflight", "pytest_gpu", "apex", "benchmarks", "notebooks"):
        want = est[name] * MARGIN
        if name == "apex":
            plan[name] = (want, "") if apex_fits or not want else (0.0, t("gpu_check.no_time", seconds=round(
                max(0.0, budget_s - (est["preflight"] + est["pytest_gpu"]) * MARGIN)), needs=round(want)))
            continue
        if name == "notebooks":
            plan[name] = (max(0.0, left), "" if left > 0 or not est[name] else
                          t("gpu_check.no_time", seconds=round(max(0.0, left)), needs=round(est[name] * NOTEBOOK_MARGIN)))
            continue
        if want > left:
            plan[name] = (0.0, t("gpu_check.no_time", seconds=round(max(0, left)), needs=round(want)))
            continue
        plan[name] = (want, "")
        left -= want
    return plan


def child_env(extra: dict | None = None) -> dict:
    """The environment of every process gpu-check starts: the checkout first on PYTHONPATH, so a Python
    without `pip install -e .` finds fastrain_lib and benchmarks (kernels, pytest, torch.distributed.run
    workers inherit it)."""
    env = {**os.environ, **(extra or {})}
    paths = [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(ROOT)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


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
    return t("gpu_check.missing", names=", ".join(missing), dists=dists)


def arch_list(capability: tuple[int, int]) -> str:
    """TORCH_CUDA_ARCH_LIST for this GPU only ('9.0' for an H100/H200): one architecture builds fastest."""
    return f"{capability[0]}.{capability[1]}"


# The two Apex extensions lesson 04 uses: FusedAdam's (amp_C) and FusedLayerNorm's (fused_layer_norm_cuda).
# Their sources and flags are read from Apex's own setup.py (a pattern missed csrc/update_scale_hysteresis.cu,
# which amp_C_frontend.cpp binds); Apex's setup.py builds a dozen more extensions one after another.
APEX_EXTENSIONS = ("amp_C", "fused_layer_norm_cuda")
# What lesson 04 calls (FusedAdam, the loss scaler) must be bound in the built amp_C, not just importable.
APEX_AMP_C_NAMES = ("multi_tensor_adam", "multi_tensor_scale", "multi_tensor_l2norm", "update_scale_hysteresis")
APEX_HEADERS = ("cuda_runtime.h", "cublas_v2.h", "cusparse.h", "cusolverDn.h")  # torch's extension headers need them


def apex_extensions(setup_py: str) -> dict[str, dict]:
    """{name: {"sources": [...], "cxx": [...], "nvcc": [...]}} for APEX_EXTENSIONS, read from the
    CUDAExtension(name=..., sources=[...], extra_compile_args={...}) calls of Apex's setup.py. An extension
    whose name or sources are not plain literals there is left out (apex_problems then names it)."""
    import ast

    found = {}
    for node in ast.walk(ast.parse(setup_py)):
        func = getattr(node, "func", None)
        if not isinstance(node, ast.Call) or getattr(func, "id", getattr(func, "attr", None)) != "CUDAExtension":
            continue
        kw = {k.arg: k.value for k in node.keywords}
        try:
            name = ast.literal_eval(kw["name"])
            sources = list(ast.literal_eval(kw["sources"]))
            flags = ast.literal_eval(kw["extra_compile_args"]) if "extra_compile_args" in kw else {}
        except (KeyError, ValueError, SyntaxError):
            continue
        if name in APEX_EXTENSIONS:
            found[name] = {"sources": sources, "cxx": list(flags.get("cxx", [])), "nvcc": list(flags.get("nvcc", []))}
    return found


def apex_sources(path: Path) -> dict[str, list[str]]:
    """{name: absolute source paths} as Apex's setup.py lists them ({} without a setup.py)."""
    setup = Path(path) / "setup.py"
    if not setup.exists():
        return {}
    return {name: [str(Path(path) / f) for f in ext["sources"]]
            for name, ext in apex_extensions(setup.read_text(encoding="utf-8")).items()}


def cuda_version_of(nvcc_output: str) -> str | None:
    """'13.0' from `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.48")."""
    import re

    found = re.search(r"release (\d+)\.(\d+)", nvcc_output or "")
    return f"{found.group(1)}.{found.group(2)}" if found else None


def apex_problems(*, apex_path: Path, nvcc_version: str | None, torch_cuda: str | None, include_dirs, ninja: bool,
                  capability: tuple[int, int], torch_arch_list, sources: dict[str, list[str]]) -> list[str]:
    """Every reason the Apex build cannot work here, each naming its check (empty: build).
    Pure: the caller gathers nvcc's version, the include folders, ninja and the arch list."""
    from fastrain_lib.measure.probe import arch_runs

    found = []
    if not (Path(apex_path) / "setup.py").exists():
        found.append(t("gpu_check.apex_bad_path", path=apex_path))
    if nvcc_version is None:
        found.append(t("gpu_check.apex_no_nvcc"))
    elif torch_cuda and nvcc_version.split(".")[:2] != torch_cuda.split(".")[:2]:
        # Apex's setup.py refuses a bare-metal CUDA whose major.minor differs from torch's
        found.append(t("gpu_check.apex_nvcc_mismatch", nvcc=nvcc_version, torch_cuda=torch_cuda))
    for header in APEX_HEADERS:
        if not any((Path(d) / header).exists() for d in include_dirs):
            found.append(t("gpu_check.apex_no_header", header=header, dirs=", ".join(map(str, include_dirs)) or "—"))
    if not ninja:
        found.append(t("gpu_check.apex_no_ninja"))
    if not arch_runs(capability, torch_arch_list):
        found.append(t("gpu_check.apex_arch", arch=arch_list(capability), built=", ".join(torch_arch_list)))
    for name in APEX_EXTENSIONS if (Path(apex_path) / "setup.py").exists() else ():
        files = sources.get(name, [])
        if not any(f.endswith(".cu") for f in files) or any(not Path(f).exists() for f in files):
            found.append(t("gpu_check.apex_no_sources", name=name, path=apex_path))
    return found


def cuda_include_dirs() -> list[Path]:
    """Where the CUDA headers may be: CUDA_HOME/include, the toolkit next to nvcc, and the nvidia-* wheels."""
    import shutil

    dirs = []
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")):
        if home:
            dirs.append(Path(home) / "include")
    home = toolkit_home(shutil.which("nvcc"))
    if home:
        dirs.append(home / "include")
    for spec_name in ("nvidia",):
        spec = importlib.util.find_spec(spec_name)
        for root in (spec.submodule_search_locations or []) if spec else []:
            dirs += sorted(Path(root).glob("*/include"))
    return [d for d in dirs if d.is_dir()]


def toolkit_home(nvcc: str | None = None) -> Path | None:
    """The CUDA toolkit nvcc belongs to: the folder above nvcc's bin/ when that holds the toolkit's
    headers, else the usual /usr/local/cuda (an nvcc on PATH may be a one-line wrapper script, as here)."""
    import shutil

    nvcc = nvcc or shutil.which("nvcc")
    candidates = ([Path(nvcc).resolve().parents[1]] if nvcc else []) + [Path("/usr/local/cuda")]
    return next((c for c in candidates if (c / "include" / "cuda_runtime.h").exists()), None)


def apex_build_command(path: str | Path, into: Path) -> list[str]:
    """This script, building the two extensions into `into` (then on PYTHONPATH) and Apex's Python part."""
    return [PY, str(Path(__file__).resolve()), "--build-apex", str(path), "--apex-into", str(into)]


def apex_env(capability: tuple[int, int], cpus: int) -> dict:
    # one architecture, ninja's parallel jobs over the .cu files, nvcc's own threads per file
    return {"TORCH_CUDA_ARCH_LIST": arch_list(capability), "MAX_JOBS": str(max(1, cpus)),
            "NVCC_APPEND_FLAGS": f"--threads {min(4, max(1, cpus))}"}


def apex_load_code(name: str, ext: dict, path: Path, into: Path, include_dirs) -> str:
    """The child's code that compiles one extension with torch's own builder (ninja), with Apex's flags for
    it and the include folders preflight found (the nvidia-* wheels' CUDA headers, when no toolkit has them)."""
    files = [str(Path(path) / f) for f in ext["sources"]]
    includes = [str(Path(path) / "csrc")] + [str(d) for d in include_dirs]
    return ("from torch.utils.cpp_extension import load; "
            f"load({name!r}, {files!r}, extra_include_paths={includes!r}, extra_cflags={ext['cxx']!r}, "
            f"extra_cuda_cflags={ext['nvcc']!r}, build_directory={str(Path(into) / name)!r}, verbose=True)")


def ninja_seconds(build_dir: Path) -> dict[str, float]:
    """{object file: seconds} from ninja's own log of the last build in `build_dir` (start and end in ms)."""
    log = Path(build_dir) / ".ninja_log"
    times = {}
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        parts = line.split("\t")
        if len(parts) >= 4 and not line.startswith("#"):
            times[parts[3]] = (int(parts[1]) - int(parts[0])) / 1000
    return times


def build_apex(path: Path, into: Path, include_dirs=None) -> int:
    """Build amp_C and fused_layer_norm_cuda side by side (two processes, ninja inside each), then put
    Apex's Python package (no extensions) beside them. Runs in the child process gpu-check starts.
    Needs nvcc, not a GPU: TORCH_CUDA_ARCH_LIST names the architecture to compile for."""
    into.mkdir(parents=True, exist_ok=True)
    include_dirs = cuda_include_dirs() if include_dirs is None else include_dirs
    # torch guesses CUDA_HOME from nvcc's folder when it is unset; a symlinked /usr/local/bin/nvcc makes that
    # /usr/local, and the link step then finds no libcudart (seen here): take the toolkit nvcc really lives in.
    home = toolkit_home()
    if home and not os.environ.get("CUDA_HOME"):
        os.environ["CUDA_HOME"] = str(home)
    extensions = apex_extensions((Path(path) / "setup.py").read_text(encoding="utf-8"))
    procs = []
    for name, ext in extensions.items():
        (into / name).mkdir(exist_ok=True)
        procs.append(subprocess.Popen([PY, "-c", apex_load_code(name, ext, path, into, include_dirs)]))
    codes = [p.wait() for p in procs]
    if any(codes) or len(extensions) < len(APEX_EXTENSIONS):
        return 1
    for name in extensions:  # the built .so next to its name, importable from `into`
        for so in (into / name).glob(f"{name}*.so"):
            so.replace(into / so.name)
    import shutil

    shutil.copytree(Path(path) / "apex", into / "apex", dirs_exist_ok=True)
    return 0


def compile_apex(path: Path, arch: str, into: Path) -> int:
    """Compile only the two extensions for `arch` (e.g. 7.5, 9.0), no GPU needed; report each file's
    compile time (ninja's log) and whether `import amp_C, fused_layer_norm_cuda` works here; write it all
    to `into`/compile.json."""
    os.environ["TORCH_CUDA_ARCH_LIST"] = arch
    os.environ.setdefault("MAX_JOBS", str(os.cpu_count() or 1))
    start = time.monotonic()
    code = build_apex(path, into)
    wall = time.monotonic() - start
    files = {f"{name}/{obj}": s for name in APEX_EXTENSIONS for obj, s in ninja_seconds(into / name).items()}
    check = subprocess.run([PY, "-c", "import torch, amp_C, fused_layer_norm_cuda as ln; "
                            "assert all(hasattr(amp_C, n) for n in APEX_AMP_C) and hasattr(ln, 'forward'), dir(amp_C); "
                            "print(amp_C.__file__, ln.__file__)".replace("APEX_AMP_C", repr(APEX_AMP_C_NAMES))],
                           capture_output=True, text=True, env=child_env({"PYTHONPATH": str(into)}), check=False)
    report = {"arch": arch, "build_exit": code, "wall_s": round(wall, 1), "max_jobs": os.environ["MAX_JOBS"],
              "files_s": files, "import_ok": check.returncode == 0,
              "import_output": (check.stdout + check.stderr)[-600:]}
    (into / "compile.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0 if code == 0 and check.returncode == 0 else 1


def notebook_paths(root: Path = ROOT, pattern: str | None = None) -> list[Path]:
    """The lessons first, then solutions, then exercises: when time runs short, the lessons ran."""
    if pattern:
        return sorted(Path(p).resolve() for p in __import__("glob").glob(pattern))
    return [p for folder in ("notebooks", "solutions", "exercises") for p in sorted((root / folder).glob("*.ipynb"))]


_PYTEST_K = None  # --pytest-k


def pytest_command(out: Path) -> list[str]:
    return [PY, "-m", "pytest", "-m", "gpu", "tests/test_gpu.py", "-q", "-p", "no:cacheprovider",
            f"--junitxml={out / 'pytest-gpu.xml'}"] + (["-k", _PYTEST_K] if _PYTEST_K else [])


def benchmarks_command(slot_s: float = 0.0) -> list[str]:
    # the suite leaves out every family whose estimate no longer fits its slot: never cut off half-way
    return [PY, "-m", "benchmarks", "--mode", "gpu", "--allow-noisy", "--time-budget", str(round(slot_s))]


def notebook_command(path: Path, out: Path, cell_timeout: int) -> list[str]:
    return [PY, str(Path(__file__).resolve()), "--run-notebook", str(path), "--notebook-out",
            str(out / "notebooks" / f"{path.parent.name}__{path.name}"), "--cell-timeout", str(cell_timeout)]


def exit_code(results: list[Result]) -> int:
    """0 when nothing that ran failed (steps left out for lack of time are reported, not failures); a
    step stopped at the end of its slot ran past its own estimate × MARGIN: a hang or a wrong plan, 1."""
    return 1 if any(r.status in ("failed", "stopped") for r in results) else 0


# ------------------------------------------------------------------ running one notebook

CELL_MARK = "@cell "  # run_notebook's progress line, read back by last_cell


def last_cell(log: Path) -> int | None:
    """The index of the last cell the notebook runner started (its log), None before the first."""
    import re

    found = re.findall(rf"^{re.escape(CELL_MARK)}(\d+)$", log.read_text(encoding="utf-8", errors="replace")
                       if log.exists() else "", re.M)
    return int(found[-1]) if found else None


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
    # one line per cell as it starts: when the deadline stops this process, the log says which cell it was in
    client.on_cell_start = lambda cell, cell_index: print(f"{CELL_MARK}{cell_index}", flush=True)
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
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT, env=child_env(env),
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
        return Result("preflight", "failed", detail=hardware.cuda_problem() or t("gpu_check.no_cuda")), info
    facts = hardware.facts("cuda")
    sheet = hardware.datasheet_for(facts.name)
    info.update(gpu=facts.name, capability=list(facts.capability), gpu_count=facts.count,
                memory_gb=round((facts.memory_bytes or 0) / 1e9, 1), precision=hardware.precision_for(facts),
                datasheet=sheet.key if sheet else None, cores=hardware.usable_cores())
    detail = f"{facts.name} (sm{facts.capability[0]}{facts.capability[1]}, {info['memory_gb']} GB) · " + \
             (t("gpu_check.datasheet_row", key=sheet.key) if sheet else t("gpu_check.no_datasheet_row"))
    if missing:
        detail += "\n" + "\n".join(missing_message([m]) for m in missing)  # one line per missing tool
    return Result("preflight", "passed", detail=detail), info


def this_device(info: dict):
    """benchmarks.budget.Device for the GPU preflight found."""
    from benchmarks import budget

    from fastrain_lib.measure import hardware

    f = hardware.Facts("cuda", info["gpu"], tuple(info["capability"]), info["gpu_count"],
                       int(info["memory_gb"] * 1e9))
    return budget.from_facts(f, hardware.datasheet_for(f.name))


def step_pytest(budget: float, out: Path) -> Result:
    cmd = pytest_command(out)
    code, seconds = _run(cmd, budget, out / "pytest-gpu.log")
    status = "passed" if code == 0 else ("stopped" if code is None else "failed")
    detail = _tail(out / "pytest-gpu.log", 25) if code != 0 else _tail(out / "pytest-gpu.log", 1)
    if code is None:
        detail = t("gpu_check.timeout", seconds=round(budget)) + "\n" + detail
    return Result("pytest_gpu", status, seconds, budget, detail, cmd, ["pytest-gpu.log", "pytest-gpu.xml"])


def apex_checks(args, info: dict) -> list[str]:
    import shutil

    import torch

    try:
        nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        nvcc = ""
    return apex_problems(apex_path=Path(args.apex), nvcc_version=cuda_version_of(nvcc), torch_cuda=torch.version.cuda,
                         include_dirs=cuda_include_dirs(), ninja=bool(shutil.which("ninja")),
                         capability=tuple(info["capability"]), torch_arch_list=torch.cuda.get_arch_list(),
                         sources=apex_sources(Path(args.apex)))


def step_apex(args, budget: float, out: Path, info: dict) -> Result:
    if not args.apex:
        return Result("apex", "skipped", detail=t("gpu_check.apex_not_asked"))
    problems = apex_checks(args, info)
    if problems:  # say which check failed; the Apex rows are left out with that reason
        return Result("apex", "skipped", detail=t("gpu_check.apex_skipped") + "\n" + "\n".join(problems))
    into = out / "apex-build"
    cmd = apex_build_command(args.apex, into)
    env = apex_env(tuple(info["capability"]), info.get("cores") or os.cpu_count() or 1)
    code, seconds = _run(cmd, budget, out / "apex-build.log", env)
    if code is None:
        return Result("apex", "stopped", seconds, budget, t("gpu_check.apex_timeout", seconds=round(budget)), cmd,
                      ["apex-build.log"])
    check = subprocess.run([PY, "-c", "from fastrain_lib.fused.apex import apex_status; print(apex_status().state)"],
                           check=False, capture_output=True, text=True, cwd=ROOT, timeout=120,
                           env=child_env({"PYTHONPATH": str(into)}))
    state = check.stdout.strip()
    ok = code == 0 and state == "ok"
    if ok:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(into), os.environ.get("PYTHONPATH")]))
    detail = f"TORCH_CUDA_ARCH_LIST={env['TORCH_CUDA_ARCH_LIST']} · apex_status: {state or check.stderr[-300:]}"
    return Result("apex", "passed" if ok else "failed", seconds, budget, detail, cmd, ["apex-build.log"])


def _files(folders) -> set[Path]:
    return {p for folder in folders if folder.is_dir() for p in folder.glob("*")}


def step_benchmarks(args, budget: float, out: Path) -> Result:
    # reference/ gets a quiet run; a noisy one is kept in results/benchmarks/ (benchmarks --allow-noisy).
    # The suite gets the slot less the margin as its --time-budget and leaves out what no longer fits; the
    # hard limit (the whole slot) is only for a hang.
    folders = (ROOT / "reference", ROOT / "results" / "benchmarks")
    before = _files(folders)
    cmd = benchmarks_command(budget / MARGIN) + (["--only", args.bench_only] if args.bench_only else [])
    code, seconds = _run(cmd, budget, out / "benchmarks.log")
    new = sorted(str(p.relative_to(ROOT)) for p in _files(folders) - before)
    detail = t("gpu_check.bench_files", files=", ".join(new) or "—")
    skipped = [line.split("skipped: ", 1)[1] for line in _tail(out / "benchmarks.log", 400).splitlines()
               if "skipped: " in line]
    detail += "".join(f"\n  – {line[:200]}" for line in skipped)
    if code is None:
        detail = t("gpu_check.timeout", seconds=round(budget)) + "\n" + detail
    elif code != 0:
        detail += "\n" + _tail(out / "benchmarks.log")
    status = "passed" if code == 0 else ("stopped" if code is None else "failed")
    return Result("benchmarks", status, seconds, budget, detail, cmd, ["benchmarks.log"] + new)


def step_notebooks(args, budget: float, out: Path, estimates: dict[str, float] | None = None,
                   cores: int | None = None) -> Result:
    """Every notebook that notebook_plan fits in `budget`, longest first, `jobs` at a time; one whose own
    estimate no longer fits the time left is not started; one still running at the deadline is stopped and
    reported as not finished in time, with the cell it was in (not as failed)."""
    paths = {notebook_name(p): p for p in notebook_paths(pattern=args.notebooks)}
    jobs = max(1, min(args.jobs, cores)) if cores else max(1, args.jobs)  # as plan_for counts them
    est = estimates if estimates is not None else notebook_estimates(list(paths), jobs=jobs,
                                                                     cores=cores or os.cpu_count())
    est = {name: est.get(name, max(est.values(), default=0.0)) for name in paths}
    order, planned_s, left_out = notebook_plan(est, jobs, budget)
    from fastrain_lib.measure import hardware  # (imports torch: already done in a real run, by the preflight)

    threads = hardware.threads_for(jobs)  # the kernels share the cores instead of fighting
    deadline = time.monotonic() + budget
    start = time.monotonic()
    outcome: dict[str, str] = {name: "not_run" for name in left_out}
    seconds: dict[str, float] = {}

    def one(name: str):
        path = paths[name]
        left = deadline - time.monotonic()
        if left < est[name]:  # would not finish by its measured time: not started, never cut off half-way
            outcome[name] = "not_run"
            return
        log = out / "notebooks" / f"{path.parent.name}__{path.stem}.log"
        code, seconds[name] = _run(notebook_command(path, out, args.cell_timeout), left, log,
                                   {"FASTRAIN_MODE": "lab", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": str(threads)})
        if code is None:  # the step's deadline, not an error of the notebook: say where it was
            cell = last_cell(log)
            unfinished[name] = "?" if cell is None else str(cell)
            outcome[name] = "unfinished"
            return
        outcome[name] = "passed" if code == 0 else "failed: " + _tail(log, 3)

    unfinished: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, order))
    failed = {k: v for k, v in outcome.items() if v not in ("passed", "not_run", "unfinished")}
    not_run = [k for k, v in outcome.items() if v == "not_run" and k not in left_out]
    lines = [t("gpu_check.notebooks_count", passed=sum(v == "passed" for v in outcome.values()), total=len(paths))]
    if left_out:
        lines.append(next(iter(left_out.values())))
    lines += [f"  ✗ {k}: {v}" for k, v in sorted(failed.items())]
    if unfinished:
        lines.append(t("gpu_check.unfinished", names=", ".join(f"{k} ({t('gpu_check.cell', cell=c)})"
                                                                for k, c in sorted(unfinished.items()))))
    if not_run:
        lines.append(t("gpu_check.not_run_time", names=", ".join(sorted(not_run))))
    status = "failed" if failed else ("passed" if not (not_run or unfinished or left_out) else "not_run")
    return Result("notebooks", status, time.monotonic() - start, budget, "\n".join(lines),
                  ["<notebook_command per file>"], ["notebooks/"],
                  {"estimate_s": est, "planned_s": planned_s, "run": order, "left_out": left_out,
                   "seconds": {k: round(v, 1) for k, v in seconds.items()}})


# ------------------------------------------------------------------ the whole run

def plan_for(dev, args, out: Path, cores: int | None = None) -> list[Result]:
    """The steps on `dev` with their estimates and slots (what the dry run prints, and what a real run
    follows once preflight has found the GPU)."""
    jobs = max(1, min(args.jobs, cores or args.jobs))
    apex_files = sum(len(v) for v in apex_sources(Path(args.apex)).values()) or 16 if args.apex else 0
    nb_est = notebook_estimates([notebook_name(p) for p in notebook_paths(pattern=args.notebooks)], jobs=jobs,
                                cores=cores)
    est = estimates(dev, apex_files=apex_files, jobs=jobs, notebooks=nb_est, cores=cores)
    asked = wanted_steps(args)
    # a step left out with --steps reserves no time: `--steps benchmarks` gets the budget a whole run would
    # have given pytest as well
    plan = slots({name: (value if name in asked else 0.0) for name, value in est.items()}, args.budget)
    cmds = {"pytest_gpu": pytest_command(out), "benchmarks": benchmarks_command(plan["benchmarks"][0] / MARGIN),
            "apex": apex_build_command(args.apex, out / "apex-build") if args.apex else [],
            "notebooks": notebook_command(Path("notebooks/00_setup.ipynb"), out, args.cell_timeout)}
    results = []
    for step in STEPS:
        if step.name not in asked:
            results.append(Result(step.name, "skipped", detail=t("gpu_check.not_asked")))
            continue
        slot, why = plan[step.name]
        detail = t("gpu_check.estimate", estimate=round(est[step.name]))
        if step.name == "apex" and not args.apex:
            detail = t("gpu_check.apex_not_asked")
        notebooks = {}
        if step.name == "notebooks" and not why:
            run, planned_s, left_out = notebook_plan(nb_est, jobs, slot)
            notebooks = {"estimate_s": nb_est, "planned_s": planned_s, "run": run, "left_out": left_out}
            detail = t("gpu_check.estimate", estimate=round(planned_s)) + " · " + t(
                "gpu_check.notebooks_planned", count=len(run), total=len(nb_est), jobs=jobs,
                margin=round((NOTEBOOK_MARGIN - 1) * 100))
            if left_out:
                detail += "\n" + next(iter(left_out.values()))
            if not run:
                why = t("gpu_check.no_time", seconds=round(slot), needs=round(min(nb_est.values(), default=0)
                                                                             * NOTEBOOK_MARGIN))
        if why:
            detail += " · " + why
        results.append(Result(step.name, "planned" if not why else "skipped", 0.0, round(slot), detail,
                              [str(c) for c in cmds.get(step.name, [])], notebooks=notebooks))
    return results


def wanted_steps(args) -> set[str]:
    """The steps asked for with --steps (all of them by default); the preflight always runs."""
    steps = getattr(args, "steps", None)
    return ({s.strip() for s in steps.split(",") if s.strip()} if steps else {s.name for s in STEPS}) | {"preflight"}


def planned_devices():
    from benchmarks import budget

    from fastrain_lib.measure.datasheet import DATASHEET

    return [(key, budget.from_sheet(DATASHEET[key], cc)) for key, cc in PLANNED_GPUS]


def write_summary(out: Path, results: list[Result], info: dict, args, started: str, extra: str = "") -> None:
    out.mkdir(parents=True, exist_ok=True)
    payload = {"started": started, "budget_s": args.budget, "dry_run": args.dry_run, "machine": info,
               "steps": [asdict(r) for r in results], "exit_code": exit_code(results)}
    if args.dry_run:
        payload["plans"] = {key: [asdict(r) for r in plan_for(dev, args, out, cores=16)] for key, dev in planned_devices()}
    (out / "summary.json").write_text(json.dumps(payload, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    lines = [t("gpu_check.title", started=started, budget=round(args.budget))]
    lines += _lines(results, args.dry_run)
    for key, steps in (payload.get("plans") or {}).items():
        lines.append(t("gpu_check.plan_for", gpu=key, total=round(sum(s["budget_s"] for s in steps))))
        lines += _lines([Result(**s) for s in steps], False)
    (out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(t("gpu_check.where", path=out))


def _lines(results: list[Result], commands: bool) -> list[str]:
    lines = []
    for r in results:
        lines.append(f"{r.status:8} {r.name:11} {r.seconds:6.0f} s / {r.budget_s:4.0f} s  "
                     f"{r.detail.splitlines()[0] if r.detail else ''}")
        lines += [f"{'':32}{line}" for line in r.detail.splitlines()[1:]]
        if commands and r.command:
            lines.append(f"{'':32}$ {' '.join(r.command)}")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dry-run", action="store_true", help="list every step with its estimate, slot and command")
    p.add_argument("--budget", type=float, default=480.0, help="seconds for the whole run (default 8 minutes)")
    p.add_argument("--out", default=None, help="folder for the summary and logs (default gpu-check/<time>/)")
    p.add_argument("--wheels", default=None, help="folder of wheels to install missing tools from (pip --no-index)")
    p.add_argument("--apex", default=None, help="a checkout of NVIDIA Apex to build for this GPU")
    p.add_argument("--jobs", type=int, default=6, help="notebooks executed at the same time")
    p.add_argument("--cell-timeout", type=int, default=300, help="seconds one notebook cell may take")
    p.add_argument("--steps", default=None, help="comma-separated steps to run (default: all)")
    p.add_argument("--notebooks", default=None, help="a glob of notebooks instead of all of them")
    p.add_argument("--bench-only", default=None, help="benchmark families to run (python -m benchmarks --only)")
    p.add_argument("--pytest-k", default=None, help="pytest -k expression for the GPU tests")
    p.add_argument("--run-notebook", default=None, help=argparse.SUPPRESS)
    p.add_argument("--notebook-out", default=None, help=argparse.SUPPRESS)
    p.add_argument("--build-apex", default=None, help=argparse.SUPPRESS)
    p.add_argument("--apex-into", default=None, help=argparse.SUPPRESS)
    p.add_argument("--compile-apex", default=None, help="compile only Apex's two extensions (no GPU needed) into "
                   "--apex-into for --arch, and report each file's time and the import")
    p.add_argument("--arch", default="9.0", help="with --compile-apex: TORCH_CUDA_ARCH_LIST (7.5 for a T4, 9.0 for an H100)")
    args = p.parse_args(argv)
    unknown = wanted_steps(args) - {s.name for s in STEPS}
    if unknown:  # a typo would run nothing and pass
        p.error(f"--steps: unknown {', '.join(sorted(unknown))} (known: {', '.join(s.name for s in STEPS)})")
    if args.run_notebook:
        return run_notebook(Path(args.run_notebook), Path(args.notebook_out) if args.notebook_out else None,
                            args.cell_timeout)
    if args.build_apex:
        return build_apex(Path(args.build_apex), Path(args.apex_into))
    if args.compile_apex:
        return compile_apex(Path(args.compile_apex), args.arch,
                            Path(args.apex_into or ROOT / "gpu-check" / f"apex-{args.arch}"))
    global _PYTEST_K
    _PYTEST_K = args.pytest_k

    started = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = Path(args.out) if args.out else ROOT / "gpu-check" / started.replace(":", "")
    if args.dry_run:  # this machine's GPU if it has one, else a T4 (the smallest our users have)
        dev = planned_devices()[0][1]
        try:
            from fastrain_lib.measure import hardware

            if hardware.cuda_available():
                f = hardware.facts("cuda")
                dev = this_device({"gpu": f.name, "capability": f.capability, "gpu_count": f.count,
                                   "memory_gb": (f.memory_bytes or 0) / 1e9})
        except ImportError:  # no torch here: the plan still prints
            pass
        write_summary(out, plan_for(dev, args, out), {"dry_run": True, "planned_on": dev.name}, args, started)
        return 0

    clock = time.monotonic()
    results: list[Result] = []
    pre, info = preflight(args, out)
    pre.seconds = time.monotonic() - clock
    results.append(pre)
    if pre.status != "passed":
        for step in STEPS[1:]:
            results.append(Result(step.name, "not_run", detail=t("gpu_check.after_preflight")))
        write_summary(out, results, info, args, started)
        return 2
    wanted = wanted_steps(args)
    planned = {r.name: r for r in plan_for(this_device(info), args, out, cores=info.get("cores"))}
    info["plan"] = {name: r.budget_s for name, r in planned.items()}
    pre.budget_s = planned["preflight"].budget_s  # its slot, printed like the others'
    for step in STEPS[1:]:
        slot = planned[step.name].budget_s
        if step.name == "notebooks":  # the notebooks take what the others left
            slot = max(0.0, args.budget - (time.monotonic() - clock))
        if step.name not in wanted:
            results.append(Result(step.name, "skipped", budget_s=slot, detail=t("gpu_check.not_asked")))
            continue
        missing = missing_tools(step.tools)
        if missing:
            results.append(Result(step.name, "failed", detail="\n".join(missing_message([m]) for m in missing)))
            continue
        if planned[step.name].status == "skipped" and (step.name != "apex" or args.apex):  # does not fit: as planned
            results.append(Result(step.name, "skipped", budget_s=slot, detail=planned[step.name].detail))
            continue
        if step.name == "pytest_gpu":
            results.append(step_pytest(slot, out))
        elif step.name == "apex":
            results.append(step_apex(args, slot, out, info))
        elif step.name == "benchmarks":
            results.append(step_benchmarks(args, slot, out))
        elif step.name == "notebooks":
            results.append(step_notebooks(args, slot, out, cores=info.get("cores")))
    write_summary(out, results, info, args, started)
    return exit_code(results)


if __name__ == "__main__":
    sys.exit(main())
