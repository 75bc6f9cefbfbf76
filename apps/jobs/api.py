"""Every job of every kind, in one place: `/api/jobs` lists what the user may read, and
`/api/jobs/{kind}/{id}` reads, follows and cancels one. The apps' own job endpoints stay and
answer their documented fields."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema

from apps.common.pagination import PageSize, paginate
from apps.common.schemas import Id, PageNumber, errors
from apps.jobs import selectors, services
from apps.jobs.models import JobStatus
from apps.jobs.registry import JobKind, kind_get
from apps.jobs.schemas import AnyJobOut, AnyJobPageOut, JobProgressOut, KindName

router = Router(tags=["jobs"])


def _user(request: HttpRequest) -> Any:
    return request.auth  # type: ignore[attr-defined]


def progress_out(job: Any) -> dict[str, Any]:
    return {
        "status": job.status,
        "label": job.get_status_display(),
        "done": job.done,
        "total": job.total,
        "percent": job.percent,
    }


def job_out(spec: JobKind, job: Any) -> dict[str, Any]:
    owner = job.created_by.get_username() if job.created_by_id else None
    return {
        "kind": spec.name,
        "id": job.pk,
        "progress": progress_out(job),
        "error": spec.shown_error(job.error),
        "created_by": owner,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "active_at": job.active_at,
        "finished_at": job.finished_at,
        "cancellable": job.is_active,
        "detail": spec.out(job),
    }


@router.get(
    "/jobs",
    response={200: AnyJobPageOut, **errors(403, 404, 422)},
    summary="Every job you may read, of every kind (or of one), newest first",
)
def jobs_list(
    request: HttpRequest,
    kind: KindName = "",
    status: JobStatus | None = None,
    page: PageNumber = 1,
    page_size: PageSize = 50,
) -> dict[str, Any]:
    refs = selectors.job_refs(user=_user(request), kind=kind, status=status or "")
    found = paginate(request, refs, page=page, page_size=page_size)
    found["results"] = [job_out(spec, job) for spec, job in selectors.jobs_read(found["results"])]
    return found


@router.get(
    "/jobs/{kind}/{job_id}",
    response={200: AnyJobOut, **errors(403, 404, 422)},
    summary="A job's status, progress, times and its kind's own fields",
)
def jobs_get(request: HttpRequest, kind: KindName, job_id: Id) -> dict[str, Any]:
    job = selectors.job_get(user=_user(request), kind=kind, job_id=job_id)
    return job_out(kind_get(kind), job)


@router.get(
    "/jobs/{kind}/{job_id}/progress",
    response={200: JobProgressOut, **errors(403, 404, 422)},
    summary="Only a job's status and progress: cheap to poll",
)
def jobs_progress(request: HttpRequest, kind: KindName, job_id: Id) -> dict[str, Any]:
    return progress_out(selectors.job_get(user=_user(request), kind=kind, job_id=job_id))


@router.post(
    "/jobs/{kind}/{job_id}/cancel",
    response={200: AnyJobOut, **errors(403, 404, 409, 422)},
    summary="Cancel a queued or running job (its kind's role, usually admin)",
)
def jobs_cancel(request: HttpRequest, kind: KindName, job_id: Id) -> dict[str, Any]:
    job = services.job_cancel(user=_user(request), kind=kind, job_id=job_id)
    return job_out(kind_get(kind), job)


def _signature(*keywords: tuple[str, Any, Any]) -> inspect.Signature:
    """A view's signature, for ninja to read its parameters from: the request, then each
    (name, type, default) as the app has always published it (its id's name, e.g. batch_id; its
    page size's bounds and default)."""
    request = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [request, *(inspect.Parameter(n, keyword, annotation=t, default=d) for n, t, d in keywords)]
    )


def kind_routes(
    router: Router,
    *,
    kind: str,
    path: str,
    param: str,
    out: type[Schema],
    page_out: type[Schema] | None = None,
    summaries: tuple[str | None, str, str | None],
    names: tuple[str | None, str, str | None],
    module: str,
    list_description: str | None = None,
    page_size: tuple[Any, int] = (PageSize, 50),
) -> None:
    """An app's own list (GET `path`), read (GET `path`/{param}) and cancel (POST
    `path`/{param}/cancel) of one job kind, answered by the framework in the kind's documented
    shapes (`out`, `page_out`): the kind's access rules hold on its app's paths too. `param`
    names the id as the app's API has always published it; `summaries` are the three
    operations' summaries and `names` the views' names in `module` (the app's api module),
    which make the operation ids clients were generated with. An app that never published a
    list or a cancel leaves its summary None, and the route is not made; `page_size` is the
    list's page size as the app published it (its type, with its bounds, and its default)."""

    def listed(request: HttpRequest, page: int, page_size: int) -> dict[str, Any]:
        rows = selectors.job_list(user=_user(request), kind=kind)
        return paginate(request, rows, page=page, page_size=page_size, out=kind_get(kind).out)

    def read(request: HttpRequest, **ids: int) -> dict[str, Any]:
        job = selectors.job_get(user=_user(request), kind=kind, job_id=ids[param])
        return kind_get(kind).out(job)

    def cancel(request: HttpRequest, **ids: int) -> dict[str, Any]:
        job = services.job_cancel(user=_user(request), kind=kind, job_id=ids[param])
        return kind_get(kind).out(job)

    paged = (("page", PageNumber, 1), ("page_size", *page_size))
    by_id = _signature((param, Id, inspect.Parameter.empty))
    signatures = {listed: _signature(*paged), read: by_id, cancel: by_id}
    item = f"{path}/{{{param}}}"
    operations: tuple[
        tuple[Callable[..., dict[str, Any]], str, str, dict[int, Any], str | None], ...
    ] = (
        (listed, "GET", path, {200: page_out, **errors(403, 404, 422)}, list_description),
        (read, "GET", item, {200: out, **errors(403, 404, 422)}, None),
        (cancel, "POST", f"{item}/cancel", {200: out, **errors(403, 404, 409, 422)}, None),
    )
    for (view, verb, route, response, description), summary, name in zip(
        operations, summaries, names, strict=True
    ):
        if summary is None or name is None:
            continue
        view.__name__, view.__module__ = name, module
        view.__signature__ = signatures[view]  # type: ignore[attr-defined]
        router.add_api_operation(
            route, [verb], view, response=response, summary=summary, description=description
        )
