"""REST for the whole audit workflow; the same services and selectors as the pages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any, Literal

from django.http import FileResponse, HttpRequest, StreamingHttpResponse
from ninja import Router, Schema, Status

from apps.audit import api_out, selectors, services
from apps.audit.schemas import (
    AdjudicationIn,
    AgreementOut,
    AssignmentDetailOut,
    AssignmentOut,
    CampaignIn,
    CampaignOut,
    ConflictOut,
    DisputeOut,
    DraftConflictOut,
    DraftIn,
    DraftOut,
    EditIn,
    EditOut,
    ExportIn,
    ExportOut,
    GoldTakeIn,
    ItemOut,
    JudgeVerdictsIn,
    ProbeAllIn,
    ProbesQueuedOut,
    QualityOut,
    QueuedOut,
    RecordedOut,
    RevertIn,
    SubmissionIn,
    TrainingPageOut,
)
from apps.audit.selectors.review import Dispute
from apps.audit.services.exports import EXPORT
from apps.audit.streaming import stream_response
from apps.common.errors import Invalid
from apps.common.pagination import (
    WAS_A_BARE_LIST,
    OldLimit,
    OldOffset,
    Page,
    PageSize,
    paginate,
    paginate_offset,
)
from apps.common.schemas import ErrorOut, Id, PageNumber, errors
from apps.jobs.api import kind_routes

router = Router(tags=["audit"])

BINARY = {"schema": {"type": "string", "format": "binary"}}


def _user(request: HttpRequest) -> Any:
    return request.auth  # type: ignore[attr-defined]


@router.get(
    "/audit/campaigns",
    response={200: Page[CampaignOut], **errors(403, 404, 422)},
    summary="Campaigns open to you (status: open, closed or all; default all)",
    description=WAS_A_BARE_LIST,
)
def campaigns_list(
    request: HttpRequest,
    status: Literal["open", "closed", "all"] = "all",
    page: PageNumber = 1,
    page_size: PageSize = 100,
) -> dict[str, Any]:
    campaigns = selectors.campaign_list(user=_user(request), status=status)
    out = api_out.campaign_out
    return paginate(request, campaigns, page=page, page_size=page_size, out=out)


@router.post(
    "/audit/campaigns",
    response={201: CampaignOut, **errors(403, 422, body=True)},
    summary="Create a campaign (admin)",
)
def campaigns_create(request: HttpRequest, payload: CampaignIn) -> Status[dict[str, Any]]:
    user = _user(request)
    campaign = services.campaign_create(user=user, **payload.dict())
    return Status(
        201, api_out.campaign_out(selectors.campaign_get(user=user, campaign_id=campaign.pk))
    )


@router.get(
    "/audit/campaigns/{campaign_id}",
    response={200: CampaignOut, **errors(403, 404, 422)},
    summary="One campaign",
)
def campaigns_get(request: HttpRequest, campaign_id: Id) -> dict[str, Any]:
    return api_out.campaign_out(
        selectors.campaign_get(user=_user(request), campaign_id=campaign_id)
    )


@router.post(
    "/audit/campaigns/{campaign_id}/close",
    response={200: CampaignOut, **errors(403, 404, 422)},
    summary="Close (admin)",
)
def campaigns_close(request: HttpRequest, campaign_id: Id) -> dict[str, Any]:
    user = _user(request)
    services.campaign_close(user=user, campaign_id=campaign_id)
    return api_out.campaign_out(selectors.campaign_get(user=user, campaign_id=campaign_id))


@router.post(
    "/audit/campaigns/{campaign_id}/probes",
    response={202: ProbesQueuedOut, **errors(403, 404, 422)},
    summary="Probe all: every tree of the campaign the gate may train on and nobody probed (admin)",
)
def campaigns_probe_all(request: HttpRequest, campaign_id: Id) -> Status[dict[str, Any]]:
    done = services.campaign_probe_all(user=_user(request), campaign_id=campaign_id)
    return Status(202, asdict(done))


@router.post(
    "/audit/probes",
    response={202: ProbesQueuedOut, **errors(403, 422, body=True)},
    summary="Probe all: the current tree of every task matching the filters, unprobed (admin)",
)
def tasks_probe_all(request: HttpRequest, payload: ProbeAllIn) -> Status[dict[str, Any]]:
    done = services.tasks_probe_all(user=_user(request), filters=payload.filters)
    return Status(202, asdict(done))


@router.post(
    "/audit/campaigns/{campaign_id}/claim",
    response={200: AssignmentOut, 204: None, **errors(403, 404, 409, 422)},
    summary="Next task: your current one, or a newly locked one (204 when none is left)",
)
def campaigns_claim(request: HttpRequest, campaign_id: Id) -> Any:
    assignment = services.assignment_claim_next(user=_user(request), campaign_id=campaign_id)
    if assignment is None:
        return Status(204, None)
    return api_out.assignment_out(
        selectors.assignment_get(user=_user(request), assignment_id=assignment.pk)
    )


@router.get(
    "/audit/assignments",
    response={200: Page[AssignmentOut], **errors(403, 404, 422)},
    summary="Your assignments, newest claim first",
    description=WAS_A_BARE_LIST,
)
def assignments_list(
    request: HttpRequest,
    campaign_id: Id | None = None,
    annotator_id: Id | None = None,
    page: PageNumber = 1,
    page_size: PageSize = 100,
) -> dict[str, Any]:
    rows = selectors.assignment_list(
        user=_user(request), campaign_id=campaign_id, annotator_id=annotator_id
    )
    out = api_out.assignment_out
    return paginate(request, rows, page=page, page_size=page_size, out=out)


@router.get(
    "/audit/assignments/{assignment_id}",
    response={200: AssignmentDetailOut, **errors(403, 404, 422)},
    summary="An assignment with the task, the current tree, your draft and judge suggestions",
)
def assignments_get(request: HttpRequest, assignment_id: Id) -> dict[str, Any]:
    assignment = selectors.assignment_get(user=_user(request), assignment_id=assignment_id)
    return api_out.assignment_detail_out(assignment)


DRAFT_409 = (
    "409: the draft was saved in another tab or on another device since base_revision; nothing "
    "was written, and the body holds the stored draft and what differs, node by node. (A 409 for "
    "a submitted task or a closed campaign carries only detail.)"
)


@router.put(
    "/audit/assignments/{assignment_id}/draft",
    response={
        200: DraftOut,
        **errors(403, 404, 422, body=True),
        409: DraftConflictOut | ErrorOut,
    },
    summary="Save a draft based on base_revision (409 with what differs when it moved on)",
    description=DRAFT_409,
)
def assignments_draft(request: HttpRequest, assignment_id: Id, payload: DraftIn) -> Any:
    user = _user(request)
    try:
        saved = services.assignment_draft_save(
            user=user,
            assignment_id=assignment_id,
            base_revision=payload.base_revision,
            draft=payload.dict(exclude={"base_revision"}),
        )
    except services.DraftConflict as exc:
        return Status(409, api_out.draft_conflict_out(exc))
    current = selectors.assignment_get(
        user=user, assignment_id=assignment_id
    ).item.task.current_version
    return {
        "saved_at": saved.draft["saved_at"],
        "lock_expires_at": saved.lock_expires_at,
        "current_version": current.number if current else 0,
        "draft_revision": saved.draft_revision,
    }


EDIT_409 = (
    "409: the tree moved on since base_version; the body names the newer version, the nodes "
    "in conflict, and whether the edit can be merged (sent again with merge: true). (A 409 for "
    "a submitted task or a closed campaign carries only detail.)"
)


def _conflict(exc: services.EditConflict) -> Status[dict[str, Any]]:
    body = {
        "detail": exc.message,
        "current_version": exc.current_version,
        "current_author": exc.current_author,
        "conflicts": list(exc.nodes),
        "mergeable": exc.mergeable,
    }
    return Status(409, body)


def _edit_out(result: services.EditResult) -> dict[str, Any]:
    return {
        "version": result.version.number,
        "merged": result.merged,
        "changes": [c.to_dict() for c in result.changes],
        "tree": result.version.tree,
    }


def _edited(
    service: Callable[..., services.EditResult],
    request: HttpRequest,
    assignment_id: int,
    payload: Schema,
) -> Status[dict[str, Any]]:
    """An edit or a revert saved (201), or the conflict that stopped it (409)."""
    try:
        result = service(user=_user(request), assignment_id=assignment_id, **payload.dict())
    except services.EditConflict as exc:
        return _conflict(exc)
    return Status(201, _edit_out(result))


@router.post(
    "/audit/assignments/{assignment_id}/edits",
    response={201: EditOut, **errors(403, 404, 422, body=True), 409: ConflictOut | ErrorOut},
    summary="Edit the tree: a new immutable version (409 names the newer version on a conflict)",
    description=EDIT_409,
)
def assignments_edit(request: HttpRequest, assignment_id: Id, payload: EditIn) -> Any:
    return _edited(services.assignment_edit, request, assignment_id, payload)


@router.post(
    "/audit/assignments/{assignment_id}/revert",
    response={201: EditOut, **errors(403, 404, 422, body=True), 409: ConflictOut | ErrorOut},
    summary="Undo an edit by saving an earlier version's tree again",
    description=EDIT_409,
)
def assignments_revert(request: HttpRequest, assignment_id: Id, payload: RevertIn) -> Any:
    return _edited(services.assignment_revert, request, assignment_id, payload)


@router.post(
    "/audit/assignments/{assignment_id}/submit",
    response={
        200: AssignmentOut,
        **errors(403, 404, 422, body=True),
        409: DraftConflictOut | ErrorOut,
    },
    summary="Submit (409 with what differs when the draft moved on since base_revision)",
    description=DRAFT_409,
)
def assignments_submit(request: HttpRequest, assignment_id: Id, payload: SubmissionIn) -> Any:
    user = _user(request)
    try:
        services.assignment_submit(user=user, assignment_id=assignment_id, **payload.dict())
    except services.DraftConflict as exc:
        return Status(409, api_out.draft_conflict_out(exc))
    return api_out.assignment_out(selectors.assignment_get(user=user, assignment_id=assignment_id))


@router.post(
    "/audit/assignments/{assignment_id}/release",
    response={200: AssignmentOut, **errors(403, 404, 409, 422)},
    summary="Skip",
)
def assignments_release(request: HttpRequest, assignment_id: Id) -> dict[str, Any]:
    user = _user(request)
    services.assignment_release(user=user, assignment_id=assignment_id)
    return api_out.assignment_out(selectors.assignment_get(user=user, assignment_id=assignment_id))


@router.get(
    "/audit/campaigns/{campaign_id}/agreement",
    response={200: AgreementOut, **errors(403, 404, 422)},
    summary="Agreement: kappa, alpha",
)
def campaigns_agreement(request: HttpRequest, campaign_id: Id) -> dict[str, Any]:
    return api_out.agreement_out(
        selectors.campaign_agreement(user=_user(request), campaign_id=campaign_id)
    )


@router.get(
    "/audit/campaigns/{campaign_id}/disputes",
    response={200: Page[DisputeOut], **errors(403, 404, 422)},
    summary="Disagreements for a reviewer, disputed decisions first (reviewer)",
    description=WAS_A_BARE_LIST,
)
def campaigns_disputes(
    request: HttpRequest, campaign_id: Id, page: PageNumber = 1, page_size: PageSize = 100
) -> dict[str, Any]:
    disputes = selectors.dispute_list(user=_user(request), campaign_id=campaign_id)
    return paginate(request, disputes, page=page, page_size=page_size, out=_dispute_out)


def _dispute_out(dispute: Dispute) -> dict[str, Any]:
    item = dispute.item
    return {
        "item_id": item.pk,
        "task_id": item.task_id,
        "question": item.task.question,
        "state": item.state,
        "decision_disputed": dispute.decision_disputed,
        "open_nodes": dispute.open_nodes,
    }


@router.get(
    "/audit/items/{item_id}",
    response={200: ItemOut, **errors(403, 404, 422)},
    summary="A campaign item with submissions",
)
def items_get(request: HttpRequest, item_id: Id) -> dict[str, Any]:
    user = _user(request)
    item = selectors.item_get(user=user, item_id=item_id)
    return api_out.item_out(item, selectors.item_submissions(user=user, item=item))


@router.post(
    "/audit/items/{item_id}/adjudicate",
    response={200: ItemOut, **errors(403, 404, 409, 422, body=True)},
    summary="Decide (reviewer)",
)
def items_adjudicate(request: HttpRequest, item_id: Id, payload: AdjudicationIn) -> dict[str, Any]:
    user = _user(request)
    services.item_adjudicate(user=user, item_id=item_id, **payload.dict())
    item = selectors.item_get(user=user, item_id=item_id)
    return api_out.item_out(item, selectors.item_submissions(user=user, item=item))


@router.post(
    "/audit/items/{item_id}/gold/take",
    response={200: ItemOut, **errors(403, 404, 422, body=True)},
    summary="Take one annotator's verdict on a node as its gold verdict (reviewer)",
)
def items_gold_take(request: HttpRequest, item_id: Id, payload: GoldTakeIn) -> dict[str, Any]:
    user = _user(request)
    services.gold_take(user=user, item_id=item_id, **payload.dict())
    item = selectors.item_get(user=user, item_id=item_id)
    return api_out.item_out(item, selectors.item_submissions(user=user, item=item))


@router.get(
    "/audit/quality",
    response={200: QualityOut, **errors(403, 422)},
    summary="Error rates with Wilson intervals",
)
def quality(request: HttpRequest, campaign_id: Id | None = None) -> dict[str, Any]:
    return api_out.quality_out(
        selectors.quality_report(user=_user(request), campaign_id=campaign_id)
    )


@router.post(
    "/audit/tasks/{task_id}/judge-verdicts",
    response={200: RecordedOut, **errors(403, 404, 422, body=True)},
    summary="Record judge verdicts (admin)",
)
def judge_verdicts(request: HttpRequest, task_id: Id, payload: JudgeVerdictsIn) -> dict[str, int]:
    count = services.judge_verdicts_record(user=_user(request), task_id=task_id, **payload.dict())
    return {"recorded": count}


@router.post(
    "/audit/campaigns/{campaign_id}/judge-solutions",
    response={202: QueuedOut, **errors(403, 404, 422)},
    summary="Judge each task's reference solution with QUESTWEB_JUDGE_MODEL (admin, queued)",
)
def judge_solutions(request: HttpRequest, campaign_id: Id) -> Status[dict[str, int]]:
    count = services.solutions_judge_enqueue(user=_user(request), campaign_id=campaign_id)
    return Status(202, {"queued_tasks": count})


@router.get(
    "/audit/training-tasks",
    response={200: TrainingPageOut, **errors(403, 404, 422)},
    summary="The training gate: accepted, probed-sound tasks with the version to train on",
    description="One page of the list envelope. `offset` and `limit` are deprecated (issue 38): "
    "they still page, with `next` and `previous` in their terms, for one release; send `page` "
    "and `page_size` instead (not both ways at once).",
)
def training_tasks(
    request: HttpRequest,
    page: PageNumber | None = None,
    page_size: PageSize = 100,
    offset: OldOffset = None,
    limit: OldLimit = None,
) -> dict[str, Any]:
    qs = selectors.training_task_list(user=_user(request))
    rows = qs.values_list("pk", "question", "audit_state", "gated_version_number")
    if offset is None and limit is None:
        return paginate(request, rows, page=page or 1, page_size=page_size, out=_training_task)
    if page is not None:
        raise Invalid("page and offset/limit are two ways to page: send one of them")
    return paginate_offset(
        request, rows, offset=offset or 0, limit=limit or page_size, out=_training_task
    )


def _training_task(row: tuple[int, str, str, int]) -> dict[str, Any]:
    pk, question, audit_state, version = row
    return {"task_id": pk, "question": question, "audit_state": audit_state, "version": version}


@router.get(
    "/audit/export.jsonl",
    response={200: None, **errors(403, 422)},
    summary="Audited tasks and audit records as streamed JSONL",
    openapi_extra={"responses": {200: {"content": {"application/x-ndjson": BINARY}}}},
)
def export_jsonl(request: HttpRequest, campaign_id: Id | None = None) -> StreamingHttpResponse:
    records = selectors.audit_records(user=_user(request), campaign_id=campaign_id)
    return stream_response(request, selectors.jsonl_chunks(records), "audit.jsonl")


@router.post(
    "/audit/exports",
    response={202: ExportOut, **errors(403, 404, 422, body=True)},
    summary="Build a parquet or HF export",
)
def exports_create(request: HttpRequest, payload: ExportIn) -> Status[dict[str, Any]]:
    job = services.export_enqueue(user=_user(request), **payload.dict())
    return Status(202, api_out.export_out(job))


kind_routes(
    router,
    kind=EXPORT,
    path="/audit/exports",
    param="export_id",
    out=ExportOut,
    summaries=(None, "An export's progress", None),
    names=(None, "exports_get", None),
    module=__name__,
)


@router.get(
    "/audit/exports/{export_id}/download",
    url_name="audit_export_download",
    response={200: None, **errors(403, 404, 422)},
    summary="Download a finished export (422 while it is not ready)",
    openapi_extra={
        "responses": {
            200: {"content": {"application/octet-stream": BINARY, "application/zip": BINARY}}
        }
    },
)
def exports_download(request: HttpRequest, export_id: Id) -> FileResponse:
    job = selectors.export_get(user=_user(request), export_id=export_id)
    path = services.export_path(job)
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
