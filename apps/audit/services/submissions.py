"""An annotator's work on one task: autosaved drafts, tree edits as new versions, submission."""

from __future__ import annotations

import json
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
from apps.audit.services.claims import assignment_owned, hold_slot, slots_taken
from apps.audit.services.decisions import as_audited, item_settle
from apps.common.errors import Conflict, Invalid, NotFound
from apps.rubrics.models import RubricVersion
from quest.audit.labels import MAX_COMMENT, parse_draft_label, parse_labels
from quest.audit.taxonomy import DECISIONS

MAX_DRAFT_BYTES = 2_000_000


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


def _clean_draft(draft: Any) -> dict[str, Any]:
    """A draft may be incomplete, but what it holds must be well formed and bounded."""
    if not isinstance(draft, dict):
        raise Invalid("the draft must be an object")
    if len(json.dumps(draft)) > MAX_DRAFT_BYTES:
        raise Invalid("the draft is too large")
    verdicts = draft.get("verdicts") or {}
    if not isinstance(verdicts, dict):
        raise Invalid("draft verdicts must be an object")
    try:
        labels = {str(k)[:64]: parse_draft_label(v, f"node {k!r}") for k, v in verdicts.items()}
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    decision = draft.get("decision") or ""
    if decision and decision not in DECISIONS:
        raise Invalid(f"decision must be one of {', '.join(DECISIONS)}")
    comment = draft.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise Invalid(f"the comment must be text of at most {MAX_COMMENT} characters")
    version = draft.get("version")
    return {
        "verdicts": labels,
        "decision": decision,
        "comment": comment,
        "version": version if isinstance(version, int) else None,
    }


def ensure_in_progress(assignment: Assignment) -> None:
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise Conflict("this task is already submitted")
    if assignment.status == AssignmentStatus.RELEASED:
        raise Conflict("you gave this task back; press next to continue")
    if assignment.campaign.status != CampaignStatus.OPEN:
        raise Conflict("the campaign is closed")


@transaction.atomic
def assignment_draft_save(*, user: User, assignment_id: int, draft: Any) -> Assignment:
    """Keep unsubmitted work on the server (and the lock alive) as the annotator goes."""
    assignment = assignment_owned(user, assignment_id)
    ensure_in_progress(assignment)
    cleaned = _clean_draft(draft)
    now = timezone.now()
    hold_slot(assignment, now)
    assignment.draft = {**cleaned, "saved_at": now.isoformat()}
    assignment.save(update_fields=["draft", "lock_expires_at"])
    return assignment


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
) -> Assignment:
    """Record every node's verdict and the task decision, made on tree `version`."""
    assignment = assignment_owned(user, assignment_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise Conflict("this task is already submitted")
    if assignment.campaign.status != CampaignStatus.OPEN:
        raise Conflict("the campaign is closed")
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
    item.submitted += 1
    item_settle(item)
    return assignment
