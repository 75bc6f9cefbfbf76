"""Search limited to some sources of the corpus (google_scholar reads the scholarly part)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Protocol

from quest.search.searcher import MAX_K, Result, Searcher

# Filtering happens after ranking, so fetch deeper than asked to still fill k results.
OVERFETCH = 5


class SourceLookup(Protocol):
    def source_of(self, url: str) -> str | None: ...


class StoreSources:
    """Sources read from a document store (anything whose `get(url)` has a `.source`)."""

    def __init__(self, store: object) -> None:
        self.store = store

    def source_of(self, url: str) -> str | None:
        document = self.store.get(url)  # type: ignore[attr-defined]
        return None if document is None else str(document.source)


def search_sources(
    searcher: Searcher,
    lookup: SourceLookup,
    query: str,
    *,
    sources: Collection[str],
    mode: str | None = None,
    k: int = 10,
) -> list[Result]:
    """The best k results whose document comes from one of `sources`, ranked 1..k."""
    results = searcher.search(query, mode=mode, k=min(k * OVERFETCH, MAX_K))
    kept = [r for r in results if lookup.source_of(r.url) in sources][:k]
    return [replace(result, rank=rank) for rank, result in enumerate(kept, start=1)]
