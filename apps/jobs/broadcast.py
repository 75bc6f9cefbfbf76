"""The one way a job's status reaches its viewers: after the commit that changed the row, the
row as stored is read and sent to the job's websocket group. A viewer never sees a status the
database does not have; one that connects late reads the row first (consumers.py)."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from apps.jobs.registry import JobKind, kind_get


def group_name(kind: str, job_id: int) -> str:
    return f"jobs.{kind}.{job_id}"


def status_message(spec: JobKind, job: Any) -> dict[str, Any]:
    return {
        "type": "status",
        "kind": spec.name,
        "id": job.pk,
        "status": job.status,
        "label": job.get_status_display(),
        "done": job.done,
        "total": job.total,
        "error": spec.shown_error(job.error),
    }


def _send(kind: str, job_id: int) -> None:
    layer = get_channel_layer()
    spec = kind_get(kind)
    job = spec.model.objects.defer(*spec.deferred).filter(pk=job_id).first()
    if job is None:
        return
    if spec.announce is not None:
        spec.announce(job)
    if layer is not None:
        text = json.dumps(status_message(spec, job))
        group = group_name(kind, job_id)
        async_to_sync(layer.group_send)(group, {"type": "job.update", "text": text})


def job_broadcast(kind: str, job_id: int) -> None:
    """Tell the job's viewers its status once the current transaction commits."""
    transaction.on_commit(lambda: _send(kind, job_id))
