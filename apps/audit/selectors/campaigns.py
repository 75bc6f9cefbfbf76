"""Reading campaigns, their items and assignments, scoped to what the caller may see:
annotators see the campaigns open to them and only their own assignments; reviewers and admins
see everything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.audit.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignTask,
    ItemState,
)
from apps.common.errors import Forbidden, Invalid, NotFound
from apps.rubrics.models import Task

# Task filters a campaign can be created from; generator and batch live in the provenance.
FILTER_FIELDS = (
    "category",
    "subcategory",
    "complexity",
    "type",
    "audit_state",
    "generator",
    "batch",
)
PROVENANCE_FIELDS = ("generator", "batch")


def tasks_matching(filters: dict[str, str]) -> QuerySet[Task]:
    qs = Task.objects.filter(current_version__isnull=False)
    for key, value in filters.items():
        field = f"provenance__{key}" if key in PROVENANCE_FIELDS else key
        qs = qs.filter(**{field: value})
    return qs


def tasks_matching_count(*, user: User, filters: dict[str, str]) -> int:
    require_role(user, Role.ADMIN)
    known = {k: v for k, v in filters.items() if k in FILTER_FIELDS and v}
    return tasks_matching(known).count()


def annotator_choices(*, user: User) -> QuerySet[User]:
    """Active users holding the annotator role or one above it, to pick a campaign's pool."""
    require_role(user, Role.ADMIN)
    codename = ROLE_REQUIREMENT[Role.ANNOTATOR].split(".", 1)[1]
    return (
        User.objects.filter(is_active=True)
        .filter(Q(groups__permissions__codename=codename) | Q(is_superuser=True))
        .distinct()
        .order_by("username")
    )


def is_reviewer(user: User) -> bool:
    return bool(user.has_perm(ROLE_REQUIREMENT[Role.REVIEWER]))


def _open_to(user: User) -> Q:
    pool = Campaign.annotators.through.objects
    listed = pool.filter(user=user).values("campaign_id")
    anyone = ~Exists(pool.filter(campaign=OuterRef("pk")))
    # A Q joined with a conditional expression is a Q; the stub's Q.__or__ admits only a Q.
    return Q(pk__in=listed) | anyone  # type: ignore[return-value]


def _mine_submitted(user: User) -> Subquery:
    rows = (
        Assignment.objects.filter(
            campaign=OuterRef("pk"), annotator=user, status=AssignmentStatus.SUBMITTED
        )
        .order_by()
        .values("campaign")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Subquery(rows, output_field=IntegerField())


def can_annotate(user: User) -> bool:
    return bool(user.has_perm(ROLE_REQUIREMENT[Role.ANNOTATOR]))


CAMPAIGN_STATES = ("open", "closed", "all")


def campaign_list(*, user: User, status: str = "all") -> QuerySet[Campaign]:
    """Annotators see the campaigns open to them; viewers (read only) and reviewers see all.
    `status` keeps the open or the closed ones only ("all": both)."""
    require_role(user, Role.VIEWER)
    if status not in CAMPAIGN_STATES:
        raise Invalid(f"status must be one of {', '.join(CAMPAIGN_STATES)}")
    qs = Campaign.objects.all() if status == "all" else Campaign.objects.filter(status=status)
    if can_annotate(user) and not is_reviewer(user):
        qs = qs.filter(_open_to(user))
    return qs.annotate(
        total=Count("items"),
        decided=Count("items", filter=Q(items__state=ItemState.DECIDED)),
        disputed=Count("items", filter=Q(items__state=ItemState.DISPUTED)),
        submissions=Coalesce(Sum("items__submitted"), 0),
        mine=Coalesce(_mine_submitted(user), 0),
    ).order_by("-created_at", "-id")


def campaign_get(*, user: User, campaign_id: int) -> Campaign:
    campaign = campaign_list(user=user).filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    return campaign


def campaign_may_claim(*, user: User, campaign: Campaign) -> bool:
    if not can_annotate(user):
        return False
    pool = campaign.annotators.through.objects.filter(campaign=campaign)
    return not pool.exists() or pool.filter(user=user).exists()


def assignment_list(
    *, user: User, campaign_id: int | None = None, annotator_id: int | None = None
) -> QuerySet[Assignment]:
    """The caller's assignments; reviewers may list anyone's."""
    require_role(user, Role.ANNOTATOR)
    qs = Assignment.objects.select_related("item__task", "annotator", "version").defer(
        "draft", "version__tree"
    )
    if not is_reviewer(user):
        qs = qs.filter(annotator=user)
    elif annotator_id is not None:
        qs = qs.filter(annotator_id=annotator_id)
    if campaign_id is not None:
        qs = qs.filter(campaign_id=campaign_id)
    return qs.order_by("-claimed_at", "-pk")


def assignment_get(*, user: User, assignment_id: int) -> Assignment:
    """An assignment with everything its audit page shows, in one query."""
    require_role(user, Role.ANNOTATOR)
    assignment = (
        Assignment.objects.select_related(
            "campaign",
            "annotator",
            "item__task__current_version__author",
            "item__start_version",
        )
        .defer("item__start_version__tree")
        .filter(pk=assignment_id)
        .first()
    )
    if assignment is None:
        raise NotFound(f"no assignment {assignment_id}")
    if assignment.annotator_id != user.pk and not is_reviewer(user):
        raise Forbidden("this assignment belongs to someone else")
    return assignment


def item_get(*, user: User, item_id: int) -> CampaignTask:
    require_role(user, Role.REVIEWER)
    item = (
        CampaignTask.objects.select_related(
            "campaign", "task__current_version", "start_version", "final_version", "decided_by"
        )
        .filter(pk=item_id)
        .first()
    )
    if item is None:
        raise NotFound(f"no campaign item {item_id}")
    return item


@dataclass(frozen=True)
class Submitted:
    """One annotator's submitted audit of an item, with its verdicts by node id."""

    assignment: Assignment
    labels: dict[str, dict[str, Any]]


def item_submissions(*, user: User, item: CampaignTask) -> list[Submitted]:
    require_role(user, Role.REVIEWER)
    assignments = list(
        item.assignments.filter(status=AssignmentStatus.SUBMITTED)
        .select_related("annotator", "version")
        .defer("version__tree", "draft")
        .prefetch_related("verdicts")
        .order_by("submitted_at")
    )
    return [
        Submitted(
            a,
            {
                v.node_id: {"verdict": v.verdict, "error_type": v.error_type, "comment": v.comment}
                for v in a.verdicts.all()
            },
        )
        for a in assignments
    ]


@dataclass(frozen=True)
class ShownWork:
    """What a read-only audit page shows of an assignment: what was submitted, or else the
    draft as it was left (a reviewer looking in, a task skipped or whose lock ran out)."""

    submitted: bool
    labels: dict[str, dict[str, str]]
    decision: str
    comment: str


def assignment_work(*, assignment: Assignment) -> ShownWork:
    if assignment.status == AssignmentStatus.SUBMITTED:
        labels = {
            v.node_id: {"verdict": v.verdict, "error_type": v.error_type, "comment": v.comment}
            for v in assignment.verdicts.all()
        }
        return ShownWork(True, labels, assignment.decision, assignment.comment)
    draft = assignment.draft or {}
    verdicts = draft.get("verdicts") or {}
    labels = {str(k): dict(v) for k, v in verdicts.items() if isinstance(v, dict)}
    return ShownWork(
        False, labels, str(draft.get("decision") or ""), str(draft.get("comment") or "")
    )
