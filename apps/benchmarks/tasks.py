"""Celery tasks of benchmark runs, routed by name (workers/routes.py): gpu_* to the gpu
queue's solo worker (a checkpoint or base model loaded in-process), cpu_* to the cpu queue
(scripted, endpoints, saved responses). Not acks_late: a run whose worker died is not started
again by the broker; the watchdog ends it failed and an admin queues it again to continue."""

from __future__ import annotations

from celery import shared_task

from apps.benchmarks import runner


@shared_task(acks_late=False)
def gpu_benchmark_run(run_id: int) -> None:
    runner.benchmark_run(run_id=run_id)


@shared_task(acks_late=False)
def cpu_benchmark_run(run_id: int) -> None:
    runner.benchmark_run(run_id=run_id)
