"""Colab as it ships, on this machine: a Python environment with Colab's own pinned versions
(scripts/colab-pins.txt), a stand-in `google.colab` that its kernel imports before the first cell,
and a Jupyter kernel for it. tests/test_colab.py runs the lessons' real setup cell in it.

    python scripts/colab_env.py build     # build (or reuse) the cached environment, print path and seconds
    python scripts/colab_env.py path      # where the cached environment is (or would be)

Why it is built this way:
- Cached between runs under ~/.cache/fastrain/colab-env-<key> (FASTRAIN_COLAB_CACHE moves it): the
  key hashes the pins file, the Python version, the torch it links and FORMAT, so changing any of
  them builds a new one and an old one is never reused by mistake. A build happens in a temporary
  folder that is renamed when complete: an interrupted build is never taken for a finished one.
- torch is not downloaded: the project's own torch, torchvision, triton and their CUDA libraries
  (.venv, several GB) are linked into a folder that a .pth file puts at the *end* of sys.path, and
  their dist-info folders with them, so pip sees them installed as it sees Colab's torch. Only the
  small pure-Python packages torch needs (sympy, networkx, ...) are installed, as Colab has them.
  A venv with --system-site-packages would not do: torch lives in .venv, beside ipywidgets 8 and
  matplotlib 3.11, which must not be visible here.
- Each test gets its own copy (hard links: a few seconds, no extra disk), because the setup cell's
  install changes the environment; pip replaces files (new inodes) and never writes into one, so
  the cached environment stays as built.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINS = ROOT / "scripts" / "colab-pins.txt"
FORMAT = 1  # bump when the way the environment is built changes (part of the cache key)
BUILD_TIMEOUT_S = 1500  # the whole build took 96 s here with a cold cache; a slow mirror gets 25 minutes
# Linked from the project's environment, never downloaded (the big binary ones).
LINKED = re.compile(r"^(torch|torchvision|triton|nvidia-.+|cuda-.+)$")
LINK_DIR = "colab-torch"
PTH_NAME = "zz-fastrain-colab-torch.pth"  # zz: read last, so the linked folder comes last on sys.path
COMPLETE = ".fastrain-colab-env.json"

STAND_IN = '''"""Stand-in for Colab's google.colab package (scripts/colab_env.py).

