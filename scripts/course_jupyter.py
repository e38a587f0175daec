"""`make lab` and `make demo` start JupyterLab and Voilà through this script, so that the page draws
Bengali with the course's font from its first paint, before any cell runs (issue 27).

    python scripts/course_jupyter.py --dir DIR lab   [jupyter lab arguments...]
    python scripts/course_jupyter.py --dir DIR voila [voila arguments...]
    python scripts/course_jupyter.py --dir DIR prepare     # write the files only, print what it set

Without it, a browser on a PC without a Bengali system font (most lab PCs, CI) shows every heading
and paragraph of a lesson as empty boxes until the student runs the setup cell, which displays the
font's <style> (fastrain_lib.ui.webfont.inject) — and the sentence that asks them to run it is in
boxes too. Here the same CSS (webfont.page_css: the bundled Noto Sans Bengali, SIL OFL, as data
URLs, and the theme's font stacks with the course's family first) is given to the page itself:

- JupyterLab 4 (>= 4.1) loads `custom/custom.css` from the Jupyter config dir in its <head> when
  started with `--LabApp.custom_css=True` (JupyterLab's documented custom-CSS switch; 4.6 has no
  other). The config dir is a course-local one, DIR/config (JUPYTER_CONFIG_DIR for this launch only);
  the user's own config dir (~/.jupyter, or their JUPYTER_CONFIG_DIR) is still READ — put on
  JUPYTER_CONFIG_PATH, and their user settings and workspaces stay where they were
  (JUPYTERLAB_SETTINGS_DIR, JUPYTERLAB_WORKSPACES_DIR) — and never written to by this script. A
  custom.css of their own is appended after the course's rules.
- Voilà: a template "fastrain" (conf.json: based on "lab") in DIR/data/voila/templates, found
  through JUPYTER_PATH (Voilà's documented template search path), whose index.html.j2 extends the
  lab template and adds the stylesheet to its notebook_css block; `--template=fastrain`.

The files are written again at each launch (cheap: a few hundred kB), so a changed font or rule in
webfont.py is never served stale. The process then becomes JupyterLab or Voilà (exec): stopping
`make lab` with Ctrl+C stops the server as before.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = "fastrain"
STYLE_ID = "fastrain-webfont-page"


def _write(path: Path, text: str) -> None:
    """Write only when the content changed, through a temporary file (a server reading the old
    file never sees half of the new one)."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _user_config_dir(env: dict[str, str]) -> Path:
    """The config dir Jupyter would use without us (JUPYTER_CONFIG_DIR, else ~/.jupyter)."""
    from jupyter_core.paths import jupyter_config_dir

    saved = os.environ.get("JUPYTER_CONFIG_DIR")
    try:
        if "JUPYTER_CONFIG_DIR" in env:
            os.environ["JUPYTER_CONFIG_DIR"] = env["JUPYTER_CONFIG_DIR"]
        else:
            os.environ.pop("JUPYTER_CONFIG_DIR", None)
        return Path(jupyter_config_dir()).expanduser().resolve()
    finally:
        if saved is None:
            os.environ.pop("JUPYTER_CONFIG_DIR", None)
        else:
            os.environ["JUPYTER_CONFIG_DIR"] = saved


def voila_template(css: str) -> str:
    """index.html.j2 of the "fastrain" Voilà template: the lab template plus the stylesheet."""
    return ("{%- extends 'lab/index.html.j2' -%}\n"
            "{#- The course's Bengali font in the page's <head>, before any cell runs (scripts/course_jupyter.py) -#}\n"
            "{%- block notebook_css -%}\n{{ super() }}\n"
            f'<style id="{STYLE_ID}">\n{{% raw %}}\n{css}{{% endraw %}}\n</style>\n'
            "{%- endblock notebook_css -%}\n")


