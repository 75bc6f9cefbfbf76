"""Judge suggestions for auditors. The configured LLM judge (QUESTWEB_JUDGE_MODEL) scores each
task's reference answer (or, without one, its solution written out) against the task's current
tree: a leaf that the reference fails or cannot settle hints that the leaf itself is wrong. The
verdicts are stored as JudgeVerdict rows, shown next to the tree and compared with the humans'
verdicts."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import Campaign, CampaignTask, JudgeVerdict
from apps.audit.services.submissions import node_kinds
from apps.common import llm
from apps.common.errors import Invalid, NotFound
from apps.jobs.dispatch import task_enqueue
from apps.rubrics.evaluation import answer_evaluate
from apps.rubrics.solutions import probe_text
from workers.queues import Queue

MAX_REASONING = 4000


def solutions_judge_enqueue(*, user: User, campaign_id: int) -> int:
    """Queue the judging of every task of the campaign on the cpu queue; the number of tasks."""
    require_role(user, Role.ADMIN)
    if not settings.LLM_JUDGE_MODEL:
        raise Invalid(
            "no judge model is configured: set QUESTWEB_JUDGE_MODEL to a live-session model "
            "(smollm2, an endpoint's model or vllm:<model>)"
        )
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    task_enqueue("apps.audit.tasks.cpu_judge_solutions", campaign_id, queue=Queue.CPU)
    return campaign.items.count()


def solutions_judge_run(*, campaign_id: int, client: Any = None) -> int:
    """Judge the reference solution of each task of the campaign; the leaf verdicts written."""
    client = client if client is not None else llm.client_for(settings.LLM_JUDGE_MODEL)
    name = settings.LLM_JUDGE_MODEL or getattr(client, "name", "judge")
    written = 0
    items = CampaignTask.objects.filter(campaign_id=campaign_id).select_related(
        "task__current_version"
    )
    for item in items:
        task, version = item.task, item.task.current_version
        text = probe_text(task)
        if version is None or not text:
            continue
        result = answer_evaluate(task=task, text=text, judge=client)
        leaves = [k for k, kind in node_kinds(version.tree).items() if kind.is_leaf]
        rows = [
            JudgeVerdict(
                task=task,
                version=version,
                node_id=leaf,
                status=result.node_results[leaf]["status"],
                reasoning=str(result.node_results[leaf].get("reasoning", ""))[:MAX_REASONING],
                judge=name[:200],
            )
            for leaf in leaves
            if leaf in result.node_results
        ]
        with transaction.atomic():
            JudgeVerdict.objects.filter(version=version, node_id__in=leaves).delete()
            JudgeVerdict.objects.bulk_create(rows)
        written += len(rows)
    return written
