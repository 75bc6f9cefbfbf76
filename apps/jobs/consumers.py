"""The websocket a viewer follows any job through: `ws/jobs/<kind>/<id>/`. It joins the job's
group, then sends the job's status as stored, so no change falls between the two; after that,
every status change the framework makes (apps/jobs/broadcast.py)."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from apps.common.websockets import ViewerConsumer
from apps.jobs import selectors
from apps.jobs.broadcast import group_name, status_message
from apps.jobs.registry import kind_get


class JobStatusConsumer(ViewerConsumer):
    async def connect(self) -> None:
        route = self.scope["url_route"]["kwargs"]
        kind, job_id = route["kind"], route["job_id"]
        job = await self.load(
            lambda: selectors.job_get(user=self.scope.get("user"), kind=kind, job_id=job_id)
        )
        if job is None:
            return
        await self.join(group_name(kind, job_id))
        job = await database_sync_to_async(
            lambda: selectors.job_get(user=self.scope.get("user"), kind=kind, job_id=job_id)
        )()
        await self.send_json(status_message(kind_get(kind), job))

    async def job_update(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["text"])
