"""The research tools over questweb's offline corpus: its searcher and its document store."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from quest.corpus import CorpusStore
from quest.search.scoped import StoreSources, search_sources
from quest.search.searcher import Result, Searcher
from quest.tools.protocols import ChatClient
from quest.tools.python_tool import PythonInterpreter
from quest.tools.toolbox import Toolbox


class CorpusSearch:
    """A SearchBackend over the corpus, optionally limited to some sources."""

    def __init__(
        self,
        searcher: Searcher,
        store: CorpusStore,
        *,
        sources: Collection[str] | None = None,
        mode: str | None = None,
    ) -> None:
        self.searcher = searcher
        self.lookup = StoreSources(store)
        self.sources = sources
        self.mode = mode

    def search(self, query: str, k: int) -> Sequence[Result]:
        if self.sources is None:
            return self.searcher.search(query, mode=self.mode, k=k)
        return search_sources(
            self.searcher, self.lookup, query, sources=self.sources, mode=self.mode, k=k
        )


def offline_toolbox(
    corpus_dir: str | Path,
    *,
    scholar_sources: Collection[str] = ("wikipedia",),
    chat: ChatClient | None = None,
    python: PythonInterpreter | None = None,
) -> Toolbox:
    """search, google_scholar, visit and PythonInterpreter, all reading the offline corpus."""
    store = CorpusStore(corpus_dir)
    searcher = Searcher.open(corpus_dir)
    return Toolbox.build(
        search=CorpusSearch(searcher, store),
        scholar=CorpusSearch(searcher, store, sources=scholar_sources),
        pages=store,
        chat=chat,
        python=python,
    )
