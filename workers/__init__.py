"""Celery workers: the app, the queue names, routes and the fleet's own tasks."""

from __future__ import annotations

from workers.app import app

__all__ = ["app"]
