"""A corpus on disk, and the store the rest of the engine reads pages from.

A corpus directory holds:

    corpus.json       manifest: format, counts per source and licence, passage fingerprint
    documents.jsonl   one Document per line (url, title, text, source, licence, topic, fetched_at)
    passages.jsonl    one Passage per line (doc_url, index, title, text), in document order
    index/            search indexes built from the passages (quest.search)

JSONL keeps the corpus streamable, diffable and importable by the same reader users' files go
through. Files are written to temporary names and renamed into place, the manifest last, so a
reader never sees a half-written file. `CorpusStore.get(url)` finds a page through an offset
table (URL -> byte offset) built on first use, so only the pages asked for are parsed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from quest.corpus.chunking import MAX_WORDS, chunk_document
from quest.corpus.model import CorpusError, Document, Passage
from quest.corpus.packages import utc_now
from quest.rubric.documents import normalise_url

FORMAT = "questweb.corpus/1"
MANIFEST = "corpus.json"
DOCUMENTS = "documents.jsonl"
PASSAGES = "passages.jsonl"
INDEX_DIR = "index"
RECENT_DOCUMENTS = 4096  # pages CorpusStore.get keeps (a few MB)


@dataclass(frozen=True)
class SourceSummary:
    documents: int
    licences: tuple[str, ...]


@dataclass(frozen=True)
class CorpusSummary:
    documents: int
    passages: int
    sources: dict[str, SourceSummary]
    fingerprint: str
    max_words: int
    updated_at: str

    def to_json(self) -> dict[str, Any]:
        sources = {
            name: {"documents": s.documents, "licences": list(s.licences)}
            for name, s in self.sources.items()
        }
        return {
            "format": FORMAT,
            "documents": self.documents,
            "passages": self.passages,
            "sources": sources,
            "fingerprint": self.fingerprint,
            "max_words": self.max_words,
            "updated_at": self.updated_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CorpusSummary:
        sources = {
            name: SourceSummary(int(s["documents"]), tuple(s["licences"]))
            for name, s in data["sources"].items()
        }
        return cls(
            documents=int(data["documents"]),
            passages=int(data["passages"]),
            sources=sources,
            fingerprint=str(data["fingerprint"]),
            max_words=int(data["max_words"]),
            updated_at=str(data["updated_at"]),
        )


@dataclass(frozen=True)
class WriteReport:
    added: int
    replaced: int
    kept: int
    duplicates: int
    summary: CorpusSummary


@dataclass
class _Tally:
    passages: int = 0
    sources: dict[str, tuple[int, set[str]]] = field(default_factory=dict)
    digest: Any = field(default_factory=hashlib.sha256)

    def add(self, document: Document, passages: list[Passage]) -> None:
        count, licences = self.sources.get(document.source, (0, set()))
        self.sources[document.source] = (count + 1, licences | {document.licence})
        self.passages += len(passages)
        for passage in passages:
            self.digest.update(
                f"{passage.doc_url}\t{passage.index}\t{passage.content_hash}\n".encode()
            )


def corpus_write(
    directory: str | Path, documents: Iterable[Document], *, max_words: int = MAX_WORDS
) -> WriteReport:
    """Add `documents` to the corpus in `directory` (created if needed) and re-chunk it.

    A document whose URL is already there replaces the old one; the others stay. Within
    `documents`, the first of several with one URL wins.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    incoming = folder / (DOCUMENTS + ".incoming")
    try:
        keys, duplicates = _write_incoming(incoming, documents)
        return _merge(folder, incoming, keys, duplicates, max_words)
    finally:
        for leftover in (incoming, *_temporaries(folder)):
            leftover.unlink(missing_ok=True)


def _write_incoming(path: Path, documents: Iterable[Document]) -> tuple[set[str], int]:
    keys: set[str] = set()
    duplicates = 0
    with path.open("w", encoding="utf-8") as out:
        for document in documents:
            key = normalise_url(document.url)
            if key in keys:
                duplicates += 1
                continue
            keys.add(key)
            _write_line(out, document.to_json())
    return keys, duplicates


