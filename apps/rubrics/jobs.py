"""The rubric app's job kinds (apps/jobs): task imports and probes, on the cpu queue."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from apps.accounts.roles import Role
from apps.jobs.registry import JobKind, queue_tasks, register, stall_setting
from apps.rubrics import api
from apps.rubrics.imports import IMPORT, task_import_cancel, timed_out_message
from apps.rubrics.models import ProbeRun, TaskImport
from apps.rubrics.services import PROBE
from workers.queues import Queue


def _import_out(job: TaskImport) -> dict[str, Any]:
    return api.import_out(job).model_dump()


def _probes(kind: JobKind, user: Any) -> QuerySet[ProbeRun]:
    return ProbeRun.objects.select_related("version")


def _cancel_import(*, user: Any, job_id: int) -> TaskImport:
    return task_import_cancel(user=user, import_id=job_id)


register(
    JobKind(
        name=IMPORT,
        label="import",
        model=TaskImport,
        tasks=queue_tasks("apps.rubrics.tasks", "import_tasks", Queue.CPU),
        out=_import_out,
        view_role=Role.ADMIN,
        # It ends failed, "cancelled by …", and refuses while the tasks are being written.
        cancel=_cancel_import,
        stall=stall_setting("IMPORT_TIMEOUT_MINUTES", "minutes"),
        stalled_error=timed_out_message,
        deferred=("payload",),
        ended_fields={"payload": b""},
    )
)
register(
    JobKind(
        name=PROBE,
        label="probe",
        model=ProbeRun,
        tasks=queue_tasks("apps.rubrics.tasks", "probe_tree", Queue.CPU),
        out=api.probe_out,
        visible=_probes,
        cancel_role=Role.ANNOTATOR,
    )
)
