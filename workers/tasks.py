"""Tasks that belong to the worker fleet itself rather than to an app."""

from __future__ import annotations

from functools import cache
from typing import Any

import redis
from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings

from workers import heartbeat
from workers.queues import Queue

# A heartbeat is only sent to a queue holding fewer pending messages than this, so a queue with
# no worker (often gpu) does not fill up with heartbeats nobody will run.
MAX_PENDING_HEARTBEATS = 2


@cache
def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)


@shared_task(name="workers.heartbeat", ignore_result=True)
def heartbeat_task(queue: str) -> None:
    hostname = heartbeat_task.request.hostname or "unknown"
    heartbeat.record(_redis(), queue=queue, hostname=hostname)


@shared_task(name="workers.heartbeat_dispatch", ignore_result=True)
def heartbeat_dispatch() -> None:
    client = _redis()
    hostname = heartbeat_dispatch.request.hostname or "unknown"
    heartbeat.record(client, queue=Queue.DEFAULT.value, hostname=hostname)
    for queue in (Queue.CPU, Queue.GPU):
        pending = int(client.llen(queue.value))  # the Redis transport keeps a queue in a list
        if pending < MAX_PENDING_HEARTBEATS:
            heartbeat_task.apply_async(
                args=[queue.value], queue=queue.value, expires=heartbeat.STALE_AFTER_SECONDS
            )


@worker_ready.connect
def _announce(sender: Any, **kwargs: Any) -> None:
    # Through each consumed queue, so "ok" means a task really travelled broker → this worker.
    queues = [queue.name for queue in sender.task_consumer.queues]
    for name in queues:
        heartbeat_task.apply_async(args=[name], queue=name, expires=60)
