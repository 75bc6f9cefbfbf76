"""One tokenizer for indexing, querying and highlighting, so a highlighted word is a word that
matched: lower case, accents folded, English stopwords dropped, plurals folded."""

from __future__ import annotations

import re
from functools import lru_cache

from quest.text.fold import strip_accents
from quest.text.words import STOPWORDS

_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=65_536)
def normalise(word: str) -> str:
    """ "Cities" -> "city", "Curaçao" -> "curacao", "glasses" -> "glass"."""
    return _singular(strip_accents(word).lower())


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def terms(text: str) -> list[str]:
    """The searchable terms of `text`, in order, repeats kept."""
    return [
        term
        for word in _WORD.findall(text)
        if ((term := normalise(word)) not in STOPWORDS and len(term) > 1) or word.isdigit()
    ]


def term_spans(text: str, wanted: frozenset[str]) -> list[tuple[int, int]]:
    """Character spans of the words of `text` whose term is in `wanted` (for highlighting)."""
    return [m.span() for m in _WORD.finditer(text) if normalise(m.group()) in wanted]


def word_spans(text: str) -> list[tuple[int, int, str]]:
    """Every word of `text` with its span and term."""
    return [(m.start(), m.end(), normalise(m.group())) for m in _WORD.finditer(text)]
