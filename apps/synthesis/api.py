"""REST for synthesis batches; the same services and selectors as the pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from django.http import HttpRequest, StreamingHttpResponse
from django.urls import reverse
from ninja import Field, Router, Status

from apps.audit import api_out as audit_out
from apps.audit import selectors as audit_selectors
from apps.audit.streaming import stream_response
from apps.common.pagination import paginate
from apps.common.schemas import Id, PageNumber, errors
from apps.jobs.api import kind_routes
from apps.synthesis import selectors, services
from apps.synthesis.models import SynthesisBatch, SynthesisCandidate
from apps.synthesis.schemas import (
    BatchCampaignIn,
    BatchCampaignOut,
    BatchOut,
    BatchPageOut,
    BatchSpecIn,
    CandidateOut,
    CandidatePageOut,
    DecisionIn,
    Stage,
)

router = Router(tags=["synthesis"])

PageSize = Annotated[int, Field(ge=1, le=selectors.MAX_PAGE_SIZE)]
JSONL = {"schema": {"type": "string", "format": "binary"}}


def _user(request: HttpRequest) -> Any:
    return request.auth  # type: ignore[attr-defined]


def batch_out(batch: SynthesisBatch) -> dict[str, Any]:
    fields = ("id", "status", "spec", "model", "total", "proposed", "accepted", "error",
              "created_at", "started_at", "finished_at")  # fmt: skip
    return {
        **{name: getattr(batch, name) for name in fields},
        "created_by": batch.created_by.username if batch.created_by else None,
        "url": reverse("synthesis:batch", args=[batch.pk]),
    }


def candidate_out(candidate: SynthesisCandidate, *, full: bool = True) -> dict[str, Any]:
    fields = ("id", "batch_id", "index", "question", "target_class", "complexity", "category",
              "subcategory", "accepted", "rejected_at", "reason", "decision", "decided_at",
              "task_id")  # fmt: skip
    out = {
        **{name: getattr(candidate, name) for name in fields},
        "decided_by": candidate.decided_by.username if candidate.decided_by else None,
        "url": reverse("synthesis:candidate", args=[candidate.pk]),
    }
    if full:
        out.update(
            decision_note=candidate.decision_note,
            stages=candidate.stages,
            record=candidate.record,
        )
    return out


@router.post(
    "/synthesis/batches",
    response={202: BatchOut, **errors(403, 409, 422, body=True)},
    summary="Queue a synthesis batch (admin); 409 while you have 3 queued or running",
)
def batches_create(request: HttpRequest, payload: BatchSpecIn) -> Status[dict[str, Any]]:
    spec = payload.dict()
    model, keywords = spec.pop("model"), spec.pop("keywords")
    batch = services.batch_create(user=_user(request), spec=spec, model=model, keywords=keywords)
    return Status(202, batch_out(batch))


kind_routes(
    router,
    kind="synthesis",
    path="/synthesis/batches",
    param="batch_id",
    out=BatchOut,
    page_out=BatchPageOut,
    summaries=(
        "Synthesis batches, newest first",
        "A batch's progress and counts",
        "Cancel a queued or running batch; what it wrote stays (admin)",
    ),
    names=("batches_list", "batches_get", "batches_cancel"),
    module=__name__,
)


@router.get(
    "/synthesis/batches/{batch_id}/candidates",
    response={200: CandidatePageOut, **errors(403, 404, 422)},
    summary="A batch's candidates in order, filtered by outcome",
)
def candidates_list(
    request: HttpRequest,
    batch_id: Id,
    accepted: bool | None = None,
    rejected_at: Stage | None = None,
    page: PageNumber = 1,
    page_size: PageSize = 50,
) -> dict[str, Any]:
    filters = selectors.CandidateFilters(accepted=accepted, rejected_at=rejected_at or "")
    candidates = selectors.candidate_list(user=_user(request), batch_id=batch_id, filters=filters)
    return paginate(
        request,
        candidates,
        page=page,
        page_size=page_size,
        out=lambda c: candidate_out(c, full=False),
    )


@router.get(
    "/synthesis/candidates/{candidate_id}",
    response={200: CandidateOut, **errors(403, 404, 422)},
    summary="A candidate with every funnel stage and its task record",
)
def candidates_get(request: HttpRequest, candidate_id: Id) -> dict[str, Any]:
    return candidate_out(selectors.candidate_get(user=_user(request), candidate_id=candidate_id))


def _decision_route(
    verb: str, decide: Callable[..., SynthesisCandidate], summary: str, description: str = ""
) -> None:
    """POST /synthesis/candidates/{candidate_id}/<verb>: an admin's accept or reject of a
    candidate, with the note they gave, if any; the view is `candidates_<verb>` (its operation
    id)."""

    def decided(
        request: HttpRequest, candidate_id: Id, payload: DecisionIn | None = None
    ) -> dict[str, Any]:
        note = payload.note if payload else ""
        return candidate_out(decide(user=_user(request), candidate_id=candidate_id, note=note))

    decided.__name__ = f"candidates_{verb}"
    router.post(
        f"/synthesis/candidates/{{candidate_id}}/{verb}",
        response={200: CandidateOut, **errors(403, 404, 409, 422, body=True)},
        summary=summary,
        description=description or None,
    )(decided)


_decision_route(
    "accept",
    services.candidate_accept,
    "Accept a rejected candidate: its task is written, pending audit (admin)",
)
_decision_route(
    "reject",
    services.candidate_reject,
    "Reject an accepted candidate (admin)",
    "Its task is deleted when nobody has touched it yet (task_id is then null); a task already "
    "audited, edited, probed, researched or in a campaign is left to the audit flow and stays "
    "linked.",
)


@router.post(
    "/synthesis/batches/{batch_id}/campaign",
    response={
        200: BatchCampaignOut,
        201: BatchCampaignOut,
        **errors(403, 404, 409, 422, body=True),
    },
    summary="An audit campaign over the undecided tasks a finished batch wrote (admin)",
    description=(
        "201: a campaign was made. 200: the batch had one; its newest open campaign got the "
        "undecided tasks it lacked (`added`, maybe 0). `new: true` makes another campaign anyway."
    ),
)
def batches_campaign(
    request: HttpRequest, batch_id: Id, payload: BatchCampaignIn | None = None
) -> Status[dict[str, Any]]:
    user = _user(request)
    options = payload.dict() if payload else {}
    result = services.batch_campaign_create(user=user, batch_id=batch_id, **options)
    campaign = audit_selectors.campaign_get(user=user, campaign_id=result.campaign.pk)
    body = {"created": result.created, "added": result.added, "message": result.message}
    return Status(201 if result.created else 200, {**audit_out.campaign_out(campaign), **body})


@router.get(
    "/synthesis/batches/{batch_id}/export",
    response={200: None, **errors(403, 404, 422)},
    summary="The accepted candidates as streamed JSONL, in the /api/imports format",
    openapi_extra={"responses": {200: {"content": {"application/x-ndjson": JSONL}}}},
)
def batches_export(request: HttpRequest, batch_id: Id) -> StreamingHttpResponse:
    chunks = selectors.export_chunks(user=_user(request), batch_id=batch_id)
    return stream_response(request, chunks, f"synthesis-batch-{batch_id}.jsonl")
