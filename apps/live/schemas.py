from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from ninja import Field, Schema


class SessionIn(Schema):
    question: str = Field("", max_length=20_000)
    task_id: int | None = None
    policy: str = "scripted"
    model: str = ""
    max_turns: int | None = None
    condense_at_tokens: int | None = None
    max_turn_tokens: int | None = None
    visibility: str = "public"


class SessionOut(Schema):
    id: UUID
    question: str
    task_id: int | None
    policy: str
    model: str
    budgets: dict[str, Any]
    status: str
    visibility: str
    owner: str
    last_seq: int
    answer: str
    result: dict[str, Any]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str


class SessionPageOut(Schema):
    count: int
    page: int
    pages: int
    sessions: list[SessionOut]


class EventOut(Schema):
    seq: int
    type: str
    payload: dict[str, Any]
    created_at: datetime


class GapOut(Schema):
    first: int = Field(alias="from")
    last: int = Field(alias="to")


class EventPageOut(Schema):
    session: UUID
    status: str
    last_seq: int
    events: list[EventOut]
    gaps: list[dict[str, int]]


class ModelsOut(Schema):
    policies: list[str]
    models: list[str]


class EndpointIn(Schema):
    name: str = Field(..., min_length=1, max_length=100)
    base_url: str = Field(..., min_length=1, max_length=500)
    model: str = Field(..., min_length=1, max_length=200)
    api_key: str = Field("", max_length=500)
    enabled: bool = True
    priority: int = Field(100, ge=-1000, le=1000)


class EndpointOut(Schema):
    id: int
    name: str
    base_url: str
    model: str
    has_key: bool
    enabled: bool
    priority: int
    updated_at: datetime
