from __future__ import annotations

from celery import shared_task

from apps.rubrics.imports import task_import_run
from apps.rubrics.services import probe_run


@shared_task(acks_late=True)
def cpu_import_tasks(import_id: int) -> None:
    """Routed to the cpu queue by its name (workers/routes.py)."""
    task_import_run(import_id=import_id)


@shared_task(acks_late=True)
def cpu_probe_tree(run_id: int) -> None:
    """A probe scores about fifteen answers, each reading its cited pages (and asking the judge,
    when one is configured, about every judge leaf): seconds to minutes."""
    probe_run(run_id=run_id)
