from __future__ import annotations

from pathlib import Path

import pytest

from quest.corpus import corpus_write, load_countryinfo, load_geonames
from quest.corpus.store import CorpusStore
from quest.rubric import TitleDistractors
from quest.search.indexing import bm25_build


@pytest.fixture(scope="session")
def geo_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real GeoNames and countryinfo pages (6,700 documents) with a BM25 index."""
    folder = tmp_path_factory.mktemp("geo_corpus") / "corpus"
    corpus_write(folder, [*load_geonames(), *load_countryinfo()])
    bm25_build(folder)
    return folder


@pytest.fixture(scope="session")
def pages(geo_corpus: Path) -> CorpusStore:
    return CorpusStore(geo_corpus)


@pytest.fixture(scope="session")
def distractors(pages: CorpusStore) -> TitleDistractors:
    return TitleDistractors((d.url, d.title, d.text) for d in pages.documents())
