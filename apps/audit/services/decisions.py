"""Turning submissions into a task's final decision, and the decision into the task's audit
state (the training gate)."""

from __future__ import annotations

from django.utils import timezone

from apps.accounts.models import User
from apps.audit.models import AssignmentStatus, CampaignTask, ItemState
from apps.rubrics.models import AuditState, RubricVersion, Task
from apps.rubrics.services import probes_ensure
from quest.audit import Submission, combine_decisions
from quest.audit.taxonomy import ACCEPTING_DECISIONS

AUDIT_STATE = {
    "accept": AuditState.ACCEPTED,
    "fix_accept": AuditState.FIX_ACCEPTED,
    "reject": AuditState.REJECTED,
}


def as_audited(item: CampaignTask, version: RubricVersion) -> RubricVersion:
    """The start version when `version` holds the same tree (an edit undone), so that an
    unchanged tree never counts as fixed."""
    if version.pk != item.start_version_id and version.tree == item.start_version.tree:
        return item.start_version
    return version


def item_decide(
    item: CampaignTask,
    *,
    decision: str,
    version: RubricVersion,
    by: User | None,
    comment: str = "",
) -> None:
    """Record the final decision; the task's latest decision is its audit state."""
    item.state = ItemState.DECIDED
    item.decision = decision
    item.final_version = version
    item.decided_by = by
    item.decided_at = timezone.now()
    item.review_comment = comment
    item.save(
        update_fields=[
            "state",
            "decision",
            "final_version",
            "decided_by",
            "decided_at",
            "review_comment",
            "submitted",
        ]
    )
    Task.objects.filter(pk=item.task_id).update(audit_state=AUDIT_STATE[decision])
    if decision in ACCEPTING_DECISIONS:
        # The gate trains an accepted version only once it probed sound: probed here, so a
        # campaign gates as a recipe does, with nobody pressing Probe on each task page.
        task = Task.objects.get(pk=item.task_id)
        probes_ensure(user=by, targets=[(task, version)])


def item_settle(item: CampaignTask) -> None:
    """After a submission: decide if the annotators agree, flag a dispute if they do not."""
    rows = item.assignments.filter(status=AssignmentStatus.SUBMITTED).values_list(
        "decision", "version__number", "version_id"
    )
    versions = {number: pk for _, number, pk in rows}
    outcome = combine_decisions(
        [Submission(decision, number) for decision, number, _ in rows],  # type: ignore[arg-type]
        needed=item.campaign.annotators_per_task,
        start_version=item.start_version.number,
    )
    if outcome.state == "agreed" and outcome.decision and outcome.version is not None:
        version_id = versions.get(outcome.version, item.start_version_id)
        version = RubricVersion.objects.defer("tree").get(pk=version_id)
        item_decide(item, decision=outcome.decision, version=version, by=None)
        return
    item.state = ItemState.DISPUTED if outcome.state == "disputed" else ItemState.OPEN
    item.save(update_fields=["state", "submitted"])
