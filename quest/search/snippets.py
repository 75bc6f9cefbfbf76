"""Snippets: the window of the best passage that holds most of the query's terms."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from quest.search.tokens import term_spans, word_spans

SNIPPET_WORDS = 48
LEAD_WORDS = 6  # context kept before the first matching word
ELLIPSIS = "\u2026"


@dataclass(frozen=True)
class Snippet:
    text: str
    # Character spans of `text` whose words match a query term, for highlighting.
    highlights: tuple[tuple[int, int], ...]


def make_snippet(
    text: str, query_terms: frozenset[str], *, max_words: int = SNIPPET_WORDS
) -> Snippet:
    words = word_spans(text)
    if len(words) <= max_words:
        body = text.strip()
        return Snippet(body, tuple(term_spans(body, query_terms)))
    hits = [term in query_terms for _, _, term in words]
    start = _best_start([term for _, _, term in words], hits, query_terms, max_words)
    end = min(start + max_words, len(words))
    stop = words[end - 1][1] if end < len(words) else len(text)
    body = text[words[start][0] : stop].strip()
    prefix = f"{ELLIPSIS} " if start > 0 else ""
    suffix = f" {ELLIPSIS}" if end < len(words) else ""
    shown = f"{prefix}{body}{suffix}"
    return Snippet(shown, tuple(term_spans(shown, query_terms)))


def _best_start(terms: list[str], hits: list[bool], query_terms: frozenset[str], size: int) -> int:
    """Start of the earliest window with the most distinct query terms (then most hits),
    moved right to begin LEAD_WORDS before its first hit."""
    counts: Counter[str] = Counter(
        t for t, hit in zip(terms[:size], hits[:size], strict=True) if hit
    )
    best, best_score = 0, (len(counts), sum(counts.values()))
    for start in range(1, len(terms) - size + 1):
        _slide(counts, terms, hits, start - 1, start + size - 1)
        score = (len(counts), sum(counts.values()))
        if score > best_score:
            best, best_score = start, score
    first_hit = next((i for i in range(best, best + size) if hits[i]), best)
    return min(max(best, first_hit - LEAD_WORDS), len(terms) - size)


def _slide(counts: Counter[str], terms: list[str], hits: list[bool], out: int, into: int) -> None:
    if hits[out]:
        counts[terms[out]] -= 1
        if counts[terms[out]] == 0:
            del counts[terms[out]]
    if hits[into]:
        counts[terms[into]] += 1
