"""Building a corpus's search indexes, and saying what state they are in.

Indexes live in `<corpus>/index/`: `bm25/` (seconds to build; serves at once) and `dense/`
(minutes on 2 cores: ~37 passages/s). Each records the corpus fingerprint it was built from,
so a searcher never serves an index that no longer matches the passages. A Celery job calls
`dense_build(..., on_progress=...)` to drive a progress bar.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quest.corpus.model import Passage
from quest.corpus.packages import utc_now
from quest.corpus.store import CorpusStore
from quest.search import bm25
from quest.search.bm25 import Bm25Index
from quest.search.dense import (
    APPROXIMATE_ABOVE,
    CACHE_MANIFEST,
    INDEX_FILE,
    DenseIndex,
    EmbeddingCache,
    write_json,
)
from quest.search.encoder import Encoder, MiniLMEncoder, ProgressFn

BM25_DIR = "bm25"
DENSE_DIR = "dense"
DENSE_META = "index.json"
CHECKPOINT_EVERY = 2_048


@dataclass(frozen=True)
class Bm25Report:
    passages: int
    seconds: float


@dataclass(frozen=True)
class DenseReport:
    passages: int
    embedded: int  # passages encoded by this build
    reused: int  # passages whose vectors came from the cache
    kind: str  # "flat" (exact) or "hnsw" (approximate)
    seconds: float


@dataclass(frozen=True)
class IndexStatus:
    passages: int
    bm25: str  # missing | ready | stale
    dense: str  # missing | partial | ready | stale
    dense_kind: str | None
    dense_embedded: int  # current passages that already have a vector

    @property
    def modes(self) -> tuple[str, ...]:
        ready = ("bm25",) if self.bm25 == "ready" else ()
        return ready + (("dense", "hybrid") if self.dense == "ready" else ())


def bm25_build(corpus_dir: str | Path, *, on_progress: ProgressFn | None = None) -> Bm25Report:
    started = time.perf_counter()
    store = CorpusStore(corpus_dir)
    fingerprint = store.summary().fingerprint
    texts = [passage.indexed_text for passage in store.passages()]
    _report(on_progress, 0, len(texts))
    index = Bm25Index.build(texts)
    index.save(store.index_dir / BM25_DIR, meta={"fingerprint": fingerprint, "built_at": utc_now()})
    _report(on_progress, len(texts), len(texts))
    return Bm25Report(len(texts), time.perf_counter() - started)


def dense_build(
    corpus_dir: str | Path,
    *,
    encoder: Encoder | None = None,
    on_progress: ProgressFn | None = None,
    approximate_above: int = APPROXIMATE_ABOVE,
    batch_size: int = 64,
) -> DenseReport:
    """Embed the passages that have no cached vector, then rebuild the FAISS index.

    `on_progress(done, total)` counts passages to embed in this build: first (0, total), then
    after each batch. The cache is checkpointed every CHECKPOINT_EVERY passages.
    """
    started = time.perf_counter()
    model = encoder or MiniLMEncoder()
    store = CorpusStore(corpus_dir)
    fingerprint = store.summary().fingerprint
    passages = list(store.passages())
    folder = store.index_dir / DENSE_DIR
    cache = EmbeddingCache.load(folder, model=model.name, dimension=model.dimension)
    embedded = _embed_missing(model, passages, cache, folder, batch_size, on_progress)
    hashes = [passage.content_hash for passage in passages]
    index = DenseIndex.from_vectors(cache.select(hashes), approximate_above=approximate_above)
    cache.save(folder, keep=hashes)
    index.save(folder / INDEX_FILE)
    meta = {"fingerprint": fingerprint, "kind": index.kind, "model": model.name}
    write_json(folder / DENSE_META, {**meta, "passages": len(passages), "built_at": utc_now()})
    seconds = time.perf_counter() - started
    return DenseReport(len(passages), embedded, len(passages) - embedded, index.kind, seconds)


def _embed_missing(
    encoder: Encoder,
    passages: list[Passage],
    cache: EmbeddingCache,
    folder: Path,
    batch_size: int,
    on_progress: ProgressFn | None,
) -> int:
    texts = {p.content_hash: p.indexed_text for p in passages if p.content_hash not in cache}
    # Batches of similar length pad less: about 1.5x faster on CPU.
    todo = sorted(texts, key=lambda h: (len(texts[h]), h))
    _report(on_progress, 0, len(todo))
    unsaved = 0
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        cache.add(batch, encoder.encode([texts[h] for h in batch]))
        unsaved += len(batch)
        if unsaved >= CHECKPOINT_EVERY:
            cache.save(folder)
            unsaved = 0
        _report(on_progress, start + len(batch), len(todo))
    return sum(1 for p in passages if p.content_hash in texts)


def _report(on_progress: ProgressFn | None, done: int, total: int) -> None:
    if on_progress is not None:
        on_progress(done, total)


def index_status(corpus_dir: str | Path) -> IndexStatus:
    store = CorpusStore(corpus_dir)
    summary = store.summary()
    dense_meta = read_json(store.index_dir / DENSE_DIR / DENSE_META)
    dense, embedded = _dense_state(store, summary.fingerprint, dense_meta)
    return IndexStatus(
        passages=summary.passages,
        bm25=_state(read_json(store.index_dir / BM25_DIR / bm25.META), summary.fingerprint),
        dense=dense,
        dense_kind=dense_meta.get("kind") if dense_meta else None,
        dense_embedded=embedded,
    )


def _dense_state(
    store: CorpusStore, fingerprint: str, meta: dict[str, Any] | None
) -> tuple[str, int]:
    state = _state(meta, fingerprint)
    if state == "ready":
        return state, store.summary().passages
    cached = _cached_hashes(store.index_dir / DENSE_DIR)
    embedded = sum(1 for p in store.passages() if p.content_hash in cached)
    return ("partial" if state == "missing" and embedded else state), embedded


def _cached_hashes(folder: Path) -> set[str]:
    manifest = read_json(folder / CACHE_MANIFEST) or {}
    return set(manifest.get("hashes", []))


def _state(meta: dict[str, Any] | None, fingerprint: str) -> str:
    if meta is None:
        return "missing"
    return "ready" if meta.get("fingerprint") == fingerprint else "stale"


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