def _merge(
    folder: Path, incoming: Path, keys: set[str], duplicates: int, max_words: int
) -> WriteReport:
    tally = _Tally()
    kept = replaced = 0
    docs_tmp, passages_tmp = _temporaries(folder)
    with (
        docs_tmp.open("w", encoding="utf-8") as docs,
        passages_tmp.open("w", encoding="utf-8") as ps,
    ):
        for document in _read_documents(folder / DOCUMENTS):
            if normalise_url(document.url) in keys:
                replaced += 1
                continue
            kept += 1
            _emit(document, docs, ps, tally, max_words)
        for document in _read_documents(incoming):
            _emit(document, docs, ps, tally, max_words)
    summary = _summary(tally, kept + len(keys), max_words)
    os.replace(docs_tmp, folder / DOCUMENTS)
    os.replace(passages_tmp, folder / PASSAGES)
    _write_manifest(folder, summary)
    return WriteReport(len(keys) - replaced, replaced, kept, duplicates, summary)


def _emit(document: Document, docs: IO[str], ps: IO[str], tally: _Tally, max_words: int) -> None:
    passages = chunk_document(document, max_words=max_words)
    _write_line(docs, document.to_json())
    for passage in passages:
        _write_line(ps, passage.to_json())
    tally.add(document, passages)


def _summary(tally: _Tally, documents: int, max_words: int) -> CorpusSummary:
    sources = {
        name: SourceSummary(count, tuple(sorted(licences)))
        for name, (count, licences) in sorted(tally.sources.items())
    }
    return CorpusSummary(
        documents=documents,
        passages=tally.passages,
        sources=sources,
        fingerprint=tally.digest.hexdigest()[:32],
        max_words=max_words,
        updated_at=utc_now(),
    )


def _write_manifest(folder: Path, summary: CorpusSummary) -> None:
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(summary.to_json(), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)


def _temporaries(folder: Path) -> tuple[Path, Path]:
    return folder / (DOCUMENTS + ".tmp"), folder / (PASSAGES + ".tmp")


def _write_line(out: IO[str], data: dict[str, Any]) -> None:
    out.write(json.dumps(data, ensure_ascii=False) + "\n")


def _read_documents(path: Path) -> Iterator[Document]:
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                yield Document.from_json(json.loads(line))


class CorpusStore:
    """Reads a corpus directory. Satisfies quest.rubric.documents.DocumentStore."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        if not (self.directory / MANIFEST).is_file():
            raise CorpusError(
                f"{self.directory}: not a corpus directory (no {MANIFEST}); "
                "create one with `python -m quest corpus load`"
            )
        self._offsets: dict[str, int] = {}
        self._stamp: tuple[int, int] | None = None
        # The pages read last (a synthesis batch or a reward reads the same ones again and
        # again), kept while the documents file is unchanged.
        self._recent: OrderedDict[int, Document] = OrderedDict()

    @property
    def index_dir(self) -> Path:
        return self.directory / INDEX_DIR

    def summary(self) -> CorpusSummary:
        try:
            data = json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))
            return CorpusSummary.from_json(data)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CorpusError(f"{self.directory / MANIFEST}: unreadable manifest: {exc}") from None

    def __len__(self) -> int:
        return self.summary().documents

    def documents(self) -> Iterator[Document]:
        return _read_documents(self.directory / DOCUMENTS)

    def passages(self) -> Iterator[Passage]:
        path = self.directory / PASSAGES
        if path.exists():
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    yield Passage.from_json(json.loads(line))

    def get(self, url: str) -> Document | None:
        """The document at `url` (compared as citations are: quest.rubric's normalise_url)."""
        path = self.directory / DOCUMENTS
        offset = self._offset_table(path).get(normalise_url(url))
        if offset is None:
            return None
        kept = self._recent.get(offset)
        if kept is not None:
            self._recent.move_to_end(offset)
            return kept
        with path.open("rb") as handle:
            handle.seek(offset)
            document = Document.from_json(json.loads(handle.readline()))
        self._recent[offset] = document
        if len(self._recent) > RECENT_DOCUMENTS:
            self._recent.popitem(last=False)
        return document

    def _offset_table(self, path: Path) -> dict[str, int]:
        try:
            status = path.stat()
        except FileNotFoundError:
            return {}
        stamp = (status.st_mtime_ns, status.st_size)
        if stamp != self._stamp:
            self._offsets = _scan_offsets(path)
            self._stamp = stamp
            self._recent.clear()
        return self._offsets


def _scan_offsets(path: Path) -> dict[str, int]:
    offsets: dict[str, int] = {}
    with path.open("rb") as handle:
        offset = 0
        for line in handle:
            offsets.setdefault(normalise_url(json.loads(line)["url"]), offset)
            offset += len(line)
    return offsets
