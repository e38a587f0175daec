"""The web font the setup cell gives the page (fastrain_lib.ui.webfont): the real faces, both weights."""

from __future__ import annotations

import base64
import io
import re

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
