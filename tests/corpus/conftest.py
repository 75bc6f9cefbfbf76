from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DOCS = [
    ("https://en.wikipedia.org/wiki/Canberra", "Canberra",
     "Canberra is the capital city of Australia. It was officially named in 1913. "
     "Lake Burley Griffin lies at the centre of the city.", "wikipedia", "CC BY-SA 4.0"),
    ("https://en.wikipedia.org/wiki/Mount_Kilimanjaro", "Mount Kilimanjaro",
     "Mount Kilimanjaro is the highest mountain in Africa, about 5,895 metres above sea level, "
     "in Tanzania.", "wikipedia", "CC BY-SA 4.0"),
    ("https://www.geonames.org/2172517", "Canberra, Australia (GeoNames)",
     "Canberra is a city in Australia. It is the capital of Australia.", "geonames", "CC BY 4.0"),
]  # fmt: skip


@pytest.fixture
def corpus_dir(settings: Any, tmp_path: Path) -> Path:
    """An empty corpus directory that the app under test uses."""
    settings.CORPUS_DIR = tmp_path / "corpus"
    return Path(settings.CORPUS_DIR)


@pytest.fixture
def small_corpus(corpus_dir: Path) -> Path:
    """Three real-looking documents with a BM25 index (no dense index: that is the engine's)."""
    from quest.corpus import Document, corpus_write
    from quest.search.indexing import bm25_build

    documents = [
        Document(url=u, title=t, text=x, source=s, licence=lic, topic="", fetched_at="2026-11-01")
        for u, t, x, s, lic in DOCS
    ]
    corpus_write(corpus_dir, documents)
    bm25_build(corpus_dir)
    return corpus_dir
