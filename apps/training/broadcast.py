"""The one way a job's live update is made: store it, then tell the websocket group after the
commit. A viewer never sees a metric the database does not have, and a reconnecting viewer
reads what it missed by line (consumers.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from apps.training.models import TrainingJob, TrainingMetric
from apps.training.paths import shown_paths


def group_name(job_id: int) -> str:
    return f"training.{job_id}"


def _send(job_id: int, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        text = json.dumps(message)
        async_to_sync(layer.group_send)(
            group_name(job_id),
            {"type": "training.update", "line": message.get("line"), "text": text},
        )


def _send_each(job_id: int, messages: Sequence[dict[str, Any]]) -> None:
    for message in messages:
        _send(job_id, message)


def metric_message(metric: TrainingMetric) -> dict[str, Any]:
    return {
        "type": "metric",
        "line": metric.line,
        "step": metric.step,
        "kind": metric.kind,
        "values": metric.values,
    }


def status_message(job: TrainingJob) -> dict[str, Any]:
    return {
        "type": "status",
        "status": job.status,
        "label": job.get_status_display(),
        "step": job.step,
        "max_steps": job.max_steps,
        "cancel_requested": job.cancel_requested,
        "error": shown_paths(job.error),
    }


def metrics_append(job: TrainingJob, metrics: Sequence[TrainingMetric]) -> None:
    """Store new metric lines (a line already stored is skipped: ingest is idempotent) and
    the job's last step; broadcast both after commit."""
    if not metrics:
        return
    with transaction.atomic():
        TrainingMetric.objects.bulk_create(metrics, ignore_conflicts=True)
        steps = [m.step for m in metrics if m.kind == "step"]
        if steps:
            job.step = max(job.step, *steps)
            TrainingJob.objects.filter(pk=job.pk).update(step=job.step)
        messages = [metric_message(m) for m in metrics]
        job_id = job.pk
        transaction.on_commit(lambda: _send_each(job_id, messages))


def job_status(job: TrainingJob) -> None:
    message = status_message(job)
    job_id = job.pk
    transaction.on_commit(lambda: _send(job_id, message))
