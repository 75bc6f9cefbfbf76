"""The lifecycle of every job kind, in one place: send its task after the commit, start it,
report progress, end it, and end failed the jobs whose worker went silent (the watchdog). A
person's cancel (services.py) is one more end.

Every transition is one conditional UPDATE that only a job in the right state passes, so a
cancel, the watchdog and the worker's own end race safely: the first one wins, the others
find the job already ended and do nothing. A worker learns it was cancelled when its next
progress report is refused (`job_progress` returns False) and stops there."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.common.errors import DomainError, NotFound
from apps.common.storable import printable
from apps.jobs.broadcast import job_broadcast
from apps.jobs.models import ACTIVE, Job, JobStatus
from apps.jobs.registry import JobKind, kind_get, kinds
from workers import app as celery_app
from workers.queues import Queue

log = logging.getLogger(__name__)


class JobStopped(Exception):
    """The job was cancelled or expired while its worker ran: stop and write nothing more."""


def task_send(task: str, *args: Any, queue: Queue) -> None:
    """Send a task by its name: the caller imports no tasks module (so a tasks module may
    import the services that call this, with no cycle)."""
    celery_app.send_task(task, args=list(args), queue=queue.value)


def task_enqueue(task: str, *args: Any, queue: Queue) -> None:
    """Send a task by its name once the current transaction commits: for work with no job row
    of its own (a campaign's judging)."""
    transaction.on_commit(lambda: task_send(task, *args, queue=queue))


def job_send(kind: str, job_id: int, *args: Any, queue: Queue | None = None) -> None:
    """Send the kind's task for one job now, on `queue` (else the kind's first). Call it after
    the commit that made the row (`job_enqueue` does)."""
    task, chosen = kind_get(kind).task(queue)
    task_send(task, job_id, *args, queue=chosen)


def job_enqueue(kind: str, job_id: int, *args: Any, queue: Queue | None = None) -> None:
    """Send the kind's task once the current transaction commits: a worker never looks for a
    row that is not there yet."""
    transaction.on_commit(lambda: job_send(kind, job_id, *args, queue=queue))


def _rows(kind: str) -> QuerySet[Any]:
    return kind_get(kind).model.objects.all()


def job_start(kind: str, job_id: int, **fields: Any) -> bool:
    """Queued → running; False when the job is no longer queued (cancelled, or a redelivered
    message for a job that already ran)."""
    now = timezone.now()
    started = (
        _rows(kind)
        .filter(pk=job_id, status=JobStatus.QUEUED)
        .update(status=JobStatus.RUNNING, started_at=now, active_at=now, **fields)
    )
    if started:
        job_broadcast(kind, job_id)
    return bool(started)


def job_progress(kind: str, job_id: int, **fields: Any) -> bool:
    """Record how far a running job got (`done`, `total` or the kind's own fields) and that its
    worker is alive; False once the job is no longer running: the worker should stop."""
    moved = (
        _rows(kind)
        .filter(pk=job_id, status=JobStatus.RUNNING)
        .update(active_at=timezone.now(), **fields)
    )
    return bool(moved)


def job_end(kind: str, job_id: int, status: str, **fields: Any) -> bool:
    """End a queued or running job, with the fields its kind writes at every end; False when
    something else ended it first."""
    fields = {**kind_get(kind).ended_fields, **fields}
    ended = (
        _rows(kind)
        .filter(pk=job_id, status__in=ACTIVE)
        .update(status=status, finished_at=timezone.now(), **fields)
    )
    if ended:
        job_broadcast(kind, job_id)
    return bool(ended)


def failure(exc: Exception, what: str) -> str:
    """Why a job failed, for its owner: a domain error's own words, else the exception's."""
    if isinstance(exc, DomainError):
        return exc.message
    return printable(f"{what} failed: {type(exc).__name__}: {str(exc)[:500]}")


def job_run(
    kind: str,
    job_id: int,
    work: Callable[[Any], dict[str, Any]],
    *,
    then: Callable[[Any], None] | None = None,
    failed: Callable[[Exception], str] | None = None,
) -> Job:
    """Run one job: start it, call `work(job)` and end it done with the fields `work` returns
    (which may name another final status), or failed with the reason (`failed(exc)` where the
    kind words it its own way); `then(job)` follows a job that this run ended done. A job that
    is not queued is left as it is: the message was redelivered, or the job was cancelled while
    queued."""
    spec = kind_get(kind)
    job = spec.model.objects.filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"no {spec.label} {job_id}")
    if job.status != JobStatus.QUEUED or not job_start(kind, job_id):
        return job
    try:
        fields = work(job)
    except JobStopped:
        pass
    except Exception as exc:  # any failure is the job's outcome, shown to its owner
        log.exception("%s %s failed", spec.label, job_id)
        why = failed(exc) if failed else failure(exc, f"the {spec.label}")
        job_end(kind, job_id, JobStatus.FAILED, error=why)
    else:
        status = fields.pop("status", JobStatus.DONE)
        if job_end(kind, job_id, status, **fields) and status == JobStatus.DONE and then:
            then(job)
    return spec.model.objects.defer(*spec.deferred).get(pk=job_id)


def _expire(spec: JobKind, now: datetime) -> int:
    if spec.stall is None:
        return 0
    cutoff = now - spec.stall()
    silent = Q(active_at__lt=cutoff) | Q(active_at__isnull=True, started_at__lt=cutoff)
    stale = spec.model.objects.filter(silent, status=JobStatus.RUNNING)
    found = list(stale.values_list("pk", flat=True))
    # One conditional UPDATE: a job that reported meanwhile no longer matches and stays running.
    ended = stale.filter(pk__in=found).update(
        status=JobStatus.FAILED, error=spec.stalled_error(), finished_at=now, **spec.ended_fields
    )
    for job_id in found:
        job_broadcast(spec.name, job_id)
    return ended


def jobs_expire(*, kind: str | None = None, now: datetime | None = None) -> int:
    """The watchdog: running jobs whose worker has not reported for longer than their kind
    allows end failed, with that reason. Reads run it too, so a dead worker's job reads as
    failed even where no beat process runs."""
    now = now or timezone.now()
    chosen = [kind_get(kind)] if kind else kinds()
    return sum(_expire(spec, now) for spec in chosen)
