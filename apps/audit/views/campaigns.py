from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.models import User
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.audit import selectors, services
from apps.audit.models import AssignmentStatus
from apps.common.errors import DomainError, Invalid
from apps.common.flash import flashed
from apps.rubrics.models import AuditState, TaskType
from apps.rubrics.selectors import task_facets
from apps.rubrics.services import ProbesQueued


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _can(request: HttpRequest, role: Role) -> bool:
    return bool(request.user.has_perm(ROLE_REQUIREMENT[role]))


@login_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    """Open campaigns unless ?status= asks for the closed ones or all of them."""
    user = _user(request)
    annotator = _can(request, Role.ANNOTATOR)
    active = selectors.assignment_list(user=user) if annotator else None
    shown = request.GET.get("status") or "open"
    context = {
        "campaigns": selectors.campaign_list(user=user, status=shown),
        "shown": shown,
        "states": selectors.CAMPAIGN_STATES,
        "active": (
            active.filter(annotator=user, status=AssignmentStatus.ACTIVE).select_related(
                "campaign"
            )[:20]
            if active is not None
            else []
        ),
        "can_annotate": annotator,
        "can_manage": _can(request, Role.ADMIN),
        "can_review": _can(request, Role.REVIEWER),
    }
    return render(request, "audit/campaign_list.html", context)


def _filters(data: Any) -> dict[str, str]:
    return {key: data.get(key, "")[:200] for key in selectors.FILTER_FIELDS if data.get(key)}


def _number(data: Any, key: str, default: int) -> int:
    try:
        return int(data.get(key) or default)
    except ValueError as exc:
        raise Invalid(f"{key.replace('_', ' ')} must be a whole number") from exc


def _form_context(request: HttpRequest) -> dict[str, Any]:
    user = _user(request)
    return {
        "facets": task_facets(user=user),
        "types": TaskType.choices,
        "audit_states": AuditState.choices,
        "people": selectors.annotator_choices(user=user),
        "values": request.POST or {"annotators_per_task": 2, "lock_minutes": 30},
        "chosen": {int(i) for i in request.POST.getlist("annotators") if i.isdigit()},
    }


@login_required
@require_http_methods(["GET", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    status = 200
    context = _form_context(request)  # refuses anyone but an admin
    if request.method == "POST":
        data = request.POST
        try:
            limit = _number(data, "limit", 0) or None
            campaign = services.campaign_create(
                user=user,
                name=data.get("name", ""),
                filters=_filters(data),
                annotators_per_task=_number(data, "annotators_per_task", 2),
                lock_minutes=_number(data, "lock_minutes", 30),
                annotator_ids=sorted(context["chosen"]),
                instructions=data.get("instructions", ""),
                limit=limit,
            )
        except DomainError as exc:
            context["form_error"], status = exc.message, exc.status
        else:
            messages.success(request, f"Campaign “{campaign.name}” created.")
            return redirect("audit:campaign", campaign_id=campaign.pk)
    return render(request, "audit/campaign_form.html", context, status=status)


@login_required
@require_GET
def campaign_match_count(request: HttpRequest) -> HttpResponse:
    count = selectors.tasks_matching_count(user=_user(request), filters=_filters(request.GET))
    return HttpResponse(f"{count} task{'s' if count != 1 else ''} with a tree match")


@login_required
@require_GET
def campaign_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    user = _user(request)
    campaign = selectors.campaign_get(user=user, campaign_id=campaign_id)
    reviewer = selectors.is_reviewer(user)
    context = {
        "campaign": campaign,
        "may_claim": selectors.campaign_may_claim(user=user, campaign=campaign),
        "judge_model": settings.LLM_JUDGE_MODEL,
        "mine": (
            selectors.assignment_list(user=user, campaign_id=campaign.pk).filter(annotator=user)[
                :50
            ]
            if _can(request, Role.ANNOTATOR)
            else None
        ),
        "exports": selectors.export_list(user=user).filter(campaign=campaign)[:10]
        if reviewer
        else [],
        "tasks": (
            selectors.campaign_task_rows(
                user=user, campaign_id=campaign.pk, page=request.GET.get("page") or 1
            )
            if reviewer
            else None
        ),
        "can_manage": _can(request, Role.ADMIN),
        "can_review": reviewer,
    }
    return render(request, "audit/campaign_detail.html", context)


@login_required
@require_POST
def campaign_next(request: HttpRequest, campaign_id: int) -> HttpResponse:
    assignment = services.assignment_claim_next(user=_user(request), campaign_id=campaign_id)
    if assignment is None:
        messages.info(request, "Nothing left for you in this campaign. Thank you!")
        return redirect("audit:campaign", campaign_id=campaign_id)
    return redirect("audit:assignment", assignment_id=assignment.pk)


CLOSE_CONFIRMATION = "close"


@login_required
@require_http_methods(["GET", "POST"])
def campaign_close(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """GET asks for confirmation; only a POST carrying it closes: closing cannot be undone here
    and cuts short the work of whoever holds a task."""
    user = _user(request)
    campaign = selectors.campaign_get(user=user, campaign_id=campaign_id)
    context = {
        "campaign": campaign,
        "work": selectors.campaign_open_work(user=user, campaign_id=campaign.pk),
        "confirmation": CLOSE_CONFIRMATION,
    }
    if request.method == "GET":
        return render(request, "audit/campaign_close.html", context)
    if request.POST.get("confirm") != CLOSE_CONFIRMATION:
        context["form_error"] = "Not closed: confirm on this page to close the campaign."
        return render(request, "audit/campaign_close.html", context, status=400)
    services.campaign_close(user=user, campaign_id=campaign.pk)
    messages.success(request, f"Campaign “{campaign.name}” is closed.")
    return redirect("audit:campaign", campaign_id=campaign_id)


@login_required
@require_POST
def campaign_judge(request: HttpRequest, campaign_id: int) -> HttpResponse:
    judge = partial(services.solutions_judge_enqueue, user=_user(request), campaign_id=campaign_id)
    flashed(
        request,
        judge,
        lambda count: (
            f"The judge will score the reference solutions of {count} tasks in the background."
        ),
    )
    return redirect("audit:campaign", campaign_id=campaign_id)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _probes_said(done: ProbesQueued) -> str:
    said = f"{_count(done.queued, 'probe')} queued, {_count(done.already, 'tree')} probed already"
    if done.skipped:
        said += f", {_count(len(done.skipped), 'task')} with no reference answer to probe with"
    return said + "."


@login_required
@require_POST
def campaign_probe(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Probe all: the campaign's trees the gate may train on and nobody probed."""
    probe = partial(services.campaign_probe_all, user=_user(request), campaign_id=campaign_id)
    flashed(request, probe, _probes_said)
    return redirect("audit:campaign", campaign_id=campaign_id)


@login_required
@require_GET
def campaign_agreement(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Agreement reads every verdict of the campaign, so the page loads it after itself."""
    agreement = selectors.campaign_agreement(user=_user(request), campaign_id=campaign_id)
    return render(request, "audit/_agreement.html", {"agreement": agreement})
