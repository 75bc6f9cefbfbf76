"""Helpers for the agent's tests: a tiny real corpus, and `CannedReplies`, an LLM stand-in that
answers from a fixed list. No real model can be made to write malformed JSON or an unclosed tag
on demand, so the protocol, budget and condenser-recovery tests script the replies; every
scripted-policy test runs the real policy, tools, search index and corpus."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from quest.corpus import Document, corpus_write
from quest.llm.types import Completion, LLMError, Message
from quest.search.indexing import bm25_build
from quest.tools import Toolbox
from quest.tools.offline import offline_toolbox

CANBERRA = "https://en.wikipedia.org/wiki/Canberra"
GEONAMES_CANBERRA = "https://www.geonames.org/2172517"
QUESTION = "What is the capital city of Australia?"

DOCS = [
    (CANBERRA, "Canberra", "wikipedia",
     "Canberra is the capital city of Australia. Lake Burley Griffin lies at its centre."),
    (GEONAMES_CANBERRA, "Canberra, Australia (GeoNames)", "geonames",
     "Canberra is a city in Australia. It is the capital of Australia."),
    ("https://en.wikipedia.org/wiki/Hobart", "Hobart", "wikipedia",
     "Hobart is the capital of Tasmania, an island state of Australia."),
    ("https://en.wikipedia.org/wiki/Sydney", "Sydney", "wikipedia",
     "Sydney is the largest city in Australia. It is the capital of New South Wales."),
    ("https://en.wikipedia.org/wiki/Paris", "Paris", "wikipedia",
     "Paris is the capital and largest city of France, on the river Seine."),
]  # fmt: skip

SEARCH_CALL = '<tool_call>{"name": "search", "arguments": {"query": ["capital of Australia"]}}'
VISIT_CALL = (
    '<tool_call>{"name": "visit", "arguments": {"url": ["' + CANBERRA + '"], '
    '"goal": "the capital of Australia"}}'
)


def build_corpus(folder: Path) -> Path:
    documents = [
        Document(url=u, title=t, text=x, source=s, licence="test", topic="", fetched_at="2026")
        for u, t, s, x in DOCS
    ]
    corpus_write(folder, documents)
    bm25_build(folder)
    return folder


class CannedReplies:
    """An LLM stand-in that returns the next reply of a fixed list (an LLMError instance in the
    list is raised instead), with finish_reason "stop" as a server that strips the stop
    sequence would. Records every request."""

    def __init__(self, replies: Sequence[str | LLMError], *, repeat_last: bool = False) -> None:
        self.replies = list(replies)
        self.repeat_last = repeat_last
        self.requests: list[list[dict[str, str]]] = []
        self.stops: list[list[str] | None] = []

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        temperature: float | None = None,
    ) -> Completion:
        self.requests.append([dict(m) for m in messages])
        self.stops.append(list(stop) if stop is not None else None)
        index = len(self.requests) - 1
        if index >= len(self.replies) and not self.repeat_last:
            raise LLMError("no canned reply left")
        reply = self.replies[min(index, len(self.replies) - 1)]
        if isinstance(reply, LLMError):
            raise reply
        return Completion(reply, 100, len(reply) // 4, "canned", "stop", "canned")

    def chat(self, messages: Sequence[Message]) -> str:
        return self.complete(messages).text


def wiki_toolbox(folder: Path, pages: dict[str, str]) -> Toolbox:
    """The offline tools over a corpus of Wikipedia-like pages {title: text}, BM25 only."""
    documents = [
        Document(
            url="https://en.wikipedia.org/wiki/" + "_".join(title.split()),
            title=title,
            text=text,
            source="wikipedia",
            licence="test",
            topic="",
            fetched_at="2026",
        )
        for title, text in pages.items()
    ]
    corpus_write(folder, documents)
    bm25_build(folder)
    return offline_toolbox(folder)
