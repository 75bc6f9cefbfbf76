"""Training's job kinds (apps/jobs): dataset builds, training runs and evaluations. Each stops
in its own way (a running job saves a checkpoint first), so each keeps its own cancel; their
worker reports at least every TRAINING_STALL_SECONDS, or the watchdog ends them failed."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from apps.accounts.roles import Role
from apps.jobs.registry import JobKind, queue_tasks, register, stall_setting
from apps.training import api, broadcast, services
from apps.training.models import Evaluation, TrainingDataset, TrainingJob
from apps.training.paths import shown_paths
from workers.queues import Queue


def _stalled() -> str:
    return (
        f"the worker stopped reporting for over {settings.TRAINING_STALL_SECONDS} s "
        "(it died or lost its database)"
    )


def _cancel_dataset(*, user: Any, job_id: int) -> TrainingDataset:
    return services.dataset_cancel(user=user, dataset_id=job_id)


def _cancel_evaluation(*, user: Any, job_id: int) -> Evaluation:
    return services.evaluation_cancel(user=user, evaluation_id=job_id)


TASKS = "apps.training.tasks"
COMMON: dict[str, Any] = {
    "view_role": Role.VIEWER,
    "cancel_role": Role.ADMIN,
    "stall": stall_setting("TRAINING_STALL_SECONDS", "seconds"),
    "stalled_error": _stalled,
    "shown_error": shown_paths,
}

register(
    JobKind(
        name="dataset",
        label="dataset",
        model=TrainingDataset,
        tasks=queue_tasks(TASKS, "training_dataset", Queue.CPU, Queue.GPU),
        out=api.dataset_out,
        cancel=_cancel_dataset,
        **COMMON,
    )
)
register(
    JobKind(
        name="training",
        label="training job",
        model=TrainingJob,
        tasks=queue_tasks(TASKS, "training_job", Queue.GPU),
        out=api.job_out,
        cancel=services.job_cancel,
        announce=broadcast.job_status,
        **COMMON,
    )
)
register(
    JobKind(
        name="evaluation",
        label="evaluation",
        model=Evaluation,
        tasks=queue_tasks(TASKS, "training_evaluation", Queue.GPU),
        out=api.evaluation_out,
        cancel=_cancel_evaluation,
        **COMMON,
    )
)
