"""What the app's websocket consumers share: the close codes they refuse with, reading their
`?after=` resume point, the one-way viewer socket itself and the one that resumes a numbered
stream."""

from __future__ import annotations

from abc import ABC, abstractmethod
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


class ResumingConsumer(ViewerConsumer, ABC):
    """A viewer socket over numbered items (a session's events, a job's metric lines) that
    resumes after `?after=`, the last number the viewer has (`lowest` and up). It joins the
    group of what `watched` reads before `catch_up` reads the database, so nothing falls between
    the two; then an item already sent is dropped, the next one is passed on and one further
    ahead makes it catch up."""

    lowest = 0
    last: int

    @abstractmethod
    def watched(self, user: Any, **route: Any) -> Any:
        """What the socket watches, read for `user` from the URL's `route` (raises to refuse)."""

    @abstractmethod
    def group_of(self, watched: Any) -> str:
        """The channel-layer group of what is watched."""

    @abstractmethod
    async def catch_up(self) -> None:
        """Send what the database holds after `self.last`."""

    async def connect(self) -> None:
        after = after_param(
            self.scope.get("query_string", b""), default=self.lowest, lowest=self.lowest
        )
        if after is None:
            await self.refuse(CLOSE_BAD_REQUEST)
            return
        route = self.scope["url_route"]["kwargs"]
        watched = await self.load(lambda: self.watched(self.scope.get("user"), **route))
        if watched is None:
            return
        self.last = after
        await self.join(self.group_of(watched))
        await self.catch_up()

    async def pass_on(self, number: int, text: str) -> None:
        if number <= self.last:
            return
        if number == self.last + 1:
            await self.send(text_data=text)
            self.last = number
            return
        await self.catch_up()
