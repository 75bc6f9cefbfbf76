"""Users' own corpora: one `{url, title, text, [source, licence, topic, fetched_at]}` per line.

The file is streamed line by line (a line is never read past `max_line_bytes`). A bad line is
skipped and reported by number and reason; the good lines are kept:

    line 3: url must be http(s) with a host, got 'file:///etc/passwd'
    line 7: missing field "text"
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from quest.corpus.model import CorpusError, Document
from quest.corpus.packages import utc_now
from quest.rubric.documents import normalise_url

MAX_LINE_BYTES = 4_000_000
MAX_URL_CHARS = 2_048
MAX_REPORTED_ERRORS = 1_000
DEFAULT_SOURCE = "user"
DEFAULT_LICENCE = "unspecified"
_OPTIONAL = ("source", "licence", "topic", "fetched_at")


@dataclass(frozen=True)
class LineError:
    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


class _BadLine(Exception):
    pass


class JsonlImport:
    """Iterate to stream the documents; afterwards `errors` names every skipped line (the
    first MAX_REPORTED_ERRORS of them; `error_count` counts all)."""

    def __init__(
        self,
        path: str | Path,
        *,
        fetched_at: str | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.path = Path(path)
        self.fetched_at = fetched_at or utc_now()
        self.max_line_bytes = max_line_bytes
        self.errors: list[LineError] = []
        self.error_count = 0
        self.documents = 0
        self._seen: dict[str, int] = {}

    def __iter__(self) -> Iterator[Document]:
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise CorpusError(f"{self.path}: {exc.strerror or exc}") from None
        with handle:
            for number, raw in enumerate(self._lines(handle), start=1):
                document = self._parse(number, raw)
                if document is not None:
                    self.documents += 1
                    yield document

    def _lines(self, handle: IO[bytes]) -> Iterator[bytes | None]:
        """Each line's bytes, or None for a line longer than the limit (which is skipped)."""
        while raw := handle.readline(self.max_line_bytes + 1):
            if len(raw) > self.max_line_bytes and not raw.endswith(b"\n"):
                while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass
                yield None
            else:
                yield raw

    def _parse(self, number: int, raw: bytes | None) -> Document | None:
        try:
            if raw is None:
                raise _BadLine(f"line is longer than {self.max_line_bytes:,} bytes")
            if not raw.strip():
                return None
            return self._document(number, _decode(raw, first=number == 1))
        except _BadLine as exc:
            self.error_count += 1
            if len(self.errors) < MAX_REPORTED_ERRORS:
                self.errors.append(LineError(number, str(exc)))
            return None

    def _document(self, number: int, data: dict[str, Any]) -> Document:
        url, title, text = (_required(data, key) for key in ("url", "title", "text"))
        _check_url(url)
        key = normalise_url(url)
        if key in self._seen:
            raise _BadLine(f"duplicate url {url!r} (first on line {self._seen[key]})")
        optional = {key: _optional(data, key) for key in _OPTIONAL}
        self._seen[key] = number
        return Document(
            url=url,
            title=title.strip(),
            text=text,
            source=optional["source"] or DEFAULT_SOURCE,
            licence=optional["licence"] or DEFAULT_LICENCE,
            fetched_at=optional["fetched_at"] or self.fetched_at,
            topic=optional["topic"],
        )


def _decode(raw: bytes, *, first: bool) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _BadLine("not valid UTF-8") from None
    try:
        data = json.loads(text.removeprefix("\ufeff") if first else text)
    except (ValueError, RecursionError):
        raise _BadLine("not valid JSON") from None
    if not isinstance(data, dict):
        raise _BadLine(f"expected a JSON object, got {type(data).__name__}")
    return data


def _required(data: dict[str, Any], key: str) -> str:
    if key not in data:
        raise _BadLine(f'missing field "{key}"')
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise _BadLine(f'field "{key}" must be a non-empty string')
    return value


def _optional(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise _BadLine(f'field "{key}" must be a string')
    return (value or "").strip()


def _check_url(url: str) -> None:
    shown = url if len(url) <= 80 else url[:77] + "..."
    if len(url) > MAX_URL_CHARS or any(c.isspace() or ord(c) < 32 for c in url):
        raise _BadLine(f"url is too long or contains whitespace: {shown!r}")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise _BadLine(f"url is malformed: {shown!r}") from None
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise _BadLine(f"url must be http(s) with a host, got {shown!r}")
