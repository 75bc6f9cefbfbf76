"""Creating and closing audit campaigns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.db.models import Count, Max

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.audit.models import Campaign, CampaignStatus, CampaignTask, ItemState
from apps.audit.selectors.campaigns import FILTER_FIELDS, tasks_matching
from apps.common.errors import Conflict, Invalid, NotFound
from apps.rubrics.services import ProbesQueued, probes_ensure
from quest.audit.taxonomy import ACCEPTING_DECISIONS

MAX_CAMPAIGN_TASKS = 100_000
MAX_ANNOTATORS_PER_TASK = 10
MAX_LOCK_MINUTES = 24 * 60
BATCH = 1_000


def _clean_filters(filters: Mapping[str, Any]) -> dict[str, str]:
    unknown = sorted(set(filters) - set(FILTER_FIELDS))
    if unknown:
        raise Invalid(f"unknown filter {unknown[0]!r} (use {', '.join(FILTER_FIELDS)})")
    cleaned = {}
    for key, value in filters.items():
        if not isinstance(value, str) or len(value) > 200:
            raise Invalid(f"filter {key} must be text of at most 200 characters")
        if value.strip():
            cleaned[key] = value.strip()
    return cleaned


def _annotators(ids: Sequence[int]) -> list[User]:
    users = list(User.objects.filter(pk__in=set(ids), is_active=True))
    if len(users) != len(set(ids)):
        raise Invalid("some of the chosen annotators do not exist or are inactive")
    perm = ROLE_REQUIREMENT[Role.ANNOTATOR]
    unable = [u.username for u in users if not u.has_perm(perm)]
    if unable:
        raise Invalid(f"{unable[0]} does not have the annotator role")
    return users


def _check_numbers(annotators_per_task: int, lock_minutes: int, limit: int | None) -> None:
    if not 1 <= annotators_per_task <= MAX_ANNOTATORS_PER_TASK:
        raise Invalid(f"annotators per task must be from 1 to {MAX_ANNOTATORS_PER_TASK}")
    if not 1 <= lock_minutes <= MAX_LOCK_MINUTES:
        raise Invalid(f"the lock must last from 1 to {MAX_LOCK_MINUTES} minutes")
    if limit is not None and not 1 <= limit <= MAX_CAMPAIGN_TASKS:
        raise Invalid(f"the task limit must be from 1 to {MAX_CAMPAIGN_TASKS}")


@transaction.atomic
def campaign_create(
    *,
    user: User,
    name: str,
    filters: Mapping[str, Any],
    annotators_per_task: int = 2,
    lock_minutes: int = 30,
    annotator_ids: Sequence[int] = (),
    instructions: str = "",
    limit: int | None = None,
) -> Campaign:
    """A campaign over every task matching `filters` (at most `limit`), in creation order."""
    require_role(user, Role.ADMIN)
    name = name.strip()
    if not name or len(name) > 200:
        raise Invalid("the campaign needs a name of at most 200 characters")
    _check_numbers(annotators_per_task, lock_minutes, limit)
    cleaned = _clean_filters(filters)
    annotators = _annotators(annotator_ids)
    if annotators and len(annotators) < annotators_per_task:
        raise Invalid(
            f"{annotators_per_task} annotators per task need at least that many annotators"
        )
    rows = list(
        tasks_matching(cleaned)
        .order_by("created_at", "id")
        .values_list("id", "current_version_id")[: limit or MAX_CAMPAIGN_TASKS]
    )
    if not rows:
        raise Invalid("no task with a rubric tree matches these filters")
    campaign = Campaign.objects.create(
        name=name,
        instructions=instructions.strip()[:10_000],
        filters=cleaned,
        annotators_per_task=annotators_per_task,
        lock_minutes=lock_minutes,
        created_by=user,
    )
    items = [
        CampaignTask(campaign=campaign, task_id=task_id, position=i, start_version_id=version_id)
        for i, (task_id, version_id) in enumerate(rows)
    ]
    CampaignTask.objects.bulk_create(items, batch_size=BATCH)
    campaign.annotators.set(annotators)
    return campaign


@transaction.atomic
def campaign_tasks_add(*, user: User, campaign_id: int, filters: Mapping[str, Any]) -> int:
    """Append every task matching `filters` that the campaign does not hold yet, after its last
    item; how many were added. Its items, and whoever works on them, are left as they are."""
    require_role(user, Role.ADMIN)
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    if campaign.status == CampaignStatus.CLOSED:
        raise Conflict(f"campaign “{campaign.name}” is closed: it takes no new tasks")
    held = campaign.items.aggregate(n=Count("pk"), last=Max("position"))
    rows = list(
        tasks_matching(_clean_filters(filters))
        .exclude(audit_items__campaign=campaign)
        .order_by("created_at", "id")
        .values_list("id", "current_version_id")[: max(MAX_CAMPAIGN_TASKS - held["n"], 0)]
    )
    first = 0 if held["last"] is None else held["last"] + 1
    items = [
        CampaignTask(campaign=campaign, task_id=task_id, position=first + i, start_version_id=v)
        for i, (task_id, v) in enumerate(rows)
    ]
    CampaignTask.objects.bulk_create(items, batch_size=BATCH)
    return len(items)


def campaign_close(*, user: User, campaign_id: int) -> Campaign:
    """Stop handing out its tasks; what was submitted and decided stays."""
    require_role(user, Role.ADMIN)
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    campaign.status = CampaignStatus.CLOSED
    campaign.save(update_fields=["status"])
    return campaign


DEMO_CAMPAIGN = "Demo audit"
# The small demo tasks written for questweb (the two QUEST release trees have 50+ nodes).
DEMO_FILTERS = {"generator": "questweb demo"}


def demo_campaign_ensure(*, admin: User) -> Campaign | None:
    """The demo's audit campaign over the demo tasks, created once (matched by name)."""
    existing = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
    if existing is not None:
        return existing
    if not tasks_matching(DEMO_FILTERS).exists():
        return None
    return campaign_create(
        user=admin,
        name=DEMO_CAMPAIGN,
        filters=DEMO_FILTERS,
        annotators_per_task=2,
        instructions="Mark every node of each tree: 1 correct, 2 wrong, 3 unverifiable. "
        "Press ? on the audit page for all keys.",
    )


def campaign_probe_all(*, user: User, campaign_id: int) -> ProbesQueued:
    """A probe for every tree of the campaign that the gate may train on and nobody probed: an
    accepted item's final version, an undecided item's start version (rejected items none)."""
    require_role(user, Role.ADMIN)
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    targets = []
    for item in campaign.items.select_related("task", "start_version", "final_version"):
        if item.state == ItemState.DECIDED:
            if item.decision in ACCEPTING_DECISIONS and item.final_version is not None:
                targets.append((item.task, item.final_version))
        else:
            targets.append((item.task, item.start_version))
    return probes_ensure(user=user, targets=targets)


def tasks_probe_all(*, user: User, filters: Mapping[str, Any]) -> ProbesQueued:
    """A probe for the current tree of every task matching `filters` (a campaign's filters:
    a synthesis batch, a generator, a category...) that nobody probed."""
    require_role(user, Role.ADMIN)
    cleaned = _clean_filters(filters)
    tasks = tasks_matching(cleaned).select_related("current_version")[:MAX_CAMPAIGN_TASKS]
    # tasks_matching only reads tasks that have a current version.
    targets = [(t, t.current_version) for t in tasks if t.current_version is not None]
    return probes_ensure(user=user, targets=targets)
