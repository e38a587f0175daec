"""The Bengali text the capstone GPT learns to write, and its character vocabulary.

Everything is assembled offline from what the course already contains:
- the Bengali prose of the lesson notebooks (their Markdown cells, in a checkout),
- the glossary (fastrain_lib/glossary.md, shipped with the package),
- the Bengali side of the message catalog (always present, also on Colab),
- plus any .txt files the student drops into `config.data_dir()/corpus/`.

Cleaning keeps Bengali text and drops what a character model cannot learn from a few
pages (code, URLs, English words): a line is kept when most of its letters are Bengali,
and from a kept line only Bengali characters, spaces and a few punctuation marks remain.
All text is NFC-normalised first, so "ক + ় " and "ক়" cannot become two spellings.

Tokens: one token per Unicode code point after NFC (a vocabulary of ~100 symbols, as in
nanoGPT's Shakespeare-char). Bengali writes a syllable as a base letter plus combining
marks (vowel signs such as ি, the hasanta ্ that joins consonants into a conjunct, ং ঃ ঁ).
A code point on its own is a fine thing to predict, but text that *starts* with a mark
(or a mark after a space) cannot be drawn: the font shows a dotted circle. So:
- training windows start only at a grapheme boundary (`boundaries`),
- generation starts from a whole word, and
- `tidy` removes any dangling mark before a sample is displayed.
Tests in tests/test_corpus.py check each of these.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import torch

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t

BENGALI = (0x0980, 0x09FF)
ZWNJ, ZWJ = "\u200c", "\u200d"  # some Bengali words need these joiners (র‍্যাঙ্ক); keep them
HASANTA = "\u09cd"  # ্ : joins two consonants into a conjunct (ক + ্ + ষ = ক্ষ)
PUNCTUATION = " \n।,;:?!-–()'\"‘’“”"
MIN_BENGALI_SHARE = 0.5  # a line is Bengali prose when at least half its letters are Bengali


def is_bengali(ch: str) -> bool:
    return len(ch) == 1 and BENGALI[0] <= ord(ch) <= BENGALI[1]


def is_mark(ch: str) -> bool:
    """A combining mark: a vowel sign, hasanta, ং ঃ ঁ, nukta — never the start of a grapheme."""
    return unicodedata.category(ch) in ("Mn", "Mc") or ch in (ZWNJ, ZWJ)


def normalize(text: str) -> str:
    """NFC, Unix newlines, no zero-width spaces or BOMs (ZWJ/ZWNJ stay: words need them)."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\u200b", "").replace("\ufeff", "")


# --- cleaning ------------------------------------------------------------------------------
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")  # [text](url) -> text
_URL = re.compile(r"https?://\S+")
_CODE = re.compile(r"`[^`]*`")


def bengali_share(line: str) -> float:
    line = _CODE.sub(" ", _URL.sub(" ", line))  # code and URLs do not count against a line
    letters = [ch for ch in line if ch.isalpha() or is_mark(ch)]
    return sum(is_bengali(ch) for ch in letters) / len(letters) if letters else 0.0


def clean_line(line: str) -> str:
    """Keep only Bengali characters, joiners and a little punctuation; tidy spaces."""
    line = _CODE.sub(" ", _URL.sub(" ", _MD_LINK.sub(r"\1", line)))
    kept = "".join(ch if (is_bengali(ch) or ch in (ZWNJ, ZWJ) or ch in PUNCTUATION) else " " for ch in line)
    kept = re.sub(r"\(\s*[^\w\s]*\s*\)", " ", kept)  # brackets that held only English: ( )
    # Removing English words leaves holes: "GPU-তে" -> " -তে", "(ল্যাব, Colab)" -> "(ল্যাব, )".
    kept = re.sub(r"(^|\s)[-–](?=[\u0980-\u09ff])", r"\1", kept)
    kept = re.sub(r"[ \t]+", " ", kept)
    kept = re.sub(r" ([,;:।?!)])", r"\1", kept)
    kept = re.sub(r"([,;:])(\s*[,;:])+", r"\1", kept)
    kept = re.sub(r"\(\s*[,;:]\s*", "(", kept)
    kept = re.sub(r"\s*[,;:]\s*\)", ")", kept)
    kept = re.sub(r"\(\s*\)|\"\s*\"|“\s*”", " ", kept)
    kept = re.sub(r"[ \t]+", " ", kept)
    return tidy(kept.strip(" -–,;:"))


