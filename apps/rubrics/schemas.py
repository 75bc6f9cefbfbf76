from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import ConfigDict, WithJsonSchema

from apps.common.pagination import Page
from apps.common.schemas import JsonObject, Text, VersionNumber
from apps.jobs.models import JobStatus
from apps.rubrics.evaluation import MAX_ANSWER_CHARS, MAX_VERDICTS
from apps.rubrics.models import AuditState, Complexity, ProbeVerdict, TaskType
from apps.rubrics.services import QUESTION_MAX, TEXT_FIELDS
from quest.rubric.report import NodeStatus

# A rubric tree in any shape the engine reads (canonical JSON, QUEST shapes A-D: objects; a
# criteria list: an array). Anything else is answered by the engine, in words, not refused here.
RubricTree = Annotated[
    Any,
    WithJsonSchema(
        {
            "type": ["object", "array"],
            "description": "A rubric tree in any supported shape: canonical JSON, QUEST "
            "shapes A-D (objects) or a criteria list (an array)",
        }
    ),
]


class VersionSummaryOut(Schema):
    number: VersionNumber
    author: str | None
    note: str
    created_at: datetime
    stats: dict[str, Any]


class VersionOut(VersionSummaryOut):
    tree: dict[str, Any]


class TaskSummaryOut(Schema):
    id: int
    question: str
    type: TaskType
    category: str
    subcategory: str
    complexity: Complexity
    audit_state: AuditState
    version: int | None
    stats: dict[str, Any]
    created_at: datetime


class TaskOut(TaskSummaryOut):
    solution: dict[str, Any]
    reference_answer: str
    provenance: dict[str, Any]
    tree: dict[str, Any] | None


class TaskPageOut(Page[TaskSummaryOut]):
    """A page of tasks, newest first."""


def _absent(schema: dict[str, Any]) -> None:
    # One of rubric, rubric_tree and tree holds the tree; the others are left out, not null.
    schema.pop("default", None)


# POST /api/tasks reads its body itself, with the import's rules and messages (NaN, lone
# surrogates, alternative field names): this model documents that body and validates nothing.
class TaskRecordIn(Schema):
    """One task, as POST /api/tasks and import files take it. Fields not listed are ignored; a
    record the import rules refuse is a 422 naming the field."""

    model_config = ConfigDict(extra="allow")

    question: str = Field(
        default="",
        max_length=QUESTION_MAX,
        description="Required unless proposed_question or task_description (or the tree) has it",
    )
    proposed_question: str = Field(default="", description="QUEST proposer output's question")
    task_description: str = Field(default="", description="QUEST task files' question")
    type: TaskType = TaskType.OBJECTIVE
    category: str = Field(default="", max_length=TEXT_FIELDS["category"])
    subcategory: str = Field(default="", max_length=TEXT_FIELDS["subcategory"])
    complexity: Complexity = Field(
        default=Complexity.NONE, description="Left out: computed from the tree"
    )
    rubric: RubricTree = Field(
        default=None,
        json_schema_extra=_absent,
        description="The tree; required, here or as rubric_tree or tree",
    )
    rubric_tree: RubricTree = Field(
        default=None, json_schema_extra=_absent, description="The tree, as QUEST task files say"
    )
    tree: RubricTree = Field(
        default=None, json_schema_extra=_absent, description="The tree, as questweb exports say"
    )
    solution: dict[str, Any] | str = Field(
        default_factory=dict,
        description="{item: {description, reference_urls}} as QUEST writes it, or free text",
    )
    reference_answer: str = Field(
        default="",
        max_length=TEXT_FIELDS["reference_answer"],
        description="The solution written out as an answer (Markdown citing its sources)",
    )
    provenance: dict[str, Any] = Field(
        default_factory=dict, description="generator, batch, source file and line, external id"
    )


class VersionIn(Schema):
    tree: RubricTree = Field(description="The new tree, in any supported shape")
    note: Text = Field(default="", max_length=500)
    # Optional here so that leaving it out is answered by the service, in words.
    base_version: VersionNumber | None = Field(
        default=None,
        description="Required: the version you edited; refused if it is no longer current",
    )


class ChangeOut(Schema):
    op: str
    node_id: str
    path: str
    field: str
    before: Any
    after: Any


class DiffOut(Schema):
    a: VersionNumber
    b: VersionNumber
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
    status: JobStatus
    total: int
    processed: int
    imported: int
    rejected: list[dict[str, str]]
    error: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class VerdictsIn(Schema):
    verdicts: JsonObject = Field(
        max_length=MAX_VERDICTS,
        description=(
            'leaf id → "pass" | "fail" | "error" | "skipped", or {status, evidence, reasoning}'
        ),
    )


class ScoreOut(Schema):
    root_score: float
    root_score_lower: float
    root_score_upper: float = Field(description="With every errored or unverified leaf passed")
    root_status: NodeStatus
    complete: bool = Field(description="Every leaf has a pass, fail or skipped verdict")
    errored: list[str]
    unverified: list[str]
    nodes: list[dict[str, Any]] = Field(description="id, path, score, status and verdict")


class AnswerIn(Schema):
    answer: Text = Field(
        max_length=MAX_ANSWER_CHARS, description="The answer text, or a <answer>…</answer> response"
    )


class EvaluationOut(Schema):
    report: dict[str, Any]
    reward: dict[str, Any]


class ProbeIn(Schema):
    version: VersionNumber | None = Field(
        default=None, description="The version number to probe; the current one if left out"
    )


class ProbeRunSummaryOut(Schema):
    id: int
    task_id: int
    version: int
    status: JobStatus
    verdict: ProbeVerdict
    judge: str
    error: str
    created_by: str | None
    created_at: datetime
    finished_at: datetime | None


class ProbeRunOut(ProbeRunSummaryOut):
    report: dict[str, Any] = Field(
        description=(
            "verdict, sound, reasons, untested, judge, limits, and probes: each with name, role "
            "(reference | ranking | adversarial), answer, root_score, reward, limit, over_limit, "
            "complete and note"
        )
    )
