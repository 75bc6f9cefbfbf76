"""Where sentences start: after a full stop, question or exclamation mark (and any closing quote or
bracket) followed by space and a capital, a digit, a quote or markup, unless the word before the
stop is an abbreviation or an initial ("Mt. Kenya", "Larry E. Travis"). The answer's claims and a
page's sentences are cut the same way (quest.rubric.citations, quest.rubric.support)."""

from __future__ import annotations

import re
import string

from quest.text.words import word_set

_BOUNDARY = re.compile(r"[.!?][\"'\u201d\u2019)]*\s+(?=[A-Z0-9\"\u201c'(\[*_])")
_ABBREVIATIONS = word_set(
    "mt st dr mr mrs ms prof jr sr vs etc eg ie approx no fig ca inc ltd co corp dept est gen "
    "gov col lt sgt rev univ ft km mi sq op vol ed al jan feb mar apr jun jul aug sep sept oct "
    "nov dec"
)
_LONGEST_ABBREVIATION = max(len(word) for word in _ABBREVIATIONS)
_LETTERS = frozenset(string.ascii_letters)


def sentence_starts(text: str) -> list[int]:
    """The offset of each sentence of `text`, the first at 0."""
    return [0, *(m.end() for m in _BOUNDARY.finditer(text) if not _abbreviation(text, m.start()))]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of plain text, cut where the answer's claims are cut and
    at line breaks: how a page is read sentence by sentence."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        cuts = [*sentence_starts(line), len(line)]
        spans.extend(
            (offset + cuts[i], offset + cuts[i + 1])
            for i in range(len(cuts) - 1)
            if line[cuts[i] : cuts[i + 1]].strip()
        )
        offset += len(line) + 1
    return spans


def _abbreviation(text: str, stop: int) -> bool:
    """The word before the full stop at `stop` is an abbreviation or an initial. Only the
    letters right before it are read, at most one more than the longest abbreviation, so
    checking every stop of a long paragraph stays linear."""
    if text[stop] != ".":
        return False
    end = stop - 1 if stop > 0 and text[stop - 1] == "\n" else stop  # as regex `$` would
    start = end
    while start > 0 and end - start <= _LONGEST_ABBREVIATION and text[start - 1] in _LETTERS:
        start -= 1
    word = text[start:end]
    if not word or len(word) > _LONGEST_ABBREVIATION:
        return False
    return (len(word) == 1 and word.isupper()) or word.lower() in _ABBREVIATIONS
