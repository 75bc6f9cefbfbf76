from __future__ import annotations

from celery import shared_task

from apps.rubrics.services import task_import_run


@shared_task(acks_late=True)
def cpu_import_tasks(import_id: int) -> None:
    """Routed to the cpu queue by its name (workers/routes.py)."""
    task_import_run(import_id=import_id)
