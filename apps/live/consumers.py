"""The websocket a viewer watches a session through: `ws/live/<public_id>/?after=SEQ`.

On connect the consumer joins the session's group first and only then reads the backlog from the
database, so no event can fall between the two; events that arrive both ways are dropped by seq.
An event that arrives ahead of the next expected seq makes it read the missing ones from the
database, and seqs that no longer exist there (pruned) are announced as a `gap`.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from apps.common.websockets import ResumingConsumer
from apps.live import selectors
from apps.live.broadcast import group_name
from apps.live.models import Session


class SessionConsumer(ResumingConsumer):
    session: Session

    def watched(self, user: Any, **route: Any) -> Session:
        self.session = selectors.session_get(user=user, public_id=route["public_id"])
        return self.session

    def group_of(self, watched: Session) -> str:
        return group_name(watched.public_id)

    async def live_event(self, message: dict[str, Any]) -> None:
        await self.pass_on(int(message["seq"]), message["text"])

    async def live_progress(self, message: dict[str, Any]) -> None:
        """The model's progress (broadcast.progress_send): passed on as it is, without a seq."""
        await self.send(text_data=message["text"])

    async def catch_up(self) -> None:
        """Send everything after `last` that the database holds, gaps included."""
        public_id = str(self.session.public_id)
        while True:
            page = await database_sync_to_async(selectors.events_after)(
                session=self.session, after=self.last
            )
            for event in page.events:
                if event.seq > self.last + 1:
                    await self._send_gap(self.last + 1, event.seq - 1)
                await self.send_json(event.to_message(public_id))
                self.last = event.seq
            if len(page.events) < selectors.MAX_EVENTS_PER_PAGE:
                break
        if page.last_seq > self.last:
            await self._send_gap(self.last + 1, page.last_seq)

    async def _send_gap(self, first: int, last: int) -> None:
        await self.send_json(
            {
                "session": str(self.session.public_id),
                "seq": last,
                "type": "gap",
                "payload": {"from": first, "to": last, "reason": "these events were pruned"},
            }
        )
        self.last = last
