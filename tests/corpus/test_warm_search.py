"""The first search after a start does not wait for the engine: `make run` warms it."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.corpus import selectors


@pytest.fixture
def dense_corpus(small_corpus: Path) -> Path:
    from quest.search.indexing import dense_build

    dense_build(small_corpus)
    return small_corpus


def test_warming_opens_the_searcher_and_loads_the_query_encoder(dense_corpus: Path) -> None:
    selectors._cache.clear()
    assert selectors.warm_search() is True
    engine = selectors.searcher()  # the warmed one: the index has not changed since
    assert "hybrid" in engine.modes
    assert engine.encoder._model is not None  # a search now encodes without loading


def test_warming_an_empty_corpus_or_one_without_dense_index_is_a_quiet_no(
    corpus_dir: Path, small_corpus: Path
) -> None:
    selectors._cache.clear()
    assert selectors.warm_search() is False  # BM25 only: no encoder to load


def test_make_runs_web_process_warms_when_asked_and_only_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    import questweb.asgi
    from questweb import embedded

    source = Path(embedded.__file__).read_text(encoding="utf-8")
    assert 'env.setdefault("QUESTWEB_WARM_SEARCH", "1")' in source
    calls: list[str] = []
    monkeypatch.setattr(selectors, "warm_search_in_background", lambda: calls.append("warm"))
    for value, expected in (("0", []), ("1", ["warm"])):
        calls.clear()
        monkeypatch.setenv("QUESTWEB_WARM_SEARCH", value)
        importlib.reload(questweb.asgi)
        assert calls == expected
