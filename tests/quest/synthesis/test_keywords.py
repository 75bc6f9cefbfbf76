from __future__ import annotations

from pathlib import Path

import pytest

from quest.corpus import Document, corpus_write
from quest.search.indexing import bm25_build
from quest.search.searcher import Searcher
from quest.synthesis.keywords import QUERIES, CorpusKeywords, KeywordError, read_keywords
from quest.synthesis.seeds import SUBCATEGORIES


def test_every_subcategory_has_a_corpus_query() -> None:
    assert set(QUERIES) == set(SUBCATEGORIES)


def test_a_keyword_csv_is_read_by_its_keyword_column() -> None:
    text = "\ufeffrank,keyword\n1,  solar   eclipse \n2,Bread\n3,bread\n4,Bread\n5,\n"
    assert read_keywords(text.encode()) == ["solar eclipse", "Bread", "bread"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"term\nbread\n", "no `keyword` column"),
        (b"keyword\n\n , \n", "no keywords"),
        (b"\xff\xfekeyword", "not UTF-8"),
        (b"keyword\nbre\x00ad\n", "NUL"),
        (("keyword\n" + "\n".join(f"k{i}" for i in range(10_001))).encode(), "more than 10,000"),
    ],
)
def test_a_bad_keyword_file_says_what_is_wrong(data: bytes, message: str) -> None:
    with pytest.raises(KeywordError, match=message):
        read_keywords(data, name="kw.csv")


def test_corpus_keywords_are_titles_of_wikipedia_pages_on_the_subcategorys_subject(
    tmp_path: Path,
) -> None:
    pages = [("Bread", "Bread is a staple food prepared from a dough of flour and water; "
              "cooking it is baking."), ("Cheese", "Cheese is a dairy food; cuisine uses it."),
             ("Volcano", "A volcano is a rupture in the crust of a planet.")]  # fmt: skip
    docs = [Document(url=f"https://en.wikipedia.org/wiki/{t}", title=t, text=x,
                     source="wikipedia", licence="test", topic="", fetched_at="2026")
            for t, x in pages]  # fmt: skip
    docs.append(Document(url="https://www.geonames.org/1", title="Foodland (GeoNames)",
                         text="Foodland food cooking cuisine dish.", source="geonames",
                         licence="test", topic="", fetched_at="2026"))  # fmt: skip
    corpus_write(tmp_path, docs)
    bm25_build(tmp_path)
    searcher = Searcher.open(tmp_path)
    calls: list[str] = []

    def search(query: str, k: int) -> list[tuple[str, str]]:
        calls.append(query)
        return [(r.url, r.title) for r in searcher.search(query, mode="bm25", k=k)]

    keywords = CorpusKeywords(search)
    assert sorted(keywords("Food & Cooking")) == ["Bread", "Cheese"]
    assert "Foodland (GeoNames)" not in keywords("Food & Cooking")
    assert keywords("Music") == ["Music"]  # nothing found: the subcategory itself
    assert len(calls) == 2, "each subcategory is searched once"
