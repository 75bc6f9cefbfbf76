"""Task imports: an uploaded file checked and written all-or-nothing by a cpu worker.

Every job ends: done, rejected (with the records and why), or failed with a reason. A failure,
a cancel by an admin and the watchdog's time-out all end it the same way, through one
conditional update that only a queued or running job passes; the final write holds the job's
row lock, so a cancel lands either before it (nothing written) or after it (refused).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, DomainError, Invalid, NotFound, TooLarge
from apps.common.storable import printable
from apps.rubrics import selectors
from apps.rubrics.models import ImportStatus, TaskImport
from apps.rubrics.records import Record, RecordSource, open_records
from apps.rubrics.services import PreparedTask, task_prepare, tasks_write

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
MAX_REJECTS_KEPT = 200
PROGRESS_EVERY = 100
ACTIVE = (ImportStatus.QUEUED, ImportStatus.RUNNING)


class ImportStopped(Exception):
    """The job was cancelled or timed out while the worker read it: stop, write nothing."""


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
    from apps.rubrics.tasks import cpu_import_tasks

    with transaction.atomic():
        job = TaskImport.objects.create(
            filename=printable(filename)[:255], payload=payload, created_by=user
        )
        transaction.on_commit(lambda: cpu_import_tasks.delay(job.pk))
    return job


def _end(job_id: int, status: str, **fields: Any) -> bool:
    """End a job that is still queued or running; False when something else ended it first."""
    ended = TaskImport.objects.filter(pk=job_id, status__in=ACTIVE).update(
        status=status, finished_at=timezone.now(), payload=b"", **fields
    )
    return bool(ended)


def _timeout() -> timedelta:
    return timedelta(minutes=settings.IMPORT_TIMEOUT_MINUTES)


def _timed_out_message() -> str:
    return (
        f"timed out: still running after {settings.IMPORT_TIMEOUT_MINUTES} minutes (the worker "
        "may have died); nothing was imported"
    )


def _keep_going(job_id: int, processed: int, deadline: datetime) -> None:
    """Report progress, or stop when the job was cancelled or has run past its time."""
    if timezone.now() > deadline:
        _end(job_id, ImportStatus.FAILED, error=_timed_out_message())
        raise ImportStopped
    if not TaskImport.objects.filter(pk=job_id, status=ImportStatus.RUNNING).update(
        processed=processed
    ):
        raise ImportStopped


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
    running = TaskImport.objects.select_for_update().filter(pk=job.pk, status=ImportStatus.RUNNING)
    if not running.exists():
        raise ImportStopped
    note = f"imported from {job.filename}"
    tasks_write(user=job.created_by, prepared=checked.prepared, note=note)
    _end(job.pk, ImportStatus.DONE, imported=len(checked.prepared), processed=total)


def _import(job: TaskImport) -> None:
    try:
        source = open_records(bytes(job.payload), job.filename)
    except ValueError as exc:
        _end(job.pk, ImportStatus.FAILED, error=printable(str(exc)))
        return
    started = timezone.now()
    if not TaskImport.objects.filter(pk=job.pk, status__in=ACTIVE).update(
        status=ImportStatus.RUNNING, started_at=started, total=source.total, processed=0
    ):
        return  # cancelled while queued
    checked = _check_all(job.pk, source, started + _timeout())
    if checked.rejected_count or not checked.prepared:
        if not checked.rejected:
            checked.rejected.append({"record": "file", "error": "the file holds no tasks"})
        _end(job.pk, ImportStatus.REJECTED, rejected=checked.rejected, processed=source.total)
    else:
        _write(job, checked, source.total)


def _failure(exc: Exception) -> str:
    if isinstance(exc, DomainError):
        return exc.message
    return printable(f"the import failed: {type(exc).__name__}: {str(exc)[:500]}")


def task_import_run(*, import_id: int) -> TaskImport:
    """Check every record, then write all of them in one transaction, or none. Whatever
    happens, the job ends with a status and a reason: never running forever."""
    job = TaskImport.objects.filter(pk=import_id).first()
    if job is None:
        raise NotFound(f"no import {import_id}")
    if not job.is_active:
        return job  # a redelivered message for a finished import
    try:
        _import(job)
    except ImportStopped:
        pass
    except Exception as exc:
        log.exception("import %s failed", import_id)
        _end(job.pk, ImportStatus.FAILED, error=_failure(exc))
    return TaskImport.objects.defer("payload").get(pk=job.pk)


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
    _end(job.pk, ImportStatus.FAILED, error=f"cancelled by {user.get_username()}")
    return TaskImport.objects.defer("payload").get(pk=job.pk)


def task_imports_expire(*, now: datetime | None = None) -> int:
    """The watchdog: jobs running longer than IMPORT_TIMEOUT_MINUTES end failed, with that
    reason. A worker that is only slow stops at its next progress report."""
    now = now or timezone.now()
    return TaskImport.objects.filter(
        status=ImportStatus.RUNNING, started_at__lt=now - _timeout()
    ).update(status=ImportStatus.FAILED, error=_timed_out_message(), finished_at=now, payload=b"")


def task_import_status(*, user: User, import_id: int) -> TaskImport:
    """An import as it stands. The watchdog runs first, so a job whose worker died reads as
    failed even where no beat process runs it."""
    require_role(user, Role.ADMIN)
    task_imports_expire()
    return selectors.task_import_get(user=user, import_id=import_id)


def task_imports_recent(*, user: User, limit: int = 20) -> QuerySet[TaskImport]:
    """The newest imports, after the watchdog (see task_import_status)."""
    require_role(user, Role.ADMIN)
    task_imports_expire()
    return selectors.task_import_list(user=user)[:limit]
