from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from quest.corpus import CorpusError, CorpusStore, Document, corpus_write, load_wikipedia
from quest.rubric.documents import Document as RubricDocument
from quest.rubric.documents import DocumentStore

STAMP = "2026-01-01T00:00:00+00:00"


def page(n: int, text: str = "Some text.", source: str = "user") -> Document:
    return Document(
        url=f"https://example.org/{n}",
        title=f"Page {n}",
        text=text,
        source=source,
        licence="CC0",
        fetched_at=STAMP,
    )


@pytest.fixture(scope="module")
def wiki_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wiki")
    corpus_write(folder, itertools.islice(load_wikipedia(fetched_at=STAMP), 200))
    return folder


def test_a_written_corpus_reads_back_the_same_documents_and_passages(wiki_dir: Path) -> None:
    store = CorpusStore(wiki_dir)
    expected = list(itertools.islice(load_wikipedia(fetched_at=STAMP), 200))
    assert list(store.documents()) == expected
    assert len(store) == 200
    summary = store.summary()
    assert summary.passages == len(list(store.passages())) >= 200
    assert summary.sources["wikipedia"].documents == 200
    assert summary.sources["wikipedia"].licences == ("CC BY-SA 4.0",)


def test_the_store_finds_a_page_by_any_spelling_of_its_url(wiki_dir: Path) -> None:
    store = CorpusStore(wiki_dir)
    url = "https://en.wikipedia.org/wiki/2001:_A_Space_Odyssey"
    document = store.get(url)
    assert document is not None and document.title == "2001: A Space Odyssey"
    assert store.get("http://www.en.wikipedia.org/wiki/2001:_A_Space_Odyssey/#Plot") == document
    assert store.get("https://en.wikipedia.org/wiki/Nowhere") is None


def test_the_store_serves_rubric_checks_as_a_document_store(wiki_dir: Path) -> None:
    store: DocumentStore = CorpusStore(wiki_dir)
    document = store.get("https://en.wikipedia.org/wiki/2001:_A_Space_Odyssey")
    assert isinstance(document, RubricDocument)
    assert "Stanley Kubrick" in document.text


def test_loading_again_replaces_pages_with_the_same_url_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    corpus_write(tmp_path, [page(1), page(2)])
    report = corpus_write(tmp_path, [page(2, "New text."), page(3), page(3, "ignored")])
    assert (report.added, report.replaced, report.kept, report.duplicates) == (1, 1, 1, 1)
    store = CorpusStore(tmp_path)
    assert [d.url for d in store.documents()] == [f"https://example.org/{n}" for n in (1, 2, 3)]
    assert store.get("https://example.org/2") == page(2, "New text.")
    assert store.get("https://example.org/3") == page(3)


def test_the_fingerprint_changes_only_when_the_passages_change(tmp_path: Path) -> None:
    first = corpus_write(tmp_path, [page(1), page(2)]).summary.fingerprint
    same = corpus_write(tmp_path, [page(2)]).summary.fingerprint
    changed = corpus_write(tmp_path, [page(2, "Edited.")]).summary.fingerprint
    assert first == same != changed


def test_the_manifest_is_plain_json_with_counts_per_source(tmp_path: Path) -> None:
    corpus_write(tmp_path, [page(1), page(2, source="handbook")])
    manifest = json.loads((tmp_path / "corpus.json").read_text())
    assert manifest["format"] == "questweb.corpus/1"
    assert manifest["sources"] == {
        "handbook": {"documents": 1, "licences": ["CC0"]},
        "user": {"documents": 1, "licences": ["CC0"]},
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "corpus.json",
        "documents.jsonl",
        "passages.jsonl",
    ]


def test_a_directory_that_is_not_a_corpus_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not a corpus directory"):
        CorpusStore(tmp_path)