def clean(text: str) -> str:
    """Bengali prose paragraphs from Markdown/plain text (see the module docstring)."""
    lines = []
    for raw in normalize(text).split("\n"):
        if raw.lstrip().startswith(("|", "```", "<")):  # tables (glossary rows), code fences, HTML
            if raw.lstrip().startswith("|"):
                raw = " ".join(cell for cell in raw.split("|"))
            else:
                continue
        if bengali_share(raw) < MIN_BENGALI_SHARE:
            lines.append("")  # a paragraph break, so sources do not run together
            continue
        line = clean_line(raw)
        lines.append(line if len(line) >= 3 else "")
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


# --- sources -------------------------------------------------------------------------------
def notebook_prose(path: Path) -> str:
    """The Markdown cells of one notebook, joined."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    cells = [c for c in data.get("cells", []) if c.get("cell_type") == "markdown"]
    return "\n\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells)


def catalog_prose() -> str:
    """The Bengali side of every catalog message (placeholders such as {value} removed)."""
    from fastrain_lib.core.i18n import CATALOG

    texts = [re.sub(r"\{[^}]*\}", " ", entry.get("bn", "")) for entry in CATALOG.values()]
    return "\n\n".join(texts)


def user_dir() -> Path:
    """Where a student can put extra Bengali .txt files (created on first use)."""
    path = config.data_dir() / "corpus"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sources(extra_dir: Path | None = None, repo_dir: Path | None = config.REPO_DIR) -> dict[str, str]:
    """{source name: raw text} from every place listed in the module docstring."""
    found: dict[str, str] = {}
    if repo_dir is not None:
        for nb in sorted((Path(repo_dir) / "notebooks").glob("*.ipynb")):
            found[f"notebooks/{nb.name}"] = notebook_prose(nb)
        readme = Path(repo_dir) / "README.bn.md"
        if readme.exists():
            found["README.bn.md"] = readme.read_text(encoding="utf-8")
    found["glossary.md"] = (config.PACKAGE_DIR / "glossary.md").read_text(encoding="utf-8")
    found["catalog"] = catalog_prose()
    for txt in sorted(Path(extra_dir or user_dir()).glob("*.txt")):
        found[f"data/{txt.name}"] = txt.read_text(encoding="utf-8", errors="replace")
    return found


# --- the corpus ----------------------------------------------------------------------------
@dataclass
class Corpus:
    """Cleaned text, its vocabulary, and the train/validation split as token tensors."""

    text: str
    chars: list[str]  # the vocabulary: one entry per code point, sorted
    train: torch.Tensor  # int64 token ids
    val: torch.Tensor
    sources: dict[str, int]  # source name -> characters it contributed after cleaning

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> torch.Tensor:
        """Text -> token ids. Characters outside the vocabulary are a clear error, not a silent skip."""
        text = normalize(text)
        index = {ch: i for i, ch in enumerate(self.chars)}
        unknown = sorted({ch for ch in text if ch not in index})
        if unknown:
            raise ValueError(t("corpus.unknown_chars", chars=" ".join(repr(c) for c in unknown[:10])))
        return torch.tensor([index[ch] for ch in text], dtype=torch.long)

    def decode(self, ids) -> str:
        """Token ids -> text (exactly; use `tidy` before showing a sample)."""
        return "".join(self.chars[int(i)] for i in ids)

    def words(self) -> set[str]:
        """Every word of the corpus (for measuring how many generated words are real)."""
        if getattr(self, "_words", None) is None:
            self._words = set(re.findall(r"[\u0980-\u09ff\u200c\u200d]+", self.text))
        return self._words

    def batches(self, split: str, batch_size: int, block_size: int, *, seed: int = 0, device="cpu") -> Windows:
        """Endless (x, y) batches of random windows; y is x shifted by one character.

        Windows start only at grapheme boundaries, never on a combining mark. The result can
        be iterated again and gives the same batches (train.train's resume replays it)."""
        data = {"train": self.train, "val": self.val}[split]
        starts = boundaries(data, self.chars, block_size)
        if len(starts) == 0:
            raise ValueError(t("corpus.too_small", split=split, n=len(data), block=block_size))
        return Windows(data, starts, batch_size, block_size, seed, device)

    def prompt(self, seed: int = 0) -> str:
        """A short, whole word from the validation text to start generation from."""
        words = sorted(w for w in set(re.findall(r"[\u0980-\u09ff]+", self.decode(self.val))) if 2 <= len(w) <= 8)
        words = [w for w in words if not is_mark(w[0])]
        return random.Random(seed).choice(words) if words else self.chars[0]


class Windows:
    """Re-iterable, endless random windows of a token tensor (the same order for the same seed)."""

    def __init__(self, data, starts, batch_size, block_size, seed=0, device="cpu"):
        self.data, self.starts, self.batch_size, self.block_size = data, starts, batch_size, block_size
        self.seed, self.device = seed, device

    def __iter__(self):
        rng = random.Random(self.seed)
        n = self.block_size
        while True:
            ix = [self.starts[rng.randrange(len(self.starts))] for _ in range(self.batch_size)]
            x = torch.stack([self.data[i:i + n] for i in ix])
            y = torch.stack([self.data[i + 1:i + 1 + n] for i in ix])
            yield x.to(self.device), y.to(self.device)


def boundaries(data: torch.Tensor, chars: list[str], block_size: int) -> list[int]:
    """Positions i where a window data[i : i + block_size + 1] fits and starts a grapheme."""
    marks = {i for i, ch in enumerate(chars) if is_mark(ch)}
    last = len(data) - block_size - 1
    return [i for i, tok in enumerate(data.tolist()[: max(last + 1, 0)]) if tok not in marks]


CONSONANTS = set(map(chr, range(0x0995, 0x09BA))) | {"\u09dc", "\u09dd", "\u09df"}  # ক..হ, ড় ঢ় য়
VOWELS = set(map(chr, range(0x0985, 0x0995)))  # অ..ঔ (independent vowels)
NUKTA = "\u09bc"
SIGNS = set(map(chr, range(0x09BE, 0x09CD))) | {"\u09d7"}  # া ি ী ু ূ ৃ ে ৈ ো ৌ and the au length mark
MODIFIERS = {"\u0981", "\u0982", "\u0983"}  # ঁ ং ঃ


def attaches(prev: str, ch: str) -> bool:
    """May the mark `ch` follow `prev`? Bengali's rules, simplified: a vowel sign, the
    hasanta and the nukta need a consonant; ঁ ং ঃ may also follow a vowel or a vowel sign;
    ZWJ/ZWNJ sit next to a consonant or a hasanta (র‍্য, ক্‌ষ)."""
    if ch == NUKTA:
        return prev in CONSONANTS
    if ch in SIGNS or ch == HASANTA:
        return prev in CONSONANTS or prev == NUKTA or (ch == HASANTA and prev == ZWJ)
    if ch in MODIFIERS:
        return prev in CONSONANTS or prev in VOWELS or prev in SIGNS or prev == NUKTA
    if ch in (ZWJ, ZWNJ):
        return prev in CONSONANTS or prev == HASANTA
    return prev != ""


def tidy(text: str) -> str:
    """Remove combining marks that cannot attach to what comes before them (at the start,
    after a space, a second vowel sign), so a sample never shows a dotted circle."""
    out: list[str] = []
    for ch in text:
        if is_mark(ch) and not attaches(out[-1] if out else "", ch):
            continue  # dangling: nothing to attach to
        out.append(ch)
    return "".join(out)


def graphemes(text: str) -> list[str]:
    """Split into user-perceived characters: a base letter with its marks; a hasanta
    also pulls in the next consonant (ক্ষ is one cluster). Good enough for Bengali."""
    clusters: list[str] = []
    for ch in text:
        if clusters and (is_mark(ch) or clusters[-1].endswith((HASANTA, ZWJ))):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


def build(extra_dir: Path | None = None, *, val_every: int = 10, repo_dir: Path | None = config.REPO_DIR) -> Corpus:
    """Clean every source, build the vocabulary and split paragraphs: every `val_every`-th
    paragraph goes to validation (so both halves see every source), the rest to training."""
    cleaned = {name: clean(raw) for name, raw in sources(extra_dir, repo_dir).items()}
    cleaned = {name: text for name, text in cleaned.items() if text}
    paragraphs = [p for text in cleaned.values() for p in text.split("\n\n") if p.strip()]
    if not paragraphs:
        raise ValueError(t("corpus.empty", folder=str(extra_dir or user_dir())))
    train_text = "\n\n".join(p for i, p in enumerate(paragraphs) if i % val_every != val_every - 1)
    val_text = "\n\n".join(p for i, p in enumerate(paragraphs) if i % val_every == val_every - 1)
    text = train_text + "\n\n" + val_text
    chars = sorted(set(text))
    corpus = Corpus(text=text, chars=chars, train=torch.empty(0, dtype=torch.long),
                    val=torch.empty(0, dtype=torch.long), sources={k: len(v) for k, v in cleaned.items()})
    corpus.train, corpus.val = corpus.encode(train_text), corpus.encode(val_text)
    return corpus


def word_share(sample: str, known: set[str]) -> float:
    """The share of the sample's words that occur in the corpus: ~0 for random characters,
    rising as the model learns to spell. A crude but honest 'is it Bengali yet?' number."""
    words = re.findall(r"[\u0980-\u09ff\u200c\u200d]+", sample)
    return sum(w in known for w in words) / len(words) if words else 0.0
