from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from ninja import Field, Schema

from apps.common.pagination import Page
from apps.jobs.models import JobStatus

KindName = Annotated[str, Field(max_length=40, description="A job kind, as GET /api/jobs names it")]


class JobProgressOut(Schema):
    status: JobStatus
    label: str = Field(description="The status in words")
    done: int = Field(description="How far the job got, in its kind's unit")
    total: int = Field(description="Where it ends; 0 while not known")
    percent: int


class AnyJobOut(Schema):
    kind: str
    id: int
    progress: JobProgressOut
    error: str = Field(description="Why it failed or who cancelled it; empty otherwise")
    created_by: str | None = Field(description="Who asked for it; null for the system")
    created_at: datetime
    started_at: datetime | None
    active_at: datetime | None = Field(description="The worker's last report")
    finished_at: datetime | None
    cancellable: bool = Field(description="Queued or running: POST …/cancel stops it")
    detail: dict[str, Any] = Field(description="The kind's own view of the job, as its app's API")


class AnyJobPageOut(Page[AnyJobOut]):
    pass
