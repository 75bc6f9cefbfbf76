"""Audited tasks as records: the task, its final tree, every annotator's verdicts and the
reviewer's gold verdicts. Read in chunks of items (four queries each), so 10,000 tasks stream
in bounded memory."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import (
    Assignment,
    AssignmentStatus,
    CampaignTask,
    GoldVerdict,
    ItemState,
    NodeVerdict,
)

CHUNK = 200
ASSIGNMENT_FIELDS = (
    "pk",
    "item_id",
    "annotator__username",
    "decision",
    "version__number",
    "comment",
    "submitted_at",
)


def _items(campaign_id: int | None) -> QuerySet[CampaignTask]:
    qs = CampaignTask.objects.filter(state=ItemState.DECIDED)
    if campaign_id is not None:
        qs = qs.filter(campaign_id=campaign_id)
    return qs.select_related(
        "task", "campaign", "final_version", "decided_by", "start_version"
    ).defer("start_version__tree")


def _labels(rows: Any) -> dict[Any, dict[str, dict[str, str]]]:
    out: dict[Any, dict[str, dict[str, str]]] = defaultdict(dict)
    for owner, node_id, verdict, error_type, comment in rows:
        label = {"verdict": verdict}
        if error_type:
            label["error_type"] = error_type
        if comment:
            label["comment"] = comment
        out[owner][node_id] = label
    return out


def _annotations(items: list[CampaignTask]) -> dict[int, list[dict[str, Any]]]:
    assignments = list(
        Assignment.objects.filter(item__in=items, status=AssignmentStatus.SUBMITTED)
        .order_by("submitted_at")
        .values(*ASSIGNMENT_FIELDS)
    )
    verdicts = _labels(
        NodeVerdict.objects.filter(assignment_id__in=[a["pk"] for a in assignments]).values_list(
            "assignment_id", "node_id", "verdict", "error_type", "comment"
        )
    )
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for a in assignments:
        out[a["item_id"]].append(
            {
                "annotator": a["annotator__username"],
                "decision": a["decision"],
                "version": a["version__number"],
                "comment": a["comment"],
                "submitted_at": a["submitted_at"].isoformat(),
                "verdicts": verdicts.get(a["pk"], {}),
            }
        )
    return out


def _record(item: CampaignTask, annotations: list[Any], gold: dict[str, Any]) -> dict[str, Any]:
    task, final = item.task, item.final_version
    provenance = task.provenance or {}
    return {
        "task_id": task.pk,
        "question": task.question,
        "type": task.type,
        "category": task.category,
        "subcategory": task.subcategory,
        "complexity": task.complexity,
        "solution": task.solution,
        "generator": str(provenance.get("generator", "")),
        "batch": str(provenance.get("batch", "")),
        "campaign_id": item.campaign_id,
        "campaign": item.campaign.name,
        "decision": item.decision,
        "decided_by": item.decided_by.username if item.decided_by else None,
        "decided_at": item.decided_at.isoformat() if item.decided_at else None,
        "start_version": item.start_version.number,
        "final_version": final.number if final else None,
        "tree": final.tree if final else None,
        "annotations": annotations,
        "gold": gold,
    }


def _chunks(campaign_id: int | None) -> Iterator[list[dict[str, Any]]]:
    last = 0
    while True:
        items = list(_items(campaign_id).filter(pk__gt=last).order_by("pk")[:CHUNK])
        if not items:
            return
        annotations = _annotations(items)
        gold = _labels(
            GoldVerdict.objects.filter(item__in=items).values_list(
                "item_id", "node_id", "verdict", "error_type", "comment"
            )
        )
        yield [_record(i, annotations.get(i.pk, []), gold.get(i.pk, {})) for i in items]
        last = items[-1].pk


def audit_records(*, user: User, campaign_id: int | None = None) -> Iterator[list[dict[str, Any]]]:
    """Decided campaign items in chunks; a task audited in two campaigns appears twice."""
    require_role(user, Role.REVIEWER)
    return _chunks(campaign_id)


def jsonl_chunks(records: Iterator[list[dict[str, Any]]]) -> Iterator[bytes]:
    for chunk in records:
        yield "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chunk).encode()
