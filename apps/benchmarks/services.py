"""Benchmark runs started, files uploaded for them, and runs re-queued to continue.

A run's files are checked when it is asked for, not when a worker reaches it: the question
file is loaded whole (a FormatError names its line and field), saved responses are read, a
corpus's first documents are read as the engine reads them, and a model and a judge must be ones
the run can use. The worker then has nothing left to
refuse but what only running shows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import get_valid_filename

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.benchmarks import selectors
from apps.benchmarks.models import Benchmark, BenchmarkRun
from apps.benchmarks.paths import benchmarks_root, inside_path, shown
from apps.common.errors import Conflict, Invalid
from apps.jobs.broadcast import job_broadcast
from apps.jobs.dispatch import job_enqueue
from apps.jobs.models import JobStatus
from apps.jobs.services import job_cancel
from quest.bench import BROWSECOMP_PLUS, BenchError, FormatError, load_questions
from quest.bench.config import check_responses, read_responses
from quest.bench.corpus import corpus_document, corpus_rows
from quest.bench.formats import FLASHRAG, FLASHRAG_DATASETS, BenchQuestion, flashrag_dataset
from quest.corpus.store import MANIFEST
from workers.queues import Queue

MAX_LIMIT = 100_000
RESUMABLE = (JobStatus.FAILED, JobStatus.CANCELLED)
SOURCES = ("model", "endpoint", "responses")
# How many of a corpus's documents are read when the run is asked for: enough to catch a wrong
# file (the queries given as the corpus), few enough that 100,000 documents are not read whole.
CHECKED_DOCUMENTS = 100
# An upload's own name is kept to this many characters (its extension kept).
MAX_NAME = 120
# The prefix file_store puts before an upload's own name (a time, and a counter if needed).
STORED_PREFIX = re.compile(r"^\d{8}-\d{6}-(?:\d+-)?")


@dataclass(frozen=True)
class RunRequest:
    """What a form or a REST body asks for; paths as selectors.inside_path reads them."""

    benchmark: str
    data: str
    model: str = ""
    endpoint: str = ""
    responses: str = ""
    corpus: str = ""
    judge: str = ""
    limit: int | None = None
    dataset: str = ""
    canary: str = ""
    get_document: bool = False


def default_corpus() -> Path | None:
    """The app's own corpus, which flashrag and frames search when no corpus is given."""
    directory = Path(settings.CORPUS_DIR)
    return directory if (directory / MANIFEST).is_file() else None


def run_create(*, user: Any, request: RunRequest) -> BenchmarkRun:
    """Check the request and queue the run: on the gpu queue when the model's weights load
    inside the worker, else (scripted, endpoints, saved responses) on the cpu queue."""
    require_role(user, Role.ADMIN)
    if request.benchmark not in Benchmark.values:
        raise Invalid(f"benchmark: one of {', '.join(Benchmark.values)}")
    if request.limit is not None and not 1 <= request.limit <= MAX_LIMIT:
        raise Invalid(f"limit: a whole number from 1 to {MAX_LIMIT}")
    data = inside_path(request.data, field="data")
    _one_source(request)
    questions = _questions(request, data)
    dataset = _dataset(request, data)
    fields = _source(user, request, questions, data)
    corpus = _corpus(request, searched="model" in fields)
    if request.judge.strip():
        selectors.endpoints_check(request.judge.strip(), field="judge")
    with transaction.atomic():
        run = BenchmarkRun.objects.create(
            benchmark=request.benchmark,
            data=str(data),
            corpus=str(corpus) if corpus else "",
            judge=request.judge.strip(),
            limit=request.limit,
            dataset=dataset,
            canary=request.canary,
            get_document=request.get_document,
            total=len(questions),
            created_by=user,
            **fields,
        )
        run.directory = str(benchmarks_root() / selectors.RUNS / str(run.pk))
        run.save(update_fields=["directory"])
        job_enqueue(selectors.KIND, run.pk, queue=Queue(run.queue))
    return run


def _questions(request: RunRequest, data: Path) -> list[BenchQuestion]:
    """The questions the run answers (the first `limit`); Invalid names a broken file."""
    try:
        questions = load_questions(
            request.benchmark,
            data,
            canary=request.canary or None,
            dataset=request.dataset.strip() or None,
        )
    except FormatError as error:
        raise Invalid(f"data: {shown(str(error))}") from None
    except ValueError as error:  # a wrong canary, an unknown dataset
        raise Invalid(f"data: {shown(str(error))}") from None
    if not questions:
        raise Invalid(f"data: {shown(str(data))} holds no question")
    return questions[: request.limit or len(questions)]


def _one_source(request: RunRequest) -> None:
    """What answers is one thing: a model, an endpoint, or saved responses to score."""
    given = [name for name in SOURCES if getattr(request, name).strip()]
    if len(given) == 1:
        return
    if given:
        raise Invalid(
            f"{', '.join(given)}: choose only one of a model, an endpoint, or saved responses"
        )
    raise Invalid("model: choose one of a model, an endpoint, or saved responses")


