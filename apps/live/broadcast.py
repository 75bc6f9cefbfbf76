"""The one way a live event is made: persist it, then tell the websocket group after commit.

A viewer therefore never sees an event the database does not have, and a reconnecting viewer
can always fetch what it missed by seq (see consumers.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from apps.live.models import Event, Session


def group_name(public_id: object) -> str:
    return f"live.{public_id}"


def _send(public_id: str, seq: int, text: str) -> None:
    layer = get_channel_layer()
    if layer is not None:
        # Serialised once here rather than once per viewer in each consumer.
        async_to_sync(layer.group_send)(
            group_name(public_id), {"type": "live.event", "seq": seq, "text": text}
        )


def progress_send(*, session_id: int, public_id: object, payload: Mapping[str, Any]) -> None:
    """Tell viewers how far the model's current generation has got. Not stored and not numbered:
    each one is stale once the next comes, and the turn's own events carry what lasts. It marks
    the session active, so a long generation is not taken for a stalled worker."""
    Session.objects.filter(pk=session_id).update(active_at=timezone.now())
    layer = get_channel_layer()
    if layer is not None:
        message = {"session": str(public_id), "type": "progress", "payload": dict(payload)}
        async_to_sync(layer.group_send)(
            group_name(public_id), {"type": "live.progress", "text": json.dumps(message)}
        )


def event_append(
    *, session_id: int, type: str, payload: Mapping[str, Any], **session_fields: Any
) -> Event:
    """Number, store and (after commit) broadcast one event; `session_fields` are written to the
    session row in the same transaction (a status change travels with its event)."""
    with transaction.atomic():
        session = (
            Session.objects.select_for_update()
            .only("id", "public_id", "last_seq")
            .get(pk=session_id)
        )
        now = timezone.now()
        seq = session.last_seq + 1
        event = Event.objects.create(session=session, seq=seq, type=type, payload=dict(payload))
        Session.objects.filter(pk=session_id).update(last_seq=seq, active_at=now, **session_fields)
        text = json.dumps(event.to_message(str(session.public_id)))
        transaction.on_commit(lambda: _send(str(session.public_id), seq, text))
    return event
