"""Cancelling a job of any kind, as the user who asks may."""

from __future__ import annotations

from typing import Any

from apps.accounts.permissions import require_role
from apps.common.errors import Conflict
from apps.jobs.dispatch import job_end
from apps.jobs.models import JobStatus
from apps.jobs.registry import kind_get
from apps.jobs.selectors import job_get


def job_cancel(*, user: Any, kind: str, job_id: int) -> Any:
    """End a queued or running job cancelled (a worker part-way through stops at its next
    progress report), or hand over to the kind's own cancel where stopping takes more. A job
    the user may not read is not found, whatever their role."""
    spec = kind_get(kind)
    job = job_get(user=user, kind=kind, job_id=job_id)
    require_role(user, spec.cancel_role)
    if spec.cancel is not None:
        return spec.cancel(user=user, job_id=job_id)
    if job.status == JobStatus.RUNNING and not spec.stops_midway:
        raise Conflict(f"{spec.label} {job_id} is running and cannot stop part-way; wait for it")
    if not job_end(kind, job_id, JobStatus.CANCELLED, error=f"cancelled by {user.get_username()}"):
        job.refresh_from_db()
        raise Conflict(
            f"{spec.label} {job_id} has already ended ({job.get_status_display().lower()}): "
            "there is nothing to cancel"
        )
    return job_get(user=user, kind=kind, job_id=job_id)
