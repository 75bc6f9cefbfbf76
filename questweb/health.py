"""What /healthz reports: each part checked for real, each failure named. Anyone may ask
whether each part is up; what runs, where and in which version is for admins only."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.training.models import Evaluation, TrainingDataset, TrainingJob
from apps.training.paths import shown_paths
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


# The gpu queue's long work, as /healthz names it, with the page that shows it.
GPU_WORK: tuple[tuple[str, type[Job], str, str], ...] = (
    ("training job", TrainingJob, "training:job", "job_id"),
    ("evaluation", Evaluation, "training:evaluation", "evaluation_id"),
    ("dataset", TrainingDataset, "training:dataset", "dataset_id"),
)


def gpu_work_running() -> dict[str, Any] | None:
    """The training work a gpu worker runs and still reports from (within the watchdog's stall
    limit). A solo-pool worker runs one task at a time, so its heartbeats wait behind it."""
    since = timezone.now() - timedelta(seconds=settings.TRAINING_STALL_SECONDS)
    for kind, model, url_name, arg in GPU_WORK:
        work = (
            model.objects.filter(status=JobStatus.RUNNING, active_at__gte=since)
            .order_by("-active_at")
            .first()
        )
        if work is not None:
            url = reverse(url_name, kwargs={arg: work.pk})
            return {"kind": kind, "id": work.pk, "name": _work_name(work), "url": url}
    return None


def _work_name(work: Job) -> str:
    # An evaluation has no name of its own: the checkpoint it evaluates names it, as the
    # training pages show it (relative to the training directory).
    return str(getattr(work, "name", "") or shown_paths(getattr(work, "checkpoint", "")))


def _with_busy_gpu(queues: dict[str, str], busy_with: dict[str, Any]) -> None:
    """A stale gpu queue whose worker is busy training says `busy`, and with what."""
    if queues[Queue.GPU.value] != "stale":
        return
    running = gpu_work_running()
    if running is not None:
        queues[Queue.GPU.value] = "busy"
        busy_with[Queue.GPU.value] = running


def _broker() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)


# What anyone may read: the state of each part, and nothing about the server behind it.
PUBLIC = ("status", "db", "broker", "worker", "queues", "python_sandbox")


def health_report(*, details: bool = False) -> tuple[bool, dict[str, Any]]:
    """(healthy, report). Without `details` the report says only the state of each part;
    with them (admins) it adds the version, the mode, the gpu queue's work and why the
    Python sandbox is off."""
    report: dict[str, Any] = {"status": "ok", "db": database_state(), "version": __version__}
    client = _broker()
    try:
        client.ping()
        report["broker"] = "ok"
        queues: dict[str, str] = {
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
    busy_with: dict[str, Any] = {}
    if report["db"] == "ok":
        _with_busy_gpu(queues, busy_with)
    report["worker"] = queues[Queue.DEFAULT.value]
    report["queues"] = queues
    report["busy_with"] = busy_with
    report["mode"] = "embedded" if settings.EMBEDDED else "cluster"
    report["python_sandbox"] = python_sandbox_state()
    healthy = report["db"] == "ok" and report["broker"] == "ok"
    report["status"] = "ok" if healthy else "error"
    return healthy, report if details else _public(report)


def _public(report: dict[str, Any]) -> dict[str, Any]:
    public = {key: report[key] for key in PUBLIC}
    # "off: <reason>" names what the server lacks: anyone reads "off", an admin the reason.
    public["python_sandbox"] = report["python_sandbox"].split(":", 1)[0]
    return public
