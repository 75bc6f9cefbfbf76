"""Pages that checks read: a small Protocol, an in-memory store and a JSONL loader."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from quest.rubric.errors import RubricError

MAX_DOC_TEXT = 2_000_000
MAX_DOCS_FILE = 200_000_000


@dataclass(frozen=True)
class Document:
    url: str
    title: str
    text: str


class DocumentStore(Protocol):
    def get(self, url: str) -> Document | None:
        """The page at `url`, or None when it cannot be read (which checks treat as
        *unsupported*, never as a page whose text is "None")."""
        ...


# Query parameters that track a click, never select a page.
_TRACKING = re.compile(
    r"^(?:utm_\w*|fbclid|gclid|dclid|msclkid|mc_[ce]id|ref|ref_src|source|share)$"
)
# Hosts that serve the same page to phones: en.m.wikipedia.org is en.wikipedia.org.
_MOBILE = re.compile(r"(?:^|\.)(?:m|mobile)\.")


def normalise_url(url: str) -> str:
    """Scheme and host case, `www.` and mobile hosts, default ports, trailing slash, fragment
    and tracking parameters (utm_*, fbclid …) do not change which page a citation means."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    host = (parts.hostname or "").lower().removeprefix("www.")
    host = _MOBILE.sub(lambda m: "." if m.group(0).startswith(".") else "", host, count=1)
    port = port if port not in (None, 80, 443) else None
    netloc = f"{host}:{port}" if port else host
    path = parts.path.rstrip("/")
    query = urlencode(
        sorted(
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _TRACKING.match(k)
        )
    )
    return urlunsplit(
        ("https" if parts.scheme in ("http", "https") else parts.scheme, netloc, path, query, "")
    )


def page_at(store: DocumentStore, url: str) -> Document | None:
    """The page a citation names: the URL as written, else without its query string (a page
    of the corpus is named by its path; "?lang=en" or "?oldid=1" reach the same text)."""
    page = store.get(url)
    if page is None and "?" in url:
        page = store.get(url.split("?", 1)[0])
    return page


def url_host(url: str) -> str:
    try:
        return (urlsplit(url.strip()).hostname or "").lower().removeprefix("www.")
    except ValueError:
        return ""


class InMemoryDocumentStore:
    """Documents keyed by normalised URL."""

    def __init__(self, documents: Iterable[Document] = ()) -> None:
        self._docs: dict[str, Document] = {}
        for document in documents:
            self.add(document)

    def add(self, document: Document) -> None:
        self._docs[normalise_url(document.url)] = document

    def get(self, url: str) -> Document | None:
        return self._docs.get(normalise_url(url))

    def documents(self) -> list[Document]:
        return list(self._docs.values())

    def __len__(self) -> int:
        return len(self._docs)


def load_docs_jsonl(path: str | Path) -> InMemoryDocumentStore:
    """One `{"url", "title", "text"}` object per line; blank lines are ignored."""
    file = Path(path)
    if file.stat().st_size > MAX_DOCS_FILE:
        raise RubricError([f"{file.name}: documents file is larger than {MAX_DOCS_FILE} bytes"])
    store = InMemoryDocumentStore()
    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                store.add(_document(line, f"{file.name}:{number}"))
    return store


def _document(line: str, where: str) -> Document:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        raise RubricError([f"{where}: not a JSON object"]) from None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        raise RubricError([f"{where}: expected {{url, title, text}} with a string url"])
    title, text = data.get("title", ""), data.get("text", "")
    if not isinstance(title, str) or not isinstance(text, str):
        raise RubricError([f"{where}: title and text must be strings"])
    return Document(url=data["url"], title=title, text=text[:MAX_DOC_TEXT])
