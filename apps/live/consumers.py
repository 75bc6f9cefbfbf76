"""The websocket a viewer watches a session through: `ws/live/<public_id>/?after=SEQ`.

On connect the consumer joins the session's group first and only then reads the backlog from the
database, so no event can fall between the two; events that arrive both ways are dropped by seq.
An event that arrives ahead of the next expected seq makes it read the missing ones from the
database, and seqs that no longer exist there (pruned) are announced as a `gap`.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from apps.common.websockets import CLOSE_BAD_REQUEST, ViewerConsumer, after_param
from apps.live import selectors
from apps.live.broadcast import group_name
from apps.live.models import Session


class SessionConsumer(ViewerConsumer):
    session: Session
    last_sent: int

    async def connect(self) -> None:
        after = after_param(self.scope.get("query_string", b""), default=0, lowest=0)
        if after is None:
            await self.refuse(CLOSE_BAD_REQUEST)
            return
        session = await self.load(
            lambda: selectors.session_get(
                user=self.scope.get("user"),
                public_id=self.scope["url_route"]["kwargs"]["public_id"],
            )
        )
        if session is None:
            return
        self.session, self.last_sent = session, after
        await self.join(group_name(session.public_id))
        await self._catch_up()

    async def live_event(self, message: dict[str, Any]) -> None:
        seq = int(message["seq"])
        if seq <= self.last_sent:
            return
        if seq == self.last_sent + 1:
            await self.send(text_data=message["text"])
            self.last_sent = seq
            return
        await self._catch_up()

    async def live_progress(self, message: dict[str, Any]) -> None:
        """The model's progress (broadcast.progress_send): passed on as it is, without a seq."""
        await self.send(text_data=message["text"])

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
