"""The websocket a viewer watches a training job through: `ws/training/<job id>/?after=LINE`.

It joins the job's group first, then sends the job's status and every stored metric after
`after` from the database, so none falls between the two; a metric that arrives both ways is
dropped by its line number.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async

from apps.common.websockets import CLOSE_BAD_REQUEST, ViewerConsumer, after_param
from apps.training import selectors
from apps.training.broadcast import group_name, metric_message, status_message
from apps.training.models import TrainingJob


class JobConsumer(ViewerConsumer):
    job: TrainingJob
    last_line: int

    async def connect(self) -> None:
        after = after_param(self.scope.get("query_string", b""), default=-1, lowest=-1)
        if after is None:
            await self.refuse(CLOSE_BAD_REQUEST)
            return
        job = await self.load(
            lambda: selectors.job_get(
                user=self.scope.get("user"), job_id=self.scope["url_route"]["kwargs"]["job_id"]
            )
        )
        if job is None:
            return
        self.job, self.last_line = job, after
        await self.join(group_name(job.pk))
        await self._catch_up()

    async def training_update(self, message: dict[str, Any]) -> None:
        line = message.get("line")
        if line is None:  # a status change
            await self.send(text_data=message["text"])
            return
        if line <= self.last_line:
            return
        if line == self.last_line + 1:
            await self.send(text_data=message["text"])
            self.last_line = line
            return
        await self._catch_up()

    async def _catch_up(self) -> None:
        job, metrics = await database_sync_to_async(self._read)()
        await self.send_json(status_message(job))
        for metric in metrics:
            await self.send(text_data=json.dumps(metric_message(metric)))
            self.last_line = metric.line

    def _read(self) -> tuple[TrainingJob, list[Any]]:
        job = TrainingJob.objects.get(pk=self.job.pk)
        return job, selectors.metrics_after(job, after=self.last_line)
