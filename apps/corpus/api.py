from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, File, Router, Status
from ninja.files import UploadedFile

from apps.common.pagination import WAS_A_BARE_LIST, Page, PageSize, paginate
from apps.common.schemas import Id, PageNumber, errors
from apps.corpus import selectors, services
from apps.corpus.jobs import corpus_job_out
from apps.corpus.models import JobKind
from apps.corpus.schemas import CorpusOut, DocumentOut, JobIn, JobOut, SearchOut
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


@router.get(
    "/corpus/jobs",
    response={200: Page[JobOut], **errors(403, 404, 422)},
    summary="Loads and index builds, newest first",
    description=WAS_A_BARE_LIST,
)
def jobs(request: HttpRequest, page: PageNumber = 1, page_size: PageSize = 50) -> dict[str, Any]:
    found = selectors.corpus_jobs(user=request.auth)  # type: ignore[attr-defined]
    return paginate(request, found, page=page, page_size=page_size, out=corpus_job_out)


@router.get(
    "/corpus/jobs/{job_id}",
    response={200: JobOut, **errors(403, 404, 422)},
    summary="A job's progress and report",
)
def job(request: HttpRequest, job_id: Id) -> dict[str, Any]:
    return corpus_job_out(selectors.corpus_job_get(user=request.auth, job_id=job_id))  # type: ignore[attr-defined]


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
