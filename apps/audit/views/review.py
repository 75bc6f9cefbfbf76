"""Reviewer pages: disagreements to adjudicate, the quality dashboard, exports."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.models import User
from apps.audit import charts, selectors, services
from apps.audit.models import Campaign, CampaignTask, ItemState
from apps.audit.rows import audit_rows
from apps.audit.services.exports import export_path
from apps.audit.streaming import stream_response
from apps.common.errors import DomainError, Invalid
from apps.rubrics.models import RubricVersion
from quest.audit.taxonomy import DECISIONS, ERROR_TYPES, VERDICTS


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


@login_required
@require_GET
def dispute_list(request: HttpRequest, campaign_id: int) -> HttpResponse:
    user = _user(request)
    campaign = selectors.campaign_get(user=user, campaign_id=campaign_id)
    disputes = selectors.dispute_list(user=user, campaign_id=campaign.pk)
    return render(request, "audit/disputes.html", {"campaign": campaign, "disputes": disputes})


def _gold(data: Any) -> dict[str, dict[str, str]]:
    gold = {}
    for key, verdict in data.items():
        if key.startswith("gold-") and verdict:
            node = key.removeprefix("gold-")
            gold[node] = {"verdict": verdict, "error_type": data.get(f"gold_type-{node}", "")}
    return gold


def _letter(index: int) -> str:
    """Annotators are A, B, C… on the adjudication page (and its keys a, b, c…)."""
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def _item_context(user: User, item: CampaignTask) -> dict[str, Any]:
    submissions = selectors.item_submissions(user=user, item=item)
    # Without None, which an `__in` lookup drops anyway.
    seen = {s.assignment.version_id for s in submissions if s.assignment.version_id is not None}
    ids = seen | {item.start_version_id}
    versions = list(RubricVersion.objects.filter(pk__in=ids).order_by("number"))
    newest = versions[-1]
    start_tree = next(v.tree for v in versions if v.pk == item.start_version_id)
    rows = audit_rows(newest.tree, selectors.judge_suggestions(task_id=item.task_id))
    shown = {row.id for row in rows}
    removed = sorted({n for s in submissions for n in s.labels} - shown)
    gold = {g.node_id: g for g in item.gold.all()}
    annotators = [(_letter(i), s) for i, s in enumerate(submissions)]
    table = [
        {
            "row": row,
            "labels": [(letter, s.assignment.pk, s.labels.get(row.id)) for letter, s in annotators],
            "gold": gold.get(row.id),
            "split": len({(s.labels.get(row.id) or {}).get("verdict") for s in submissions}) > 1,
        }
        for row in rows
    ]
    return {
        "item": item,
        "submissions": submissions,
        "annotators": annotators,
        "versions": versions,
        "newest": newest,
        # Fix-and-accept keeps a fixed tree: only offered when some annotator changed it.
        "edited": any(v.tree != start_tree for v in versions),
        "table": table,
        "removed": removed,
        "verdict_choices": VERDICTS,
        "error_types": ERROR_TYPES,
        "decisions": DECISIONS,
    }


def _next_dispute(user: User, item: CampaignTask) -> HttpResponse:
    remaining = [
        d
        for d in selectors.dispute_list(user=user, campaign_id=item.campaign_id)
        if d.item.pk != item.pk
    ]
    if remaining:
        return redirect("audit:item", item_id=remaining[0].item.pk)
    return redirect("audit:disputes", campaign_id=item.campaign_id)


@login_required
@require_http_methods(["GET", "POST"])
def item_adjudicate(request: HttpRequest, item_id: int) -> HttpResponse:
    user = _user(request)
    item = selectors.item_get(user=user, item_id=item_id)
    status, error = 200, ""
    if request.method == "POST":
        data = request.POST
        version = data.get("version", "")
        try:
            services.item_adjudicate(
                user=user,
                item_id=item.pk,
                decision=data.get("decision", ""),
                version=int(version) if version.isdigit() else None,
                gold=_gold(data),
                comment=data.get("comment", ""),
            )
        except DomainError as exc:
            status, error = exc.status, exc.message
        else:
            messages.success(request, f"Task {item.task_id} decided.")
            return _next_dispute(user, item)
    context = {**_item_context(user, item), "form_error": error}
    return render(request, "audit/item.html", context, status=status)


def _take_choice(raw: str) -> tuple[int, str]:
    assignment, _, node = raw.partition(":")
    if not assignment.isdigit() or not node:
        raise Invalid("say whose verdict to take as take=<assignment id>:<node id>")
    return int(assignment), node


@login_required
@require_POST
def item_take(request: HttpRequest, item_id: int) -> HttpResponse:
    """Take one annotator's verdict on one node as its gold verdict. An htmx request gets the
    node's row back; a plain form post returns to the page at that node."""
    user = _user(request)
    item = selectors.item_get(user=user, item_id=item_id)
    assignment_id, node_id = _take_choice(request.POST.get("take", ""))
    services.gold_take(user=user, item_id=item.pk, node_id=node_id, assignment_id=assignment_id)
    if not request.headers.get("HX-Request"):
        return redirect(f"{reverse('audit:item', args=[item.pk])}#node-{node_id}")
    context = _item_context(user, item)
    line = next((line for line in context["table"] if line["row"].id == node_id), None)
    if line is None:  # judged on an older version only: no row to show for it
        return HttpResponse(status=204)
    return render(request, "audit/item.html#line", {**context, "line": line})


def _campaign_choice(request: HttpRequest) -> Campaign | None:
    raw = request.GET.get("campaign", "")
    if not raw.isdigit():
        return None
    return selectors.campaign_get(user=_user(request), campaign_id=int(raw))


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    campaign = _campaign_choice(request)
    report = selectors.quality_report(user=user, campaign_id=campaign.pk if campaign else None)
    figures = {
        f"by {label}": charts.rate_chart(f"Wrong trees by {label}", rows)
        for label, rows in report.groups.items()
    }
    figures["by error type"] = charts.rate_chart("Trees with each error type", report.error_types)
    figures["throughput"] = charts.throughput_chart(report.annotators)
    figures["progress"] = charts.progress_chart(report.states, dict(ItemState.choices))
    context = {
        "report": report,
        "campaign": campaign,
        "figures": figures,
        "campaigns": selectors.campaign_list(user=user),
        "state_labels": dict(ItemState.choices),
    }
    return render(request, "audit/dashboard.html", context)


@login_required
@require_GET
def export_jsonl(request: HttpRequest, campaign_id: int) -> StreamingHttpResponse:
    records = selectors.audit_records(user=_user(request), campaign_id=campaign_id)
    return stream_response(
        request, selectors.jsonl_chunks(records), f"audit-campaign-{campaign_id}.jsonl"
    )


@login_required
@require_POST
def export_create(request: HttpRequest, campaign_id: int) -> HttpResponse:
    job = services.export_enqueue(
        user=_user(request), format=request.POST.get("format", ""), campaign_id=campaign_id
    )
    return render(request, "audit/campaign_detail.html#export", {"job": job})


@login_required
@require_GET
def export_status(request: HttpRequest, export_id: int) -> HttpResponse:
    job = selectors.export_get(user=_user(request), export_id=export_id)
    return render(request, "audit/campaign_detail.html#export", {"job": job})


@login_required
@require_GET
def export_download(request: HttpRequest, export_id: int) -> FileResponse:
    path = export_path(selectors.export_get(user=_user(request), export_id=export_id))
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
