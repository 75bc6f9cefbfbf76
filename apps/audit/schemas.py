from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema

from apps.audit.models import (
    AssignmentStatus,
    CampaignStatus,
    ExportFormat,
    ItemState,
)
from apps.audit.services.campaigns import (
    MAX_ANNOTATORS_PER_TASK,
    MAX_CAMPAIGN_TASKS,
    MAX_LOCK_MINUTES,
)
from apps.common.pagination import Page
from apps.common.schemas import Id, JsonObject, Revision, Text, VersionNumber
from apps.jobs.models import JobStatus
from apps.rubrics.models import AuditState
from apps.rubrics.schemas import ChangeOut
from quest.audit.labels import MAX_COMMENT
from quest.audit.taxonomy import Decision

# A task's audit decision; empty while nobody has decided.
DecisionOrNone = Decision | Literal[""]


class ProbeAllIn(Schema):
    filters: dict[Text, Text] = Field(
        default_factory=dict,
        description="The tasks to probe, as a campaign's filters: category, subcategory, "
        "complexity, type, audit_state, generator, batch",
    )


class ProbeSkippedOut(Schema):
    task_id: int
    reason: str


class ProbesQueuedOut(Schema):
    queued: int = Field(description="Probes queued now")
    already: int = Field(description="Trees probed, or being probed, already")
    skipped: list[ProbeSkippedOut] = Field(description="Tasks with nothing to probe with")


class CampaignIn(Schema):
    name: Text = Field(min_length=1, max_length=200)
    filters: dict[Text, Text] = Field(
        default_factory=dict,
        description="category, subcategory, complexity, type, audit_state, generator, batch",
    )
    annotators_per_task: int = Field(default=2, ge=1, le=MAX_ANNOTATORS_PER_TASK)
    lock_minutes: int = Field(default=30, ge=1, le=MAX_LOCK_MINUTES)
    annotator_ids: list[Id] = Field(
        default_factory=list, description="Who may claim its tasks; empty: every annotator"
    )
    instructions: Text = Field(default="", max_length=10_000)
    limit: int | None = Field(
        default=None, ge=1, le=MAX_CAMPAIGN_TASKS, description="At most this many tasks"
    )


class CampaignOut(Schema):
    id: int
    name: str
    instructions: str
    filters: dict[str, str]
    annotators_per_task: int
    lock_minutes: int
    status: CampaignStatus
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
    status: AssignmentStatus
    claimed_at: datetime
    lock_expires_at: datetime
    submitted_at: datetime | None
    version: int | None
    decision: DecisionOrNone
    comment: str


class AssignmentDetailOut(AssignmentOut):
    question: str
    solution: dict[str, Any]
    start_version: int
    current_version: int
    tree: dict[str, Any]
    draft: dict[str, Any]
    draft_revision: int = Field(
        description="The draft's revision: send it as base_revision with the next draft save"
    )
    suggestions: dict[str, Any] = Field(description="Judge verdicts per leaf, as suggestions")


REVISION_HELP = (
    "The draft revision this is based on: draft_revision from GET /audit/assignments/{id}, from "
    "your last save, or from the 409 you merged. Work based on an older revision is refused "
    "with 409 and a body to merge with."
)


class DraftIn(Schema):
    base_revision: Revision = Field(description=REVISION_HELP)
    version: VersionNumber | None = Field(default=None, description="The tree version shown")
    verdicts: JsonObject = Field(default_factory=dict)
    decision: DecisionOrNone = ""
    comment: Text = Field(default="", max_length=MAX_COMMENT)


class DraftOut(Schema):
    saved_at: str
    lock_expires_at: datetime
    current_version: int = Field(description="The tree's current version")
    draft_revision: int = Field(description="The saved draft's revision: base the next save on it")


class DifferenceOut(Schema):
    changed_here: bool = Field(description="The refused save changed it since base_revision")
    changed_elsewhere: bool = Field(
        description="Another tab or device saved a change to it since base_revision"
    )
    conflict: bool = Field(description="Changed on both sides: the annotator settles it")


class NodeDifferenceOut(DifferenceOut):
    node: str
    mine: dict[str, str] | None = Field(
        description="The refused save's label {verdict?, error_type?, comment?}; null: none"
    )
    theirs: dict[str, str] | None = Field(description="The stored draft's label")


