"""Search speed and quality: BM25, dense and hybrid over the real corpus and a synthetic 200k.

    .venv/bin/python benchmarks/search_bench.py [--quick] [--cache DIR]

What runs, each against a baseline measured in the same run:

- build: seconds per 1,000 passages for BM25 (the baseline), for encoding with
  all-MiniLM-L6-v2, and for adding vectors to FAISS (flat and HNSW).
- latency: p50/p95 per query for bm25, dense and hybrid through `Searcher` (query encoding
  included), at the real corpus size and at a synthetic size (200k passages; --quick 20k).
  Ratios are against BM25 at the same size. Synthetic passages are real sentences shuffled into
  ~100-word passages; synthetic vectors are mixtures of two real passage vectors plus noise,
  normalised, so they keep the anisotropy of real embeddings (uniform random vectors would not).
- approximate vs exact: HNSW against exact `IndexFlatIP` on the synthetic vectors, queried with
  real encoded queries one at a time: recall@10 and the speed-up (goal: recall >= 0.95 at
  >= 10x the speed).
- hit@5: labelled queries from Wikipedia's short descriptions (the `description` field of the
  data file), with the article's title words removed; the corpus searched here is built without
  them (its Wikipedia pages are the extracts alone), so no query is a sentence of a page;
  descriptions shared by several articles ("Family of birds") and ones left with fewer than
  three words are skipped. Target: that article. Ratios are against BM25.

The real corpus is Wikipedia + GeoNames + countryinfo (--quick: 2,000 Wikipedia articles). Its
dense index is built incrementally under --cache (default var/cache/search_bench), so the first
run embeds every passage (minutes: ~20-40 passages/s on 2 cores) and later runs reuse them; the
"embedded" column says how many this run encoded.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.corpus import CorpusStore, Document, Passage, corpus_write, load_geo, load_wikipedia
from quest.corpus.wiki import wikipedia_data_file, wikipedia_url
from quest.search.bm25 import Bm25Index
from quest.search.dense import APPROXIMATE_ABOVE, DenseIndex, EmbeddingCache
from quest.search.encoder import MiniLMEncoder
from quest.search.indexing import DENSE_DIR, bm25_build, dense_build
from quest.search.searcher import Searcher
from quest.search.tokens import terms
from quest.text.sentences import split_sentences

MODES = ("bm25", "dense", "hybrid")
STAMP = "2026-01-01T00:00:00+00:00"


@dataclass(frozen=True)
class Plan:
    name: str
    synthetic: int
    queries: int
    fresh_passages: int

    @classmethod
    def make(cls, quick: bool) -> Plan:
        if quick:
            return cls("quick", synthetic=20_000, queries=100, fresh_passages=128)
        return cls("full", synthetic=200_000, queries=200, fresh_passages=512)


# -- tables ------------------------------------------------------------------------------------


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [list(map(str, header))] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print(f"\n{title}")
    for number, row in enumerate(cells):
        print("  ".join(value.rjust(width) for value, width in zip(row, widths, strict=True)))
        if number == 0:
            print("  ".join("-" * width for width in widths))


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if value < 100 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


# -- the real corpus ---------------------------------------------------------------------------


def real_documents(plan: Plan) -> list[Document]:
    # The labelled queries are the short descriptions: the pages searched leave them out.
    wiki = list(load_wikipedia(fetched_at=STAMP, short_descriptions=False))
    if plan.name == "quick":
        return wiki[::5][:2_000]
    return wiki + list(load_geo(fetched_at=STAMP))


def build_real(folder: Path, documents: list[Document], encoder: MiniLMEncoder) -> list[list[Any]]:
    corpus_write(folder, documents)
    _share_vectors(folder)
    bm25, bm25_seconds = timed(lambda: bm25_build(folder))
    progress = Progress()
    dense, dense_seconds = timed(lambda: dense_build(folder, encoder=encoder, on_progress=progress))
    return [
        ["bm25 index (real corpus)", bm25.passages, "-", bm25_seconds],
        [
            f"dense index ({dense.kind}, cached vectors reused)",
            dense.passages,
            dense.embedded,
            dense_seconds,
        ],
    ]


def _share_vectors(folder: Path) -> None:
    """Vectors are keyed by passage content, so the quick and full corpora can share them."""
    target = folder / "index" / DENSE_DIR
    for other in sorted(folder.parent.glob("corpus-*")):
        source = other / "index" / DENSE_DIR
        if other != folder and not (target / "embeddings.npy").exists() and source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            for name in ("embeddings.npy", "embeddings.json"):
                shutil.copy2(source / name, target / name)


class Progress:
    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if total and (time.monotonic() - self.last > 30 or done == total):
            self.last = time.monotonic()
            print(f"  embedding real corpus: {done:,}/{total:,}", file=sys.stderr, flush=True)


def build_rates(
    folder: Path, plan: Plan, encoder: MiniLMEncoder, vectors: np.ndarray, hnsw_seconds: float
) -> list[list[Any]]:
    """Seconds per 1k passages, measured on fresh work (no cache)."""
    passages = list(CorpusStore(folder).passages())
    texts = [p.indexed_text for p in passages]
    _, bm25_seconds = timed(lambda: Bm25Index.build(texts))
    rng = random.Random(7)
    fresh = [f"{text} ({rng.random():.6f})" for text in rng.sample(texts, plan.fresh_passages)]
    _, encode_seconds = timed(lambda: encoder.encode(fresh))
    _, flat_seconds = timed(
        lambda: DenseIndex.from_vectors(vectors, approximate_above=len(vectors))
    )
    per_k = [
        ("bm25 index (tokenize + bm25s)", len(texts), bm25_seconds),
        ("dense: encode with MiniLM (2 cores)", len(fresh), encode_seconds),
        ("dense: FAISS flat add", len(vectors), flat_seconds),
        ("dense: FAISS HNSW add", len(vectors), hnsw_seconds),
    ]
    baseline = bm25_seconds / len(texts) * 1_000
    return [
        [name, count, seconds / count * 1_000, seconds / count * 1_000 / baseline]
        for name, count, seconds in per_k
    ]


# -- labelled queries --------------------------------------------------------------------------


def labelled_queries(documents: list[Document], count: int) -> list[tuple[str, str]]:
    """(query, target url) from Wikipedia's short descriptions, title words removed."""
    articles = json.loads(wikipedia_data_file().read_text(encoding="utf-8"))
    present = {d.url for d in documents}
    counts: dict[str, int] = {}
    for article in articles.values():
        counts[article["description"]] = counts.get(article["description"], 0) + 1
    labelled = []
    for article in articles.values():
        url = wikipedia_url(article["title"])
        query = _without_title(article["description"], article["title"])
        if url in present and counts[article["description"]] == 1 and len(terms(query)) >= 3:
            labelled.append((query, url))
    step = max(1, len(labelled) // count)
    return labelled[::step][:count]


def _without_title(text: str, title: str) -> str:
    banned = set(terms(title))
    return " ".join(word for word in text.split() if not set(terms(word)) & banned)


def first_sentence_queries(
    documents: list[Document], labelled: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The same targets, queried by their first sentence with the title words removed."""
    by_url = {d.url: d for d in documents}
    pairs = []
    for _, url in labelled:
        document = by_url[url]
        sentence = (split_sentences(document.text) or [""])[0]
        pairs.append((_without_title(sentence, document.title), url))
    return pairs


# -- measuring a searcher ----------------------------------------------------------------------


def latencies(searcher: Searcher, queries: Sequence[str], mode: str) -> tuple[float, float]:
    searcher.search(queries[0], mode=mode, k=10)  # warm-up: first-use costs are not per query
    samples = []
    for query in queries:
        _, seconds = timed(partial(searcher.search, query, mode=mode, k=10))
        samples.append(seconds * 1_000)
    return percentiles(samples)


def hit_at_5(searcher: Searcher, labelled: Sequence[tuple[str, str]], mode: str) -> float:
    hits = sum(
        url in {r.url for r in searcher.search(query, mode=mode, k=5)} for query, url in labelled
    )
    return hits / len(labelled)


def latency_rows(label: str, searcher: Searcher, queries: Sequence[str]) -> list[list[Any]]:
    results = {mode: latencies(searcher, queries, mode) for mode in MODES}
    base = results["bm25"][0]
    size = len(searcher.passages)
    kind = searcher.dense.kind if searcher.dense else "-"
    return [
        [label, size, mode, kind if mode != "bm25" else "-", p50, p95, p50 / base]
        for mode, (p50, p95) in results.items()
    ]


# -- synthetic 200k ----------------------------------------------------------------------------


def synthetic_passages(
    passages: Sequence[Passage], count: int, rng: random.Random
) -> list[Passage]:
    sentences = [s for p in passages for s in split_sentences(p.text)]
    made = []
    for number in range(count):
        words: list[str] = []
        while len(words) < 100:
            words.extend(rng.choice(sentences).split())
        made.append(
            Passage(f"https://synthetic.invalid/{number}", 0, " ".join(words), f"S{number}")
        )
    return made


def synthetic_vectors(real: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    first = real[rng.integers(0, len(real), count)]
    second = real[rng.integers(0, len(real), count)]
    noise = rng.normal(0.0, 0.3 / np.sqrt(real.shape[1]), size=first.shape).astype(np.float32)
    mixed = first + 0.6 * second + noise
    unit: np.ndarray = (mixed / np.linalg.norm(mixed, axis=1, keepdims=True)).astype(np.float32)
    return unit


def ann_rows(vectors: np.ndarray, approximate: DenseIndex, queries: np.ndarray) -> list[list[Any]]:
    exact = DenseIndex.from_vectors(vectors, approximate_above=len(vectors))
    exact_ms, truth = _one_by_one(exact, queries)
    approx_ms, found = _one_by_one(approximate, queries)
    recall = float(np.mean([len(set(t) & set(f)) / 10 for t, f in zip(truth, found, strict=True)]))
    exact_p50, approx_p50 = statistics.median(exact_ms), statistics.median(approx_ms)
    return [
        ["exact (IndexFlatIP)", len(vectors), "-", 1.0, exact_p50, 1.0],
        ["HNSW (approximate)", len(vectors), "", recall, approx_p50, exact_p50 / approx_p50],
    ]


def _one_by_one(index: DenseIndex, queries: np.ndarray) -> tuple[list[float], list[list[int]]]:
    index.search_batch(queries[:1], 10)
    samples, rows = [], []
    for query in queries:
        (_, found), seconds = timed(partial(index.search_batch, query.reshape(1, -1), 10))
        samples.append(seconds * 1_000)
        rows.append(found[0].tolist())
    return samples, rows


# -- main --------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpus and synthetic size")
    parser.add_argument("--cache", default="var/cache/search_bench", help="corpus and vectors")
    args = parser.parse_args(argv)
    plan = Plan.make(args.quick)
    folder = Path(args.cache) / f"corpus-{plan.name}"
    encoder = MiniLMEncoder()
    documents = real_documents(plan)
    print(f"search_bench ({plan.name}): {len(documents):,} real documents in {folder}")

    build = build_real(folder, documents, encoder)
    table("index builds this run", ["index", "passages", "embedded", "seconds"], build)

    store = CorpusStore(folder)
    passages = list(store.passages())
    real_vectors = EmbeddingCache.load(
        folder / "index" / DENSE_DIR, model=encoder.name, dimension=encoder.dimension
    ).select([p.content_hash for p in passages])
    synthetic = synthetic_vectors(real_vectors, plan.synthetic, np.random.default_rng(11))
    hnsw, hnsw_seconds = timed(lambda: DenseIndex.from_vectors(synthetic, approximate_above=0))
    table(
        "build time per 1,000 passages (baseline: bm25)",
        ["step", "passages", "s / 1k", "x bm25"],
        build_rates(folder, plan, encoder, synthetic, hnsw_seconds),
    )

    labelled = labelled_queries(documents, plan.queries)
    queries = [query for query, _ in labelled]
    searcher = Searcher.open(folder, encoder=encoder)
    rows = latency_rows("real", searcher, queries)

    texts = synthetic_passages(passages, plan.synthetic, random.Random(5))
    bm25_big, seconds = timed(lambda: Bm25Index.build([p.indexed_text for p in texts]))
    print(f"  synthetic bm25 index over {len(texts):,} passages built in {seconds:.1f} s")
    # The kind the searcher would choose by itself: HNSW above APPROXIMATE_ABOVE passages.
    auto = hnsw if len(synthetic) > APPROXIMATE_ABOVE else DenseIndex.from_vectors(synthetic)
    big = Searcher(texts, bm25=bm25_big, dense=auto, encoder=encoder)
    rows += latency_rows("synthetic", big, queries)
    table(
        "query latency, k=10, ms (baseline: bm25 at the same size)",
        ["corpus", "passages", "mode", "dense index", "p50", "p95", "p50 x bm25"],
        rows,
    )

    query_vectors = encoder.encode(queries)
    table(
        "approximate vs exact dense search, one query at a time (baseline: exact)",
        ["index", "vectors", "", "recall@10", "p50 ms", "speed-up"],
        ann_rows(synthetic, hnsw, query_vectors),
    )

    sets = {
        "descriptions": labelled,
        "first sentences": first_sentence_queries(documents, labelled),
    }
    quality = []
    for name, pairs in sets.items():
        scores = {mode: hit_at_5(searcher, pairs, mode) for mode in MODES}
        quality += [[name, len(pairs), m, s, s / scores["bm25"]] for m, s in scores.items()]
    table(
        "hit@5 on labelled Wikipedia queries (baseline: bm25)",
        ["queries", "count", "mode", "hit@5", "x bm25"],
        quality,
    )
    print(f"\nexample query: {labelled[0][0]!r} -> {labelled[0][1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
