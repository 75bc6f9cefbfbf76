"""Synthesis's job kind (apps/jobs): a batch, on the cpu queue, or the gpu queue's solo worker
for an llm batch whose model runs in-process (a sharded kg batch sends its shards itself)."""

from __future__ import annotations

from django.conf import settings

from apps.jobs.registry import JobKind, queue_tasks, register, stall_setting
from apps.synthesis.api import batch_out
from apps.synthesis.models import SynthesisBatch
from apps.synthesis.services import SYNTHESIS
from workers.queues import Queue


def _stalled() -> str:
    return (
        f"no candidate for {settings.SYNTHESIS_STALL_MINUTES} minutes: the worker may have "
        "died; the candidates written so far are kept"
    )


register(
    JobKind(
        name=SYNTHESIS,
        label="synthesis batch",
        model=SynthesisBatch,
        tasks=queue_tasks("apps.synthesis.tasks", "synthesis_batch", Queue.CPU, Queue.GPU),
        out=batch_out,
        stall=stall_setting("SYNTHESIS_STALL_MINUTES", "minutes"),
        stalled_error=_stalled,
    )
)
