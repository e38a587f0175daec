"""The web font the setup cell gives the page (fastrain_lib.ui.webfont): the real faces, both weights;
and the same CSS the page loads itself before any cell runs (make lab / make demo through
scripts/course_jupyter.py, issue 27)."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from fontTools.ttLib import TTFont

from fastrain_lib.ui import webfont

WORDS = "প্রশিক্ষণ দ্রুত করার বাংলা কোর্স — ক্ষ, ঙ্গ, র‍্যাম"  # conjuncts, reph, ZWJ


def _faces(css: str) -> list[tuple[int, TTFont, str]]:
    faces = []
    for rule in re.findall(r"@font-face \{(.*?)\}", css):
        low, high = (int(w) for w in re.search(r"font-weight: (\d+) (\d+)", rule).groups())
        weight = 400 if low <= 400 <= high else 700
        data = re.search(r"base64,([A-Za-z0-9+/=]+)\)", rule).group(1)
        faces.append((weight, TTFont(io.BytesIO(base64.b64decode(data))), rule))
    return faces


def test_style_embeds_regular_and_bold_faces_that_cover_bengali():
    faces = _faces(webfont.style_html())
    assert sorted(w for w, _, _ in faces) == [400, 700]
    for weight, font, rule in faces:
        assert font["OS/2"].usWeightClass == weight  # bold is the real bold face, not a copy of regular
        cmap = font.getBestCmap()
        missing = {c for c in WORDS if ord(c) >= 0x0980 and ord(c) not in cmap}
        assert not missing, f"weight {weight} lacks {missing}"
        assert f'font-family: "{webfont.FAMILY}"' in rule and "U+0980-09FF" in rule


def test_weight_ranges_leave_no_gap():
    """Every weight from 1 to 1000 is answered by exactly one face (headings are 500)."""
    ranges = [tuple(int(w) for w in re.search(r"font-weight: (\d+) (\d+)", rule).groups())
              for rule in re.findall(r"@font-face \{(.*?)\}", webfont.font_face_css())]
    for weight in (1, 100, 400, 500, 549, 550, 600, 700, 900, 1000):
        assert sum(low <= weight <= high for low, high in ranges) == 1, weight


def test_course_family_is_first_in_every_stack():
    """First, so a Bengali letter never reaches a system font (Chromium drew a Voilà heading in
    one as boxes while the course font was last); unicode-range keeps Latin in the theme's fonts."""
    css = webfont.stack_css()
    for var in ("--jp-ui-font-family", "--jp-content-font-family", "--jp-code-font-family"):
        stack = re.search(rf"{var}: ([^;]+);", css).group(1)
        assert stack.lstrip().startswith(f'"{webfont.FAMILY}",'), var
        assert "sans-serif" in stack or "monospace" in stack  # the theme's fonts follow for Latin
    assert "unicode-range: U+0980-09FF" in webfont.font_face_css()


def test_inject_outside_ipython_does_nothing(capsys):
    webfont.inject()
    assert capsys.readouterr().out == ""


# --- The page itself brings the font: make lab / make demo (issue 27, scripts/course_jupyter.py) ----
REPO = Path(__file__).resolve().parents[1]


