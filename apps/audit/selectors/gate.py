"""The training gate: only tasks whose latest audit decision accepts them reach training data,
and always with the version that decision named (the fixed one after a fix-and-accept), never
whatever the current version happens to be. That version must also have been probed sound: its
latest probe run is done and found the reference answer rewarded and no adversarial answer
rewarded (an accepted tree a policy could game is not a reward to train on).

Dataset builders read `training_eligible_tasks()` or `training_versions()`; they run in workers
without a user, so these take none. `training_task_list` is the same gate for API callers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, TypedDict

from django.db.models import OuterRef, QuerySet, Subquery

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import CampaignTask, ItemState
from apps.jobs.models import JobStatus
from apps.rubrics.models import AuditState, ProbeRun, ProbeVerdict, RubricVersion, Task
from quest.audit.taxonomy import ACCEPTING_DECISIONS

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

ACCEPTED_STATES = (AuditState.ACCEPTED, AuditState.FIX_ACCEPTED)


class Gated(TypedDict):
    """What `training_eligible_tasks` annotates each task with."""

    gate_decision: str
    gated_version_id: int
    gated_version_number: int
    probe_status: str
    probe_verdict: str


def training_eligible_tasks() -> QuerySet[WithAnnotations[Task, Gated]]:
    """Accepted tasks whose gated version probed sound, each annotated with `gated_version_id`:
    the version to train on."""
    latest = CampaignTask.objects.filter(task=OuterRef("pk"), state=ItemState.DECIDED).order_by(
        "-decided_at", "-pk"
    )
    probe = ProbeRun.objects.filter(version_id=OuterRef("gated_version_id")).order_by(
        "-created_at", "-pk"
    )
    return (
        Task.objects.filter(audit_state__in=ACCEPTED_STATES)
        .annotate(
            gate_decision=Subquery(latest.values("decision")[:1]),
            gated_version_id=Subquery(latest.values("final_version_id")[:1]),
            gated_version_number=Subquery(latest.values("final_version__number")[:1]),
        )
        .filter(gate_decision__in=ACCEPTING_DECISIONS, gated_version_id__isnull=False)
        .annotate(
            probe_status=Subquery(probe.values("status")[:1]),
            probe_verdict=Subquery(probe.values("verdict")[:1]),
        )
        .filter(probe_status=JobStatus.DONE, probe_verdict=ProbeVerdict.SOUND)
        .order_by("pk")
    )


def training_versions(*, chunk: int = 500) -> Iterator[tuple[Task, RubricVersion]]:
    """Every eligible task with its gated tree version, read in chunks."""
    last = 0
    while True:
        tasks = list(training_eligible_tasks().filter(pk__gt=last)[:chunk])
        if not tasks:
            return
        versions = RubricVersion.objects.in_bulk([t.gated_version_id for t in tasks])
        for task in tasks:
            yield task, versions[task.gated_version_id]
        last = tasks[-1].pk


def training_task_list(*, user: User) -> QuerySet[WithAnnotations[Task, Gated]]:
    require_role(user, Role.VIEWER)
    return training_eligible_tasks()
