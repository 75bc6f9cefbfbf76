from __future__ import annotations

import os
from pathlib import Path

import pytest

from quest.corpus import corpus_write, load_countryinfo, load_geonames
from quest.search.indexing import bm25_build

os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def loop_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real GeoNames and countryinfo pages with a BM25 index: what kg synthesis reads."""
    folder = tmp_path_factory.mktemp("loop_corpus") / "corpus"
    corpus_write(folder, [*load_geonames(), *load_countryinfo()])
    bm25_build(folder)
    return folder
