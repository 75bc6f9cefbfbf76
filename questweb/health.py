"""What /healthz reports: each part checked for real, each failure named."""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from quest.tools.sandbox import sandbox_status
from questweb import __version__
from workers import heartbeat
from workers.queues import Queue

log = logging.getLogger(__name__)


def database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not usable", and is logged
        log.warning("healthz: database unreachable: %s", exc)
        return "error"
    return "ok"


def python_sandbox_state() -> str:
    """Whether the agent's PythonInterpreter can run: it is off, not unsafe, without its jail,
    so this informs and never makes the site unhealthy."""
    available, reason = sandbox_status()
    return "ok" if available else f"off: {reason}"


def _broker() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)


def health_report() -> tuple[bool, dict[str, Any]]:
    report: dict[str, Any] = {"db": database_state(), "version": __version__}
    client = _broker()
    try:
        client.ping()
        report["broker"] = "ok"
        queues = {
            q.value: heartbeat.state(
                client, queue=q.value, stale_after=heartbeat.STALE_AFTER_SECONDS
            )
            for q in Queue
        }
    except redis.RedisError as exc:
        log.warning("healthz: broker unreachable: %s", exc)
        report["broker"] = "error"
        queues = {q.value: "none" for q in Queue}
    finally:
        client.close()
    report["worker"] = queues[Queue.DEFAULT.value]
    report["queues"] = queues
    report["mode"] = "embedded" if settings.EMBEDDED else "cluster"
    report["python_sandbox"] = python_sandbox_state()
    healthy = report["db"] == "ok" and report["broker"] == "ok"
    return healthy, report
