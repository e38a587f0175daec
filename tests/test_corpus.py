"""The capstone's Bengali corpus: NFC, cleaning, vocabulary, split, grapheme-safe windows."""

import itertools
import json
import unicodedata

import pytest

from fastrain_lib import corpus


@pytest.fixture(scope="module")
def built():
    return corpus.build()


def test_corpus_is_nfc_bengali_and_split(built):
    assert unicodedata.is_normalized("NFC", built.text)
    assert "\u200b" not in built.text
    letters = [ch for ch in built.text if ch.isalpha()]
    assert letters and all(corpus.is_bengali(ch) for ch in letters)  # no Latin letters survive
    assert len(built.train) > 5 * len(built.val) > 0
    assert {"glossary.md", "catalog"} <= set(built.sources)


def test_encode_decode_roundtrip_and_unknown(built):
    sample = built.decode(built.train[:500])
    assert torch_equal(built.encode(sample), built.train[:500])
    with pytest.raises(ValueError, match="vocabulary|শব্দভান্ডার"):
        built.encode("hello")


def torch_equal(a, b):
    return a.tolist() == b.tolist()


def test_nfc_makes_one_spelling():
    decomposed = "\u0995\u09c7\u09be"  # ক + ে + া: NFC composes the two-part vowel sign ো
    assert corpus.normalize(decomposed) == "\u0995\u09cb"
    assert corpus.normalize("\u09dc") == "\u09a1\u09bc"  # ড় is a composition exclusion: NFC splits it


def test_clean_keeps_bengali_drops_code_and_english():
    text = "## মিশ্র নির্ভুলতা (mixed precision)\n```python\nx = 1\n```\nThis is English only.\nGPU-তে চালাও `torch.compile`!"
    cleaned = corpus.clean(text)
    assert "মিশ্র নির্ভুলতা" in cleaned
    assert "()" not in cleaned and "x = 1" not in cleaned and "English" not in cleaned
    assert "চালাও" in cleaned


def test_tidy_removes_only_dangling_marks():
    assert corpus.tidy("িকাজ") == "কাজ"  # vowel sign at the start
    assert corpus.tidy("কাজ ্ক") == "কাজ ক"  # hasanta after a space
    assert corpus.tidy("ক্ষমতা") == "ক্ষমতা"  # a conjunct stays whole
    assert corpus.tidy("র\u200d্যাঙ্ক") == "র\u200d্যাঙ্ক"  # ZWJ + hasanta (র‍্য) stays
    assert corpus.tidy("ভেতরেিপ") == "ভেতরেপ"  # a second vowel sign has no consonant
    assert corpus.tidy("আঁকা বাংলা") == "আঁকা বাংলা"  # candrabindu on a vowel, anusvara on a sign


def test_graphemes_keep_conjuncts_together():
    assert corpus.graphemes("ক্ষমতা") == ["ক্ষ", "ম", "তা"]
    assert all(not corpus.is_mark(g[0]) for g in corpus.graphemes("কিছু কথা: কি, কী, কৌশল, ত্রুটি"))


def test_batches_start_on_grapheme_boundaries(built):
    x, y = next(iter(built.batches("train", batch_size=64, block_size=16, seed=1)))
    assert x.shape == y.shape == (64, 16)
    assert torch_equal(x[:, 1:], y[:, :-1])  # y is x shifted by one
    for row in x:
        assert not corpus.is_mark(built.chars[int(row[0])])
    with pytest.raises(ValueError):
        built.batches("val", batch_size=2, block_size=10**7)


def test_batches_are_reproducible(built):
    windows = built.batches("train", 4, 8, seed=3)
    a = list(itertools.islice(windows, 2))
    b = list(itertools.islice(windows, 2))  # iterating again replays the same batches
    assert all(torch_equal(p[0], q[0]) for p, q in zip(a, b))


def test_user_txt_files_join_the_corpus(tmp_path):
    (tmp_path / "my.txt").write_text("আমার সোনার বাংলা, আমি তোমায় ভালোবাসি।\n", encoding="utf-8")
    nb = tmp_path / "repo" / "notebooks"
    nb.mkdir(parents=True)
    nb.joinpath("01_x.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["## এটি একটি শিরোনাম\n", "এখানে কিছু বাংলা লেখা।"]},
        {"cell_type": "code", "source": "print('কোডসেলবাক্য')"}]}), encoding="utf-8")
    built = corpus.build(tmp_path, repo_dir=tmp_path / "repo")
    assert "data/my.txt" in built.sources and "notebooks/01_x.ipynb" in built.sources
    assert "সোনার বাংলা" in built.text and "বাংলা লেখা" in built.text
    assert "কোডসেলবাক্য" not in built.text  # code cells are not prose


def test_prompt_and_word_share(built):
    prompt = built.prompt()
    assert prompt and not corpus.is_mark(prompt[0])
    built.encode(prompt)
    words = built.words()
    assert corpus.word_share("কোর্স মেশিন", words) == 1.0
    assert corpus.word_share("ঙঙঙ ৯ৎ", words) == 0.0


def test_tidy_and_graphemes_keep_real_words_with_joiners_whole():
    # র‍্যাব, র‍্যাঙ্ক, র‍্যাম: র + ZWJ (U+200D) + ্ + য; উদ্‌যাপন: ্ + ZWNJ (U+200C); ক্র, ট্র্যাক: no joiner
    for word in ["র\u200d্যাব", "র\u200d্যাঙ্ক", "র\u200d্যাম", "উদ্\u200cযাপন", "ক্র", "ট্র্যাক"]:
        assert corpus.tidy(word) == word and corpus.tidy("ি " + word) == " " + word
        assert "".join(corpus.graphemes(word)) == word
        assert all(not corpus.is_mark(g[0]) for g in corpus.graphemes(word))
    assert corpus.graphemes("র\u200d্যাব") == ["র\u200d্যা", "ব"]  # র‍্যা is one cluster
    assert corpus.tidy("কাজ \u200d্যা") == "কাজ যা"  # a ZWJ after a space dangles, and the hasanta after it
