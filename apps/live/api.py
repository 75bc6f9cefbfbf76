from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal
from uuid import UUID

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from ninja import Field, Router, Status

from apps.common.errors import Invalid
from apps.common.pagination import WAS_A_BARE_LIST, Page, paginate
from apps.common.schemas import Id, PageNumber, Seq, errors
from apps.live import exports, selectors, services
from apps.live.checkpoints import checkpoint_list
from apps.live.models import Policy, Session, SessionStatus
from apps.live.schemas import (
    ComparisonIn,
    ComparisonOut,
    EndpointIn,
    EndpointOut,
    EventPageOut,
    ModelsOut,
    SessionIn,
    SessionOut,
    SessionPageOut,
)

router = Router(tags=["live sessions"])

PageSize = Annotated[int, Field(ge=1, le=100)]
EventCount = Annotated[int, Field(ge=1, le=selectors.MAX_EVENTS_PER_PAGE)]
ExportFormat = Literal["md", "json", "trajectory"]
EXPORT_TYPES = {
    "text/markdown": {"schema": {"type": "string"}},
    "application/json": {"schema": {"type": "object"}},
    "application/jsonl": {"schema": {"type": "string"}},
}
# An empty filter is no filter.
ANY: Literal[""] = ""


# Read as they are stored; SessionOut orders the fields of the answer.
SESSION_FIELDS = (
    "visibility",
    "pace",
    "last_seq",
    "answer",
    "result",
    "created_at",
    "started_at",
    "finished_at",
)


def session_out(session: Session) -> dict[str, Any]:
    return {
        "id": session.public_id,
        **exports.session_fields(session),
        **{field: getattr(session, field) for field in SESSION_FIELDS},
        "checkpoint": checkpoint_out(session),
        "owner": session.owner.username,
        "url": reverse("live:detail", args=[session.public_id]),
    }


def checkpoint_out(session: Session) -> dict[str, Any] | None:
    if not session.checkpoint:
        return None
    return {
        "path": session.checkpoint,
        "label": session.checkpoint_label,
        "job_id": session.training_job_id,
        "step": session.checkpoint_step,
        "held_out_reward": session.held_out_reward,
    }


@router.post(
    "/live/sessions",
    response={201: SessionOut, **errors(403, 404, 409, 422, body=True)},
    summary="Start a research session",
)
def session_create(request: HttpRequest, payload: SessionIn) -> Status[dict[str, Any]]:
    session = services.session_create(
        user=request.auth,  # type: ignore[attr-defined]
        request=services.SessionRequest(**payload.model_dump()),
    )
    session = Session.objects.select_related("owner").get(pk=session.pk)
    return Status(201, session_out(session))


@router.post(
    "/live/comparisons",
    response={201: ComparisonOut, **errors(403, 404, 409, 422, body=True)},
    summary="Start the same question for two models, side by side",
    description="Both sessions start or neither does. `url` is the page that streams both.",
)
def comparison_create(request: HttpRequest, payload: ComparisonIn) -> Status[dict[str, Any]]:
    fields = payload.model_dump()
    other_policy, other_model = fields.pop("other_policy"), fields.pop("other_model")
    wanted = services.SessionRequest(**fields)
    other = replace(
        wanted, policy=other_policy, model=other_model if other_policy == Policy.LLM else ""
    )
    pair = services.session_pair_create(user=request.auth, request=wanted, other=other)  # type: ignore[attr-defined]
    a, b = (Session.objects.select_related("owner").get(pk=s.pk) for s in pair)
    url = reverse("live:compare", args=[a.public_id, b.public_id])
    return Status(201, {"a": session_out(a), "b": session_out(b), "url": url})


@router.get(
    "/live/sessions",
    response={200: SessionPageOut, **errors(403, 404, 422)},
    summary="Sessions you may watch",
    description="One page of the list envelope. `sessions` repeats `results` and is deprecated "
    "(issue 38): it is kept for one release, then removed; read `results`.",
)
def session_list(
    request: HttpRequest,
    status: SessionStatus | Literal[""] = ANY,
    policy: Policy | Literal[""] = ANY,
    mine: bool = False,
    task_id: Id | None = None,
    q: str = "",
    page: PageNumber = 1,
    page_size: PageSize = 25,
) -> dict[str, Any]:
    filters = selectors.SessionFilters(
        status=status, policy=policy, mine=mine, task_id=task_id, text=q
    )
    sessions = selectors.session_list(user=request.auth, filters=filters)  # type: ignore[attr-defined]
    found = paginate(request, sessions, page=page, page_size=page_size, out=session_out)
    return {**found, "sessions": found["results"]}


@router.get(
    "/live/models",
    response={200: ModelsOut, **errors()},
    summary="Policies you may start and the models a session may use",
)
def models(request: HttpRequest) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    found = checkpoint_list()
    return {
        "policies": services.policies_for(user=user),
        "models": [model for model, _ in selectors.model_options()],
        "checkpoints": [
            {"model": c.model, "label": c.label, "path": c.path, "job_id": c.job_id,
             "step": c.step, "held_out_reward": c.held_out_reward}
            for c in found
        ],
    }  # fmt: skip


