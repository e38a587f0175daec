"""Issue 41: the course runs on Windows lab PCs, where a process is only ever started with `spawn` and there is
no fork, prctl, /proc, process groups or most POSIX signals. Every use of such an API in the library and the
benchmark suite must stand in a guarded branch: inside a `try:` (the fallback is the except), or under an `if`
that asks the platform (sys.platform, os.name, hasattr, Colab, which is Linux). A static list, checked on every
file, so a new unguarded call fails here rather than on the first Windows PC that meets it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# scripts/ is left out: gpu_check.py and colab_env.py run on a Linux GPU server and on CI, not on a lab PC.
SCANNED = [*sorted((ROOT / "fastrain_lib").rglob("*.py")), *sorted((ROOT / "benchmarks").rglob("*.py"))]
POSIX_ONLY = {"prctl", "fork", "forkpty", "killpg", "setsid", "setpgrp", "getpgid", "sched_getaffinity",
              "sched_setaffinity", "getloadavg", "setitimer", "alarm", "SIGKILL", "SIGSTOP", "SIGCONT", "SIGUSR1",
              "SIGUSR2", "SIGHUP", "SIGALRM", "SIGQUIT", "SIGCHLD"}
GUARD_WORDS = ("platform", "hasattr", "os.name", "colab", "linux", "posix", "win32")


def posix_only_uses(source: str) -> list[ast.AST]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in POSIX_ONLY:
            found.append(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(("/proc/", "libc.so")):
            found.append(node)
        elif isinstance(node, ast.Constant) and node.value == "fork":
            found.append(node)  # a start method (multiprocessing.get_context("fork"))
    return found


def unguarded(source: str) -> list[int]:
    """Line numbers of POSIX-only uses that no try or platform question surrounds."""
    tree = ast.parse(source)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    uses = {(n.lineno, n.col_offset) for n in posix_only_uses(source)}
    lines = []
    for node in ast.walk(tree):
        if (getattr(node, "lineno", None), getattr(node, "col_offset", None)) not in uses or isinstance(node, ast.expr_context):
            continue
        if not isinstance(node, (ast.Attribute, ast.Constant)):
            continue
        up, guarded = node, False
        while up in parents and not guarded:
            up = parents[up]
            if isinstance(up, ast.Try):
                guarded = True
            elif isinstance(up, (ast.If, ast.IfExp, ast.While)):
                guarded = any(word in ast.unparse(up.test).lower() for word in GUARD_WORDS)
        if not guarded:
            lines.append(node.lineno)
    return sorted(set(lines))


def test_every_posix_only_call_is_guarded():
    problems = [f"{path.relative_to(ROOT)}:{line}" for path in SCANNED
                for line in unguarded(path.read_text(encoding="utf-8"))]
    assert not problems, "POSIX-only API outside a try or a platform check (Windows has none): " + ", ".join(problems)


def test_the_scan_finds_what_it_must():
    assert unguarded("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n") == [2]
    assert unguarded("import os\nn = len(os.sched_getaffinity(0))\n") == [2]
    assert unguarded("open('/proc/cpuinfo').read()\n") == [1]
    assert unguarded("import multiprocessing as mp\nctx = mp.get_context('fork')\n") == [2]
    assert unguarded("import os\ntry:\n    n = len(os.sched_getaffinity(0))\nexcept AttributeError:\n    n = 1\n") == []
    assert unguarded("import sys, os, signal\nif sys.platform.startswith('linux'):\n    os.kill(1, signal.SIGKILL)\n") == []
    assert unguarded("import os\nx = os.getloadavg() if hasattr(os, 'getloadavg') else None\n") == []
    assert unguarded("import os\nif x > 1:\n    os.killpg(1, 9)\n") == [3]  # a condition that is not about the platform
