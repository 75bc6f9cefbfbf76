from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Field, Schema


class VersionSummaryOut(Schema):
    number: int
    author: str | None
    note: str
    created_at: datetime
    stats: dict[str, Any]


class VersionOut(VersionSummaryOut):
    tree: dict[str, Any]


class TaskSummaryOut(Schema):
    id: int
    question: str
    type: str
    category: str
    subcategory: str
    complexity: str
    audit_state: str
    version: int | None
    stats: dict[str, Any]
    created_at: datetime


class TaskOut(TaskSummaryOut):
    solution: dict[str, Any]
    provenance: dict[str, Any]
    tree: dict[str, Any] | None


class TaskPageOut(Schema):
    count: int
    page: int
    pages: int
    results: list[TaskSummaryOut]


class VersionIn(Schema):
    tree: Any = Field(description="The new tree, in any supported shape")
    note: str = Field(default="", max_length=500)
    base_version: int | None = Field(
        default=None, description="The version you edited; refused if it is no longer current"
    )


class ChangeOut(Schema):
    op: str
    node_id: str
    path: str
    field: str
    before: Any
    after: Any


class DiffOut(Schema):
    a: int
    b: int
    changes: list[ChangeOut]


class ValidationOut(Schema):
    valid: bool
    shape: str | None = None
    notes: list[str] = []
    errors: list[str] = []
    tree: dict[str, Any] | None = None
    stats: dict[str, Any] | None = None


class ImportOut(Schema):
    id: int
    filename: str
    status: str
    total: int
    processed: int
    imported: int
    rejected: list[dict[str, str]]
    error: str
    created_at: datetime
    finished_at: datetime | None


class VerdictsIn(Schema):
    verdicts: dict[str, Any] = Field(
        description=(
            'leaf id → "pass" | "fail" | "error" | "skipped", or {status, evidence, reasoning}'
        )
    )


class AnswerIn(Schema):
    answer: str = Field(
        max_length=200_000, description="The answer text, or a <answer>…</answer> response"
    )


class EvaluationOut(Schema):
    report: dict[str, Any]
    reward: dict[str, Any]
