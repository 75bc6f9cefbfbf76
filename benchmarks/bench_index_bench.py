"""Loading and indexing a BrowseComp-Plus-shaped corpus the way `quest eval bench` does.

    .venv/bin/python benchmarks/bench_index_bench.py [--docs 100000] [--words 300] [--keep DIR]

Generates `--docs` documents in the corpus's published shape (`{docid, text, url}` JSONL, the
shape of the test files in tests/quest/data/bench), each a title line and about `--words`
words of sentences drawn from a Zipf-distributed vocabulary, then times:

- ours: quest.bench.corpus.build_corpus, the path a run takes: rows checked, documents written
  to a questweb corpus, cut into passages of at most 200 words at sentence ends, BM25-indexed
  on questweb's tokenizer, with its progress lines;
- baseline, measured in the same run: one pass of bm25s alone over the raw texts (read the
  JSONL, bm25s.tokenize, BM25.index), with no corpus written and no passages.

It prints docs/s and seconds for each and the ratio ours / baseline.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.bench.corpus import build_corpus

VOCABULARY = 30_000
SEED = 39


def vocabulary(size: int, rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


def document(
    docid: int, words: list[str], weights: list[float], size: int, rng: random.Random
) -> str:
    drawn = rng.choices(words, cum_weights=weights, k=size)
    sentences, start = [], 0
    while start < len(drawn):
        length = rng.randint(8, 24)
        part = drawn[start : start + length]
        sentences.append(part[0].capitalize() + " " + " ".join(part[1:]) + ".")
        start += length
    title = " ".join(w.capitalize() for w in drawn[:3])
    text = f"{title}\n" + " ".join(sentences)
    return json.dumps(
        {"docid": str(docid), "text": text, "url": f"https://example.org/page/{docid}"}
    )


def generate(path: Path, count: int, words_per_doc: int) -> float:
    rng = random.Random(SEED)
    words = vocabulary(VOCABULARY, rng)
    cumulative, total = [], 0.0
    for rank in range(1, len(words) + 1):  # Zipf: the r-th word has weight 1/r
        total += 1 / rank
        cumulative.append(total)
    started = time.perf_counter()
    with path.open("w", encoding="utf-8") as out:
        for docid in range(count):
            size = rng.randint(words_per_doc // 2, words_per_doc * 3 // 2)
            out.write(document(docid, words, cumulative, size, rng) + "\n")
    return time.perf_counter() - started


def ours(source: Path, directory: Path) -> float:
    started = time.perf_counter()

    def progress(stage: str, done: int, total: int | None) -> None:
        shown = f"{done:,}" + (f"/{total:,}" if total is not None else "")
        print(f"  {time.perf_counter() - started:7.1f} s  {stage} {shown}", flush=True)

    corpus = build_corpus(source, directory, on_progress=progress)
    seconds = time.perf_counter() - started
    summary = corpus.store.summary()
    print(f"  corpus: {summary.documents:,} documents, {summary.passages:,} passages")
    return seconds


def baseline(source: Path) -> float:
    import bm25s  # type: ignore[import-untyped]

    started = time.perf_counter()
    with source.open(encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--words", type=int, default=300, help="mean words per document")
    parser.add_argument("--keep", type=Path, help="work here and keep the files")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_index_"))
    work.mkdir(parents=True, exist_ok=True)
    source = work / "corpus.jsonl"
    try:
        generated = generate(source, args.docs, args.words)
        size = source.stat().st_size / 1e6
        print(f"generated {args.docs:,} documents ({size:,.0f} MB) in {generated:.1f} s")
        print("ours: build_corpus (load, chunk, BM25 index)")
        mine = ours(source, work / "corpus")
        print("baseline: bm25s alone over the raw texts")
        base = baseline(source)
        print()
        print(f"{'':10}{'seconds':>10}{'docs/s':>12}")
        for name, seconds in (("ours", mine), ("baseline", base)):
            print(f"{name:10}{seconds:>10.1f}{args.docs / seconds:>12,.0f}")
        print(f"ratio ours / baseline: {mine / base:.2f}x")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
