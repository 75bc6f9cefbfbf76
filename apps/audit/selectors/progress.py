"""The campaign page's per-task table: each task, who holds or submitted it, how far each of them
got and what was decided. Reviewers and admins see it (annotators see only their own work)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import Assignment, AssignmentStatus, CampaignStatus, CampaignTask, ItemState

TASKS_PER_PAGE = 50


@dataclass(frozen=True)
class TaskProgress:
    item: CampaignTask
    assignments: list[Assignment]


def campaign_task_rows(*, user: User, campaign_id: int, page: str | int = 1) -> Page[TaskProgress]:
    """One page of the campaign's tasks in queue order, each with its assignments (oldest claim
    first) and their annotators; a page number out of range gives the nearest page."""
    require_role(user, Role.REVIEWER)
    assignments = (
        Assignment.objects.select_related("annotator", "version")
        .only(
            "item_id",
            "status",
            "decision",
            "claimed_at",
            "submitted_at",
            "lock_expires_at",
            "annotator__username",
            "version__number",
        )
        .order_by("claimed_at")
    )
    items = (
        CampaignTask.objects.filter(campaign_id=campaign_id)
        .select_related("task", "decided_by")
        .only(
            "position",
            "state",
            "decision",
            "decided_at",
            "task__id",
            "task__question",
            "decided_by__username",
        )
        .prefetch_related(Prefetch("assignments", queryset=assignments))
        .order_by("position")
    )
    paged = Paginator(items, TASKS_PER_PAGE).get_page(page)
    paged.object_list = [TaskProgress(i, list(i.assignments.all())) for i in paged.object_list]  # type: ignore[misc]
    return paged  # type: ignore[return-value]


@dataclass(frozen=True)
class OpenWork:
    """What closing a campaign cuts short."""

    undecided: int
    holding: int


def campaign_open_work(*, user: User, campaign_id: int) -> OpenWork:
    require_role(user, Role.ADMIN)
    items = CampaignTask.objects.filter(campaign_id=campaign_id)
    holding = Assignment.objects.filter(
        campaign_id=campaign_id, status=AssignmentStatus.ACTIVE, lock_expires_at__gt=timezone.now()
    )
    return OpenWork(items.exclude(state=ItemState.DECIDED).count(), holding.count())


def task_held(user: User, task_id: int) -> bool:
    """Whether `user` holds an active assignment on the task in an open campaign: what lets an
    annotator save versions of its tree (rubrics' task_editable asks through this grant)."""
    return Assignment.objects.filter(
        annotator=user,
        item__task_id=task_id,
        status=AssignmentStatus.ACTIVE,
        campaign__status=CampaignStatus.OPEN,
    ).exists()
