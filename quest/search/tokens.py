"""One tokenizer for indexing, querying and highlighting, so a highlighted word is a word that
matched: lower case, accents folded, English stopwords dropped, plurals folded."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself""".split()  # noqa: SIM905
)


@lru_cache(maxsize=65_536)
def normalise(word: str) -> str:
    """ "Cities" -> "city", "Curaçao" -> "curacao", "glasses" -> "glass"."""
    folded = unicodedata.normalize("NFKD", word.lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _singular(plain)


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
