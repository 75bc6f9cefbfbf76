from __future__ import annotations

from celery import shared_task

from apps.audit.services.exports import export_run
from apps.audit.services.judging import solutions_judge_run


@shared_task(acks_late=True)
def cpu_build_export(job_id: int) -> None:
    """Routed to the cpu queue by its name (workers/routes.py)."""
    export_run(job_id=job_id)


@shared_task(acks_late=True)
def cpu_judge_solutions(campaign_id: int) -> int:
    """The judge reads pages and calls an LLM per leaf: minutes for a big campaign."""
    return solutions_judge_run(campaign_id=campaign_id)
