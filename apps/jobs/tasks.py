from __future__ import annotations

from celery import shared_task

from apps.jobs.dispatch import jobs_expire


@shared_task(ignore_result=True)
def jobs_watchdog() -> int:
    """Run by beat on the default queue: jobs of every kind whose worker went silent for longer
    than their kind allows end failed."""
    return jobs_expire()
