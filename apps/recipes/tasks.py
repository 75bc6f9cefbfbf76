"""The recipe's beat task, and the hook that runs it as soon as a stage's work ends.

The hook listens to Celery's task_postrun for the stage tasks of other apps, so those apps
need not know recipes exist; the beat (workers/app.py) moves recipes on anyway, every few
seconds, when a hook is missed (a worker killed mid-task)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import task_postrun

from apps.jobs.models import ACTIVE
from apps.recipes import services
from apps.recipes.models import Recipe

STAGE_TASKS = frozenset({
    "apps.synthesis.tasks.cpu_synthesis_batch",
    "apps.synthesis.tasks.gpu_synthesis_batch",
    "apps.rubrics.tasks.cpu_probe_tree",
    "apps.training.tasks.cpu_training_dataset",
    "apps.training.tasks.gpu_training_dataset",
    "apps.training.tasks.gpu_training_job",
    "apps.training.tasks.gpu_training_evaluation",
})  # fmt: skip


@shared_task(ignore_result=True)
def recipes_advance() -> int:
    """On the default queue: every running recipe moved on as far as its work allows."""
    return services.recipes_advance()


def _after_stage_task(sender: Any = None, **_: Any) -> None:
    if getattr(sender, "name", "") in STAGE_TASKS and _any_active():
        recipes_advance.delay()


def _any_active() -> bool:
    return Recipe.objects.filter(status__in=ACTIVE).exists()


def connect_stage_hooks() -> None:
    task_postrun.connect(_after_stage_task, weak=False, dispatch_uid="recipes-after-stage")
