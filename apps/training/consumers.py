"""The websocket a viewer watches a training job through: `ws/training/<job id>/?after=LINE`.

It joins the job's group first, then sends the job's status and every stored metric after
`after` from the database, so none falls between the two; a metric that arrives both ways is
dropped by its line number.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async

from apps.common.websockets import ResumingConsumer
from apps.training import selectors
from apps.training.broadcast import group_name, metric_message, status_message
from apps.training.models import TrainingJob


class JobConsumer(ResumingConsumer):
    job: TrainingJob

    lowest = -1

    def watched(self, user: Any, **route: Any) -> TrainingJob:
        self.job = selectors.job_get(user=user, job_id=route["job_id"])
        return self.job

    def group_of(self, watched: TrainingJob) -> str:
        return group_name(watched.pk)

    async def training_update(self, message: dict[str, Any]) -> None:
        line = message.get("line")
        if line is None:  # a status change
            await self.send(text_data=message["text"])
            return
        await self.pass_on(line, message["text"])

    async def catch_up(self) -> None:
        job, metrics = await database_sync_to_async(self._read)()
        await self.send_json(status_message(job))
        for metric in metrics:
            await self.send(text_data=json.dumps(metric_message(metric)))
            self.last = metric.line

    def _read(self) -> tuple[TrainingJob, list[Any]]:
        job = TrainingJob.objects.get(pk=self.job.pk)
        return job, selectors.metrics_after(job, after=self.last)
