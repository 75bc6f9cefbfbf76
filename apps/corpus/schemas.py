from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Field, Schema


class ResultOut(Schema):
    rank: int
    score: float
    url: str
    title: str
    snippet: str
    highlights: list[list[int]]


class SearchOut(Schema):
    query: str
    mode: str
    modes: list[str]
    results: list[ResultOut]


class DocumentOut(Schema):
    url: str
    title: str
    text: str
    source: str
    licence: str
    topic: str
    fetched_at: str
    attribution: str


class CorpusOut(Schema):
    documents: int
    passages: int
    sources: dict[str, Any]
    updated_at: str | None
    index: dict[str, Any] | None


class JobIn(Schema):
    kind: str = Field(description="load_wiki | load_geo | index_bm25 | index_dense")


class JobOut(Schema):
    id: int
    kind: str
    status: str
    stage: str
    done: int
    total: int
    filename: str
    report: dict[str, Any]
    error: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
