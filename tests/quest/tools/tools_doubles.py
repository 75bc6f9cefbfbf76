"""Small in-test backends for the tools, named for what they are: a search backend over a list
of pages, a page source over a dict, a DNS answer table and a chat client that replies from a
script. They stand in for the corpus index, DNS and an LLM, which the tools reach only through
Protocols or constructor arguments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from quest.tools import SearchHit, WebPage


class ListSearchBackend:
    """Returns the pages whose title or text contains every word of the query, in list order;
    records the queries it was asked."""

    def __init__(self, pages: Sequence[WebPage]) -> None:
        self.pages = list(pages)
        self.queries: list[tuple[str, int]] = []

    def search(self, query: str, k: int) -> list[SearchHit]:
        self.queries.append((query, k))
        words = query.casefold().split()
        found = [
            page
            for page in self.pages
            if all(word in f"{page.title} {page.text}".casefold() for word in words)
        ]
        return [
            SearchHit(rank, page.title, page.url, page.text[:80])
            for rank, page in enumerate(found[:k], 1)
        ]


class DictPageSource:
    def __init__(self, pages: Sequence[WebPage]) -> None:
        self.pages = {page.url: page for page in pages}
        self.asked: list[str] = []

    def get(self, url: str) -> WebPage | None:
        self.asked.append(url)
        return self.pages.get(url)


class TableResolver:
    """A DNS answer table, so that the guard's tests need no DNS server. Records lookups."""

    def __init__(self, table: dict[str, Sequence[str]]) -> None:
        self.table = table
        self.asked: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> Sequence[str]:
        self.asked.append((host, port))
        if host not in self.table:
            raise OSError(f"no such host {host}")
        return self.table[host]


class ScriptedChatClientStandIn:
    """Replies with a fixed script, one reply per call; an Exception instance is raised."""

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.calls: list[Sequence[Mapping[str, str]]] = []

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        self.calls.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


ADA = WebPage(
    url="https://en.wikipedia.org/wiki/Ada_Lovelace",
    title="Ada Lovelace",
    text=(
        "Augusta Ada King, Countess of Lovelace, was an English mathematician and writer.\n\n"
        "She is chiefly known for her work on Charles Babbage's proposed mechanical "
        "general-purpose computer, the Analytical Engine.\n\n"
        "Lovelace was born in London on 10 December 1815. She died of uterine cancer on "
        "27 November 1852, aged 36.\n\n"
        "Her notes on the engine include what is recognised as the first algorithm intended "
        "to be carried out by such a machine."
    ),
)
BABBAGE = WebPage(
    url="https://en.wikipedia.org/wiki/Charles_Babbage",
    title="Charles Babbage",
    text=(
        "Charles Babbage was an English polymath, mathematician and mechanical engineer.\n\n"
        "He originated the concept of a digital programmable computer: the Analytical Engine."
    ),
)
EMPTY = WebPage(url="https://example.org/empty", title="Empty", text="   \n")

PUBLIC = "93.184.215.14"  # a public address for name tables (example.com's)
