"""Websocket routes. Each app that streams (live sessions, training curves) adds its own here;
every job kind's status comes through ws/jobs/ (apps/jobs/consumers.py)."""

from __future__ import annotations

from django.urls import URLPattern, path

from apps.jobs.consumers import JobStatusConsumer
from apps.live.consumers import SessionConsumer
from apps.training.consumers import JobConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/live/<uuid:public_id>/", SessionConsumer.as_asgi()),
    path("ws/training/<int:job_id>/", JobConsumer.as_asgi()),
    path("ws/jobs/<str:kind>/<int:job_id>/", JobStatusConsumer.as_asgi()),
]