@router.get(
    "/live/sessions/{public_id}",
    response={200: SessionOut, **errors(403, 404, 422)},
    summary="One session",
)
def session_get(request: HttpRequest, public_id: UUID) -> dict[str, Any]:
    return session_out(selectors.session_get(user=request.auth, public_id=public_id))  # type: ignore[attr-defined]


@router.post(
    "/live/sessions/{public_id}/stop",
    response={200: SessionOut, **errors(403, 404, 409, 422)},
    summary="Stop a session",
)
def session_stop(request: HttpRequest, public_id: UUID) -> dict[str, Any]:
    session = services.session_stop(user=request.auth, public_id=public_id)  # type: ignore[attr-defined]
    return session_out(session)


@router.get(
    "/live/sessions/{public_id}/events",
    response={200: EventPageOut, **errors(403, 404, 422)},
    summary="Events after a sequence number (resume with the last seq you saw)",
)
def session_events(
    request: HttpRequest, public_id: UUID, after: Seq = 0, limit: EventCount = 500
) -> dict[str, Any]:
    session = selectors.session_get(user=request.auth, public_id=public_id)  # type: ignore[attr-defined]
    page = selectors.events_after(session=session, after=after, limit=limit)
    return {
        "session": session.public_id,
        "status": session.status,
        "last_seq": page.last_seq,
        "events": page.events,
        "gaps": [{"from": first, "to": last} for first, last in page.gaps],
    }


@router.get(
    "/live/sessions/{public_id}/export",
    response={200: None, **errors(403, 404, 422)},
    summary="The session as Markdown (md), JSON with every event (json) or its training "
    "trajectory as JSON lines (trajectory)",
    openapi_extra={"responses": {200: {"content": EXPORT_TYPES}}},
)
def session_export(
    request: HttpRequest, public_id: UUID, format: ExportFormat = "md"
) -> HttpResponseBase:
    session = selectors.session_get(user=request.auth, public_id=public_id)  # type: ignore[attr-defined]
    return export_response(session, format)


def export_response(session: Session, format: str) -> HttpResponseBase:
    name = f"session-{session.public_id}"
    if format == "md":
        response = HttpResponse(exports.markdown(session), content_type="text/markdown")
        response["Content-Disposition"] = f'attachment; filename="{name}.md"'
        return response
    if format == "json":
        streamed = StreamingHttpResponse(
            exports.json_chunks(session), content_type="application/json"
        )
        streamed["Content-Disposition"] = f'attachment; filename="{name}.json"'
        return streamed
    if format == "trajectory":
        lines = StreamingHttpResponse(
            exports.trajectory_lines(session), content_type="application/jsonl"
        )
        lines["Content-Disposition"] = f'attachment; filename="{name}.trajectory.jsonl"'
        return lines
    raise Invalid("format must be md, json or trajectory")


def endpoint_out(endpoint: Any) -> dict[str, Any]:
    fields = ("id", "name", "base_url", "model", "enabled", "priority", "updated_at")
    return {**{f: getattr(endpoint, f) for f in fields}, "has_key": bool(endpoint.api_key)}


@router.get(
    "/live/endpoints",
    response={200: Page[EndpointOut], **errors(403, 404, 422)},
    summary="LLM endpoints (admin)",
    description=WAS_A_BARE_LIST,
)
def endpoint_list(
    request: HttpRequest, page: PageNumber = 1, page_size: PageSize = 100
) -> dict[str, Any]:
    endpoints = selectors.endpoint_list(user=request.auth)  # type: ignore[attr-defined]
    return paginate(request, endpoints, page=page, page_size=page_size, out=endpoint_out)


@router.post(
    "/live/endpoints",
    response={201: EndpointOut, **errors(403, 409, 422, body=True)},
    summary="Add an LLM endpoint (admin)",
)
def endpoint_create(request: HttpRequest, payload: EndpointIn) -> Status[dict[str, Any]]:
    saved = services.endpoint_save(
        user=request.auth,  # type: ignore[attr-defined]
        endpoint_id=None,
        data=payload.model_dump(),
    )
    return Status(201, endpoint_out(saved))


@router.put(
    "/live/endpoints/{endpoint_id}",
    response={200: EndpointOut, **errors(403, 404, 409, 422, body=True)},
    summary="Edit an endpoint",
)
def endpoint_update(request: HttpRequest, endpoint_id: Id, payload: EndpointIn) -> dict[str, Any]:
    saved = services.endpoint_save(
        user=request.auth,  # type: ignore[attr-defined]
        endpoint_id=endpoint_id,
        data=payload.model_dump(),
    )
    return endpoint_out(saved)


@router.delete(
    "/live/endpoints/{endpoint_id}",
    response={204: None, **errors(403, 404, 422)},
    summary="Remove one",
)
def endpoint_delete(request: HttpRequest, endpoint_id: Id) -> Status[None]:
    services.endpoint_delete(user=request.auth, endpoint_id=endpoint_id)  # type: ignore[attr-defined]
    return Status(204, None)
