from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema

from apps.corpus.models import JobKind
from apps.jobs.models import JobStatus


class ResultOut(Schema):
    rank: int
    score: float
    url: str
    title: str
    snippet: str
    highlights: list[list[int]]
    bm25_rank: int | None = Field(None, description="The document's rank by BM25; None: not found")
    dense_rank: int | None = Field(None, description="Its rank by the dense index; None: not found")
    similarity: float | None = Field(None, description="Cosine of query and best passage (dense)")
    matched_terms: int = Field(0, description="Distinct query terms in its title and passage")
    query_terms: int = Field(0, description="Distinct searchable terms of the query")


class SearchOut(Schema):
    query: str
    mode: str
    modes: list[str]
    results: list[ResultOut]
    matches_well: bool = Field(description="False when nothing was found or nothing matches well")
    weak_reason: str = Field("", description="Why nothing matches well; empty when it does")


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
    # A JSONL load comes with its file: POST /api/corpus/uploads.
    kind: Literal[
        JobKind.LOAD_WIKI,
        JobKind.LOAD_GEO,
        JobKind.LOAD_DOMAINS,
        JobKind.INDEX_BM25,
        JobKind.INDEX_DENSE,
    ]


class JobOut(Schema):
    id: int
    kind: JobKind
    status: JobStatus
    stage: str
    done: int
    total: int
    filename: str
    report: dict[str, Any]
    error: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
