"""REST for benchmark runs: start one (admin), list, read (metrics with 95 % intervals, setup,
published numbers beside), its per-question rows, cancel, queue again, compare two, and upload
a file for a run. Every role reads every run."""

from __future__ import annotations

from typing import IO, Annotated, Any, cast

from django.http import HttpRequest
from ninja import Field, File, Router, Status, UploadedFile

from apps.benchmarks import selectors, services
from apps.benchmarks.models import BenchmarkRun
from apps.benchmarks.paths import shown, shown_in
from apps.benchmarks.schemas import (
    BenchmarkCompareOut,
    BenchmarkFileOut,
    BenchmarkRowOut,
    BenchmarkRunIn,
    BenchmarkRunOut,
    BenchmarkRunPageOut,
)
from apps.common.pagination import Page, paginate
from apps.common.schemas import Id, PageNumber, errors
from apps.jobs.api import kind_routes

router = Router(tags=["benchmarks"])

PageSize = Annotated[int, Field(ge=1, le=500)]
PATH = "/benchmarks/runs"


def _user(request: HttpRequest) -> Any:
    return request.auth  # type: ignore[attr-defined]


def run_out(run: BenchmarkRun) -> dict[str, Any]:
    fields = ("id", "benchmark", "status", "data", "corpus", "model", "responses", "judge",
              "limit", "dataset", "get_document", "queue", "done", "total", "stage", "error",
              "setup", "metrics", "created_at", "started_at", "finished_at")  # fmt: skip
    metrics = run.metrics or {}
    out = {
        **{name: getattr(run, name) for name in fields},
        "headline": (metrics.get("accuracy") or metrics.get("exact_match")) if metrics else None,
        "published": selectors.run_published(run),
        "created_by": run.created_by.username if run.created_by else None,
        "url": f"/benchmarks/{run.pk}/",
    }
    return dict(shown_in(out))  # read by every role: no absolute server path


@router.post(
    PATH,
    response={202: BenchmarkRunOut, **errors(403, 422, body=True)},
    summary="Start a benchmark run on a worker (admin); the files are checked first",
)
def runs_create(request: HttpRequest, payload: BenchmarkRunIn) -> Status[dict[str, Any]]:
    asked = services.RunRequest(**payload.dict())
    run = services.run_create(user=_user(request), request=asked)
    return Status(202, run_out(run))


kind_routes(
    router,
    kind=selectors.KIND,
    path=PATH,
    param="run_id",
    out=BenchmarkRunOut,
    page_out=BenchmarkRunPageOut,
    summaries=(
        "Benchmark runs, newest first",
        "A run: status, progress, setup, metrics with 95 % intervals and published numbers",
        "Cancel a queued or running benchmark run (admin); its finished questions stay",
    ),
    names=("runs_list", "runs_get", "runs_cancel"),
    module=__name__,
)


@router.get(
    PATH + "/{run_id}/rows",
    response={200: Page[BenchmarkRowOut], **errors(403, 404, 422)},
    summary="A run's per-question rows: answer, gold, verdict, search calls, cited documents",
)
def runs_rows(
    request: HttpRequest, run_id: Id, page: PageNumber = 1, page_size: PageSize = 50
) -> dict[str, Any]:
    run = selectors.run_get(user=_user(request), run_id=run_id)
    rows = selectors.run_rows(run)
    return paginate(request, rows, page=page, page_size=page_size, out=lambda r: r.to_dict())


@router.post(
    PATH + "/{run_id}/resume",
    response={202: BenchmarkRunOut, **errors(403, 404, 409, 422)},
    summary="Queue a failed or cancelled run again (admin): it continues after its last row",
)
def runs_resume(request: HttpRequest, run_id: Id) -> Status[dict[str, Any]]:
    run = services.run_resume(user=_user(request), run_id=run_id)
    return Status(202, run_out(run))


@router.get(
    "/benchmarks/compare",
    response={200: BenchmarkCompareOut, **errors(403, 404, 422)},
    summary="Two runs of one benchmark on the same questions: the paired difference a - b",
)
def runs_compare(request: HttpRequest, a: Id, b: Id) -> dict[str, Any]:
    found = selectors.runs_compare(user=_user(request), a=a, b=b)
    return {**found, "a": run_out(found["a"]), "b": run_out(found["b"])}


@router.post(
    "/benchmarks/files",
    response={201: BenchmarkFileOut, **errors(403, 422, body=True)},
    summary="Upload a question, responses or corpus file into the benchmarks directory (admin)",
)
def files_create(request: HttpRequest, file: File[UploadedFile]) -> Status[dict[str, Any]]:
    content = cast(IO[bytes], file.file)  # an upload ninja parsed always has its file open
    path = services.file_store(user=_user(request), name=file.name or "", content=content)
    return Status(201, {"path": shown(str(path)), "size_bytes": path.stat().st_size})
