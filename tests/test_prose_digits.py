"""The digit rule, as stated in fastrain_lib/glossary.md and README.bn.md:

    বাংলা গদ্যে সংখ্যা বাংলা অঙ্কে লেখা হয় (৩ গুণ, ২টি কোর)। পশ্চিমা অঙ্ক (0–9) থাকে কোডে,
    প্রোগ্রামের আউটপুটে, টেবিলে, প্লটে, গণিতের সূত্রে, আর যেখানে অঙ্কটি কোনো লাতিন নামের অংশ
    (T4, A100, H200, fp16, sm80)।

Checked on the Markdown cells of every notebook, exercise and solution. Not prose (ignored):
fenced code, `code spans`, table rows, $math$, URLs and link targets, HTML tags, the numbers of
Markdown's numbered lists. A Western digit
in what is left is allowed only where it belongs to a Latin name:
- in a word with a Latin letter: T4, A100, fp16, sm_80, x16, 2D, 1e-3, pytorch/pytorch#71274, and
  formulas written with Latin variables ((K−1)/(M+K−1), n/6);
- a version after a capitalised name or a package: PyTorch 1.12, PCIe 5.0, matplotlib 3.11;
- an upper-case name and its number: RTX 3090, NIPS 2011;
- inside an English phrase of three or more words of 3+ letters (a cited title: "Communications of the ACM 52(4), 2009").
"""

import re

import nbformat
import pytest

from fastrain_lib import authoring

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
NOTEBOOKS = authoring.all_notebooks(ROOT)
RULE = ("বাংলা গদ্যে সংখ্যা বাংলা অঙ্কে লেখা হয় (৩ গুণ, ২টি কোর)। পশ্চিমা অঙ্ক (0–9) থাকে কোডে, প্রোগ্রামের আউটপুটে, "
        "টেবিলে, প্লটে, গণিতের সূত্রে, আর যেখানে অঙ্কটি কোনো লাতিন নামের অংশ (T4, A100, H200, fp16, sm80)।")

PACKAGES = "matplotlib|torch|torchvision|triton|numpy|python|pip|apex|horovod|ipywidgets|nbval|voila"
BENGALI_LETTER = r"\u0980-\u09E5\u09F0-\u09FF"  # Bengali script without its digits


