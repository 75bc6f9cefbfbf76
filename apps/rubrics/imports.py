"""Task imports: an uploaded file checked and written all-or-nothing by a cpu worker.

Every job ends: done, rejected (with the records and why), or failed with a reason. A failure,
a cancel by an admin and the watchdog's time-out all end it the same way, through one
conditional update that only a queued or running job passes; the final write holds the job's
row lock, so a cancel lands either before it (nothing written) or after it (refused).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, Invalid, NotFound, TooLarge
from apps.common.storable import printable
from apps.jobs.dispatch import JobStopped, job_end, job_enqueue, job_progress, job_run, jobs_expire
from apps.jobs.models import JobStatus
from apps.rubrics import selectors
from apps.rubrics.models import TaskImport
from apps.rubrics.records import Record, RecordSource, open_records
from apps.rubrics.services import PreparedTask, task_prepare, tasks_write

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
MAX_REJECTS_KEPT = 200
PROGRESS_EVERY = 100
IMPORT = "import"  # the job kind (apps/rubrics/jobs.py)


@dataclass
class Checked:
    prepared: list[PreparedTask] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    rejected_count: int = 0


def task_import_enqueue(*, user: User, filename: str, payload: bytes) -> TaskImport:
    require_role(user, Role.ADMIN)
    if not payload.strip():
        raise Invalid("the file is empty")
    if len(payload) > MAX_UPLOAD_BYTES:
        raise TooLarge(f"the file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    with transaction.atomic():
        job = TaskImport.objects.create(
            filename=printable(filename)[:255], payload=payload, created_by=user
        )
        job_enqueue(IMPORT, job.pk)
    return job


def timeout() -> timedelta:
    return timedelta(minutes=settings.IMPORT_TIMEOUT_MINUTES)


def timed_out_message() -> str:
    return (
        f"timed out: still running after {settings.IMPORT_TIMEOUT_MINUTES} minutes (the worker "
        "may have died); nothing was imported"
    )


def _keep_going(job_id: int, processed: int, deadline: datetime) -> None:
    """Report progress, or stop when the job was cancelled or has run past its time."""
    if timezone.now() > deadline:
        job_end(IMPORT, job_id, JobStatus.FAILED, error=timed_out_message())
        raise JobStopped
    if not job_progress(IMPORT, job_id, done=processed):
        raise JobStopped


def _check(record: Record) -> PreparedTask | str:
    if record.data is None:
        return record.error
    try:
        return task_prepare(record.data)
    except Invalid as exc:
        return exc.message
    except RecursionError:
        return "the record is nested too deeply"


def _check_all(job_id: int, source: RecordSource, deadline: datetime) -> Checked:
    checked = Checked()
    for processed, record in enumerate(source.records, start=1):
        outcome = _check(record)
        if isinstance(outcome, PreparedTask):
            checked.prepared.append(outcome)
        else:
            checked.rejected_count += 1
            if len(checked.rejected) < MAX_REJECTS_KEPT:
                checked.rejected.append({"record": record.where, "error": outcome})
        if processed % PROGRESS_EVERY == 0:
            _keep_going(job_id, processed, deadline)
    return checked


@transaction.atomic
def _write(job: TaskImport, checked: Checked, total: int) -> None:
    # The row lock orders this write with a cancel or the watchdog: whichever comes second
    # finds the job no longer running and does nothing.
    running = TaskImport.objects.select_for_update().filter(pk=job.pk, status=JobStatus.RUNNING)
    if not running.exists():
        raise JobStopped
    note = f"imported from {job.filename}"
    tasks_write(user=job.created_by, prepared=checked.prepared, note=note)
    job_end(IMPORT, job.pk, JobStatus.DONE, imported=len(checked.prepared), done=total)


def _import(job: TaskImport) -> dict[str, Any]:
    try:
        source = open_records(bytes(job.payload), job.filename)
    except ValueError as exc:
        raise Invalid(printable(str(exc))) from exc
    deadline = timezone.now() + timeout()
    if not job_progress(IMPORT, job.pk, total=source.total, done=0):
        raise JobStopped
    checked = _check_all(job.pk, source, deadline)
    if checked.rejected_count or not checked.prepared:
        if not checked.rejected:
            checked.rejected.append({"record": "file", "error": "the file holds no tasks"})
        return {"status": JobStatus.REJECTED, "rejected": checked.rejected, "done": source.total}
    # Ended under the job's row lock, with the tasks written (the framework's end then finds
    # it ended already and does nothing).
    _write(job, checked, source.total)
    return {}


def task_import_run(*, import_id: int) -> TaskImport:
    """Check every record, then write all of them in one transaction, or none. Whatever
    happens, the job ends with a status and a reason: never running forever."""
    # The kind's rows are of its model.
    return cast(TaskImport, job_run(IMPORT, import_id, _import))


@transaction.atomic
def task_import_cancel(*, user: User, import_id: int) -> TaskImport:
    """Stop a queued or running import; it ends failed, "cancelled by <user>", and writes
    nothing (a worker part-way through stops at its next progress report)."""
    require_role(user, Role.ADMIN)
    try:
        # nowait: a worker writing the tasks holds the row for as long as that takes.
        job = (
            TaskImport.objects.select_for_update(nowait=True)
            .defer("payload")
            .filter(pk=import_id)
            .first()
        )
    except OperationalError as exc:
        raise Conflict(
            f"import {import_id} is writing its tasks now and can no longer be cancelled"
        ) from exc
    if job is None:
        raise NotFound(f"no import {import_id}")
    if not job.is_active:
        raise Conflict(
            f"import {import_id} has already ended ({job.get_status_display().lower()}): "
            "there is nothing to cancel"
        )
    job_end(IMPORT, job.pk, JobStatus.FAILED, error=f"cancelled by {user.get_username()}")
    return TaskImport.objects.defer("payload").get(pk=job.pk)


def task_import_status(*, user: User, import_id: int) -> TaskImport:
    """An import as it stands. The watchdog runs first, so a job whose worker died reads as
    failed even where no beat process runs it."""
    require_role(user, Role.ADMIN)
    jobs_expire(kind=IMPORT)
    return selectors.task_import_get(user=user, import_id=import_id)


def task_imports_recent(*, user: User, limit: int = 20) -> QuerySet[TaskImport]:
    """The newest imports, after the watchdog (see task_import_status)."""
    require_role(user, Role.ADMIN)
    jobs_expire(kind=IMPORT)
    return selectors.task_import_list(user=user)[:limit]
