"""One term per idea, as fastrain_lib/glossary.md spells it (issue 16). Each entry: a spelling the
course no longer uses, and what to write instead. Checked in every notebook, exercise, solution
and catalog message (what students read); the glossary itself may name the old words."""

import re
from pathlib import Path

import pytest

from fastrain_lib import authoring

ROOT = Path(__file__).resolve().parents[1]
NOT_BN = r"(?![\u0980-\u09FF])"
RETIRED = {
    r"সিড(?:ের|েরা|ে)?" + NOT_BN: "উৎস-প্রবন্ধ (the source articles; 'সিড' reads as a random seed)",
    r"বীজ-প্রবন্ধ|মূল লেখার পঞ্চম|উৎস-লেখা|উৎস লেখার": "উৎস-প্রবন্ধ (one term for the source articles)",
    r"নির্ভুলতা": "প্রিসিশন for precision, সঠিকতা for accuracy",
    r"জায়গায় বসে": "ইন-প্লেস (in-place)",
    r"উপাদান-ভিত্তিক": "এলিমেন্টওয়াইজ (elementwise)",
    r"synchronisation": "synchronization",
    r"ব্যাচ আকার": "batch আকার (batch size)",
    r"বিরল \(sparse\)|বিরল আপডেট": "স্পার্স (sparse)",
    r"FACTS(?:\.md)?\b": "the primary source itself (FACTS.md is not part of the course)",
}
FILES = authoring.all_notebooks(ROOT) + sorted((ROOT / "fastrain_lib" / "catalog").glob("*.py"))


# NOT YET FIXED at the 08:00 deadline (reported to the lead); the owner removes the entry when fixed.
NOT_YET_FIXED: dict[str, str] = {}
PARAMS = [pytest.param(p, id=p.relative_to(ROOT).as_posix(),
                       marks=[pytest.mark.xfail(reason=NOT_YET_FIXED[p.relative_to(ROOT).as_posix()], strict=False)]
                       if p.relative_to(ROOT).as_posix() in NOT_YET_FIXED else [])
          for p in FILES]


@pytest.mark.parametrize("path", PARAMS)
def test_retired_terms_are_gone(path):
    text = path.read_text(encoding="utf-8")
    found = [f"{m.group(0)!r} → {advice}" for pattern, advice in RETIRED.items() for m in re.finditer(pattern, text)]
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(sorted(set(found)))


def test_the_patterns_catch_what_they_should():
    def hits(text):
        return [p for p in RETIRED if re.search(p, text)]
    assert hits("সিডের লুপ") and hits("সিডে যেমন") and hits("মূল লেখার পঞ্চম অংশ") and hits("FACTS.md দেখো")
    assert not hits("সিডি-রম") and not hits("torch.manual_seed(0)") and not hits("FACTSHEET")
    assert hits("মিশ্র নির্ভুলতা") and hits("জায়গায় বসে সরায়")


def test_glossary_has_the_terms_used_instead():
    glossary = (ROOT / "fastrain_lib" / "glossary.md").read_text(encoding="utf-8")
    for term in ("মিশ্র প্রিসিশন (mixed precision)", "প্রিসিশন (precision)", "সঠিকতা (accuracy)", "ইন-প্লেস (in-place)",
                 "এলিমেন্টওয়াইজ (elementwise)", "সিঙ্ক্রোনাইজেশন (synchronization)", "batch আকার (batch size)",
                 "স্পার্স আপডেট (sparse update)", "উৎস-প্রবন্ধ"):
        assert term in glossary, term


def test_latin_terms_the_lessons_keep_are_glossary_terms():
    # Bengali output keeps these in Latin script (an algorithm's name, the parameter server's two
    # operations, a random seed): the glossary explains them, so the English-word check allows them.
    # 'peak' is not one of them: the lessons say শীর্ষ গতি.
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from _nbrun import glossary_latin

    latin = glossary_latin(ROOT)
    assert {"hogwild", "push", "pull", "seed"} <= latin
    assert "peak" not in latin