def prose_only(markdown: str) -> str:
    """The sentences a student reads: code, tables, math, URLs and tags blanked out."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    text = "\n".join(" " if line.lstrip().startswith("|") else line for line in text.splitlines())
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\]\([^)]*\)", "] ", text)
    text = re.sub(r"https?://\S+|www\.\S+", " ", text)
    text = re.sub(r"<[^>\n]+>", " ", text)
    text = re.sub(r"^(\s*)[0-9]+[.)] ", r"\1", text, flags=re.MULTILINE)  # Markdown list numbers: not prose
    return text


def _latin_name_digits(text: str) -> str:
    """Blank out the digits that belong to a Latin name (see the module docstring)."""
    # An English phrase of 3+ words between Bengali letters: a cited title, an English name.
    def phrase(match):
        stretch = match.group(0)
        return re.sub(r"[0-9]", " ", stretch) if len(re.findall(r"[A-Za-z]{3,}", stretch)) >= 3 else stretch
    text = re.sub(rf"[^{BENGALI_LETTER}\n]+", phrase, text)
    # versions: a capitalised name (PyTorch 1.12, PCIe 5.0) or a package (matplotlib 3.11); not "loop 1.82"
    text = re.sub(rf"\b(?:[A-Z][A-Za-z]*|{PACKAGES}) [0-9]+(?:\.[0-9]+)+", lambda m: re.sub(r"[0-9]", " ", m.group(0)), text)
    text = re.sub(r"\b[A-Z][A-Za-z]*[A-Z] [0-9]+\b", lambda m: re.sub(r"[0-9]", " ", m.group(0)), text)  # RTX 3090
    # In a word with a Latin letter: a name (fp16, A100, 2D, x16, sm_80, pytorch/pytorch#71274) or a
    # formula written with Latin variables ((K−1)/(M+K−1), β1·m, n/6).
    text = re.sub(r"\S*[A-Za-z]\S*", lambda m: re.sub(r"[0-9]", " ", m.group(0)), text)
    return text


def western_digits_in_prose(markdown: str) -> list[str]:
    """The words of prose that hold a Western digit against the rule."""
    text = _latin_name_digits(prose_only(markdown))
    return [m.group(0).strip() for m in re.finditer(r"\S*[0-9]\S*", text)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(ROOT).as_posix() for p in NOTEBOOKS])
def test_bengali_prose_uses_bengali_digits(path):
    problems = []
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "markdown":
            found = western_digits_in_prose(cell.source)
            if found:
                problems.append(f"cell {index}: {found[:8]}")
    assert not problems, (f"{path.relative_to(ROOT)}: Western digits in Bengali prose (write ৩ গুণ, ২টি কোর; "
                          f"keep code, numbers in tables and Latin names as they are):\n" + "\n".join(problems))


@pytest.mark.parametrize("text, bad", [
    ("২টি কোরে ৪টি প্রসেস, T4-এর 320 GB/s নয়, ৩২০ GB/s", ["320"]),
    ("2 কোরে 4 প্রসেস", ["2", "4"]),
    ("fused ৩.৬× দ্রুত, for-loop 1.82 ms", ["1.82"]),
    ("A100, H200, fp16, sm_80, x16, 2D আর `x = 3` — সব ঠিক", []),
    ("PyTorch 1.12 থেকে, PCIe 5.0 x16, RTX 3090-তে", []),
    ("| পাঠ | 03 |\n| --- | --- |\n| ক | 42 |", []),
    ("গণিত: $2n^3$ আর ```\nfor i in range(10):\n```", []),
    ("- S. Williams, \"Roofline: An Insightful Model\", CACM 52(4), 2009: https://doi.org/10.1145/1", []),
    ("[লিংক](https://x.org/a1/2) আর <img width=\"300\">", []),
    ("১০–১৫% দ্রুত, কিন্তু 10–15% নয়", ["10–15%"]),
    ("1. প্রথম\n2. দ্বিতীয়: (K−1)/(M+K−1)-এর মান, কিন্তু 1-এর পরে", ["1-এর"]),
    ("pytorch/pytorch#71274 আর NVIDIA/apex#1896 দেখো; 6·10⁸ নয়", ["6·10⁸"]),
])
def test_the_rule_itself(text, bad):
    assert western_digits_in_prose(text) == bad


def test_rule_is_stated_the_same_in_glossary_and_readme():
    glossary = (ROOT / "fastrain_lib" / "glossary.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.bn.md").read_text(encoding="utf-8")
    assert RULE in glossary and RULE in readme
    assert "সংখ্যা পশ্চিমা অঙ্কে" not in readme + glossary  # the old, opposite rule


# --- the library's messages are program output: Western digits, as the rule says ---------------
# Except where the Bengali digits are the data itself (the Bengali-digits dataset, a lesson-07
# check about digits in Bengali text).
DIGITS_ARE_DATA = {"data.bengali_name", "data.mnist_missing", "checking.l07.digit_as_letter"}


def test_library_messages_write_numbers_in_western_digits():
    """A catalog message prints its numbers in Western digits ({threads} = 2); a literal Bengali digit
    beside them ('2টি থ্রেডে ..., কিন্তু ১টি থ্রেডে') mixed both in one printed sentence."""
    from fastrain_lib.core.i18n import CATALOG

    bengali_digit = re.compile("[\u09e6-\u09ef]")
    mixed = {key: texts["bn"] for key, texts in CATALOG.items()
             if key not in DIGITS_ARE_DATA and bengali_digit.search(texts.get("bn", ""))}
    assert not mixed, mixed
    assert all(bengali_digit.search(CATALOG[key]["bn"]) for key in DIGITS_ARE_DATA)  # no stale exemption
