"""Colab as it ships, on this machine: a Python environment with Colab's own pinned versions
(scripts/colab-pins.txt), a stand-in `google.colab` that its kernel imports before the first cell,
and a Jupyter kernel for it. tests/test_colab.py runs the lessons' real setup cell in it.

    python scripts/colab_env.py build     # build (or reuse) the cached environment, print path and seconds
    python scripts/colab_env.py path      # where the cached environment is (or would be)

Why it is built this way:
- Cached between runs under ~/.cache/fastrain/colab-env-<key> (FASTRAIN_COLAB_CACHE moves it): the
  key hashes the pins file, the Python version and FORMAT, so changing any of them builds a new one
  and an old one is never reused by mistake; a new build removes the older ones (several GB each).
  A build happens in a temporary folder that is renamed when complete: an interrupted build is never
  taken for a finished one.
- Colab's own torch (2.11, with its torchvision and triton, pinned in the pins file) is installed
  from PyPI with every CUDA library it names (about 4.7 GB, 90 s here), not the project's newer
  torch: the lessons must run on the torch a student's Colab has (issue 41). PyPI's torch 2.11 for
  Linux is built for CUDA 13.0 where Colab's is for 12.8; on a machine without a GPU both run the
  same CPU code, and the CUDA libraries are only loaded.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINS = ROOT / "scripts" / "colab-pins.txt"
FORMAT = 2  # bump when the way the environment is built changes (part of the cache key)
BUILD_TIMEOUT_S = 1500  # the whole build took about 3 minutes here with a cold cache; a slow mirror gets 25
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


def cache_key(python: str | None = None) -> str:
    parts = [PINS.read_bytes(), _python_version(python).encode(), str(FORMAT).encode()]
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
    _pip(work, "-q", "-r", str(PINS))
    installed = packages(work / "bin" / "python")
    wrong = {n: (v, installed.get(n)) for n, v in pins().items() if installed.get(n) != v}
    if wrong:
        raise RuntimeError(f"pins not installed as written (wanted, got): {wrong}")
    (work / COMPLETE).write_text(json.dumps({"pins": pins(), "packages": installed,
                                             "built_s": round(time.monotonic() - started, 1)}, indent=1))
    try:
        work.rename(target)
    except OSError:  # another process finished the same build first: use that one
        shutil.rmtree(work, ignore_errors=True)
    _remove_older(target)
    if not quiet:
        print(f"built in {time.monotonic() - started:.0f} s: {target}")
    return target


def _remove_older(kept: Path) -> None:
    """Other finished environments in the cache (built from older pins or an older FORMAT): each
    holds a whole torch, so keeping them would fill a lab PC's or CI's disk."""
    for old in kept.parent.glob("colab-env-*"):
        if old != kept and (old / COMPLETE).is_file():
            shutil.rmtree(old, ignore_errors=True)


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
