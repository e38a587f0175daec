"""make demo on a lab network (issue 41): the dashboard's buttons run code on the instructor's machine, so on
any address but loopback Voilà gets a token even when none was given, and a request without it sees nothing."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import course_jupyter  # noqa: E402

OUTPUT = "printed by the first cell of the dashboard"


def lan_address() -> str:
    """This machine's first non-loopback IPv4 address (what a lab PC would type), else 0.0.0.0 (every address)."""
    for addrs in psutil.net_if_addrs().values():
        for a in addrs:
            if a.family == socket.AF_INET and not a.address.startswith("127."):
                return a.address
    return "0.0.0.0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect to the login page is an answer, not something to follow


def fetch(url: str) -> tuple[int, str]:
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=60) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def test_the_token_rule_over_addresses_and_given_tokens():
    """Loopback stays as it was; any other address gets a token, the given one when there is one."""
    for ip in ("127.0.0.1", "localhost", "::1"):
        args = [f"--Voila.ip={ip}", "--port=9"]
        assert course_jupyter.require_token("voila", args) == (args, None)
    for ip in ("0.0.0.0", "192.168.1.20", "10.0.0.5"):
        args, url = course_jupyter.require_token("voila", [f"--Voila.ip={ip}", "--port=9"])
        token = re.search(r"--token=([0-9a-f]{48})$", args[-1]).group(1)
        assert url.endswith(f":9/?token={token}")
        given, url = course_jupyter.require_token("voila", [f"--Voila.ip={ip}", "--token=lab-secret"])
        assert given == [f"--Voila.ip={ip}", "--token=lab-secret"] and url.endswith("?token=lab-secret")
    assert course_jupyter.require_token("lab", ["--ip=0.0.0.0"]) == (["--ip=0.0.0.0"], None)  # JupyterLab makes its own


def test_the_dashboard_on_a_lan_address_refuses_a_request_without_its_token(tmp_path):
    notebook = tmp_path / "board.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                                               "outputs": [], "source": [f"print({OUTPUT!r})"]}],
                                    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                                "name": "python3"}},
                                    "nbformat": 4, "nbformat_minor": 5}))
    ip, port = lan_address(), free_port()
    host = "127.0.0.1" if ip == "0.0.0.0" else ip
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "course_jupyter.py"), "--dir",
                                   str(tmp_path / "jupyter"), "voila", "--no-browser", f"--Voila.ip={ip}",
                                   f"--port={port}", str(notebook)], stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                status, _ = fetch(f"http://{host}:{port}/")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                assert server.poll() is None, log.read_text()
                time.sleep(0.5)
        else:
            pytest.fail("Voilà did not answer in 90 s:\n" + log.read_text())
        token = re.search(r"\?token=([0-9a-f]{48})", log.read_text()).group(1)
        status, body = fetch(f"http://{host}:{port}/")
        assert status in (302, 403) and OUTPUT not in body, (status, body[:300])
        status, body = fetch(f"http://{host}:{port}/?token={'0' * 48}")
        assert status in (302, 403) and OUTPUT not in body, status
        status, body = fetch(f"http://{host}:{port}/?token={token}")
        assert status == 200 and OUTPUT in body, (status, body[-300:])
    finally:
        server.terminate()
        server.wait(timeout=30)
