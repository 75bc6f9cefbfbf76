"""Search over a corpus: BM25 at once, dense and hybrid (RRF) once the dense index is built."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from quest.corpus.model import Passage
from quest.corpus.store import CorpusStore
from quest.search.bm25 import Bm25Index
from quest.search.dense import INDEX_FILE, DenseIndex
from quest.search.encoder import Encoder, MiniLMEncoder
from quest.search.fusion import reciprocal_rank_fusion
from quest.search.hits import Hit, SearchError
from quest.search.indexing import BM25_DIR, DENSE_DIR, DENSE_META, index_status, read_json
from quest.search.snippets import make_snippet
from quest.search.tokens import terms

MODES = ("bm25", "dense", "hybrid")
MAX_QUERY_CHARS = 2_000
MAX_K = 100
MIN_DEPTH = 50  # passages fetched per mode before collapsing them to documents


@dataclass(frozen=True)
class Result:
    rank: int
    score: float  # BM25 score, cosine similarity, or RRF score, by mode
    url: str
    title: str
    snippet: str
    highlights: tuple[tuple[int, int], ...]  # spans of `snippet` matching query terms
    passage_index: int  # which passage of the document the snippet comes from
    # Where each retriever put the document (1 = its best; None: that retriever did not return
    # it or was not asked) and how strongly it matches, for "nothing matches well" (strength.py).
    bm25_rank: int | None = None
    dense_rank: int | None = None
    similarity: float | None = None  # cosine of the query and the document's best passage
    matched_terms: int = 0  # distinct query terms in the title and the snippet's passage
    query_terms: int = 0  # distinct terms of the query

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["highlights"] = [list(span) for span in self.highlights]
        return data


class Searcher:
    def __init__(
        self,
        passages: Sequence[Passage],
        *,
        bm25: Bm25Index | None = None,
        dense: DenseIndex | None = None,
        encoder: Encoder | None = None,
    ) -> None:
        self.passages = passages
        self.bm25 = bm25
        self.dense = dense
        self.encoder: Encoder = encoder or MiniLMEncoder()

    @classmethod
    def open(cls, corpus_dir: str | Path, *, encoder: Encoder | None = None) -> Searcher:
        """The searcher over a corpus directory, with whichever indexes are up to date."""
        store = CorpusStore(corpus_dir)
        status = index_status(corpus_dir)
        model = encoder or MiniLMEncoder()
        bm25 = Bm25Index.load(store.index_dir / BM25_DIR) if status.bm25 == "ready" else None
        dense = None
        folder = store.index_dir / DENSE_DIR
        meta = read_json(folder / DENSE_META) or {}
        if status.dense == "ready" and meta.get("model") == model.name:
            dense = DenseIndex.load(folder / INDEX_FILE, str(meta["kind"]))
        return cls(list(store.passages()), bm25=bm25, dense=dense, encoder=model)

    @property
    def modes(self) -> tuple[str, ...]:
        """The modes this searcher can serve: hybrid needs both indexes."""
        available = ("bm25",) if self.bm25 else ()
        return available + (("dense", "hybrid") if self.dense and self.bm25 else ())

    @property
    def default_mode(self) -> str:
        return "hybrid" if "hybrid" in self.modes else "bm25"

    def search(self, query: str, *, mode: str | None = None, k: int = 10) -> list[Result]:
        chosen = self._check(query, mode, k)
        depth = max(MIN_DEPTH, 5 * k)
        rankings, retrievers = [], []
        if chosen in ("bm25", "hybrid") and self.bm25:
            rankings.append(self._documents(self.bm25.search(query, depth)))
            retrievers.append("bm25")
        if chosen in ("dense", "hybrid") and self.dense:
            vector = self.encoder.encode([query])[0]
            rankings.append(self._documents(self.dense.search(vector, depth)))
            retrievers.append("dense")
        positions = {
            name: {url: (rank, hit.score) for rank, (url, hit) in enumerate(ranking, start=1)}
            for name, ranking in zip(retrievers, rankings, strict=True)
        }
        return [_with_ranks(r, positions) for r in self._results(query, rankings, k)]

    def _check(self, query: str, mode: str | None, k: int) -> str:
        chosen = mode or self.default_mode
        if not query.strip():
            raise SearchError("the query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise SearchError(f"the query is longer than {MAX_QUERY_CHARS:,} characters")
        if not 1 <= k <= MAX_K:
            raise SearchError(f"k must be between 1 and {MAX_K}, got {k}")
        if chosen not in MODES:
            raise SearchError(f"unknown mode {chosen!r}; choose one of {', '.join(MODES)}")
        if chosen not in self.modes:
            raise SearchError(
                f"{chosen} search is not available (index not built or out of date); "
                "build it with `python -m quest corpus index DIR`"
            )
        return chosen

    def _documents(self, hits: list[Hit]) -> list[tuple[str, Hit]]:
        """Each document once, at the rank of its best passage."""
        best: dict[str, Hit] = {}
        for hit in hits:
            best.setdefault(self.passages[hit.row].doc_url, hit)
        return list(best.items())

    def _results(self, query: str, rankings: list[list[tuple[str, Hit]]], k: int) -> list[Result]:
        if len(rankings) == 1:
            scored = [(url, hit.score) for url, hit in rankings[0]]
        else:
            scored = reciprocal_rank_fusion([[url for url, _ in r] for r in rankings])
        rows = _best_rows(rankings)
        wanted = frozenset(terms(query))
        return [
            self._result(rank, score, rows[url], wanted)
            for rank, (url, score) in enumerate(scored[:k], start=1)
        ]

    def _result(self, rank: int, score: float, row: int, wanted: frozenset[str]) -> Result:
        passage = self.passages[row]
        snippet = make_snippet(passage.text, wanted)
        return Result(
            rank=rank,
            score=score,
            url=passage.doc_url,
            title=passage.title,
            snippet=snippet.text,
            highlights=snippet.highlights,
            passage_index=passage.index,
            matched_terms=len(wanted.intersection(terms(f"{passage.title} {passage.text}"))),
            query_terms=len(wanted),
        )


def _with_ranks(result: Result, positions: dict[str, dict[str, tuple[int, float]]]) -> Result:
    """The result with each retriever's rank of its document, and the dense similarity."""
    bm25 = positions.get("bm25", {}).get(result.url)
    dense = positions.get("dense", {}).get(result.url)
    return replace(
        result,
        bm25_rank=bm25[0] if bm25 else None,
        dense_rank=dense[0] if dense else None,
        similarity=dense[1] if dense else None,
    )


def _best_rows(rankings: list[list[tuple[str, Hit]]]) -> dict[str, int]:
    """Each document's snippet passage: the one ranked highest by any mode (BM25 on ties)."""
    best: dict[str, tuple[int, int]] = {}
    for ranking in rankings:
        for rank, (url, hit) in enumerate(ranking):
            if url not in best or rank < best[url][0]:
                best[url] = (rank, hit.row)
    return {url: row for url, (_, row) in best.items()}
