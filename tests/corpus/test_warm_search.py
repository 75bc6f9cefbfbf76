"""The first search after a start does not wait for the engine: `make run` warms it."""

from __future__ import annotations

import logging
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


def test_a_cpu_worker_warms_search_when_asked_and_only_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from celery.signals import worker_ready

    calls: list[str] = []
    monkeypatch.setattr(selectors, "warm_search_in_background", lambda: calls.append("warm"))

    # Connected when Django started (CorpusConfig.ready); called here, not sent, so that no
    # other receiver (the heartbeat) sends real messages.
    assert any(key[0] == "corpus.warm_search" for key, _ in worker_ready.receivers)

    def ready(*queues: str) -> None:
        consumer = SimpleNamespace(queues=[SimpleNamespace(name=name) for name in queues])
        selectors.warm_search_on_worker(SimpleNamespace(task_consumer=consumer))

    for value, queues, expected in (
        ("1", ("cpu",), ["warm"]),
        ("1", ("gpu", "default"), []),
        ("0", ("cpu",), []),
    ):
        calls.clear()
        monkeypatch.setenv("QUESTWEB_WARM_SEARCH", value)
        ready(*queues)
        assert calls == expected, (value, queues)


def _warm_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=selectors.__name__):
        assert selectors.warm_search() is False
    return [r for r in caplog.records if r.name == selectors.__name__]


@pytest.mark.django_db
def test_a_first_start_says_in_one_line_that_the_corpus_is_loading_without_a_traceback(
    corpus_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from apps.corpus.services import corpus_bootstrap

    queued = corpus_bootstrap()  # what `make run` does on a first start, before the processes
    assert len(queued) == 3
    [record] = _warm_records(caplog)
    assert record.exc_info is None and record.levelno == logging.INFO
    assert record.getMessage() == (
        "search: the corpus is empty; it is loading in the background (3 corpus jobs queued or "
        "running, see /corpus/) and search will be ready when the first load finishes"
    )


@pytest.mark.django_db
def test_an_empty_corpus_nobody_loads_says_where_to_load_it_in_one_line(
    corpus_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    [record] = _warm_records(caplog)
    assert record.exc_info is None
    assert record.getMessage() == (
        "search: the corpus is empty; search will be ready once one is loaded on /corpus/"
    )


def test_a_real_failure_to_warm_still_logs_its_traceback(
    small_corpus: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> None:
        raise OSError("index file unreadable")

    monkeypatch.setattr(selectors, "searcher", broken)
    [record] = _warm_records(caplog)
    assert record.levelno == logging.WARNING
    assert record.getMessage() == "could not warm the search engine"
    assert record.exc_info is not None and "index file unreadable" in str(record.exc_info[1])
