"""questweb: the Django project (settings, urls, API, ASGI routing)."""

from __future__ import annotations

__version__ = "0.1.0"
