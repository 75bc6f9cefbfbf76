"""Deterministic chunking: sentences packed into passages of about 100-200 words."""

from __future__ import annotations

import math

from quest.corpus.model import Document, Passage
from quest.text.sentences import split_sentences

MAX_WORDS = 200


def chunk_text(text: str, *, max_words: int = MAX_WORDS) -> list[str]:
    """Whole sentences packed into balanced chunks of at most `max_words` words.

    A text of 311 words becomes two chunks of about 155 rather than 200 + 111; a sentence
    longer than `max_words` is cut at word boundaries.
    """
    every_word = text.split()
    if len(every_word) <= max_words:
        # One chunk whatever its sentences are: most pages are this short, and not splitting
        # them into sentences keeps loading a corpus fast.
        return [" ".join(every_word)] if every_word else []
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
