"""How often generated trees are wrong, with Wilson 95% intervals, and how the audit is going.

A tree counts as wrong when its final decision is fix-and-accept or reject. Error types count
the decided trees in which someone (an annotator or the reviewer) named that type on a node.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce
from django.utils import timezone

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
from quest.audit import Interval, wilson_interval
from quest.audit.taxonomy import ERROR_TYPES, FAULTY_DECISIONS

GROUPINGS = {
    "generator": "generator",
    "category": "task__category",
    "complexity class": "task__complexity",
}


@dataclass(frozen=True)
class GroupRate:
    key: str
    interval: Interval


@dataclass(frozen=True)
class AnnotatorStats:
    username: str
    submitted: int
    last_day: int
    median_minutes: float | None
    active: int


@dataclass(frozen=True)
class QualityReport:
    overall: Interval
    groups: dict[str, list[GroupRate]]
    error_types: list[GroupRate]
    states: dict[str, int]
    submissions: int
    needed: int
    annotators: list[AnnotatorStats]


def _decided(campaign_id: int | None) -> QuerySet[CampaignTask]:
    qs = CampaignTask.objects.filter(state=ItemState.DECIDED)
    return qs.filter(campaign_id=campaign_id) if campaign_id else qs


def _faulty() -> Q:
    return Q(decision__in=FAULTY_DECISIONS)


def _group_rates(decided: QuerySet[CampaignTask], field: str) -> list[GroupRate]:
    rows = (
        decided.annotate(generator=KeyTextTransform("generator", "task__provenance"))
        .values(field)
        .annotate(n=Count("pk"), wrong=Count("pk", filter=_faulty()))
        .order_by(field)
    )
    return [
        GroupRate(str(row[field] or "(none)"), wilson_interval(row["wrong"], row["n"]))
        for row in rows
    ]


def _error_type_rates(decided: QuerySet[CampaignTask], total: int) -> list[GroupRate]:
    faulty = decided.filter(_faulty()).values("pk")
    named = set(
        NodeVerdict.objects.filter(
            assignment__item__in=faulty, assignment__status=AssignmentStatus.SUBMITTED
        )
        .exclude(error_type="")
        .values_list("assignment__item_id", "error_type")
        .distinct()
    )
    named |= set(
        GoldVerdict.objects.filter(item__in=faulty)
        .exclude(error_type="")
        .values_list("item_id", "error_type")
    )
    counts = Counter(error_type for _, error_type in named)
    return [
        GroupRate(label, wilson_interval(counts[key], total)) for key, label in ERROR_TYPES.items()
    ]


def _annotators(campaign_id: int | None) -> list[AnnotatorStats]:
    qs = Assignment.objects.all()
    if campaign_id:
        qs = qs.filter(campaign_id=campaign_id)
    now = timezone.now()
    durations: dict[str, list[float]] = {}
    for name, claimed, submitted in qs.filter(status=AssignmentStatus.SUBMITTED).values_list(
        "annotator__username", "claimed_at", "submitted_at"
    ):
        took = cast(datetime, submitted) - claimed  # a submitted assignment has the time set
        durations.setdefault(name, []).append(took.total_seconds() / 60)
    rows = (
        qs.values("annotator__username")
        .annotate(
            submitted=Count("pk", filter=Q(status=AssignmentStatus.SUBMITTED)),
            last_day=Count(
                "pk",
                filter=Q(
                    status=AssignmentStatus.SUBMITTED, submitted_at__gt=now - timedelta(days=1)
                ),
            ),
            active=Count("pk", filter=Q(status=AssignmentStatus.ACTIVE, lock_expires_at__gt=now)),
        )
        .order_by("-submitted", "annotator__username")
    )
    return [
        AnnotatorStats(
            username=row["annotator__username"],
            submitted=row["submitted"],
            last_day=row["last_day"],
            median_minutes=(
                statistics.median(durations[row["annotator__username"]])
                if row["annotator__username"] in durations
                else None
            ),
            active=row["active"],
        )
        for row in rows
    ]


def _progress(campaign_id: int | None) -> tuple[dict[str, int], int, int]:
    items = CampaignTask.objects.all()
    if campaign_id:
        items = items.filter(campaign_id=campaign_id)
    states = dict(items.values_list("state").annotate(n=Count("pk")).order_by())
    needed = sum(
        n * per
        for per, n in items.values_list("campaign__annotators_per_task")
        .annotate(n=Count("pk"))
        .order_by()
    )
    submitted = items.aggregate(n=Coalesce(Sum("submitted"), 0))["n"]
    return {state: states.get(state, 0) for state in ItemState.values}, submitted, needed


def quality_report(*, user: User, campaign_id: int | None = None) -> QualityReport:
    require_role(user, Role.REVIEWER)
    decided = _decided(campaign_id)
    total = decided.count()
    states, submissions, needed = _progress(campaign_id)
    return QualityReport(
        overall=wilson_interval(decided.filter(_faulty()).count(), total),
        groups={label: _group_rates(decided, f) for label, f in GROUPINGS.items()},
        error_types=_error_type_rates(decided, total),
        states=states,
        submissions=submissions,
        needed=needed,
        annotators=_annotators(campaign_id),
    )
