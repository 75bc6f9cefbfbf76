from __future__ import annotations

from celery import shared_task

from apps.audit.services.exports import export_run


@shared_task(acks_late=True)
def cpu_build_export(job_id: int) -> None:
    """Routed to the cpu queue by its name (workers/routes.py)."""
    export_run(job_id=job_id)
