"""The audit app's job kind: parquet and `datasets` exports on the cpu queue (apps/jobs)."""

from __future__ import annotations

from apps.accounts.roles import Role
from apps.audit.api_out import export_out
from apps.audit.models import ExportJob
from apps.audit.services.exports import EXPORT
from apps.jobs.registry import JobKind, queue_tasks, register
from workers.queues import Queue

register(
    JobKind(
        name=EXPORT,
        label="export",
        model=ExportJob,
        tasks=queue_tasks("apps.audit.tasks", "build_export", Queue.CPU),
        out=export_out,
        # Who may ask for an export may read and cancel every export: they hold the same data.
        view_role=Role.REVIEWER,
        cancel_role=Role.REVIEWER,
    )
)
