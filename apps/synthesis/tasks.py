from __future__ import annotations

from celery import shared_task

from apps.synthesis.runner import batch_run
from apps.synthesis.sharded import shard_run


@shared_task(acks_late=False)
def cpu_synthesis_batch(batch_id: int) -> None:
    """Routed to the cpu queue by its name (workers/routes.py). Not acks_late: a batch whose
    worker died is not run again from the start (it would write its candidates twice); the
    watchdog ends it failed instead."""
    batch_run(batch_id=batch_id)


@shared_task(acks_late=False)
def cpu_synthesis_shard(batch_id: int, number: int, used: dict[str, int]) -> None:
    """One shard of a sharded kg batch (apps/synthesis/sharded.py), on the cpu queue; `used` is
    the task store's subcategory counts when the batch was queued."""
    shard_run(batch_id=batch_id, number=number, used=used)


@shared_task(acks_late=False)
def gpu_synthesis_batch(batch_id: int) -> None:
    """An llm batch whose model runs in-process with vLLM: on the gpu queue (a solo-pool
    worker)."""
    batch_run(batch_id=batch_id)
