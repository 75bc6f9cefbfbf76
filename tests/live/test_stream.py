"""Events are numbered, stored, then broadcast; a websocket viewer gets every event exactly once,
across reconnects, and is told explicitly about events that were pruned."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from apps.live.broadcast import event_append
from apps.live.models import Event, Visibility
from apps.live.services import events_prune

pytestmark = pytest.mark.django_db(transaction=True)


def _append(session: Any, count: int, type: str = "thought") -> None:
    from django.db import connection

    for n in range(count):
        event_append(session_id=session.pk, type=type, payload={"turn": n, "text": f"step {n}"})
    if threading.current_thread() is not threading.main_thread():
        connection.close()  # asgiref's worker threads would otherwise keep the test DB open


async def _next(socket: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 10))
    return message


async def _receive_all(socket: Any, *, until_seq: int) -> list[dict[str, Any]]:
    received: list[dict[str, Any]] = []
    while not received or received[-1]["seq"] < until_seq:
        received.append(await _next(socket))
    return received


async def _close_code(socket: Any) -> int:
    from websockets.exceptions import ConnectionClosed

    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(socket.recv(), 10)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


def test_seqs_are_strictly_increasing_and_unique_under_concurrent_writers(
    make_user: Callable[..., Any], make_session: Callable[..., Any]
) -> None:
    session = make_session(make_user("viewer"))

    def write() -> None:
        _append(session, 25)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seqs = list(Event.objects.filter(session=session).values_list("seq", flat=True))
    assert seqs == list(range(1, 101))
    session.refresh_from_db()
    assert session.last_seq == 100


async def test_a_viewer_gets_the_backlog_then_live_events_in_order(
    make_user: Callable[..., Any], make_session: Callable[..., Any], ws_connect: Callable[..., Any]
) -> None:
    user = await sync_to_async(make_user)("viewer")
    session = await sync_to_async(make_session)(user)
    await sync_to_async(_append)(session, 3)
    communicator = await ws_connect(user, f"/ws/live/{session.public_id}/")
    backlog = await _receive_all(communicator, until_seq=3)
    await sync_to_async(_append)(session, 2, "tool_call")
    live = await _receive_all(communicator, until_seq=5)
    assert [e["seq"] for e in backlog + live] == [1, 2, 3, 4, 5]
    assert [e["type"] for e in live] == ["tool_call", "tool_call"]
    assert live[0]["session"] == str(session.public_id)
    await communicator.close()


async def test_reconnecting_with_after_gets_exactly_the_missing_events(
    make_user: Callable[..., Any], make_session: Callable[..., Any], ws_connect: Callable[..., Any]
) -> None:
    user = await sync_to_async(make_user)("viewer")
    session = await sync_to_async(make_session)(user)
    seen: list[int] = []
    writer = asyncio.ensure_future(_write_slowly(session, 40))
    for _ in range(5):  # drop the socket five times while the writer keeps going
        after = seen[-1] if seen else 0
        path = f"/ws/live/{session.public_id}/?after={after}"
        communicator = await ws_connect(user, path)
        for _ in range(6):
            seen.append((await _next(communicator))["seq"])
        await communicator.close()
    await writer
    communicator = await ws_connect(user, f"/ws/live/{session.public_id}/?after={seen[-1]}")
    seen += [e["seq"] for e in await _receive_all(communicator, until_seq=40)]
    await communicator.close()
    assert seen == list(range(1, 41))


async def _write_slowly(session: Any, count: int) -> None:
    for _ in range(count):
        await sync_to_async(_append)(session, 1)
        await asyncio.sleep(0.01)


async def test_pruned_events_are_announced_as_a_gap(
    make_user: Callable[..., Any], make_session: Callable[..., Any], ws_connect: Callable[..., Any]
) -> None:
    user = await sync_to_async(make_user)("viewer")
    session = await sync_to_async(make_session)(user)
    await sync_to_async(_append)(session, 2, "thought")
    await sync_to_async(_append)(session, 3, "tool_result")
    await sync_to_async(_append)(session, 1, "answer")
    deleted = await sync_to_async(events_prune)(session_id=session.pk, types=("tool_result",))
    assert deleted == 3
    communicator = await ws_connect(user, f"/ws/live/{session.public_id}/?after=1")
    received = await _receive_all(communicator, until_seq=6)
    await communicator.close()
    assert [(e["type"], e["seq"]) for e in received] == [("thought", 2), ("gap", 5), ("answer", 6)]
    assert received[1]["payload"]["from"] == 3
    assert received[1]["payload"]["to"] == 5


async def test_an_anonymous_socket_is_refused(
    make_user: Callable[..., Any], make_session: Callable[..., Any], ws_connect: Callable[..., Any]
) -> None:
    session = await sync_to_async(make_session)(await sync_to_async(make_user)("viewer"))
    socket = await ws_connect(None, f"/ws/live/{session.public_id}/")
    assert await _close_code(socket) == 4401


async def test_someone_elses_private_session_cannot_be_watched_but_a_public_one_can(
    make_user: Callable[..., Any], make_session: Callable[..., Any], ws_connect: Callable[..., Any]
) -> None:
    owner = await sync_to_async(make_user)("viewer")
    other = await sync_to_async(make_user)("viewer")
    private = await sync_to_async(make_session)(owner, visibility=Visibility.PRIVATE)
    public = await sync_to_async(make_session)(owner, visibility=Visibility.PUBLIC)
    refused = await ws_connect(other, f"/ws/live/{private.public_id}/")
    assert await _close_code(refused) == 4404
    await sync_to_async(_append)(public, 1)
    watching = await ws_connect(other, f"/ws/live/{public.public_id}/")
    assert (await _next(watching))["seq"] == 1
    await watching.close()


async def test_a_bad_after_value_is_refused(
    make_user: Callable[..., Any], make_session: Callable[..., Any], ws_connect: Callable[..., Any]
) -> None:
    user = await sync_to_async(make_user)("viewer")
    session = await sync_to_async(make_session)(user)
    socket = await ws_connect(user, f"/ws/live/{session.public_id}/?after=-3")
    assert await _close_code(socket) == 4400
