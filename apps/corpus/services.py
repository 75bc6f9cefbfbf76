from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from django.conf import settings
from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, Invalid
from apps.corpus.models import CorpusJob, JobKind
from apps.jobs.dispatch import job_end, job_enqueue, job_progress, job_run, job_send
from apps.jobs.models import ACTIVE, JobStatus
from quest.corpus import JsonlImport, corpus_write, load_domains, load_geo, load_wikipedia
from quest.search.indexing import bm25_build, dense_build

MAX_JSONL_BYTES = 500 * 1024 * 1024
LOAD_KINDS = (JobKind.LOAD_WIKI, JobKind.LOAD_GEO, JobKind.LOAD_DOMAINS, JobKind.LOAD_JSONL)
PROGRESS_SECONDS = 1.0
WAITING = "waits for the load before it"
CORPUS = "corpus"  # the job kind (apps/corpus/jobs.py)


def _enqueue(
    kind: str, *, user: User | None, filename: str = "", payload: bytes = b""
) -> CorpusJob:
    with transaction.atomic():
        # Loads and builds of one kind rewrite the same files: one at a time.
        busy = CorpusJob.objects.select_for_update().filter(status__in=ACTIVE)
        kinds = set(LOAD_KINDS) if kind in LOAD_KINDS else {kind}
        if busy.filter(kind__in=kinds).exists():
            raise Conflict("a job of this kind is already queued or running; wait for it")
        job = CorpusJob.objects.create(
            kind=kind, created_by=user, filename=filename[:255], payload=payload
        )
        job_enqueue(CORPUS, job.pk)
    return job


def corpus_job_enqueue(
    *, user: User, kind: str, filename: str = "", payload: bytes = b""
) -> CorpusJob:
    require_role(user, Role.ADMIN)
    if kind not in JobKind.values:
        raise Invalid(f"unknown job kind {kind!r}; choose one of {', '.join(JobKind.values)}")
    if kind == JobKind.LOAD_JSONL:
        if not payload.strip():
            raise Invalid("a JSONL load needs a non-empty file")
        if len(payload) > MAX_JSONL_BYTES:
            raise Invalid(f"the file is larger than {MAX_JSONL_BYTES // 2**20} MB")
    elif payload:
        raise Invalid(f"{kind} takes no file")
    return _enqueue(kind, user=user, filename=filename, payload=payload)


def corpus_bootstrap() -> list[CorpusJob]:
    """On a fresh installation, queue the offline corpus: Wikipedia, the geographic facts, then
    the data domains (`python -m quest corpus load --source all`). Each load builds BM25 at
    once; the last one queues the dense index."""
    if (Path(settings.CORPUS_DIR) / "corpus.json").exists() or CorpusJob.objects.exists():
        return []
    first = _enqueue(JobKind.LOAD_WIKI, user=None)
    # Two loads may not run side by side: the others wait as rows, each started by the one
    # before it, in the order they were made.
    rest = [
        CorpusJob.objects.create(kind=kind, stage=WAITING)
        for kind in (JobKind.LOAD_GEO, JobKind.LOAD_DOMAINS)
    ]
    return [first, *rest]


def corpus_recover_interrupted() -> list[CorpusJob]:
    """Jobs left `running` by a worker that was stopped mid-way are marked interrupted and run
    again (the dense build resumes from its embedding checkpoints). Only safe when no worker
    can still be running them: the embedded launcher calls it before it starts the workers."""
    stale = list(CorpusJob.objects.filter(status=JobStatus.RUNNING))
    restarted = []
    for job in stale:
        job_end(CORPUS, job.pk, JobStatus.FAILED, error="interrupted: the worker stopped")
        restarted.append(
            _enqueue(
                job.kind, user=job.created_by, filename=job.filename, payload=bytes(job.payload)
            )
        )
    return restarted


def _progress(job_id: int) -> Callable[[int, int], None]:
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_SECONDS or done >= total:
            last[0] = now
            job_progress(CORPUS, job_id, done=done, total=total)

    return report


def _stage(job_id: int, stage: str) -> None:
    job_progress(CORPUS, job_id, stage=stage, done=0, total=0)


def _documents(job: CorpusJob, scratch: Path) -> tuple[Iterable[Any], Any]:
    if job.kind == JobKind.LOAD_WIKI:
        return load_wikipedia(), None
    if job.kind == JobKind.LOAD_GEO:
        return load_geo(), None
    if job.kind == JobKind.LOAD_DOMAINS:
        return load_domains(), None
    path = scratch / "upload.jsonl"
    path.write_bytes(bytes(job.payload))
    importer = JsonlImport(path)
    return importer, importer


def _load(job: CorpusJob) -> dict[str, Any]:
    _stage(job.pk, "reading and chunking documents")
    with tempfile.TemporaryDirectory() as scratch:
        documents, importer = _documents(job, Path(scratch))
        written = corpus_write(settings.CORPUS_DIR, documents)
    report: dict[str, Any] = {
        "added": written.added,
        "replaced": written.replaced,
        "kept": written.kept,
        "duplicates": written.duplicates,
        "documents": written.summary.documents,
        "passages": written.summary.passages,
    }
    if importer is not None:
        report["rejected_lines"] = importer.error_count
        report["line_errors"] = [str(e) for e in importer.errors[:200]]
    _stage(job.pk, "building the BM25 index")
    bm25_build(settings.CORPUS_DIR, on_progress=_progress(job.pk))
    return report


def _dense(job: CorpusJob) -> dict[str, Any]:
    _stage(job.pk, "embedding passages")
    built = dense_build(settings.CORPUS_DIR, on_progress=_progress(job.pk))
    return {
        "passages": built.passages,
        "embedded": built.embedded,
        "reused": built.reused,
        "index": built.kind,
        "seconds": round(built.seconds, 1),
    }


def _bm25(job: CorpusJob) -> dict[str, Any]:
    _stage(job.pk, "building the BM25 index")
    built = bm25_build(settings.CORPUS_DIR, on_progress=_progress(job.pk))
    return {"passages": built.passages, "seconds": round(built.seconds, 1)}


def _work(job: CorpusJob) -> dict[str, Any]:
    if job.kind in LOAD_KINDS:
        report = _load(job)
    else:
        report = (_bm25 if job.kind == JobKind.INDEX_BM25 else _dense)(job)
    return {"report": report, "stage": ""}


def corpus_job_run(*, job_id: int) -> CorpusJob:
    # The kind's rows are of its model.
    return cast(CorpusJob, job_run(CORPUS, job_id, _work, then=_after_load))


def _after_load(job: CorpusJob) -> None:
    """After a load, start the next waiting load, or else bring the dense index up to date."""
    if job.kind not in LOAD_KINDS:
        return
    waiting = (
        CorpusJob.objects.filter(status=JobStatus.QUEUED, kind__in=LOAD_KINDS, stage=WAITING)
        .order_by("pk")
        .first()
    )
    if waiting is not None:
        CorpusJob.objects.filter(pk=waiting.pk).update(stage="")
        job_send(CORPUS, waiting.pk)
        return
    if not CorpusJob.objects.filter(kind=JobKind.INDEX_DENSE, status__in=ACTIVE).exists():
        _enqueue(JobKind.INDEX_DENSE, user=None)
