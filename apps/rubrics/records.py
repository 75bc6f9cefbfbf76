"""Reading task records out of uploaded files: JSON (one task or a list) or JSONL.

Streaming by line for JSONL so a large file never sits in memory twice as Python objects.
Every problem names the record (line number or list index) it belongs to.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from apps.common.jsonbody import loads_untrusted

MAX_RECORD_BYTES = 5_000_000


@dataclass(frozen=True)
class Record:
    where: str  # "line 12" or "item 3"
    data: Mapping[str, Any] | None
    error: str = ""


@dataclass(frozen=True)
class RecordSource:
    total: int
    records: Iterator[Record]


def open_records(payload: bytes, filename: str = "") -> RecordSource:
    """The records of a JSON or JSONL file and how many there are (JSON is parsed once)."""
    if not filename.endswith(".jsonl") and payload.lstrip()[:1] in (b"[", b"{"):
        try:
            document = loads_untrusted(payload)
        except ValueError:
            document = None  # not one JSON document: read it as JSONL below
        if document is not None:
            items = document if isinstance(document, list) else [document]
            return RecordSource(len(items), _items(items))
    total = sum(1 for line in payload.splitlines() if line.strip())
    return RecordSource(total, _jsonl(payload))


def _record(where: str, item: object) -> Record:
    if isinstance(item, dict):
        return Record(where, item)
    return Record(where, None, f"expected a JSON object, got {type(item).__name__}")


def _items(items: list[Any]) -> Iterator[Record]:
    for index, item in enumerate(items, start=1):
        yield _record(f"item {index}", item)


def _jsonl(payload: bytes) -> Iterator[Record]:
    for number, line in enumerate(payload.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        if len(line) > MAX_RECORD_BYTES:
            yield Record(where, None, f"record is larger than {MAX_RECORD_BYTES:,} bytes")
            continue
        try:
            item = loads_untrusted(line)
        except ValueError as exc:
            yield Record(where, None, f"not valid JSON: {exc}")
            continue
        yield _record(where, item)
