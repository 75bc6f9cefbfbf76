"""Worker liveness, proven by a task that went through each queue, not inferred.

Beat sends `workers.heartbeat` to every queue; the worker that runs it records the time in Redis
under its queue. A queue is "ok" when a heartbeat ran recently, "stale" when the last one is old,
"none" when no worker ever answered on it.
"""

from __future__ import annotations

import time
from typing import Literal

import redis

WorkerState = Literal["ok", "stale", "none"]
KEY = "questweb:heartbeat:{queue}"
INTERVAL_SECONDS = 15
# Four missed beats: a busy solo GPU worker may hold a heartbeat behind one long step.
STALE_AFTER_SECONDS = 60
# Long enough to tell "stale" from "never"; a week-old entry still counts as stale, not none.
KEEP_SECONDS = 7 * 24 * 3600


def record(store: redis.Redis, *, queue: str, hostname: str, now: float | None = None) -> None:
    key = KEY.format(queue=queue)
    store.hset(key, hostname, repr(time.time() if now is None else now))
    store.expire(key, KEEP_SECONDS)


def last_seen(store: redis.Redis, *, queue: str) -> dict[str, float]:
    raw = store.hgetall(KEY.format(queue=queue))
    return {_text(host): float(stamp) for host, stamp in raw.items()}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def state(
    store: redis.Redis, *, queue: str, stale_after: float, now: float | None = None
) -> WorkerState:
    seen = last_seen(store, queue=queue)
    if not seen:
        return "none"
    age = (time.time() if now is None else now) - max(seen.values())
    return "ok" if age <= stale_after else "stale"
