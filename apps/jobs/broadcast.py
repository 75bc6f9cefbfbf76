"""The one way a job's status reaches its viewers: after the commit that changed the row, the
row as stored is read and sent to the job's websocket group. A viewer never sees a status the
database does not have; one that connects late reads the row first (consumers.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from apps.jobs.registry import JobKind, kind_get

log = logging.getLogger(__name__)


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
        _group_send(layer, group_name(kind, job_id), {"type": "job.update", "text": text})


def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    """Sends from synchronous code. Where this thread already runs an event loop (a sync caller
    inside an async harness), async_to_sync refuses, so the send runs in a thread of its own.
    A send that fails is logged, never raised: the row is committed, and a viewer who missed
    the message reads the row when it connects."""

    def send() -> None:
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:
            log.exception("could not tell %s its job's status", group)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        send()
        return
    thread = threading.Thread(target=send, name="job-broadcast")
    thread.start()
    thread.join()


def job_broadcast(kind: str, job_id: int) -> None:
    """Tell the job's viewers its status once the current transaction commits."""
    transaction.on_commit(lambda: _send(kind, job_id))
