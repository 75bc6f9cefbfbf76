"""The Celery app. Start a worker with `celery -A workers worker -Q default,cpu` (see README)."""

from __future__ import annotations

import os

from celery import Celery

from workers import heartbeat
from workers.queues import Queue
from workers.routes import ROUTES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "questweb.settings")

app = Celery("questweb")
# The default for every thread, not only the one that imported this module: shared tasks resolve
# their app per call, and a thread with none (a sync view under ASGI, Django's live server) would
# otherwise get Celery's fallback app and publish to amqp://localhost, where no worker listens.
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_default_queue = Queue.DEFAULT.value
app.conf.task_routes = ROUTES
app.conf.beat_schedule = {
    "heartbeat": {
        "task": "workers.heartbeat_dispatch",
        "schedule": float(heartbeat.INTERVAL_SECONDS),
        "options": {"queue": Queue.DEFAULT.value, "expires": heartbeat.INTERVAL_SECONDS * 2},
    },
    "live-watchdog": {
        "task": "apps.live.tasks.live_watchdog",
        "schedule": 30.0,
        "options": {"queue": Queue.DEFAULT.value, "expires": 60},
    },
    # Jobs of every kind whose worker went silent end failed (apps/jobs; reads check too).
    "jobs-watchdog": {
        "task": "apps.jobs.tasks.jobs_watchdog",
        "schedule": 60.0,
        "options": {"queue": Queue.DEFAULT.value, "expires": 120},
    },
    # Recipes move on to their next stage (also right after a stage's task ends).
    "recipes-advance": {
        "task": "apps.recipes.tasks.recipes_advance",
        "schedule": 5.0,
        "options": {"queue": Queue.DEFAULT.value, "expires": 5},
    },
}
app.conf.imports = ("workers.tasks",)
app.autodiscover_tasks()
