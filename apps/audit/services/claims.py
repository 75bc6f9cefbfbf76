"""Handing out tasks: "next" gives an annotator a task locked to them.

Safety under concurrency rests on row locks, not on the pre-filter: a claim locks one candidate
item with SELECT ... FOR UPDATE SKIP LOCKED, then counts the item's live assignments again
while holding the lock (each statement sees everything committed before it under READ
COMMITTED). Two claims can never both see room on the same item, so no task goes to more than N
people. SKIP LOCKED lets 50 simultaneous claims fan out over different items instead of queuing
on the first one; a second, blocking pass makes sure an item locked only for a moment is not
reported as "nothing left".
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    CampaignTask,
    ItemState,
)
from apps.audit.selectors.campaigns import campaign_may_claim
from apps.common.errors import Conflict, Forbidden, NotFound

# Candidates a claim may find full after locking them (another claim filled them between the
# pre-filter and the lock) before it gives up for this pass.
MAX_ATTEMPTS = 25


def live(now: datetime) -> Q:
    """Assignments that hold one of an item's N slots: submitted, or active and unexpired."""
    return Q(status=AssignmentStatus.SUBMITTED) | Q(
        status=AssignmentStatus.ACTIVE, lock_expires_at__gt=now
    )


def slots_taken(item_id: int, *, now: datetime, besides: int | None = None) -> int:
    qs = Assignment.objects.filter(item_id=item_id).filter(live(now))
    if besides is not None:
        qs = qs.exclude(annotator_id=besides)
    return qs.count()


def _candidates(campaign: Campaign, user: User, now: datetime) -> QuerySet[CampaignTask]:
    taken = (
        Assignment.objects.filter(item=OuterRef("pk"))
        .filter(live(now))
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    seen = Assignment.objects.filter(item=OuterRef("pk"), annotator=user)
    return (
        CampaignTask.objects.filter(campaign=campaign, state=ItemState.OPEN)
        .annotate(taken=Coalesce(Subquery(taken, output_field=IntegerField()), 0))
        .filter(taken__lt=campaign.annotators_per_task)
        .exclude(Exists(seen))
        .order_by("position")
    )


def _lock_until(campaign: Campaign, now: datetime) -> datetime:
    return now + timedelta(minutes=campaign.lock_minutes)


def _claim_pass(campaign: Campaign, user: User, now: datetime, skip: bool) -> Assignment | None:
    tried: list[int] = []
    for _ in range(MAX_ATTEMPTS):
        item = (
            _candidates(campaign, user, now)
            .exclude(pk__in=tried)
            .select_for_update(skip_locked=skip, of=("self",))
            .first()
        )
        if item is None:
            return None
        if slots_taken(item.pk, now=now) < campaign.annotators_per_task:
            return Assignment.objects.create(
                item=item,
                campaign=campaign,
                annotator=user,
                claimed_at=now,
                lock_expires_at=_lock_until(campaign, now),
            )
        tried.append(item.pk)
    return None


def _resume(campaign: Campaign, user: User, now: datetime) -> Assignment | None:
    """The caller's active assignment: still locked, or expired but with its slot still free.
    An expired one whose slot someone else took is released."""
    held = (
        Assignment.objects.select_for_update()
        .filter(campaign=campaign, annotator=user, status=AssignmentStatus.ACTIVE)
        .first()
    )
    if held is None or held.lock_expires_at > now:
        return held
    CampaignTask.objects.select_for_update().filter(pk=held.item_id).first()
    if slots_taken(held.item_id, now=now, besides=user.pk) < campaign.annotators_per_task:
        held.lock_expires_at = _lock_until(campaign, now)
        held.save(update_fields=["lock_expires_at"])
        return held
    held.status = AssignmentStatus.RELEASED
    held.save(update_fields=["status"])
    return None


def _claimable(user: User, campaign_id: int) -> Campaign:
    require_role(user, Role.ANNOTATOR)
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    if campaign.status != CampaignStatus.OPEN:
        raise Conflict(f"campaign {campaign.name!r} is closed")
    if not campaign_may_claim(user=user, campaign=campaign):
        raise Forbidden("you are not one of this campaign's annotators")
    return campaign


def assignment_claim_next(*, user: User, campaign_id: int) -> Assignment | None:
    """The caller's current task in the campaign, or a newly locked one; None when nothing is
    left for them."""
    campaign = _claimable(user, campaign_id)
    now = timezone.now()
    try:
        with transaction.atomic():
            held = _resume(campaign, user, now)
            if held is not None:
                return held
            for skip in (True, False):
                claimed = _claim_pass(campaign, user, now, skip)
                if claimed is not None:
                    return claimed
    except IntegrityError:
        # The same person pressed "next" twice at once: the other request's claim stands.
        return Assignment.objects.filter(
            campaign=campaign, annotator=user, status=AssignmentStatus.ACTIVE
        ).first()
    return None


def assignment_owned(user: User, assignment_id: int) -> Assignment:
    """The caller's own assignment, row-locked for a write."""
    require_role(user, Role.ANNOTATOR)
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("campaign", "item")
        .filter(pk=assignment_id)
        .first()
    )
    if assignment is None:
        raise NotFound(f"no assignment {assignment_id}")
    if assignment.annotator_id != user.pk:
        raise Forbidden("only the annotator holding this task can change it")
    return assignment


def ensure_in_progress(assignment: Assignment) -> None:
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise Conflict("this task is already submitted")
    if assignment.status == AssignmentStatus.RELEASED:
        raise Conflict("you gave this task back; press next to continue")
    if assignment.campaign.status != CampaignStatus.OPEN:
        raise Conflict("the campaign is closed")


def hold_slot(assignment: Assignment, now: datetime) -> None:
    """Keep the caller's slot: extend the lock, or take an expired slot back if nobody else
    took it meanwhile."""
    campaign = assignment.campaign
    if assignment.lock_expires_at <= now:
        CampaignTask.objects.select_for_update().filter(pk=assignment.item_id).first()
        taken = slots_taken(assignment.item_id, now=now, besides=assignment.annotator_id)
        if taken >= campaign.annotators_per_task:
            raise Conflict(
                "your lock on this task expired and it went to another annotator; "
                "your verdicts are still in this browser — press next for another task"
            )
    assignment.lock_expires_at = _lock_until(campaign, now)


@transaction.atomic
def assignment_release(*, user: User, assignment_id: int) -> Assignment:
    """Give a task back unsubmitted (skip it): it goes to someone else, never back to you."""
    assignment = assignment_owned(user, assignment_id)
    if assignment.status != AssignmentStatus.ACTIVE:
        raise Conflict("only a task in progress can be released")
    assignment.status = AssignmentStatus.RELEASED
    assignment.save(update_fields=["status"])
    return assignment
