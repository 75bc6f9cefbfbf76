"""What the app's websocket consumers share: the close codes they refuse with, reading their
`?after=` resume point, and the one-way viewer socket itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from apps.common.errors import DomainError, NotAuthenticated

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_BAD_REQUEST = 4400


def after_param(query_string: bytes, *, default: int, lowest: int) -> int | None:
    """The `after` query parameter (the last item the viewer has), `default` when absent;
    None when it is not a whole number of at least `lowest`."""
    values = parse_qs(query_string.decode("latin-1")).get("after", [str(default)])
    try:
        after = int(values[-1])
    except ValueError:
        return None
    return after if after >= lowest else None


class ViewerConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """A one-way websocket for viewers of something stored: it loads what is watched (refusing
    with a reason code), joins that thing's group and ignores anything the viewer sends."""

    group: str

    async def load(self, fetch: Callable[[], Any]) -> Any | None:
        """What `fetch` reads for the connecting user, or None once the socket was refused."""
        try:
            return await database_sync_to_async(fetch)()
        except NotAuthenticated:
            await self.refuse(CLOSE_UNAUTHENTICATED)
        except DomainError:
            await self.refuse(CLOSE_NOT_FOUND)
        return None

    async def join(self, group: str) -> None:
        # The group first, then the backlog the subclass sends: nothing falls between the two.
        self.group = group
        await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def refuse(self, code: int) -> None:
        # Accept first: a socket closed during the handshake reaches the browser as a bare 403
        # (close code 1006), while a close after accept carries the reason code to the client.
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Viewers have nothing to say; the socket is one-way."""
