"""questweb: the Django project (settings, urls, API, ASGI routing)."""

from __future__ import annotations

# Celery's app loads with Django, as Celery's Django guide lays out: every process that can send
# a task (web, shell, tests) then sends it through questweb's broker settings from any thread.
from workers.app import app as celery_app

__all__ = ["celery_app"]
__version__ = "0.1.0"
