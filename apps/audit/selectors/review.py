"""What reviewers look at: disagreements to settle, judge suggestions, export jobs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import (
    AssignmentStatus,
    CampaignTask,
    ExportJob,
    GoldVerdict,
    ItemState,
    JudgeVerdict,
    NodeVerdict,
)
from apps.common.errors import NotFound
from quest.audit.taxonomy import judge_suggestion

MAX_DISPUTES = 500


@dataclass(frozen=True)
class Dispute:
    item: CampaignTask
    open_nodes: int
    decision_disputed: bool


def _node_disagreements(campaign_id: int) -> Counter[int]:
    """Per item, the nodes annotators labelled differently and no reviewer has settled yet."""
    split = (
        NodeVerdict.objects.filter(
            assignment__campaign_id=campaign_id, assignment__status=AssignmentStatus.SUBMITTED
        )
        .values("assignment__item_id", "node_id")
        .annotate(labels=Count("verdict", distinct=True))
        .filter(labels__gt=1)
        .values_list("assignment__item_id", "node_id")
    )
    settled = set(
        GoldVerdict.objects.filter(item__campaign_id=campaign_id).values_list("item_id", "node_id")
    )
    return Counter(item_id for item_id, node_id in split if (item_id, node_id) not in settled)


def dispute_list(*, user: User, campaign_id: int) -> list[Dispute]:
    """Disputed decisions first, then tasks with unsettled node disagreements."""
    require_role(user, Role.REVIEWER)
    nodes = _node_disagreements(campaign_id)
    items = CampaignTask.objects.filter(
        Q(state=ItemState.DISPUTED) | Q(pk__in=list(nodes)), campaign_id=campaign_id
    )
    rows = items.select_related("task").defer("task__solution").order_by("position")
    disputes = [
        Dispute(item, nodes.get(item.pk, 0), item.state == ItemState.DISPUTED)
        for item in rows[:MAX_DISPUTES]
    ]
    return sorted(disputes, key=lambda d: (not d.decision_disputed, d.item.position))


def judge_suggestions(*, task_id: int) -> dict[str, dict[str, Any]]:
    """Per leaf, the newest judge verdict on any version of the task, as a suggested verdict."""
    rows = (
        JudgeVerdict.objects.filter(task_id=task_id)
        .order_by("version__number")
        .values_list("node_id", "status", "reasoning", "judge", "version__number")
    )
    out = {}
    for node_id, status, reasoning, judge, number in rows:
        out[node_id] = {
            "status": status,
            "suggested": judge_suggestion(status),
            "reasoning": reasoning,
            "judge": judge,
            "version": number,
        }
    return out


def export_list(*, user: User) -> QuerySet[ExportJob]:
    require_role(user, Role.REVIEWER)
    return ExportJob.objects.select_related("campaign", "created_by").order_by("-created_at")


def export_get(*, user: User, export_id: int) -> ExportJob:
    job = export_list(user=user).filter(pk=export_id).first()
    if job is None:
        raise NotFound(f"no export {export_id}")
    return job
