"""A job's websocket (`ws/training/<id>/`) through the real ASGI app under uvicorn: the status
and the stored metrics first, then each new metric once, in order; a reconnect with ?after gets
only what it missed; a status change is pushed; strangers and bad input are refused."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from apps.accounts.models import User
from apps.training import broadcast
from apps.training.models import TrainingJob, TrainingMetric
from tests.live.conftest import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ws_connect(asgi_server: str) -> Callable[..., Any]:
    from websockets.asyncio.client import connect as ws

    async def connect(user: Any, path: str) -> Any:
        headers = {"Origin": f"http://{asgi_server}"}
        if user is not None:
            headers["Cookie"] = await sync_to_async(session_cookie)(user)
        return await ws(f"ws://{asgi_server}{path}", additional_headers=headers, open_timeout=10)

    return connect


@pytest.fixture(autouse=True)
async def _close_thread_connections() -> Any:
    yield
    from django.db import connections

    await sync_to_async(connections.close_all)()


def _job(owner: User) -> TrainingJob:
    return TrainingJob.objects.create(
        name="run", kind="sft", config={"output_dir": "/nonexistent"}, status="running",
        max_steps=10, created_by=owner,
    )  # fmt: skip


def _log(job: TrainingJob, lines: range) -> None:
    from django.db import connection

    metrics = [
        TrainingMetric(job=job, line=n, step=n + 1, values={"loss": 1.0 / (n + 1)}) for n in lines
    ]
    broadcast.metrics_append(job, metrics)
    connection.close()


async def _next(socket: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 10))
    return message


async def _metrics(socket: Any, count: int) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    while len(got) < count:
        message = await _next(socket)
        if message["type"] == "metric":
            got.append(message)
    return got


async def test_a_viewer_gets_the_stored_steps_then_each_new_one_once(
    make_user: Callable[..., User], ws_connect: Callable[..., Any]
) -> None:
    admin = await sync_to_async(make_user)("admin")
    viewer = await sync_to_async(make_user)("viewer")
    job = await sync_to_async(_job)(admin)
    await sync_to_async(_log)(job, range(0, 3))
    socket = await ws_connect(viewer, f"/ws/training/{job.pk}/")
    status = await _next(socket)
    assert (status["type"], status["status"], status["step"]) == ("status", "running", 3)
    backlog = await _metrics(socket, 3)
    await sync_to_async(_log)(job, range(3, 5))
    live = await _metrics(socket, 2)
    assert [m["line"] for m in backlog + live] == [0, 1, 2, 3, 4]
    assert [m["step"] for m in live] == [4, 5] and live[0]["values"] == {"loss": 0.25}
    await socket.close()

    again = await ws_connect(viewer, f"/ws/training/{job.pk}/?after=3")
    await _next(again)  # the status
    [missed] = await _metrics(again, 1)
    assert missed["line"] == 4
    await again.close()


async def test_a_cancel_is_pushed_as_a_status(
    make_user: Callable[..., User], ws_connect: Callable[..., Any]
) -> None:
    from apps.training.services import job_cancel

    admin = await sync_to_async(make_user)("admin")
    job = await sync_to_async(_job)(admin)
    socket = await ws_connect(admin, f"/ws/training/{job.pk}/")
    assert (await _next(socket))["cancel_requested"] is False
    await sync_to_async(job_cancel)(user=admin, job_id=job.pk)
    pushed = await _next(socket)
    assert (pushed["type"], pushed["cancel_requested"]) == ("status", True)
    await socket.close()


@pytest.mark.parametrize(
    ("who", "path", "code"),
    [(None, "/ws/training/{id}/", 4401), ("viewer", "/ws/training/999999/", 4404),
     ("viewer", "/ws/training/{id}/?after=x", 4400)],
)  # fmt: skip
async def test_a_socket_is_refused_with_a_reason(
    make_user: Callable[..., User], ws_connect: Callable[..., Any], who: Any, path: str, code: int
) -> None:
    from websockets.exceptions import ConnectionClosed

    admin = await sync_to_async(make_user)("admin")
    job = await sync_to_async(_job)(admin)
    user = await sync_to_async(make_user)(who) if who else None
    socket = await ws_connect(user, path.format(id=job.pk))
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(socket.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == code
