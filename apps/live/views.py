from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.common.errors import DomainError
from apps.live import selectors, services
from apps.live.api import export_response
from apps.live.models import Pace, Policy, SessionStatus, Visibility
from apps.rubrics.tree_view import has_judge_leaves, tree_rows


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


def _filters(request: HttpRequest) -> selectors.SessionFilters:
    get = request.GET
    return selectors.SessionFilters(
        status=get.get("status", "")[:20],
        policy=get.get("policy", "")[:20],
        mine=get.get("mine") == "1",
        task_id=_int(get.get("task")),
        text=get.get("q", "")[:200],
    )


def _start_form(request: HttpRequest, typed: Any = None) -> dict[str, Any]:
    """The start form's values: the defaults the API applies too, or what the user typed when a
    start was refused (so a refusal never drops the question or the task)."""
    form = {
        "question": "",
        "task_id": request.GET.get("task", ""),
        "policy": Policy.SCRIPTED,
        "model": "",
        "compare": "",
        "max_turns": services.DEFAULT_BUDGETS["max_turns"],
        "condense_at_tokens": services.DEFAULT_BUDGETS["condense_at_tokens"],
        "visibility": services.DEFAULT_VISIBILITY,
        "pace": services.DEFAULT_PACE,
    }
    if typed is not None:
        form.update({key: typed.get(key, "") for key in form})
    return form


def _list_context(request: HttpRequest, typed: Any = None) -> dict[str, Any]:
    filters = _filters(request)
    sessions = selectors.session_list(user=request.user, filters=filters)
    page = Paginator(sessions, 25).get_page(request.GET.get("page"))
    kept = {k: v for k, v in request.GET.items() if k != "page" and v}
    allowed = services.policies_for(user=request.user)
    return {
        "page": page,
        "filters": filters,
        "querystring": urlencode(kept),
        "statuses": SessionStatus.choices,
        "policies": Policy.choices,
        "start_policies": [(v, label) for v, label in Policy.choices if v in allowed],
        "may_use_llm": Policy.LLM in allowed,
        "visibilities": Visibility.choices,
        "paces": Pace.choices,
        "models": selectors.model_options(),
        "form": _start_form(request, typed),
    }


@login_required
@require_GET
def session_list(request: HttpRequest) -> HttpResponse:
    context = _list_context(request)
    template = "live/session_list.html#results" if request.htmx else "live/session_list.html"  # type: ignore[attr-defined]
    return render(request, template, context)


def _session_request(post: Any) -> services.SessionRequest:
    return services.SessionRequest(
        question=post.get("question", ""),
        task_id=_int(post.get("task_id")),
        policy=post.get("policy", Policy.SCRIPTED),
        model=post.get("model", ""),
        max_turns=_int(post.get("max_turns")),
        condense_at_tokens=_int(post.get("condense_at_tokens")),
        visibility=post.get("visibility", Visibility.PUBLIC),
        pace=post.get("pace", Pace.REAL_TIME),
    )


def _compared(request: services.SessionRequest, compare: str) -> services.SessionRequest:
    """The second session of a comparison: the scripted policy, or the llm one with a model."""
    if compare == Policy.SCRIPTED:
        return replace(request, policy=Policy.SCRIPTED, model="")
    return replace(request, policy=Policy.LLM, model=compare)


@login_required
@require_POST
def session_create(request: HttpRequest) -> HttpResponse:
    post = request.POST
    wanted = _session_request(post)
    compare = post.get("compare", "")
    try:
        if compare:
            first, second = services.session_pair_create(
                user=request.user, request=wanted, other=_compared(wanted, compare)
            )
            return redirect("live:compare", a=first.public_id, b=second.public_id)
        session = services.session_create(user=request.user, request=wanted)
    except DomainError as exc:
        # The form comes back with the reason and everything typed in it.
        context = {**_list_context(request, typed=post), "form_error": exc.message}
        return render(request, "live/session_list.html", context, status=exc.status)
    return redirect("live:detail", public_id=session.public_id)


def _page_context(request: HttpRequest, public_id: Any) -> dict[str, Any]:
    session = selectors.session_get(user=request.user, public_id=public_id)
    version = session.task.current_version if session.task else None
    return {
        "session": session,
        "rows": tree_rows(version.tree) if version else [],
        "judge_leaves": has_judge_leaves(version.tree if version else None),
        "can_stop": session.owner_id == request.user.pk or selectors.can_manage(request.user),
    }


@login_required
@require_GET
def session_compare(request: HttpRequest, a: Any, b: Any) -> HttpResponse:
    """Two sessions side by side (the same question for two models): each streams as on its
    own page, with its report and reward."""
    panels = [{**_page_context(request, public_id), "compact": True} for public_id in (a, b)]
    return render(request, "live/compare.html", {"panels": panels})


@login_required
@require_GET
def session_detail(request: HttpRequest, public_id: Any) -> HttpResponse:
    return render(request, "live/session_detail.html", _page_context(request, public_id))


@login_required
@require_POST
def session_stop(request: HttpRequest, public_id: Any) -> HttpResponse:
    try:
        services.session_stop(user=request.user, public_id=public_id)
    except DomainError as exc:
        if request.htmx:  # type: ignore[attr-defined]
            return HttpResponse(exc.message, status=exc.status)
        messages.error(request, exc.message)
    if request.htmx:  # type: ignore[attr-defined]
        # Keeps the form's class: the page hides it once the run reports its end.
        return HttpResponse('<span class="muted stop-form" data-testid="stopping">stopping…</span>')
    return redirect("live:detail", public_id=public_id)


@login_required
@require_GET
def session_export(request: HttpRequest, public_id: Any) -> HttpResponseBase:
    session = selectors.session_get(user=request.user, public_id=public_id)
    return export_response(session, request.GET.get("format", "md"))
