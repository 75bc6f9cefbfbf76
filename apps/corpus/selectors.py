from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import QuerySet

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, Invalid, NotFound
from apps.corpus.models import CorpusJob
from apps.jobs.models import ACTIVE
from quest.corpus import CorpusStore
from quest.rubric import TitleDistractors
from quest.search.hits import SearchError
from quest.search.indexing import index_status
from quest.search.scoped import StoreSources, search_sources
from quest.search.searcher import Searcher
from quest.search.strength import weak_match
from quest.tools.offline import CorpusSearch
from quest.tools.toolbox import Toolbox
from workers.queues import Queue

log = logging.getLogger(__name__)
_lock = threading.Lock()
_cache: dict[str, Any] = {}


def _corpus_dir() -> Path:
    return Path(settings.CORPUS_DIR)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def _status_key() -> tuple[Any, ...]:
    """Changes whenever the corpus or an index is rewritten (files are renamed into place).
    Cheap on purpose: computing the full index status takes a third of a second mid-build."""
    folder = _corpus_dir()
    watched = (
        folder / "corpus.json",
        folder / "index" / "bm25" / "meta.json",
        folder / "index" / "dense" / "index.json",
    )
    return (str(folder), *(_mtime(path) for path in watched))


def _open_searcher(searcher_class: Any) -> Any:
    # A BM25 build writes its files in place, one by one: a search that opens the index
    # half-written (a fresh installation indexing its corpus) would be a 500. It is a moment's
    # wait; the next search after the build opens the index whole.
    try:
        return searcher_class.open(_corpus_dir())
    except (OSError, EOFError, ValueError) as exc:
        raise Conflict(
            "the search index cannot be read now (it is probably being rebuilt): try again in "
            "a moment, or rebuild it on the corpus page"
        ) from exc


def searcher() -> Any:
    """The process's Searcher, reopened whenever an index was rebuilt or the corpus changed."""
    if not (_corpus_dir() / "corpus.json").exists():
        raise Invalid("the corpus is empty: load it on the corpus page first")
    key = _status_key()
    with _lock:
        if _cache.get("key") != key:
            _cache["searcher"] = _open_searcher(Searcher)
            _cache["key"] = key
        return _cache["searcher"]


def warm_search() -> bool:
    """Open the process's searcher and load its query encoder now, so that the first search a
    user makes does not pay for them (a hybrid search after a start took 14 s). False when
    there is nothing to warm (no corpus yet, an index being built, or no dense index); never
    raises: a failed warm-up only leaves the first search slow. An empty corpus is how every
    installation starts, so it is said in one line; only a real failure logs a traceback."""
    try:
        if not (_corpus_dir() / "corpus.json").exists():
            log.info(_not_loaded_yet())
            return False
        engine = searcher()
        if "dense" not in engine.modes:
            return False
        engine.encoder.encode(["warm up"])
    except Conflict as exc:  # an index half-written by its build: the next search reopens it
        log.info("search: not warmed: %s", exc.message)
        return False
    except Exception:
        log.warning("could not warm the search engine", exc_info=True)
        return False
    return True


def _not_loaded_yet() -> str:
    """What an empty corpus means for search: loading (the first start queues the offline
    corpus, and each load builds its BM25 index) or waiting for an admin to load one."""
    pending = CorpusJob.objects.filter(status__in=ACTIVE)
    count = pending.count()
    if count:
        jobs = f"{count} corpus job{'s' if count > 1 else ''}"
        return (
            f"search: the corpus is empty; it is loading in the background ({jobs} queued or "
            "running, see /corpus/) and search will be ready when the first load finishes"
        )
    return "search: the corpus is empty; search will be ready once one is loaded on /corpus/"


def _warm_search_thread() -> None:
    try:
        warm_search()
    finally:
        connections.close_all()  # this thread's own: it ends here


def warm_search_in_background() -> None:
    """warm_search in a daemon thread: a process starting up serves requests meanwhile."""
    threading.Thread(target=_warm_search_thread, name="warm-search", daemon=True).start()


def warm_search_on_worker(sender: Any, **kwargs: Any) -> None:
    """Celery's worker_ready: the worker that runs synthesis (the cpu queue's) searches the
    corpus, and its first search should not wait for the engine and the query encoder to load.
    Only where asked (`make run` sets QUESTWEB_WARM_SEARCH=1)."""
    queues = {queue.name for queue in sender.task_consumer.queues}
    if os.environ.get("QUESTWEB_WARM_SEARCH") == "1" and Queue.CPU.value in queues:
        warm_search_in_background()


def corpus_store() -> Any:
    """The corpus as a document store for the rubric checks, or None while it is empty."""
    return store() if (_corpus_dir() / "corpus.json").exists() else None


def store() -> Any:
    key = _status_key()
    with _lock:
        if _cache.get("store_key") != key:
            _cache["store"] = CorpusStore(_corpus_dir())
            _cache["store_key"] = key
        return _cache["store"]


def corpus_distractors() -> Any:
    """Names and unrelated pages from the corpus's titles for the probes' adversarial answers
    (quest.rubric.TitleDistractors), or None while the corpus is empty. Built once per corpus
    version: it reads every document."""
    if not (_corpus_dir() / "corpus.json").exists():
        return None
    pages = store()
    key = _status_key()
    with _lock:
        if _cache.get("distractors_key") != key:
            documents = pages.documents()
            _cache["distractors"] = TitleDistractors((d.url, d.title, d.text) for d in documents)
            _cache["distractors_key"] = key
        return _cache["distractors"]


@dataclass(frozen=True)
class SearchAnswer:
    query: str
    mode: str
    modes: tuple[str, ...]
    results: list[Any]
    weak: str = ""  # why nothing matches the query well (quest.search.strength), or ""


def search(
    *, user: User | None, query: str, mode: str | None, k: int, sources: Any = None
) -> SearchAnswer:
    """Search the corpus. `sources` keeps only documents of those sources (google_scholar)."""
    if user is not None:
        require_role(user, Role.VIEWER)
    engine = searcher()
    try:
        if sources is None:
            results = engine.search(query, mode=mode or None, k=k)
        else:
            lookup = StoreSources(store())
            results = search_sources(engine, lookup, query, sources=sources, mode=mode or None, k=k)
    except SearchError as exc:
        raise Invalid(str(exc)) from exc
    mode = mode or engine.default_mode
    return SearchAnswer(query, mode, engine.modes, results, weak_match(results))


def document_get(*, user: User, url: str) -> Any:
    require_role(user, Role.VIEWER)
    if not (_corpus_dir() / "corpus.json").exists():
        raise NotFound("the corpus is empty")
    document = store().get(url)
    if document is None:
        raise NotFound(f"no document at {url[:200]}")
    return document


def corpus_overview(*, user: User) -> dict[str, Any]:
    require_role(user, Role.VIEWER)
    summary = None
    if (_corpus_dir() / "corpus.json").exists():
        summary = CorpusStore(_corpus_dir()).summary()
    return {"summary": summary, "index": index_status(_corpus_dir()) if summary else None}


def corpus_jobs(*, user: User) -> QuerySet[CorpusJob]:
    require_role(user, Role.VIEWER)
    return CorpusJob.objects.defer("payload")


def research_toolbox() -> Any:
    """The agent's research tools over the corpus (search, scholar, visit). The index comes
    first: searcher() says plainly when the corpus is empty."""
    index, pages = searcher(), store()
    return Toolbox.build(
        search=CorpusSearch(index, pages),
        scholar=CorpusSearch(index, pages, sources=settings.SCHOLAR_SOURCES),
        pages=pages,
    )
