"""Real-browser tests: a JupyterLab (or Voilà) server we start ourselves + Debian's Chromium.

Everything here is started once per pytest session (per xdist worker) and stopped at the
end, even when a test fails: the server's own PID and process group are killed, and so are
the kernels it started (they run in their own sessions, so we collect them with psutil).
Playwright never downloads a browser: we always launch /usr/bin/chromium.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("FASTRAIN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]
ARTIFACTS = REPO / "artifacts" / "screenshots"
LOGS = REPO / "artifacts" / "logs"
START_TIMEOUT_S = 120

# JupyterLab settings for a clean, quiet browser session: no news pop-up, no update check,
# and no autosave (running the notebooks must never write outputs into the files).
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    # Render every cell: with windowing, cells scrolled out of view are not laid out and
    # their text reads as empty to the test (seen with lesson 05's panel).
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.browser)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return  # it answered (Voilà has no status page): the server is up
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"server did not answer {url} in {timeout} s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(proc: subprocess.Popen, log: Path | None = None) -> None:
    """Stop the server, its process group and every process it started (kernels); keep its
    log in artifacts/logs/ (git-ignored) for whoever reads a failed CI run."""
    import psutil

    if log is not None and log.exists():
        LOGS.mkdir(parents=True, exist_ok=True)
        shutil.copy(log, LOGS / log.name)

    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)  # start_new_session=True: the group id is the server's pid
        except ProcessLookupError:
            break
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue
    for child in children:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(children, timeout=5)


def _start(cmd: list[str], env: dict, cwd: Path, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _base_env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update(
        FASTRAIN_MODE="ci",
        FASTRAIN_RESULTS=str(tmp / "results"),
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTER_PLATFORM_DIRS="1",
        IPYTHONDIR=str(tmp / "ipython"),
        PYTHONUNBUFFERED="1",
    )
    # tests/conftest.py sets MPLBACKEND=Agg for the unit tests; a student's kernel has the
    # inline backend, so the browser must see that one.
    for var in ("JPY_SESSION_NAME", "MPLBACKEND"):
        env.pop(var, None)
    return env


def _root_flag() -> list[str]:
    return ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


def _course_copy(tmp: Path) -> Path:
    """The repository seen by the server: notebooks/ copied (so nothing can write into the real
    files), every other top-level entry linked (lessons may read reference/, data, ...)."""
    root = tmp / "course"
    root.mkdir()
    for entry in REPO.iterdir():
        if entry.name.startswith(".") or entry.name == "notebooks":
            continue
        (root / entry.name).symlink_to(entry)
    shutil.copytree(REPO / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return root


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1: yields (base_url, token, course_root)."""
    tmp = tmp_path_factory.mktemp("lab")
    root = _course_copy(tmp)
    settings = tmp / "app-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES))
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.app_settings_dir={settings}", f"--LabApp.user_settings_dir={tmp / 'user-settings'}",
           f"--LabApp.workspaces_dir={tmp / 'workspaces'}", "--LabApp.news_url=", *_root_flag()]
    log = tmp / "jupyterlab.log"
    proc = _start(cmd, _base_env(tmp), root, log)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_http(f"{base}/api/status?token={token}", proc, log)
        yield base, token, root
    finally:
        _stop(proc, log)


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory):
    """Voilà serving the instructor dashboard on 127.0.0.1: yields the page URL (with token)."""
    tmp = tmp_path_factory.mktemp("voila")
    notebook = REPO / "notebooks" / "99_instructor_dashboard.ipynb"
    if not notebook.exists():
        pytest.skip("notebooks/99_instructor_dashboard.ipynb is missing")
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "voila", "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}",
           "--Voila.port_retries=0", f"--token={token}", "--show_tracebacks=True", str(notebook)]
    log = tmp / "voila.log"
    proc = _start(cmd, _base_env(tmp), REPO, log)
    try:
        url = f"http://127.0.0.1:{port}/?token={token}"
        _wait_http(f"http://127.0.0.1:{port}/voila/static/", proc, log)
        yield url
    finally:
        _stop(proc, log)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium through Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="bn-BD")
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
