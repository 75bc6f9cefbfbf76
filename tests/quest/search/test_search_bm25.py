from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from search_helpers import STAMP

from quest.corpus import Document, corpus_write
from quest.search.hits import SearchError
from quest.search.indexing import bm25_build, index_status
from quest.search.searcher import Searcher


@pytest.fixture(scope="module")
def searcher(wiki200: Path) -> Searcher:
    return Searcher.open(wiki200)


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("eiffel tower paris", "Eiffel Tower"),
        ("who painted the mona lisa", "Mona Lisa"),
        ("plants turn light into chemical energy", "Photosynthesis"),
        ("Kubrick science fiction film", "2001: A Space Odyssey"),
        ("theory of relativity physicist", "Albert Einstein"),
        ("lava magma eruption", "Volcano"),
    ],
)
def test_bm25_ranks_the_article_a_simple_query_is_about_first(
    searcher: Searcher, query: str, title: str
) -> None:
    results = searcher.search(query, mode="bm25", k=5)
    assert results[0].title == title
    assert [r.rank for r in results] == list(range(1, len(results) + 1))


def test_bm25_serves_as_soon_as_it_is_built_without_a_dense_index(searcher: Searcher) -> None:
    assert searcher.modes == ("bm25",)
    assert searcher.default_mode == "bm25"
    with pytest.raises(SearchError, match="hybrid search is not available"):
        searcher.search("coffee", mode="hybrid")


def test_each_document_appears_once_with_a_snippet_whose_query_words_can_be_highlighted(
    searcher: Searcher,
) -> None:
    results = searcher.search("beverage of roasted beans, coffee", k=10)
    assert len({r.url for r in results}) == len(results)
    top = results[0]
    assert top.url == "https://en.wikipedia.org/wiki/Coffee"
    marked = {top.snippet[start:end].lower() for start, end in top.highlights}
    assert marked == {"beverage", "roasted", "beans", "coffee"}


def test_a_query_of_unknown_or_stop_words_finds_nothing(searcher: Searcher) -> None:
    assert searcher.search("zzyzx qwxv", k=5) == []
    assert searcher.search("the of and", k=5) == []


@pytest.mark.parametrize(
    ("query", "k", "mode", "message"),
    [
        ("   ", 10, "bm25", "the query is empty"),
        ("x" * 2_001, 10, "bm25", "longer than 2,000 characters"),
        ("coffee", 0, "bm25", "k must be between 1 and 100"),
        ("coffee", 10, "semantic", "unknown mode 'semantic'"),
        ("coffee", 10, "dense", "dense search is not available"),
    ],
)
def test_bad_requests_are_refused_with_a_clear_error(
    searcher: Searcher, query: str, k: int, mode: str, message: str
) -> None:
    with pytest.raises(SearchError, match=message):
        searcher.search(query, mode=mode, k=k)


def test_an_index_built_before_the_corpus_changed_is_not_served(
    wiki200: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(wiki200, folder)
    assert index_status(folder).bm25 == "ready"
    extra = Document(
        url="https://example.org/new",
        title="New",
        text="Fresh words.",
        source="user",
        licence="CC0",
        fetched_at=STAMP,
    )
    corpus_write(folder, [extra])
    assert index_status(folder).bm25 == "stale"
    assert Searcher.open(folder).modes == ()
    bm25_build(folder)
    assert Searcher.open(folder).search("fresh words", k=1)[0].url == "https://example.org/new"
