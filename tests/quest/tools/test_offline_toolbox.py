from __future__ import annotations

from pathlib import Path

import pytest

from quest.corpus import Document, corpus_write
from quest.search.indexing import bm25_build
from quest.tools.offline import offline_toolbox

DOCS = [
    ("https://en.wikipedia.org/wiki/Canberra", "Canberra", "wikipedia",
     "Canberra is the capital city of Australia. Lake Burley Griffin lies at its centre."),
    ("https://www.geonames.org/2172517", "Canberra, Australia (GeoNames)", "geonames",
     "Canberra is a city in Australia. It is the capital of Australia."),
    ("https://en.wikipedia.org/wiki/Hobart", "Hobart", "wikipedia",
     "Hobart is the capital of Tasmania, an island state of Australia."),
]  # fmt: skip


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    corpus_write(
        folder,
        [
            Document(url=u, title=t, text=x, source=s, licence="test", topic="", fetched_at="2026")
            for u, t, s, x in DOCS
        ],
    )
    bm25_build(folder)
    return folder


def test_the_offline_search_tool_answers_in_quest_format(corpus: Path) -> None:
    result = offline_toolbox(corpus).call("search", {"query": ["capital of Australia"]})
    assert result.ok
    assert result.text.startswith("A search for 'capital of Australia' found")
    assert "[Canberra](https://en.wikipedia.org/wiki/Canberra)" in result.text


def test_scholar_reads_only_the_scholarly_sources(corpus: Path) -> None:
    result = offline_toolbox(corpus).call("google_scholar", {"query": "capital of Australia"})
    assert result.ok and "geonames.org" not in result.text and "wikipedia.org" in result.text


def test_visit_reads_a_corpus_page_for_the_goal(corpus: Path) -> None:
    toolbox = offline_toolbox(corpus)
    result = toolbox.call(
        "visit", {"url": "https://en.wikipedia.org/wiki/Canberra", "goal": "which lake lies there"}
    )
    assert result.ok and "Lake Burley Griffin" in result.text
    missing = toolbox.call("visit", {"url": "https://example.org/nowhere", "goal": "x"})
    assert "None" not in missing.text
