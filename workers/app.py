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
    # Imports whose worker died end failed (reads check too, so this is belt and braces).
    "rubrics-import-watchdog": {
        "task": "apps.rubrics.tasks.import_watchdog",
        "schedule": 60.0,
        "options": {"queue": Queue.DEFAULT.value, "expires": 120},
    },
    # Synthesis batches whose worker died end failed (reads check too).
    "synthesis-watchdog": {
        "task": "apps.synthesis.tasks.synthesis_watchdog",
        "schedule": 60.0,
        "options": {"queue": Queue.DEFAULT.value, "expires": 120},
    },
    # Training jobs, dataset builds and evaluations whose worker died end failed.
    "training-watchdog": {
        "task": "apps.training.tasks.training_watchdog",
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
