"""How the tools reach the world: a search engine, a page store and an LLM, each a small
Protocol so that the corpus index, a live web backend or a test double can stand behind it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


class Hit(Protocol):
    """One search result; `rank` counts from 1."""

    @property
    def rank(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def snippet(self) -> str: ...


class Page(Protocol):
    @property
    def url(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def text(self) -> str: ...


class SearchBackend(Protocol):
    def search(self, query: str, k: int) -> Sequence[Hit]: ...


class PageSource(Protocol):
    def get(self, url: str) -> Page | None:
        """The page at `url`, or None when there is none. May raise ToolError to refuse a URL
        or to report why a page could not be fetched."""
        ...


class ChatClient(Protocol):
    """Any chat-completion backend: messages are {"role", "content"} mappings."""

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str: ...


@dataclass(frozen=True)
class SearchHit:
    rank: int
    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class WebPage:
    url: str
    title: str
    text: str
