"""Reviewers settle what annotators disagreed on; judges' verdicts are recorded as suggestions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import (
    AssignmentStatus,
    CampaignTask,
    GoldVerdict,
    JudgeVerdict,
    NodeVerdict,
)
from apps.audit.services.decisions import as_audited, item_decide
from apps.audit.services.submissions import node_kinds, task_version
from apps.common.errors import Conflict, Invalid, NotFound
from apps.rubrics.models import RubricVersion, Task
from quest.audit.labels import MAX_COMMENT, parse_labels
from quest.audit.taxonomy import ACCEPTING_DECISIONS, DECISIONS

JUDGE_STATUSES = ("pass", "fail", "error", "skipped")
MAX_REASONING = 20_000


def _locked_item(item_id: int) -> CampaignTask:
    item = (
        CampaignTask.objects.select_for_update(of=("self",))
        .select_related("start_version", "campaign")
        .filter(pk=item_id)
        .first()
    )
    if item is None:
        raise NotFound(f"no campaign item {item_id}")
    return item


def _audited_versions(item: CampaignTask) -> list[RubricVersion]:
    """The start version and every version an annotator submitted on, oldest first."""
    ids = set(
        item.assignments.filter(status=AssignmentStatus.SUBMITTED).values_list(
            "version_id", flat=True
        )
    )
    ids.add(item.start_version_id)
    return list(RubricVersion.objects.filter(pk__in=ids).order_by("number"))


def _final_version(
    item: CampaignTask, decision: str, number: int | None, audited: list[RubricVersion]
) -> RubricVersion:
    version = as_audited(
        item, audited[-1] if number is None else task_version(item.task_id, number)
    )
    if decision == "fix_accept" and version.pk == item.start_version_id:
        raise Invalid("fix-and-accept needs a version newer than the one the audit started from")
    return version


def _gold_rows(
    item: CampaignTask, gold: Any, audited: list[RubricVersion], user: User
) -> list[GoldVerdict]:
    if not gold:
        return []
    nodes: set[str] = set()
    for version in audited:
        nodes.update(node_kinds(version.tree))
    try:
        labels = parse_labels(gold, nodes=nodes, complete=False)
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    return [
        GoldVerdict(item=item, node_id=node_id, decided_by=user, **label.to_dict())
        for node_id, label in labels.items()
    ]


@transaction.atomic
def item_adjudicate(
    *,
    user: User,
    item_id: int,
    decision: str,
    version: int | None = None,
    gold: Any = None,
    comment: str = "",
) -> CampaignTask:
    """A reviewer's final decision on a task (and gold verdicts on disputed nodes). `version`
    defaults to the newest version an annotator submitted on."""
    require_role(user, Role.REVIEWER)
    item = _locked_item(item_id)
    if item.submitted == 0:
        raise Conflict("nobody has submitted this task yet")
    if decision not in DECISIONS:
        raise Invalid(f"decision must be one of {', '.join(DECISIONS)}")
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise Invalid(f"the comment must be text of at most {MAX_COMMENT} characters")
    audited = _audited_versions(item)
    final = _final_version(item, decision, version, audited)
    rows = _gold_rows(item, gold, audited, user)
    GoldVerdict.objects.filter(item=item, node_id__in=[r.node_id for r in rows]).delete()
    GoldVerdict.objects.bulk_create(rows)
    kept = final if decision in ACCEPTING_DECISIONS else item.start_version
    item_decide(item, decision=decision, version=kept, by=user, comment=comment.strip())
    return item


@transaction.atomic
def gold_take(*, user: User, item_id: int, node_id: str, assignment_id: int) -> GoldVerdict:
    """A reviewer sides with one annotator on one node: that annotator's verdict and error type
    become the node's gold verdict (replacing any earlier one). The task decision is separate."""
    require_role(user, Role.REVIEWER)
    item = _locked_item(item_id)
    label = NodeVerdict.objects.filter(
        assignment_id=assignment_id,
        assignment__item=item,
        assignment__status=AssignmentStatus.SUBMITTED,
        node_id=node_id,
    ).first()
    if label is None:
        raise Invalid(f"that annotator submitted no verdict on node {node_id[:64]!r} of this task")
    gold = {node_id: {"verdict": label.verdict, "error_type": label.error_type}}
    [row] = _gold_rows(item, gold, _audited_versions(item), user)
    GoldVerdict.objects.filter(item=item, node_id=node_id).delete()
    row.save()
    return row


def _judge_row(task: Task, version: RubricVersion, node_id: str, raw: Any, judge: str) -> Any:
    entry = {"status": raw} if isinstance(raw, str) else raw
    if not isinstance(entry, Mapping) or entry.get("status") not in JUDGE_STATUSES:
        raise Invalid(f"node {node_id!r}: status must be one of {', '.join(JUDGE_STATUSES)}")
    reasoning = entry.get("reasoning") or ""
    if not isinstance(reasoning, str):
        raise Invalid(f"node {node_id!r}: reasoning must be text")
    return JudgeVerdict(
        task=task,
        version=version,
        node_id=node_id,
        status=entry["status"],
        reasoning=reasoning[:MAX_REASONING],
        judge=judge[:200],
    )


@transaction.atomic
def judge_verdicts_record(
    *, user: User, task_id: int, version: int, verdicts: Any, judge: str = ""
) -> int:
    """Store a judge's leaf verdicts on a version (the newest per leaf wins)."""
    require_role(user, Role.ADMIN)
    task = Task.objects.filter(pk=task_id).first()
    if task is None:
        raise NotFound(f"no task {task_id}")
    scored = task_version(task.pk, version)
    if not isinstance(verdicts, Mapping) or not verdicts:
        raise Invalid("verdicts must be a non-empty object mapping leaf ids to statuses")
    leaves = {k for k, kind in node_kinds(scored.tree).items() if kind.is_leaf}
    unknown = [str(k)[:64] for k in verdicts if k not in leaves]
    if unknown:
        raise Invalid(f"no leaf {unknown[0]!r} in version {version}")
    rows = [_judge_row(task, scored, str(k), v, judge) for k, v in verdicts.items()]
    JudgeVerdict.objects.filter(version=scored, node_id__in=list(verdicts)).delete()
    JudgeVerdict.objects.bulk_create(rows)
    return len(rows)
