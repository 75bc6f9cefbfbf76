"""Events written into a live session from another thread, as a worker writes them."""

from __future__ import annotations

import threading
from typing import Any

from django.db import connection

from apps.live.broadcast import event_append
from apps.live.models import Session


def emit(session: Session, type: str, **payload: Any) -> None:
    """From another thread, as a worker would: Playwright's sync API keeps an event loop in this
    one, where the broadcast's async_to_sync may not run."""

    def write() -> None:
        event_append(session_id=session.pk, type=type, payload=payload)
        connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
