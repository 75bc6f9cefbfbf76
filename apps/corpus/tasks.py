from __future__ import annotations

from celery import shared_task

from apps.corpus.services import corpus_job_run


@shared_task(acks_late=True)
def cpu_corpus_job(job_id: int) -> None:
    """Routed to the cpu queue by its name (workers/routes.py)."""
    corpus_job_run(job_id=job_id)