class FieldDifferenceOut(DifferenceOut):
    field: Literal["decision", "comment"] = Field(description="The task's decision or comment")
    mine: str
    theirs: str


class MergedDraftOut(Schema):
    verdicts: dict[str, Any]
    decision: DecisionOrNone
    comment: str
    version: int | None


class DraftConflictOut(Schema):
    detail: str
    draft_revision: int = Field(description="The stored draft's revision: base the merge on it")
    base_revision: int = Field(description="The revision the refused work was based on")
    draft: dict[str, Any] = Field(description="The stored draft (saved elsewhere)")
    nodes: list[NodeDifferenceOut] = Field(
        description="Every node whose label differs between the refused work and the stored draft"
    )
    fields: list[FieldDifferenceOut] = Field(description="The task decision or comment, likewise")
    merged: MergedDraftOut = Field(
        description="The stored draft with the one-sided changes of the refused work applied; "
        "conflicts still hold the stored side"
    )


class EditIn(Schema):
    base_version: VersionNumber = Field(
        description="The version the operations were written against"
    )
    ops: list[JsonObject] = Field(
        description=(
            "set_description, set_critical, set_strategy, set_check, add_node, remove_node, "
            'move_node, e.g. {"op": "set_critical", "node": "a", "critical": true}'
        )
    )
    note: Text = Field(default="", max_length=500)
    merge: bool = Field(
        default=False, description="Replay the operations on a newer version if one exists"
    )


class RevertIn(Schema):
    base_version: VersionNumber
    to_version: VersionNumber


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
    mergeable: bool = Field(
        description="Sending the edit again with merge: true would save it: it touches none of "
        "the nodes the newer version changed"
    )


class SubmissionIn(Schema):
    version: VersionNumber = Field(description="The tree version the verdicts were made on")
    decision: Decision
    verdicts: JsonObject = Field(
        description='node id -> "correct" | "wrong" | "unverifiable", or {verdict, error_type, '
        "comment}; every node of the version needs one"
    )
    comment: Text = Field(default="", max_length=MAX_COMMENT)
    base_revision: Revision = Field(
        default=0, description=REVISION_HELP + " 0 (the default): you kept no draft."
    )


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
    state: ItemState
    decision_disputed: bool
    open_nodes: int


class SubmittedOut(Schema):
    annotator: str
    decision: DecisionOrNone
    version: int | None
    comment: str
    submitted_at: datetime | None
    verdicts: dict[str, Any]


class ItemOut(Schema):
    id: int
    campaign_id: int
    task_id: int
    question: str
    state: ItemState
    decision: DecisionOrNone
    start_version: int
    final_version: int | None
    decided_by: str | None
    decided_at: datetime | None
    submissions: list[SubmittedOut]
    gold: dict[str, Any]


class AdjudicationIn(Schema):
    decision: Decision
    version: VersionNumber | None = Field(
        default=None, description="The version to keep; default: the newest one audited"
    )
    gold: JsonObject = Field(default_factory=dict, description="node id -> gold verdict")
    comment: Text = Field(default="", max_length=MAX_COMMENT)


class GoldTakeIn(Schema):
    """Side with one annotator on one node: their verdict becomes the node's gold verdict."""

    node_id: Text = Field(min_length=1, max_length=64)
    assignment_id: Id = Field(description="The submitted assignment whose verdict to take")


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
    version: VersionNumber
    verdicts: JsonObject = Field(
        description='leaf id -> "pass" | "fail" | "error" | "skipped", or {status, reasoning}'
    )
    judge: Text = Field(default="", max_length=200)


class RecordedOut(Schema):
    recorded: int = Field(description="How many verdicts were recorded")


class QueuedOut(Schema):
    queued_tasks: int = Field(description="How many tasks were queued for the judge")


class ExportIn(Schema):
    format: ExportFormat = Field(
        description="parquet, or hf: a zipped datasets.save_to_disk directory"
    )
    campaign_id: Id | None = None


class ExportOut(Schema):
    id: int
    format: ExportFormat
    campaign_id: int | None
    status: JobStatus
    rows: int
    error: str
    created_at: datetime
    finished_at: datetime | None
    download_url: str | None


class TrainingTaskOut(Schema):
    task_id: int
    question: str
    audit_state: AuditState
    version: int


class TrainingPageOut(Page[TrainingTaskOut]):
    """A page of the tasks the training gate lets through."""
