"""Celery tasks of training; routed by name (workers/routes.py): gpu_* to the gpu queue's solo
worker, cpu_* to the cpu queue. None is acks_late: work whose worker died is not run again
from the start; the watchdog ends it failed instead."""

from __future__ import annotations

from celery import shared_task

from apps.training import runner


@shared_task(bind=True, acks_late=False)
def gpu_training_job(self: object, job_id: int) -> None:
    hostname = getattr(getattr(self, "request", None), "hostname", "") or ""
    runner.job_run(job_id=job_id, hostname=hostname)


@shared_task(acks_late=False)
def cpu_training_dataset(dataset_id: int) -> None:
    """A dataset whose policy is scripted or reached over HTTP."""
    runner.dataset_run(dataset_id=dataset_id)


@shared_task(acks_late=False)
def gpu_training_dataset(dataset_id: int) -> None:
    """A dataset whose policy's model runs inside the worker (SmolLM2, vLLM)."""
    runner.dataset_run(dataset_id=dataset_id)


@shared_task(acks_late=False)
def gpu_training_evaluation(evaluation_id: int) -> None:
    runner.evaluation_run(evaluation_id=evaluation_id)