Colab's kernel imports google.colab before the first cell runs; the course detects Colab by it
(fastrain_lib.measure.probe.is_colab). Nothing else of Colab is imitated here."""

STAND_IN = True
'''


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    """{package: version} from the pins file (comments and blank lines skipped)."""
    found = {}
    for line in PINS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            found[_normalize(name)] = version.strip()
    return found


def _torch_dist() -> metadata.Distribution:
    try:
        return metadata.distribution("torch")
    except metadata.PackageNotFoundError:
        raise SystemExit("✗ এই Python-এ torch নেই: আগে `make install` চালাও, তারপর এই স্ক্রিপ্ট "
                         "(.venv/bin/python scripts/colab_env.py build)।\n"
                         "✗ torch is not installed in this Python: run `make install` first, then this script "
                         "with .venv/bin/python.") from None


def cache_key(python: str | None = None) -> str:
    torch = _torch_dist()
    parts = [PINS.read_bytes(), _python_version(python).encode(), str(torch.locate_file("")).encode(),
             torch.version.encode(), str(FORMAT).encode()]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:12]


def _python(python: str | None) -> str:
    # The interpreter .venv was made from (a venv's own python would nest venvs).
    return python or getattr(sys, "_base_executable", None) or sys.executable


def _python_version(python: str | None) -> str:
    out = subprocess.run([_python(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


def cache_root() -> Path:
    return Path(os.environ.get("FASTRAIN_COLAB_CACHE") or Path.home() / ".cache" / "fastrain")


def env_path(python: str | None = None) -> Path:
    return cache_root() / f"colab-env-{cache_key(python)}"


def _site_packages(env: Path) -> Path:
    found = sorted(env.glob("lib/python3.*/site-packages"))
    if len(found) != 1:
        raise RuntimeError(f"expected one site-packages folder in {env}, found {found}")
    return found[0]


def _requested(dist: metadata.Distribution, extras: set[str]) -> list[tuple[str, set[str]]]:
    """The (name, extras) a distribution needs here, with its markers evaluated for `extras`."""
    from packaging.requirements import Requirement

    needed = []
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
            continue
        needed.append((_normalize(req.name), set(req.extras)))
    return needed


def linked_distributions() -> list[metadata.Distribution]:
    """torch, torchvision and every binary package they need (LINKED), from this interpreter."""
    todo, seen, found = [("torch", set()), ("torchvision", set())], set(), []
    while todo:
        name, extras = todo.pop()
        key = (name, frozenset(extras))
        if key in seen:
            continue
        seen.add(key)
        dist = metadata.distribution(name)
        if name not in {_normalize(d.metadata["Name"]) for d in found}:
            found.append(dist)
        todo += [(n, e) for n, e in _requested(dist, extras) if LINKED.match(n)]
    return found


def _link_torch(env: Path) -> list[str]:
    """Symlink the LINKED packages (their files and dist-info) into env/LINK_DIR; a relative .pth
    puts that folder last on sys.path (relative: the environment can be copied elsewhere)."""
    link_dir = env / LINK_DIR
    link_dir.mkdir()
    names = []
    for dist in linked_distributions():
        site = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in sorted(tops):
            if (site / top).exists() and not (link_dir / top).exists():
                (link_dir / top).symlink_to(site / top)
        names.append(f"{dist.metadata['Name']}=={dist.version}")
    site_packages = _site_packages(env)
    (site_packages / PTH_NAME).write_text(os.path.relpath(link_dir, site_packages) + "\n")
    return names


def _pip(env: Path, *args: str, timeout: float = BUILD_TIMEOUT_S) -> None:
    command = [str(env / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
        raise RuntimeError(f"Colab-এর মতো পরিবেশ বানানো গেল না / could not build the Colab-like environment:\n"
                           f"{' '.join(command)}\n{tail}")


def packages(python: Path | str) -> dict[str, str]:
    """{normalized name: version} of what `python` sees, first on sys.path winning (as pip does)."""
    code = ("import importlib.metadata as m, json, re\nout = {}\nfor d in m.distributions():\n"
            "    n = re.sub(r'[-_.]+', '-', d.metadata['Name']).lower()\n    out.setdefault(n, d.version)\n"
            "print(json.dumps(out))")
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def build(python: str | None = None, quiet: bool = True) -> Path:
    """The cached Colab-like environment, built first if it is not there (returns its path)."""
    target = env_path(python)
    if (target / COMPLETE).is_file():
        return target
    started = time.monotonic()
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.with_name(f"{target.name}.building-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run([_python(python), "-m", "venv", str(work)], check=True, timeout=300, capture_output=True)
    linked = _link_torch(work)
    # torch==/torchvision== name the linked versions: pip finds them installed and adds only what
    # they need that is missing (sympy, networkx, a newer setuptools, ...), as Colab's image has.
    _pip(work, "-q", "-r", str(PINS), *[n for n in linked if n.split("==")[0] in ("torch", "torchvision")])
    installed = packages(work / "bin" / "python")
    wrong = {n: (v, installed.get(n)) for n, v in pins().items() if installed.get(n) != v}
    if wrong:
        raise RuntimeError(f"pins not installed as written (wanted, got): {wrong}")
    (work / COMPLETE).write_text(json.dumps({"pins": pins(), "linked": linked, "packages": installed,
                                             "built_s": round(time.monotonic() - started, 1)}, indent=1))
    try:
        work.rename(target)
    except OSError:  # another process finished the same build first: use that one
        shutil.rmtree(work, ignore_errors=True)
    if not quiet:
        print(f"built in {time.monotonic() - started:.0f} s: {target}")
    return target


@dataclass
class Runtime:
    """One throw-away Colab-like runtime: its python, and a kernel spec folder for nbclient."""

    root: Path
    python: Path
    kernel_dirs: list[str]
    kernel_name: str = "colab"


def make_runtime(dest: Path, *, matplotlib_loaded: bool, env: dict | None = None) -> Runtime:
    """Copy the cached environment to `dest` (hard links) and give it a kernel that, as Colab's,
    imports google.colab before the first cell; `matplotlib_loaded` also imports matplotlib.pyplot
    there (Colab's runtime or a student's cell having loaded it before the setup cell)."""
    base = build()
    shutil.copytree(base, dest, symlinks=True, copy_function=os.link)
    colab = _site_packages(dest) / "google" / "colab"  # no google/__init__.py: a namespace, as on Colab
    colab.mkdir(parents=True)
    (colab / "__init__.py").write_text(STAND_IN)
    startup = "import google.colab" + ("; import matplotlib.pyplot" if matplotlib_loaded else "")
    spec_dir = dest / "kernels" / "colab"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [str(dest / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}",
                 f"--IPKernelApp.exec_lines={startup}"],
        "display_name": "Colab as shipped (stand-in)",
        "language": "python",
        # Colab's runtime sets COLAB_RELEASE_TAG; the course's ci sizes keep the run short.
        "env": {"COLAB_RELEASE_TAG": "fastrain-stand-in", **(env or {})},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1))
    return Runtime(dest, dest / "bin" / "python", [str(dest / "kernels")])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("build", "path"))
    parser.add_argument("--python", help="the Python to build it with (default: the one .venv was made from)")
    args = parser.parse_args(argv)
    if args.action == "path":
        print(env_path(args.python))
        return 0
    started = time.monotonic()
    path = build(args.python)
    print(f"{path} ({time.monotonic() - started:.1f} s; {sysconfig.get_python_version()} driver)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
