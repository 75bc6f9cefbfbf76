"""Evaluations asked for and cancelled, and the watchdog that ends work whose worker died."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.common.errors import Invalid
from apps.jobs.dispatch import job_enqueue
from apps.training import selectors
from apps.training.datasets import campaign_tasks
from apps.training.models import Evaluation, TrainingJob
from apps.training.services.common import admin, room, stop_or_cancel, whole
from quest.training import DatasetError, task_from_record

DEFAULT_EVAL_TASKS = 40
MAX_EVAL_TASKS = 2_000
# Small by default: on a CPU every turn of a 135M model costs seconds.
EVAL_BUDGETS = {"max_turns": 8, "max_turn_tokens": 384}


def evaluation_create(
    *,
    user: Any,
    job_id: int,
    checkpoint: str = "final",
    compare_base: bool = True,
    limit: int = DEFAULT_EVAL_TASKS,
    budgets: Mapping[str, Any] | None = None,
    campaign_id: int | None = None,
) -> Evaluation:
    """Queue an evaluation of a job's checkpoint, and of the model it started from, by the same
    agent loop on held-out gated tasks none of the job's data came from (only those of one
    audit campaign when `campaign_id` names one: a recipe's)."""
    admin(user)
    job = selectors.job_get(user=user, job_id=job_id)
    found = selectors.checkpoint_get(job, checkpoint)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_EVAL_TASKS:
        raise Invalid(f"limit must be a whole number between 1 and {MAX_EVAL_TASKS}")
    task_ids = held_out_tasks(job, limit, campaign_id=campaign_id)
    if not task_ids:
        raise Invalid(
            "no held-out gated task to evaluate on: accept and probe more tasks (a fixed fifth "
            "of gated tasks is held out of every dataset)"
        )
    with transaction.atomic():
        room(Evaluation, user)
        evaluation = Evaluation.objects.create(
            job=job,
            checkpoint=found.path,
            base_model=job.model if compare_base else "",
            task_ids=task_ids,
            tasks_asked=limit,
            budgets=_eval_budgets(budgets or {}),
            total=len(task_ids) * (2 if compare_base else 1),
            created_by=user,
        )
        job_enqueue("evaluation", evaluation.pk)
    return evaluation


def held_out_tasks(job: TrainingJob, limit: int, *, campaign_id: int | None = None) -> list[str]:
    """Held-out gated tasks none of the job's data came from (of one campaign, when named);
    without a judge, only those whose trees can be scored without one (the others would all
    be dropped)."""
    used = set(job.dataset.task_ids) if job.dataset else set()
    judged = bool(settings.LLM_JUDGE_MODEL)
    wanted = campaign_tasks(campaign_id)
    ids = []
    for task, version in selectors.gated_versions(split="held_out"):
        if str(task.pk) in used or (wanted is not None and task.pk not in wanted):
            continue
        try:
            record = task_from_record(selectors.task_record(task, version))
        except DatasetError:  # a record no agent run could be scored against
            continue
        if not judged and record.needs_judge():
            continue
        ids.append(str(task.pk))
        if len(ids) >= limit:
            break
    return ids


def _eval_budgets(data: Mapping[str, Any]) -> dict[str, int]:
    unknown = sorted(set(data) - set(EVAL_BUDGETS))
    if unknown:
        raise Invalid(f"budgets: unknown field {unknown[0]!r}")
    return {
        "max_turns": whole(data, "max_turns", EVAL_BUDGETS["max_turns"], 1, 50),
        "max_turn_tokens": whole(
            data, "max_turn_tokens", EVAL_BUDGETS["max_turn_tokens"], 16, 10_240
        ),
    }


def evaluation_cancel(*, user: Any, evaluation_id: int) -> Evaluation:
    """A queued evaluation ends cancelled; a running one stops after its current run, keeping
    what it measured."""
    admin(user)
    found: Evaluation = stop_or_cancel(
        "evaluation", Evaluation, evaluation_id, "evaluation", stops=True
    )
    return found
