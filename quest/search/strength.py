"""Whether a result list holds anything that matches the query well, so a page can say so.

Rank scores do not answer it: BM25 scores grow with the corpus and the query's length, and an
RRF score only says where the retrievers ranked a document, however poor the best one is. Two
signals that keep their meaning across corpora do:

- words: a result whose title and passage hold more than half of the query's distinct terms
  (after stopwords and plurals are folded, as the index sees them);
- meaning: a result whose best passage has cosine similarity of at least `MIN_SIMILARITY` with
  the query under all-MiniLM-L6-v2. On 200 Wikipedia summaries, queries about an article
  (paraphrases with few shared words included) put it at 0.52 to 0.70; queries about things
  the corpus lacks topped out between 0.18 and 0.49.

A list matches well when any of its results passes either test.
"""

from __future__ import annotations

from collections.abc import Sequence

from quest.search.searcher import Result

MIN_SIMILARITY = 0.5
MIN_TERM_SHARE = 0.5  # strictly more than this share of the query's terms


def matches_well(result: Result) -> bool:
    if result.similarity is not None and result.similarity >= MIN_SIMILARITY:
        return True
    return result.query_terms > 0 and result.matched_terms > MIN_TERM_SHARE * result.query_terms


def weak_match(results: Sequence[Result]) -> str:
    """Why nothing in `results` matches the query well, or "" when something does (or when
    there is nothing at all, which a page says on its own)."""
    if not results or any(matches_well(result) for result in results):
        return ""
    best = max(results, key=lambda r: r.matched_terms)
    reason = (
        f"no result holds more than half of the query's {best.query_terms} terms "
        f"(the best holds {best.matched_terms})"
        if best.query_terms
        else "the query has no word the index searches (only stopwords or single letters)"
    )
    similarities = [r.similarity for r in results if r.similarity is not None]
    if similarities:
        reason += (
            f" and none is close in meaning (best similarity {max(similarities):.2f}; a good "
            f"match has {MIN_SIMILARITY:.2f} or more)"
        )
    return reason