def prepare(course_dir: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """Write DIR/config/custom/custom.css and the Voilà template; return the environment for the
    server (a copy of `env`, default os.environ, with the course's dirs first)."""
    sys.path.insert(0, str(REPO))
    from fastrain_lib.ui import webfont

    env = dict(os.environ if env is None else env)
    course_dir = course_dir.expanduser().resolve()
    config, data = course_dir / "config", course_dir / "data"
    user = _user_config_dir(env)
    css = webfont.page_css()
    own = user / "custom" / "custom.css"
    if user != config and own.is_file():
        css += f"\n/* the user's own {own} */\n" + own.read_text(encoding="utf-8", errors="replace") + "\n"
    _write(config / "custom" / "custom.css", css)
    templates = data / "voila" / "templates" / TEMPLATE
    _write(templates / "conf.json", json.dumps({"base_template": "lab"}, indent=2) + "\n")
    _write(templates / "index.html.j2", voila_template(css))

    if user != config:
        env.setdefault("JUPYTERLAB_SETTINGS_DIR", str(user / "lab" / "user-settings"))
        env.setdefault("JUPYTERLAB_WORKSPACES_DIR", str(user / "lab" / "workspaces"))
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (str(user), env.get("JUPYTER_CONFIG_PATH")) if p)
    env["JUPYTER_CONFIG_DIR"] = str(config)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(data), env.get("JUPYTER_PATH")) if p)
    return env


def command(app: str, args: list[str]) -> list[str]:
    """The server's command line: the same Python (the course's .venv) and the course's switches."""
    if app == "lab":
        return [sys.executable, "-m", "jupyterlab", "--LabApp.custom_css=True", *args]
    if app == "voila":
        return [sys.executable, "-m", "voila", f"--template={TEMPLATE}", *args]
    raise ValueError(app)


LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _option(args: list[str], *names: str) -> str | None:
    """The value of the last `--name=value` among args for any of names (None when absent)."""
    value = None
    for arg in args:
        for name in names:
            if arg.startswith(f"--{name}="):
                value = arg.split("=", 1)[1]
    return value


def require_token(app: str, args: list[str]) -> tuple[list[str], str | None]:
    """(args, the URL to print). Voilà serves without a token unless given one, and the dashboard's
    buttons run code on this machine: on any address but loopback (a lab's LAN, 0.0.0.0) a token is
    generated when none was given, as JupyterLab does for itself (issue 41). On loopback: unchanged."""
    if app != "voila":
        return args, None
    ip = _option(args, "Voila.ip", "ip") or "localhost"
    if ip in LOOPBACK:
        return args, None
    import secrets

    token = _option(args, "token", "Voila.token")
    if not token:
        token = secrets.token_hex(24)
        args = [*args, f"--token={token}"]
    port = _option(args, "port", "Voila.port") or "8866"
    host = "<এই মেশিনের ঠিকানা / this machine's address>" if ip in ("0.0.0.0", "::") else ip
    return args, f"http://{host}:{port}/?token={token}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, required=True, help="the course-local Jupyter folder (Makefile: .venv/fastrain-jupyter)")
    parser.add_argument("app", choices=["lab", "voila", "prepare"])
    parser.add_argument("args", nargs=argparse.REMAINDER)
    opts = parser.parse_args(argv)
    env = prepare(opts.dir)
    if opts.app == "prepare":
        for key in ("JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH", "JUPYTER_PATH", "JUPYTERLAB_SETTINGS_DIR",
                    "JUPYTERLAB_WORKSPACES_DIR"):
            if key in env:
                print(f"{key}={env[key]}")
        return 0
    args, url = require_token(opts.app, opts.args)
    if url:
        print("→ ড্যাশবোর্ড নেটওয়ার্কে খোলা, তাই টোকেন লাগবে; ছাত্রছাত্রীদের নয়, শুধু যাঁরা চালাবেন তাঁদের এই URL দাও:\n"
              "→ the dashboard is open to the network, so it needs its token; give this URL only to those who may run it:\n"
              f"   {url}")
    cmd = command(opts.app, args)
    sys.stdout.flush()
    os.execve(cmd[0], cmd, env)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
