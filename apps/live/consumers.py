"""The websocket a viewer watches a session through: `ws/live/<public_id>/?after=SEQ`.

On connect the consumer joins the session's group first and only then reads the backlog from the
database, so no event can fall between the two; events that arrive both ways are dropped by seq.
An event that arrives ahead of the next expected seq makes it read the missing ones from the
database, and seqs that no longer exist there (pruned) are announced as a `gap`.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from apps.common.errors import DomainError, NotAuthenticated
from apps.common.websockets import (
    CLOSE_BAD_REQUEST,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
    after_param,
)
from apps.live import selectors
from apps.live.broadcast import group_name
from apps.live.models import Session


class SessionConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    session: Session
    group: str
    last_sent: int

    async def connect(self) -> None:
        after = after_param(self.scope.get("query_string", b""), default=0, lowest=0)
        if after is None:
            await self._refuse(CLOSE_BAD_REQUEST)
            return
        try:
            self.session = await database_sync_to_async(selectors.session_get)(
                user=self.scope.get("user"),
                public_id=self.scope["url_route"]["kwargs"]["public_id"],
            )
        except NotAuthenticated:
            await self._refuse(CLOSE_UNAUTHENTICATED)
            return
        except DomainError:
            await self._refuse(CLOSE_NOT_FOUND)
            return
        self.group = group_name(self.session.public_id)
        self.last_sent = after
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._catch_up()

    async def _refuse(self, code: int) -> None:
        # Accept first: a socket closed during the handshake reaches the browser as a bare 403
        # (close code 1006), while a close after accept carries the reason code to the client.
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Viewers have nothing to say; the socket is one-way."""

    async def live_event(self, message: dict[str, Any]) -> None:
        seq = int(message["seq"])
        if seq <= self.last_sent:
            return
        if seq == self.last_sent + 1:
            await self.send(text_data=message["text"])
            self.last_sent = seq
            return
        await self._catch_up()

    async def _catch_up(self) -> None:
        """Send everything after `last_sent` that the database holds, gaps included."""
        public_id = str(self.session.public_id)
        while True:
            page = await database_sync_to_async(selectors.events_after)(
                session=self.session, after=self.last_sent
            )
            for event in page.events:
                if event.seq > self.last_sent + 1:
                    await self._send_gap(self.last_sent + 1, event.seq - 1)
                await self.send_json(event.to_message(public_id))
                self.last_sent = event.seq
            if len(page.events) < selectors.MAX_EVENTS_PER_PAGE:
                break
        if page.last_seq > self.last_sent:
            await self._send_gap(self.last_sent + 1, page.last_seq)

    async def _send_gap(self, first: int, last: int) -> None:
        await self.send_json(
            {
                "session": str(self.session.public_id),
                "seq": last,
                "type": "gap",
                "payload": {"from": first, "to": last, "reason": "these events were pruned"},
            }
        )
        self.last_sent = last
