"""The corpus's job kind: loads and index builds on the cpu queue (apps/jobs)."""

from __future__ import annotations

from typing import Any

from apps.corpus.models import CorpusJob
from apps.corpus.schemas import JobOut
from apps.corpus.services import CORPUS
from apps.jobs.registry import JobKind, queue_tasks, register
from workers.queues import Queue


def corpus_job_out(job: CorpusJob) -> dict[str, Any]:
    return JobOut.model_validate(job, from_attributes=True).model_dump()


register(
    JobKind(
        name=CORPUS,
        label="corpus job",
        model=CorpusJob,
        tasks=queue_tasks("apps.corpus.tasks", "corpus_job", Queue.CPU),
        out=corpus_job_out,
        # A load rewrites the corpus files and its index: it runs to its end once started.
        stops_midway=False,
        deferred=("payload",),
        ended_fields={"payload": b""},
    )
)