def _dataset(request: RunRequest, data: Path) -> str:
    """flashrag: the set's name, given or said by the file's folder or name (an upload's own
    name, without the prefix file_store gave it); the benchmark's published numbers are per
    set, so a file that names none is refused rather than run under its file name."""
    given = request.dataset.strip()
    if request.benchmark != FLASHRAG or given:
        return given
    named = data
    if data.parent == benchmarks_root() / selectors.UPLOADS:
        named = data.with_name(STORED_PREFIX.sub("", data.name))
    found = flashrag_dataset(named)
    if found not in FLASHRAG_DATASETS:
        raise Invalid(
            f"dataset: name the set ({', '.join(FLASHRAG_DATASETS)}): the file's name "
            f"{shown(str(data))} does not say which it is"
        )
    return found


def _source(
    user: Any, request: RunRequest, questions: list[BenchQuestion], data: Path
) -> dict[str, Any]:
    """The model or endpoint (and its queue), or the saved responses, which are read to check
    them."""
    model = request.endpoint.strip() or request.model.strip()
    if model:
        choice = selectors.model_choice(user=user, value=model)
        return {"model": choice.spec, "queue": choice.queue.value}
    responses = inside_path(request.responses, field="responses")
    try:
        check_responses(responses, read_responses(responses), questions, data)
    except (FormatError, BenchError) as error:  # BenchError: they answer none of the questions
        raise Invalid(f"responses: {shown(str(error))}") from None
    return {"responses": str(responses), "queue": Queue.CPU.value}


def _corpus(request: RunRequest, *, searched: bool) -> Path | None:
    if request.corpus.strip():
        corpus = inside_path(request.corpus, field="corpus", kind="any")
        _corpus_check(corpus)
        return corpus
    if searched and (request.benchmark == BROWSECOMP_PLUS or default_corpus() is None):
        raise Invalid(
            f"corpus: {request.benchmark} needs a corpus to search: give its corpus file or "
            "folder in the benchmarks directory"
        )
    return None


def _corpus_check(corpus: Path) -> None:
    """The corpus's first documents, read by the engine's own reader: a file in the wrong
    format is refused with its line and field now, not once the run has started."""
    if (corpus / MANIFEST).is_file():  # a questweb corpus, which the engine uses as it is
        return
    read = 0
    try:
        for where, row in islice(corpus_rows(corpus), CHECKED_DOCUMENTS):
            corpus_document(where, row, fetched_at="")
            read += 1
    except FormatError as error:
        raise Invalid(f"corpus: {shown(str(error))}") from None
    except (ValueError, OSError) as error:  # not text, not parquet
        raise Invalid(
            f"corpus: {shown(str(corpus))} is not a corpus: {shown(str(error))}"
        ) from None
    if not read:
        raise Invalid(f"corpus: {shown(str(corpus))} holds no document")


def file_store(*, user: Any, name: str, content: IO[bytes]) -> Path:
    """Keep an uploaded benchmark file in the benchmarks directory (uploads/), under a name of
    its own; returns where."""
    require_role(user, Role.ADMIN)
    safe = get_valid_filename(Path(name).name) if name.strip() else ""
    if len(safe) > MAX_NAME:  # the file system's limit is 255 bytes, the stored prefix included
        stem, suffix = Path(safe).stem, Path(safe).suffix[:16]
        safe = stem[: MAX_NAME - len(suffix)] + suffix
    if not safe:
        raise Invalid("file: the upload needs a file name")
    folder = benchmarks_root() / selectors.UPLOADS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{timezone.now():%Y%m%d-%H%M%S}-{safe}"
    counter = 1
    while path.exists():
        counter += 1
        path = folder / f"{timezone.now():%Y%m%d-%H%M%S}-{counter}-{safe}"
    with path.open("wb") as handle:
        for chunk in iter(lambda: content.read(1 << 20), b""):
            handle.write(chunk)
    return path


def run_resume(*, user: Any, run_id: int) -> BenchmarkRun:
    """Queue a failed or cancelled run again: the engine skips the questions its rows already
    hold and continues from the next."""
    run = selectors.run_get(user=user, run_id=run_id)
    require_role(user, Role.ADMIN)
    with transaction.atomic():
        requeued = BenchmarkRun.objects.filter(pk=run.pk, status__in=RESUMABLE).update(
            status=JobStatus.QUEUED, error="", started_at=None, finished_at=None, stage=""
        )
        if not requeued:
            raise Conflict(
                f"benchmark run {run.pk} is {run.get_status_display().lower()}: only a failed "
                "or cancelled run continues"
            )
        job_broadcast(selectors.KIND, run.pk)
        job_enqueue(selectors.KIND, run.pk, queue=Queue(run.queue))
    return selectors.run_get(user=user, run_id=run_id)


def run_cancel(*, user: Any, run_id: int) -> BenchmarkRun:
    """Cancel a queued or running run (admin); the worker stops after the question it is on,
    and the questions it finished stay in its rows."""
    run: BenchmarkRun = job_cancel(user=user, kind=selectors.KIND, job_id=run_id)
    return run
