"""A benchmark's own corpus, as a questweb corpus with its own BM25 index, and the tools that
search it during that benchmark and nothing else.

Sources, one document per row:
- BrowseComp-Plus: `{docid, text, url}` (JSONL, or a directory of JSONL or parquet shards);
- FlashRAG's Wikipedia: `{id, contents}` with contents `"Title"\\ntext`.

Each document's page address is made from its docid (`https://bench.invalid/doc/<docid>`, a
reserved name that can never be fetched), so a docid and a page are the same thing to the
tools, to citations and to evidence recall. The built corpus records which files it was built
from; it is rebuilt only when they change. A questweb corpus directory is used as it is, with
pages known by their URLs.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from quest.bench.formats import FormatError, text_lines
from quest.corpus.model import Document
from quest.corpus.packages import utc_now
from quest.corpus.store import DOCUMENTS, MANIFEST, CorpusStore, corpus_write
from quest.protocol.calls import required_string, string_list
from quest.protocol.results import ToolError, ToolResult, failure, success
from quest.rubric.documents import normalise_url
from quest.search.indexing import bm25_build, index_status
from quest.search.searcher import Searcher

DOC_PREFIX = "https://bench.invalid/doc/"
SOURCE_STAMP = "bench-source.json"
PROGRESS_SECONDS = 2.0
TITLE_CHARS = 120
SEARCH_K = 5
MAX_QUERIES = 5

# (stage, done, total or None): stages "load" (documents read), "chunk" (documents cut into
# passages, estimated) and "index" (passages indexed).
ProgressFn = Callable[[str, int, int | None], None]


def doc_url(docid: str) -> str:
    return DOC_PREFIX + quote(docid, safe="")


def docid_from_url(url: str) -> str | None:
    normal = normalise_url(url)
    prefix = normalise_url(DOC_PREFIX + "x")[:-1]
    return unquote(normal[len(prefix) :]) if normal.startswith(prefix) else None


def corpus_rows(path: str | Path) -> Iterator[tuple[FormatError, dict[str, Any]]]:
    """Every row of a corpus file or shard directory, with the error that would name it."""
    source = Path(path)
    files = [source]
    if source.is_dir():
        files = sorted(f for f in source.iterdir() if f.suffix in (".jsonl", ".parquet"))
    for file in files:
        yield from _parquet_rows(file) if file.suffix == ".parquet" else _jsonl_rows(file)


def _jsonl_rows(file: Path) -> Iterator[tuple[FormatError, dict[str, Any]]]:
    for number, line in text_lines(file):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise FormatError(file, number, None, "not valid JSON") from None
        if not isinstance(row, dict):
            raise FormatError(file, number, None, "expected a JSON object")
        yield FormatError(file, number, None, ""), row


def _parquet_rows(
    file: Path, columns: list[str] | None = None
) -> Iterator[tuple[FormatError, dict[str, Any]]]:
    import pyarrow.parquet as pq

    number = 0
    for batch in pq.ParquetFile(file).iter_batches(batch_size=4_096, columns=columns):
        for row in batch.to_pylist():
            number += 1
            yield FormatError(file, number, None, "", unit="row"), row


def corpus_docids(path: str | Path, *, on_progress: ProgressFn | None = None) -> frozenset[str]:
    """The docids of a corpus file or shard directory, or of a benchmark corpus built from one,
    read without building anything (a parquet shard's docid column alone): what reading the
    citations of saved responses needs. A questweb corpus has none (its pages are known by
    their URLs)."""
    source = Path(path)
    if (source / MANIFEST).is_file():
        if not (source / SOURCE_STAMP).is_file():
            return frozenset()
        pages = CorpusStore(source).documents()
        return frozenset(d for page in pages if (d := docid_from_url(page.url)))
    if not source.exists():
        raise FormatError(source, None, None, "no such file or directory")
    files = [source]
    if source.is_dir():
        files = sorted(f for f in source.iterdir() if f.suffix in (".jsonl", ".parquet"))
    found: set[str] = set()
    shown = time.monotonic()
    for file in files:
        rows = _parquet_docid_rows(file) if file.suffix == ".parquet" else _jsonl_rows(file)
        for where, row in rows:
            found.add(_field(where, row, "docid" if "docid" in row or "id" not in row else "id"))
            if on_progress is not None and time.monotonic() - shown >= PROGRESS_SECONDS:
                on_progress("load", len(found), None)
                shown = time.monotonic()
    if on_progress is not None:
        on_progress("load", len(found), None)
    return frozenset(found)


def _parquet_docid_rows(file: Path) -> Iterator[tuple[FormatError, dict[str, Any]]]:
    import pyarrow.parquet as pq

    names = pq.ParquetFile(file).schema_arrow.names
    column = "docid" if "docid" in names or "id" not in names else "id"
    return _parquet_rows(file, [column] if column in names else None)


def corpus_document(where: FormatError, row: Mapping[str, Any], fetched_at: str) -> Document:
    """A corpus row as a page: BrowseComp-Plus's `{docid, text, url}` or FlashRAG's
    `{id, contents}`."""
    if "docid" in row:
        docid, text = _field(where, row, "docid"), _field(where, row, "text")
        title = next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), "")
        source = "browsecomp-plus"
    elif "contents" in row:
        docid, contents = _field(where, row, "id"), _field(where, row, "contents")
        first, _, text = contents.partition("\n")
        title, source = first.strip().strip('"').strip(), "flashrag-wiki"
    else:
        raise _named(where, "docid", "is missing (expected {docid, text, url} or {id, contents})")
    return Document(
        url=doc_url(docid),
        title=(title or docid)[:TITLE_CHARS],
        text=text,
        source=source,
        licence="as distributed with the benchmark",
        fetched_at=fetched_at,
    )


def _field(where: FormatError, row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if name not in row:
        raise _named(where, name, "is missing")
    if isinstance(value, int) and not isinstance(value, bool) and name in ("docid", "id"):
        return str(value)
    if not isinstance(value, str) or (name in ("docid", "id") and not value.strip()):
        raise _named(where, name, "must be a string" + (" (non-empty)" if name != "text" else ""))
    return value.strip() if name in ("docid", "id") else value


def _named(where: FormatError, name: str, reason: str) -> FormatError:
    unit = "row" if where.path.endswith(".parquet") else "line"
    return FormatError(where.path, where.line, name, reason, unit=unit)


def _stamp(path: Path) -> dict[str, Any]:
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    listed = [[f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in files if f.is_file()]
    return {"source": str(path.resolve()), "files": listed}


def build_corpus(
    source: str | Path, directory: str | Path, *, on_progress: ProgressFn | None = None
) -> BenchCorpus:
    """The corpus of `source` in `directory`, with its BM25 index; built once per source."""
    path, folder = Path(source), Path(directory)
    if not path.exists():
        raise FormatError(path, None, None, "no such file or directory")
    stamp = _stamp(path)
    recorded = folder / SOURCE_STAMP
    built = recorded.is_file() and json.loads(recorded.read_text()) == stamp
    if built and index_status(folder).bm25 == "ready":
        return BenchCorpus(folder)
    if folder.exists():
        if not (folder / MANIFEST).exists() and any(folder.iterdir()):
            raise FormatError(folder, None, None, "exists and is not a benchmark corpus")
        shutil.rmtree(folder)
    loading = _Loading(folder, on_progress)
    try:
        corpus_write(folder, loading.documents(path))
    finally:
        loading.stopped.set()
    bm25_build(folder, on_progress=_index_progress(on_progress))
    recorded.write_text(json.dumps(stamp) + "\n")
    return BenchCorpus(folder)


class _Loading:
    """Progress while corpus_write runs: documents read, then (stage "chunk") how far it has
    got in cutting them into passages. corpus_write reports no progress of its own, so the
    second is estimated from the size of the documents file it is rewriting against the size
    of the one it reads (the same lines), polled every PROGRESS_SECONDS."""

    def __init__(self, folder: Path, on_progress: ProgressFn | None) -> None:
        self.folder, self.on_progress = folder, on_progress
        self.stopped = threading.Event()

    def documents(self, path: Path) -> Iterator[Document]:
        fetched_at, count, shown = utc_now(), 0, time.monotonic()
        for where, row in corpus_rows(path):
            yield corpus_document(where, row, fetched_at)
            count += 1
            if self.on_progress is not None and time.monotonic() - shown >= PROGRESS_SECONDS:
                shown = time.monotonic()
                self.on_progress("load", count, None)
        if self.on_progress is not None:
            self.on_progress("load", count, count)
            threading.Thread(target=self._watch, args=(count,), daemon=True).start()

    def _watch(self, total: int) -> None:
        read = self.folder / (DOCUMENTS + ".incoming")
        written = self.folder / (DOCUMENTS + ".tmp")
        while not self.stopped.wait(PROGRESS_SECONDS):
            try:
                share = written.stat().st_size / max(read.stat().st_size, 1)
            except OSError:
                continue
            if self.on_progress is not None:
                self.on_progress("chunk", min(int(share * total), total), total)


def _index_progress(on_progress: ProgressFn | None) -> Callable[[int, int], None] | None:
    if on_progress is None:
        return None
    return lambda done, total: on_progress("index", done, total)


@dataclass(frozen=True)
class SearchLog:
    """What one question's searches did: queries sent and documents returned."""

    queries: list[str]
    retrieved: list[str]


class BenchCorpus:
    """A built corpus: its searcher (BM25), its pages, and how a page maps to a docid."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.store = CorpusStore(self.directory)
        self.benchmark_ids = (self.directory / SOURCE_STAMP).is_file()

    @cached_property
    def searcher(self) -> Searcher:
        return Searcher.open(self.directory)

    @cached_property
    def docids(self) -> frozenset[str]:
        if not self.benchmark_ids:
            return frozenset()
        return frozenset(d for p in self.searcher.passages if (d := docid_from_url(p.doc_url)))

    def docid(self, url: str) -> str | None:
        """A page's docid: the benchmark's, or (in a questweb corpus) its normalised URL."""
        return docid_from_url(url) if self.benchmark_ids else normalise_url(url)

    def setup(self) -> dict[str, Any]:
        summary = self.store.summary()
        return {
            "corpus": f"{self.directory} ({summary.documents:,} documents, "
            f"{summary.passages:,} passages)",
            "retriever": "BM25",
        }


class DocSearchTool:
    """`search(query)`: the top `k` documents of the benchmark's corpus, each with its docid."""

    name = "search"

    def __init__(self, corpus: BenchCorpus, log: SearchLog, *, k: int = SEARCH_K) -> None:
        self.corpus, self.log, self.k = corpus, log, k

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        try:
            queries = [q.strip() for q in string_list(arguments, "query") if q.strip()]
            if not queries or len(queries) > MAX_QUERIES:
                raise ToolError(f"send 1 to {MAX_QUERIES} non-empty queries")
            text = "\n=======\n".join(self._answer(query) for query in queries)
        except ToolError as error:
            return failure(self.name, str(error))
        return success(text)

    def _answer(self, query: str) -> str:
        self.log.queries.append(query)
        results = self.corpus.searcher.search(query, mode="bm25", k=self.k)
        if not results:
            return f"No results found for '{query}'."
        lines = []
        for result in results:
            docid = self.corpus.docid(result.url) or result.url
            self.log.retrieved.append(docid)
            snippet = " ".join(result.snippet.split())
            heading = f"{result.rank}. [{result.title}]({result.url})"
            lines.append(f"{heading}\ndocid: {docid}\n{snippet}")
        return f"A search for '{query}' found {len(results)} results:\n\n" + "\n\n".join(lines)


class GetDocumentTool:
    """`get_document(docid)`: a document's full text (cut to the protocol's limit)."""

    name = "get_document"

    def __init__(self, corpus: BenchCorpus) -> None:
        self.corpus = corpus

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        try:
            docid = required_string(arguments, "docid").strip()
        except ToolError as error:
            return failure(self.name, str(error))
        url = doc_url(docid) if self.corpus.benchmark_ids else docid
        page = self.corpus.store.get(url)
        if page is None:
            return failure(self.name, f"there is no document {docid!r}")
        return success(f"docid: {docid}\nurl: {page.url}\ntitle: {page.title}\n\n{page.text}")
