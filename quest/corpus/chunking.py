"""Deterministic chunking: sentences packed into passages of about 100-200 words."""

from __future__ import annotations

import math
import re

from quest.corpus.model import Document, Passage

MAX_WORDS = 200

# A sentence ends at . ! or ? (optionally followed by a closing quote or bracket), then
# whitespace, then something that can open a sentence.
_CLOSE = "\"')]\u201d\u2019"
_OPEN = "\"'([\u201c\u2018"
_BOUNDARY = re.compile(
    rf"(?:(?<=[.!?])|(?<=[.!?][{re.escape(_CLOSE)}]))\s+(?=[{re.escape(_OPEN)}]?[A-Z0-9])"
)
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st mt ft jr sr vs etc e.g i.e ca c no approx gen col lt sgt rev fig".split()  # noqa: SIM905
)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, not splitting after common abbreviations or initials ("J. R.")."""
    pieces = [piece for piece in _BOUNDARY.split(" ".join(text.split())) if piece]
    sentences: list[str] = []
    for piece in pieces:
        if sentences and _ends_with_abbreviation(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


def _ends_with_abbreviation(sentence: str) -> bool:
    last = sentence.rsplit(" ", 1)[-1].rstrip(".").lower()
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def chunk_text(text: str, *, max_words: int = MAX_WORDS) -> list[str]:
    """Whole sentences packed into balanced chunks of at most `max_words` words.

    A text of 311 words becomes two chunks of about 155 rather than 200 + 111; a sentence
    longer than `max_words` is cut at word boundaries.
    """
    sentences = [words for sentence in split_sentences(text) for words in _cut(sentence, max_words)]
    total = sum(len(words) for words in sentences)
    if total == 0:
        return []
    target = total / math.ceil(total / max_words)
    chunks: list[list[str]] = [[]]
    for words in sentences:
        current = chunks[-1]
        if current and (len(current) >= target or len(current) + len(words) > max_words):
            chunks.append(current := [])
        current.extend(words)
    return [" ".join(words) for words in chunks]


def _cut(sentence: str, max_words: int) -> list[list[str]]:
    words = sentence.split()
    return [words[start : start + max_words] for start in range(0, len(words), max_words)]


def chunk_document(document: Document, *, max_words: int = MAX_WORDS) -> list[Passage]:
    """The passages of `document`; a document without text still gets one (its title)."""
    texts = chunk_text(document.text, max_words=max_words) or [""]
    return [
        Passage(doc_url=document.url, index=index, text=text, title=document.title)
        for index, text in enumerate(texts)
    ]
