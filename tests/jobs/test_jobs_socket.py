"""Any job's status socket (`ws/jobs/<kind>/<id>/`) through the real ASGI app: the status as
stored first, then each change the framework makes; a job the user may not read is refused as
not found."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from apps.accounts.models import User
from apps.corpus.models import CorpusJob, JobKind
from apps.jobs.dispatch import job_end, job_start
from apps.jobs.models import JobStatus

pytestmark = pytest.mark.django_db(transaction=True)


async def _next(socket: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 10))
    return message


def _start_then_end(job_id: int) -> None:
    from django.db import connection

    job_start("corpus", job_id)
    job_end("corpus", job_id, JobStatus.FAILED, error="the disk is full")
    connection.close()


async def test_a_viewer_gets_the_status_then_each_change(
    make_user: Callable[..., User], ws_connect: Callable[..., Any]
) -> None:
    viewer = await sync_to_async(make_user)("viewer")
    job = await sync_to_async(CorpusJob.objects.create)(kind=JobKind.LOAD_GEO)
    socket = await ws_connect(viewer, f"/ws/jobs/corpus/{job.pk}/")
    first = await _next(socket)
    assert (first["kind"], first["id"], first["status"]) == ("corpus", job.pk, "queued")
    await sync_to_async(_start_then_end)(job.pk)
    assert (await _next(socket))["status"] == "running"
    ended = await _next(socket)
    assert (ended["status"], ended["error"]) == ("failed", "the disk is full")
    await socket.close()


@pytest.mark.parametrize(
    ("role", "path", "code"),
    [(None, "/ws/jobs/corpus/{id}/", 4401), ("viewer", "/ws/jobs/corpus/999999/", 4404),
     ("viewer", "/ws/jobs/nope/{id}/", 4404), ("viewer", "/ws/jobs/export/{id}/", 4404)],
)  # fmt: skip
async def test_a_socket_is_refused_with_a_reason(
    make_user: Callable[..., User],
    ws_connect: Callable[..., Any],
    role: str | None,
    path: str,
    code: int,
) -> None:
    from websockets.exceptions import ConnectionClosed

    user = await sync_to_async(make_user)(role) if role else None
    job = await sync_to_async(CorpusJob.objects.create)(kind=JobKind.LOAD_GEO)
    socket = await ws_connect(user, path.format(id=job.pk))
    with pytest.raises(ConnectionClosed) as closed:
        await _next(socket)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == code