def _course_jupyter():
    spec = importlib.util.spec_from_file_location("course_jupyter", REPO / "scripts" / "course_jupyter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_css_holds_both_faces_and_the_stacks():
    css = webfont.page_css()
    assert sorted(w for w, _, _ in _faces(css)) == [400, 700]
    assert webfont.stack_css() in css and "<style" not in css  # a stylesheet, not HTML


def test_prepare_writes_custom_css_and_voila_template_and_leaves_the_users_config_alone(tmp_path):
    cj = _course_jupyter()
    user = tmp_path / "home-jupyter"
    (user / "custom").mkdir(parents=True)
    (user / "custom" / "custom.css").write_text(".mine { color: red; }\n")
    before = {p: p.read_bytes() for p in user.rglob("*") if p.is_file()}
    env = cj.prepare(tmp_path / "course", {"JUPYTER_CONFIG_DIR": str(user), "JUPYTER_PATH": "/elsewhere"})

    css = (tmp_path / "course" / "config" / "custom" / "custom.css").read_text()
    assert css.startswith(webfont.page_css()) and ".mine { color: red; }" in css  # theirs after ours
    assert env["JUPYTER_CONFIG_DIR"] == str((tmp_path / "course" / "config").resolve())
    # their config is still read, their settings and workspaces stay theirs, nothing written there
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0] == str(user.resolve())
    assert env["JUPYTERLAB_SETTINGS_DIR"] == str(user.resolve() / "lab" / "user-settings")
    assert env["JUPYTERLAB_WORKSPACES_DIR"] == str(user.resolve() / "lab" / "workspaces")
    assert env["JUPYTER_PATH"].split(os.pathsep) == [str((tmp_path / "course" / "data").resolve()), "/elsewhere"]
    assert {p: p.read_bytes() for p in user.rglob("*") if p.is_file()} == before

    template = tmp_path / "course" / "data" / "voila" / "templates" / "fastrain"
    assert json.loads((template / "conf.json").read_text()) == {"base_template": "lab"}
    import jinja2

    source = (template / "index.html.j2").read_text()
    jinja2.Environment().parse(source)  # valid Jinja: the CSS is inside {% raw %}
    assert "extends 'lab/index.html.j2'" in source and "{{ super() }}" in source and webfont.page_css() in source


def test_voila_renders_the_template_with_the_font_in_the_head(tmp_path):
    """The template as Voilà itself finds and renders it (JUPYTER_PATH, base template "lab")."""
    cj = _course_jupyter()
    env = cj.prepare(tmp_path / "course", {"JUPYTER_CONFIG_DIR": str(tmp_path / "user")})
    code = (
        "from voila.paths import collect_template_paths\n"
        "import jinja2, sys\n"
        "paths = collect_template_paths(['voila', 'nbconvert'], 'fastrain', prune=True)\n"
        "assert paths[0].endswith('voila/templates/fastrain'), paths[:3]\n"
        "env = jinja2.Environment(loader=jinja2.FileSystemLoader(paths))\n"
        "source = env.loader.get_source(env, 'index.html.j2')[0]\n"
        "assert 'fastrain-webfont-page' in source\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_command_lines_switch_on_custom_css_and_the_template():
    cj = _course_jupyter()
    assert cj.command("lab", ["--port=1"])[1:] == ["-m", "jupyterlab", "--LabApp.custom_css=True", "--port=1"]
    assert cj.command("voila", ["x.ipynb"])[1:] == ["-m", "voila", "--template=fastrain", "x.ipynb"]


def test_makefile_lab_and_demo_start_through_course_jupyter():
    """`make -n` prints what make lab / make demo would run: `python -m fastrain_lib lab|demo` (issue 41: one
    implementation, also where there is no make), whose --print-only shows the launcher's command line."""
    for target, app in (("lab", " lab "), ("demo", " voila ")):
        out = subprocess.run(["make", "-n", "--no-print-directory", "-o", ".venv/.fastrain-installed", target],
                             cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
        assert out.returncode == 0, out.stderr
        made = out.stdout.replace("\\\n", " ").split()
        assert made[1:4] == ["-m", "fastrain_lib", target] and "--no-install" in made, out.stdout
        shown = subprocess.run([sys.executable, "-m", "fastrain_lib", *made[3:], "--print-only"], cwd=REPO,
                               capture_output=True, text=True, timeout=60, check=False)
        lines = [line for line in shown.stdout.splitlines() if "course_jupyter.py" in line]
        assert len(shown.stdout.splitlines()) == 1, shown.stdout  # no install step: make has its own rule
        assert lines and app in lines[0] and "--dir .venv/fastrain-jupyter" in lines[0], shown.stdout + shown.stderr
