"""A benchmark's corpus gets its own index, built once per source file, and the agent's tools
search and read that corpus alone, by docid."""

from __future__ import annotations

import shutil
from pathlib import Path

from quest.bench.corpus import (
    BenchCorpus,
    DocSearchTool,
    GetDocumentTool,
    SearchLog,
    build_corpus,
    doc_url,
    docid_from_url,
)


def test_docids_and_page_addresses_map_both_ways() -> None:
    assert doc_url("clueweb22-en0001/42") == "https://bench.invalid/doc/clueweb22-en0001%2F42"
    assert docid_from_url("https://bench.invalid/doc/clueweb22-en0001%2F42/") == (
        "clueweb22-en0001/42"
    )
    assert docid_from_url("https://en.wikipedia.org/wiki/Krill") is None


def test_search_returns_the_top_k_documents_with_their_docids(data: Path, tmp_path: Path) -> None:
    corpus = build_corpus(data / "browsecomp_plus_corpus.jsonl", tmp_path / "corpus")
    log = SearchLog([], [])
    result = DocSearchTool(corpus, log, k=2).run({"query": ["blue whale krill", "Canberra"]})
    assert result.ok
    assert result.text.count("docid: ") == 3  # two hits, then the one document on Canberra
    assert "docid: 106" in result.text and "docid: 108" in result.text
    assert log.queries == ["blue whale krill", "Canberra"]
    assert set(log.retrieved) == {"105", "106", "108"}
    assert not DocSearchTool(corpus, log).run({"query": []}).ok


def test_get_document_reads_a_whole_document_by_docid(data: Path, tmp_path: Path) -> None:
    corpus = build_corpus(data / "browsecomp_plus_corpus.jsonl", tmp_path / "corpus")
    page = GetDocumentTool(corpus).run({"docid": "104"})
    assert page.ok and "Neil Armstrong and Buzz Aldrin" in page.text
    missing = GetDocumentTool(corpus).run({"docid": "999"})
    assert not missing.ok and "no document '999'" in missing.text
    assert corpus.docids == frozenset(str(n) for n in range(101, 110))


def test_the_corpus_is_rebuilt_only_when_its_source_changes(data: Path, tmp_path: Path) -> None:
    source = tmp_path / "corpus.jsonl"
    shutil.copy(data / "browsecomp_plus_corpus.jsonl", source)
    stages: list[str] = []
    build_corpus(source, tmp_path / "built", on_progress=lambda s, d, t: stages.append(s))
    assert stages and stages[-1] == "index"
    stages.clear()
    build_corpus(source, tmp_path / "built", on_progress=lambda s, d, t: stages.append(s))
    assert stages == []  # reused
    with source.open("a") as handle:
        handle.write(
            '{"docid": "110", "text": "Perth\\nPerth is in Western Australia.", "url": ""}\n'
        )
    corpus = build_corpus(source, tmp_path / "built", on_progress=lambda s, d, t: stages.append(s))
    assert "load" in stages and corpus.store.summary().documents == 10
    assert isinstance(BenchCorpus(tmp_path / "built").searcher.modes, tuple)
