from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, File, Router, Status
from ninja.files import UploadedFile

from apps.common.pagination import WAS_A_BARE_LIST, Page
from apps.common.schemas import errors
from apps.corpus import selectors, services
from apps.corpus.jobs import corpus_job_out
from apps.corpus.models import JobKind
from apps.corpus.schemas import CorpusOut, DocumentOut, JobIn, JobOut, SearchOut
from apps.jobs.api import kind_routes
from quest.corpus import attribution

router = Router(tags=["corpus and search"])

# Checked by the searcher, which names the modes this corpus has built.
SearchMode = Annotated[str, Field(description="bm25, dense or hybrid; empty: the default")]
ResultCount = Annotated[int, Field(ge=1, le=100)]


@router.get(
    "/search", response={200: SearchOut, **errors(403, 409, 422)}, summary="Search the corpus"
)
def search(
    request: HttpRequest, q: str, mode: SearchMode = "", k: ResultCount = 10
) -> dict[str, Any]:
    answer = selectors.search(user=request.auth, query=q, mode=mode, k=k)  # type: ignore[attr-defined]
    return {
        "query": answer.query,
        "mode": answer.mode,
        "modes": list(answer.modes),
        "results": [r.to_json() for r in answer.results],
        "matches_well": bool(answer.results) and not answer.weak,
        "weak_reason": answer.weak,
    }


@router.get(
    "/documents",
    response={200: DocumentOut, **errors(403, 404, 422)},
    summary="One document by URL",
)
def document(request: HttpRequest, url: str) -> dict[str, Any]:
    doc = selectors.document_get(user=request.auth, url=url)  # type: ignore[attr-defined]
    fields = ("url", "title", "text", "source", "licence", "topic", "fetched_at")
    return {**{f: getattr(doc, f) for f in fields}, "attribution": attribution(doc)}


@router.get(
    "/corpus",
    response={200: CorpusOut, **errors(403)},
    summary="Sources, counts, licences and index state",
)
def corpus(request: HttpRequest) -> dict[str, Any]:
    overview = selectors.corpus_overview(user=request.auth)  # type: ignore[attr-defined]
    summary, index = overview["summary"], overview["index"]
    if summary is None:
        return {"documents": 0, "passages": 0, "sources": {}, "updated_at": None, "index": None}
    data: dict[str, Any] = summary.to_json()
    return {**data, "index": {**index.__dict__, "modes": list(index.modes)}}


kind_routes(
    router,
    kind=services.CORPUS,
    path="/corpus/jobs",
    param="job_id",
    out=JobOut,
    page_out=Page[JobOut],
    summaries=("Loads and index builds, newest first", "A job's progress and report", None),
    names=("jobs", "job", None),
    module=__name__,
    list_description=WAS_A_BARE_LIST,
)


@router.post(
    "/corpus/jobs",
    response={202: JobOut, **errors(403, 409, 422, body=True)},
    summary="Load a source or rebuild (admin)",
)
def job_create(request: HttpRequest, payload: JobIn) -> Status[dict[str, Any]]:
    created = services.corpus_job_enqueue(user=request.auth, kind=payload.kind)  # type: ignore[attr-defined]
    return Status(202, corpus_job_out(created))


@router.post(
    "/corpus/uploads",
    response={202: JobOut, **errors(403, 409, 422, body=True)},
    summary="Load your JSONL documents (admin)",
)
def upload(request: HttpRequest, file: File[UploadedFile]) -> Status[dict[str, Any]]:
    created = services.corpus_job_enqueue(
        user=request.auth,  # type: ignore[attr-defined]
        kind=JobKind.LOAD_JSONL,
        filename=file.name or "upload.jsonl",
        payload=file.read(services.MAX_JSONL_BYTES + 1),
    )
    return Status(202, corpus_job_out(created))
