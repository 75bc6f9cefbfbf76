from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Field, Schema

from apps.rubrics.schemas import ChangeOut


class CampaignIn(Schema):
    name: str = Field(max_length=200)
    filters: dict[str, str] = Field(
        default_factory=dict,
        description="category, subcategory, complexity, type, audit_state, generator, batch",
    )
    annotators_per_task: int = Field(default=2, ge=1, le=10)
    lock_minutes: int = Field(default=30, ge=1, le=1440)
    annotator_ids: list[int] = Field(
        default_factory=list, description="Who may claim its tasks; empty: every annotator"
    )
    instructions: str = Field(default="", max_length=10_000)
    limit: int | None = Field(default=None, ge=1, description="At most this many tasks")


class CampaignOut(Schema):
    id: int
    name: str
    instructions: str
    filters: dict[str, str]
    annotators_per_task: int
    lock_minutes: int
    status: str
    created_at: datetime
    total: int
    decided: int
    disputed: int
    submissions: int
    mine: int = Field(description="Tasks of this campaign the caller submitted")


class AssignmentOut(Schema):
    id: int
    campaign_id: int
    item_id: int
    task_id: int
    annotator: str
    status: str
    claimed_at: datetime
    lock_expires_at: datetime
    submitted_at: datetime | None
    version: int | None
    decision: str
    comment: str


class AssignmentDetailOut(AssignmentOut):
    question: str
    solution: dict[str, Any]
    start_version: int
    current_version: int
    tree: dict[str, Any]
    draft: dict[str, Any]
    suggestions: dict[str, Any] = Field(description="Judge verdicts per leaf, as suggestions")


class DraftIn(Schema):
    version: int | None = None
    verdicts: dict[str, Any] = Field(default_factory=dict)
    decision: str = ""
    comment: str = ""


class DraftOut(Schema):
    saved_at: str
    lock_expires_at: datetime
    current_version: int


class EditIn(Schema):
    base_version: int = Field(description="The version the operations were written against")
    ops: list[dict[str, Any]] = Field(
        description=(
            "set_description, set_critical, set_strategy, set_check, add_node, remove_node, "
            'move_node, e.g. {"op": "set_critical", "node": "a", "critical": true}'
        )
    )
    note: str = Field(default="", max_length=500)
    merge: bool = Field(
        default=False, description="Replay the operations on a newer version if one exists"
    )


class RevertIn(Schema):
    base_version: int
    to_version: int


class EditOut(Schema):
    version: int
    merged: bool
    changes: list[ChangeOut]
    tree: dict[str, Any]


class ConflictOut(Schema):
    detail: str
    current_version: int
    current_author: str | None
    conflicts: list[str]


class SubmissionIn(Schema):
    version: int = Field(description="The tree version the verdicts were made on")
    decision: str = Field(description="accept | fix_accept | reject")
    verdicts: dict[str, Any] = Field(
        description='node id -> "correct" | "wrong" | "unverifiable", or {verdict, error_type, '
        "comment}; every node of the version needs one"
    )
    comment: str = Field(default="", max_length=4000)


class AgreementRowOut(Schema):
    label: str
    units: int
    kappa: float | None
    alpha: float | None
    percent: float | None


class JudgeLeafOut(Schema):
    item_id: int
    task_id: int
    node_id: str
    judge_status: str
    suggested: str
    human: str
    agrees: bool


class JudgeAgreementOut(Schema):
    leaves: int
    kappa: float | None
    percent: float | None
    rows: list[JudgeLeafOut]


class AgreementOut(Schema):
    campaign_id: int
    annotators_per_task: int
    nodes: list[AgreementRowOut]
    decisions: AgreementRowOut
    judge: JudgeAgreementOut


class DisputeOut(Schema):
    item_id: int
    task_id: int
    question: str
    state: str
    decision_disputed: bool
    open_nodes: int


class SubmittedOut(Schema):
    annotator: str
    decision: str
    version: int | None
    comment: str
    submitted_at: datetime | None
    verdicts: dict[str, Any]


class ItemOut(Schema):
    id: int
    campaign_id: int
    task_id: int
    question: str
    state: str
    decision: str
    start_version: int
    final_version: int | None
    decided_by: str | None
    decided_at: datetime | None
    submissions: list[SubmittedOut]
    gold: dict[str, Any]


class AdjudicationIn(Schema):
    decision: str = Field(description="accept | fix_accept | reject")
    version: int | None = Field(
        default=None, description="The version to keep; default: the newest one audited"
    )
    gold: dict[str, Any] = Field(default_factory=dict, description="node id -> gold verdict")
    comment: str = Field(default="", max_length=4000)


class IntervalOut(Schema):
    successes: int
    n: int
    rate: float | None
    low: float
    high: float


class GroupRateOut(Schema):
    key: str
    interval: IntervalOut


class AnnotatorOut(Schema):
    username: str
    submitted: int
    last_day: int
    median_minutes: float | None
    active: int


class QualityOut(Schema):
    overall: IntervalOut
    groups: dict[str, list[GroupRateOut]]
    error_types: list[GroupRateOut]
    states: dict[str, int]
    submissions: int
    needed: int
    annotators: list[AnnotatorOut]


class JudgeVerdictsIn(Schema):
    version: int
    verdicts: dict[str, Any] = Field(
        description='leaf id -> "pass" | "fail" | "error" | "skipped", or {status, reasoning}'
    )
    judge: str = Field(default="", max_length=200)


class ExportIn(Schema):
    format: str = Field(description="parquet | hf (a zipped datasets.save_to_disk directory)")
    campaign_id: int | None = None


class ExportOut(Schema):
    id: int
    format: str
    campaign_id: int | None
    status: str
    rows: int
    error: str
    created_at: datetime
    finished_at: datetime | None
    download_url: str | None


class TrainingTaskOut(Schema):
    task_id: int
    question: str
    audit_state: str
    version: int


class TrainingPageOut(Schema):
    count: int
    results: list[TrainingTaskOut]
