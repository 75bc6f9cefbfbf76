"""Submitting an audit: every node's verdict and the task decision, on one tree version."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.models import (
    Assignment,
    AssignmentStatus,
    CampaignStatus,
    CampaignTask,
    ItemState,
    NodeVerdict,
)
from apps.audit.services.claims import assignment_owned, slots_taken
from apps.audit.services.decisions import as_audited, item_settle
from apps.audit.services.drafts import draft_history_clear, ensure_draft_revision
from apps.common.errors import Conflict, Invalid, NotFound
from apps.rubrics.models import RubricVersion
from quest.audit.labels import MAX_COMMENT, parse_labels
from quest.audit.taxonomy import DECISIONS


@dataclass(frozen=True)
class NodeKind:
    is_leaf: bool
    critical: bool


def node_kinds(tree: Mapping[str, Any]) -> dict[str, NodeKind]:
    """Every node's kind, in tree (pre-)order so messages list nodes as the page shows them."""
    kinds: dict[str, NodeKind] = {}
    stack = [tree["root"]]
    while stack:
        node = stack.pop()
        children = node.get("children") or []
        kinds[str(node["id"])] = NodeKind(not children, bool(node.get("critical")))
        stack.extend(reversed(children))
    return kinds


def task_version(task_id: int, number: int) -> RubricVersion:
    version = RubricVersion.objects.filter(task_id=task_id, number=number).first()
    if version is None:
        raise NotFound(f"the task has no version {number}")
    return version


def _check_decision(decision: str, version: RubricVersion, item: CampaignTask) -> None:
    if decision not in DECISIONS:
        raise Invalid(f"decision must be one of {', '.join(DECISIONS)}")
    if decision == "fix_accept" and version.pk == item.start_version_id:
        raise Invalid(
            "fix-and-accept needs a fixed tree: edit it first, or choose accept or reject"
        )


def _verdict_rows(
    assignment: Assignment, version: RubricVersion, verdicts: Any
) -> list[NodeVerdict]:
    kinds = node_kinds(version.tree)
    try:
        labels = parse_labels(verdicts, nodes=list(kinds), complete=True)
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    return [
        NodeVerdict(
            assignment=assignment,
            node_id=node_id,
            verdict=label.verdict,
            error_type=label.error_type,
            comment=label.comment,
            is_leaf=kinds[node_id].is_leaf,
            critical=kinds[node_id].critical,
        )
        for node_id, label in labels.items()
    ]


def _as_draft(verdicts: Any, decision: Any, comment: Any) -> dict[str, Any]:
    """A submission seen as a draft, to compare with the stored one."""
    if isinstance(verdicts, dict):
        verdicts = {k: v for k, v in verdicts.items() if v is not None}
    return {"verdicts": verdicts, "decision": decision, "comment": comment}


def _still_holds(assignment: Assignment, item: CampaignTask) -> None:
    """A submission after the lock expired still counts if nobody took the slot meanwhile."""
    now = timezone.now()
    if assignment.status == AssignmentStatus.ACTIVE and assignment.lock_expires_at > now:
        return
    taken = slots_taken(item.pk, now=now, besides=assignment.annotator_id)
    if taken >= assignment.campaign.annotators_per_task:
        raise Conflict("your lock expired and this task went to another annotator")


@transaction.atomic
def assignment_submit(
    *,
    user: User,
    assignment_id: int,
    version: int,
    decision: str,
    verdicts: Any,
    comment: str = "",
    base_revision: int = 0,
) -> Assignment:
    """Record every node's verdict and the task decision, made on tree `version`. Like a draft
    save it names the draft revision it was based on (0: the caller kept no draft), and is
    refused if the draft was saved elsewhere since: submitting would discard that work."""
    assignment = assignment_owned(user, assignment_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise Conflict("this task is already submitted")
    if assignment.campaign.status != CampaignStatus.OPEN:
        raise Conflict("the campaign is closed")
    ensure_draft_revision(assignment, base_revision, _as_draft(verdicts, decision, comment))
    item = (
        CampaignTask.objects.select_for_update(of=("self",))
        .select_related("campaign", "start_version")
        .get(pk=assignment.item_id)
    )
    _still_holds(assignment, item)
    if item.state != ItemState.OPEN:
        raise Conflict("this task was already decided")
    audited = as_audited(item, task_version(item.task_id, version))
    _check_decision(decision, audited, item)
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise Invalid(f"the comment must be text of at most {MAX_COMMENT} characters")
    NodeVerdict.objects.bulk_create(_verdict_rows(assignment, audited, verdicts))
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = timezone.now()
    assignment.version = audited
    assignment.decision = decision
    assignment.comment = comment.strip()
    assignment.draft = {}
    assignment.save()
    draft_history_clear(assignment)
    item.submitted += 1
    item_settle(item)
    return assignment
